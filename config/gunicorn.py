"""gunicorn's configuration: `gunicorn -c config/gunicorn.py config.wsgi` (docs/deployment.md).

Every value can be changed from the environment without editing this file; gunicorn's own
GUNICORN_CMD_ARGS works too. The worker count is the one the load test measured best on a
2-core host (docs/load.md).
"""

import os

from config.env import env_int, env_str

bind = env_str("GUNICORN_BIND", "127.0.0.1:8000")
worker_class = "gthread"
workers = env_int("WEB_CONCURRENCY", 2 * (os.cpu_count() or 1), minimum=1)
threads = env_int("GUNICORN_THREADS", 2, minimum=1)
# Load the app once in the master: config.wsgi freezes what is loaded (gc.freeze) before the
# workers fork, so they start at once and share those pages.
preload_app = True
# A request that takes longer than this is a bug or a stuck database: the worker is replaced.
timeout = env_int("GUNICORN_TIMEOUT", 30, minimum=1)
graceful_timeout = 30
keepalive = 5
# Recycle workers now and then, staggered, so that slow growth in one can't build up.
max_requests = env_int("GUNICORN_MAX_REQUESTS", 5000, minimum=0)
max_requests_jitter = max_requests // 10
# Bodies: the largest legitimate one is a 2,000-id lookup (~30 KB) or a list import (Django
# caps request bodies at DATA_UPLOAD_MAX_MEMORY_SIZE); headers and request lines stay small.
limit_request_line = 8190
limit_request_fields = 100
forwarded_allow_ips = env_str("FORWARDED_ALLOW_IPS", "127.0.0.1")
# gunicorn 25+ opens a control socket at one fixed path in the home directory: a second gunicorn
# on the host (another instance, a test, the load benchmark) would take it over. Nothing here
# uses it (systemd and signals manage the processes), so it stays closed.
control_socket_disable = True

# One JSON object per request on stdout (config.gunicorn_logging), beside the app's JSON log
# lines on stderr.
accesslog = "-"
errorlog = "-"
loglevel = env_str("GUNICORN_LOG_LEVEL", "info")
logger_class = "config.gunicorn_logging.JsonAccessLogger"
