"""Paperscope settings. Everything that differs between a laptop and a server comes from the
environment through config.env; nothing exists only in production settings."""

from __future__ import annotations

import zoneinfo
from pathlib import Path

from csp.constants import NONE, SELF

from config.env import (
    ImproperlyConfiguredEnv,
    database_from_url,
    env_bool,
    env_choice,
    env_email,
    env_float,
    env_int,
    env_list,
    env_str,
    env_url,
    secret_key,
)

BASE_DIR = Path(__file__).resolve().parent.parent.parent
DATA_DIR = Path(env_str("PAPERSCOPE_DATA_DIR", str(BASE_DIR / "var")) or BASE_DIR / "var")

DEBUG = env_bool("DEBUG", default=False)
SECRET_KEY = secret_key("SECRET_KEY", debug=DEBUG, data_dir=DATA_DIR)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI for /api/docs/ as static files (no CDN)
    "csp",
    "config",
    "papers",
    "topics",
    "accounts",
    "ask",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.middleware.ApiJsonErrorsMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "config.middleware.DatabaseUnavailableMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

# --- Security headers -----------------------------------------------------------------------
# Every page loads its scripts and styles from our own origin (no inline script, no inline style),
# so the policy can be strict. The extension's connect page hands its token over with
# window.postMessage from static/accounts/connect.js, which 'self' allows; the extension's own
# requests are governed by its host permissions and our CORS answers, not by this header.
# https://django-csp.readthedocs.io/en/latest/configuration.html
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "connect-src": [SELF],
        "font-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True

# PAPERSCOPE_HTTPS=1 says the site is reached over TLS (directly or through a proxy that sets
# X-Forwarded-Proto, with SECURE_PROXY_SSL_HEADER=1): cookies become Secure, plain HTTP redirects
# to HTTPS and browsers are told to stay on HTTPS (HSTS). /healthz stays reachable over plain
# HTTP for load balancers and process supervisors on the host.
HTTPS = env_bool("PAPERSCOPE_HTTPS", default=False)
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_SSL_REDIRECT = HTTPS and env_bool("SECURE_SSL_REDIRECT", default=True)
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 365 * 24 * 60 * 60, minimum=0) if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=True)
if env_bool("SECURE_PROXY_SSL_HEADER", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# The embedded default is one SQLite file under the data folder; DATABASE_URL moves to PostgreSQL.
DATABASES = {
    "default": database_from_url("DATABASE_URL", f"sqlite:///{DATA_DIR / 'paperscope.sqlite3'}"),
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = DATA_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # In production whitenoise serves files collected by the release command (docs/deployment.md)
    # under content-hashed names, compressed, with a ten-year lifetime; `make run` (DEBUG) serves
    # them straight from static/ as they are edited.
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# --- Accounts ---------------------------------------------------------------------------------
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "accounts-feed"
LOGOUT_REDIRECT_URL = "home"

# E-mail (password resets, digests). Console by default: a laptop install prints the mail in the
# log. Set EMAIL_HOST (and friends) to send real mail over SMTP.
EMAIL_HOST = env_str("EMAIL_HOST", "") or ""
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "django.core.mail.backends.console.EmailBackend",
)
EMAIL_PORT = env_int("EMAIL_PORT", 587, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "") or ""
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "") or ""
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", default=True)
EMAIL_TIMEOUT = 10
DEFAULT_FROM_EMAIL = env_email("DEFAULT_FROM_EMAIL", "paperscope@localhost.localdomain")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

# The address people reach the site at (scheme and host). Links in mail (password resets,
# digests) are built from it, never from the request's Host header, which a client chooses.
SITE_URL = env_url("SITE_URL", "http://127.0.0.1:8000", schemes=("http", "https"))

# Digests (accounts.services.delivery). Links in the mail point at DIGEST_BASE_URL (by default
# SITE_URL); weekly digests go out on the chosen weekday in DIGEST_TIMEZONE.
DIGEST_BASE_URL = env_url("DIGEST_BASE_URL", SITE_URL, schemes=("http", "https"))
DIGEST_TIMEZONE = env_str("DIGEST_TIMEZONE", "America/New_York") or "America/New_York"
try:
    zoneinfo.ZoneInfo(DIGEST_TIMEZONE)
except (zoneinfo.ZoneInfoNotFoundError, ValueError):
    raise ImproperlyConfiguredEnv(
        "DIGEST_TIMEZONE", "must be a time zone such as Europe/Paris"
    ) from None
DIGEST_BATCH_SIZE = env_int("DIGEST_BATCH_SIZE", 50, minimum=1)  # deliveries per Celery task
DIGEST_MAX_ATTEMPTS = env_int("DIGEST_MAX_ATTEMPTS", 6, minimum=1)
DIGEST_RETRY_SECONDS = env_int("DIGEST_RETRY_SECONDS", 5 * 60, minimum=1)  # doubles per attempt
# A claim older than this belongs to a worker that died: the digest is sent by the next one.
# Far longer than one send can take (EMAIL_TIMEOUT), or two workers could both be sending it.
DIGEST_CLAIM_LEASE_SECONDS = env_int("DIGEST_CLAIM_LEASE_SECONDS", 15 * 60, minimum=60)
DIGEST_MAX_PAPERS_PER_TOPIC = env_int("DIGEST_MAX_PAPERS_PER_TOPIC", 30, minimum=1)
DIGEST_SAVE_LINK_DAYS = env_int("DIGEST_SAVE_LINK_DAYS", 30, minimum=1)  # one-click save links
# Papers that arrived this recently and are not tagged yet hold the digest's cut-off back, so
# they come in the next digest instead of never.
DIGEST_TAGGING_GRACE_SECONDS = env_int("DIGEST_TAGGING_GRACE_SECONDS", 6 * 60 * 60, minimum=0)

# --- Redis (optional): broker, cache and the cross-worker arXiv request lock -----------------
REDIS_URL = env_url("REDIS_URL", None, schemes=("redis", "rediss"))

if REDIS_URL:
    # django-redis, because a Redis outage must cost the cache, not the site: IGNORE_EXCEPTIONS
    # turns a cache call that cannot reach Redis into a miss (get gives the default, set and add
    # do nothing, so throttles and the on-demand fetch's coalescing skip their turn) instead of a
    # 500, and the timeouts bound what each call can wait (docs/faults.md, "Redis outage").
    # https://github.com/jazzband/django-redis#memcached-exceptions-behavior
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {
                "IGNORE_EXCEPTIONS": True,
                "SOCKET_CONNECT_TIMEOUT": 0.5,
                "SOCKET_TIMEOUT": 0.5,
            },
        }
    }
else:
    # A file cache is shared by the web and worker processes of the embedded default.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(DATA_DIR / "cache"),
        }
    }

# --- Celery ------------------------------------------------------------------------------------
# https://docs.celeryq.dev/en/stable/userguide/configuration.html
BROKER_DIR = DATA_DIR / "broker"
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object]
if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    # Longer than the longest task (the nightly OAI-PMH catch-up), or Redis re-delivers it mid-run.
    # It is also how long a task whose worker died (kill -9, OOM, a lost host) waits before
    # another worker gets it again (docs/faults.md); the fault tests shorten it.
    # https://docs.celeryq.dev/en/stable/getting-started/backends-and-brokers/redis.html#visibility-timeout
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 2 * 60 * 60, minimum=1)
    }
else:
    # kombu's filesystem transport: a real broker between processes that needs no server.
    # https://docs.celeryq.dev/projects/kombu/en/stable/reference/kombu.transport.filesystem.html
    CELERY_BROKER_URL = "filesystem://localhost//"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        "polling_interval": 0.5,
    }
    for folder in ("queue", "processed", "control"):
        (BROKER_DIR / folder).mkdir(parents=True, exist_ok=True)
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True  # a worker killed mid-task gives the message back
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = 60 * 60
CELERY_TASK_TIME_LIMIT = 65 * 60
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_ALWAYS_EAGER = False
# Crontabs below read in arXiv's own time zone: announcements go out Sun-Thu 20:00 US Eastern.
CELERY_TIMEZONE = "America/New_York"
CELERY_BEAT_SCHEDULE_FILENAME = str(DATA_DIR / "celerybeat-schedule")
from config.settings.schedule import CELERY_BEAT_SCHEDULE  # noqa: E402, F401

# --- arXiv -----------------------------------------------------------------------------------
ARXIV_CONTACT_EMAIL = env_email("ARXIV_CONTACT_EMAIL", "paperscope-operator@localhost.localdomain")
ARXIV_OAI_URL = env_url("ARXIV_OAI_URL", "https://oaipmh.arxiv.org/oai", schemes=("http", "https"))
ARXIV_RSS_URL = env_url("ARXIV_RSS_URL", "https://rss.arxiv.org/rss", schemes=("http", "https"))
ARXIV_API_URL = env_url(
    "ARXIV_API_URL", "https://export.arxiv.org/api/query", schemes=("http", "https")
)
ARXIV_REQUEST_DELAY = env_float("ARXIV_REQUEST_DELAY", 3.0, minimum=0.0)
# --- OpenAlex (papers.services.enrich): affiliations and citation counts ----------------------
# Empty OPENALEX_URL turns enrichment off; unreachable, it is said once and tried again later.
OPENALEX_URL = env_str("OPENALEX_URL", "https://api.openalex.org")
if OPENALEX_URL and OPENALEX_URL.lower() not in ("off", "none"):
    OPENALEX_URL = env_url("OPENALEX_URL", OPENALEX_URL, schemes=("http", "https"))
else:
    OPENALEX_URL = ""
# The polite pool: OpenAlex asks for a contact address with every request.
OPENALEX_MAILTO = env_email("OPENALEX_MAILTO", ARXIV_CONTACT_EMAIL)
OPENALEX_API_KEY = env_str("OPENALEX_API_KEY", "")
# OpenAlex allows 100 requests a second; one every 0.2 s across workers is far inside that.
OPENALEX_REQUEST_DELAY = env_float("OPENALEX_REQUEST_DELAY", 0.2, minimum=0.0)
OPENALEX_TIMEOUT = env_float("OPENALEX_TIMEOUT", 30.0, minimum=0.1)

# A worker killed during a request to arXiv still holds the politeness gate: every worker's arXiv
# requests wait until this lease runs out (papers.clients.gate; docs/faults.md).
ARXIV_GATE_LEASE_SECONDS = env_float("ARXIV_GATE_LEASE_SECONDS", 300.0, minimum=1.0)
ARXIV_CATEGORIES = env_list("ARXIV_CATEGORIES", ["cs.LG", "cs.AI", "cs.CL", "cs.CV", "stat.ML"])
ARXIV_OAI_SETS = env_list("ARXIV_OAI_SETS", ["cs", "stat"])
# Fetch ids the extension asks about and we lack from the query API, seconds after the request.
ARXIV_FETCH_ON_DEMAND = env_bool("ARXIV_FETCH_ON_DEMAND", default=True)

# --- REST framework ------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PAGINATION_CLASS": None,
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    # Session and Bearer token only. DRF's default adds HTTP Basic, which checked passwords on
    # every public view outside the throttles and the sign-in brake (docs/security.md).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Atomic counters (accounts.ratelimit): DRF's throttles race under parallel requests.
    "DEFAULT_THROTTLE_CLASSES": [
        "accounts.throttling.AnonThrottle",
        "accounts.throttling.UserThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env_str("THROTTLE_ANON", "600/min"),
        "user": env_str("THROTTLE_USER", "1200/min"),
    },
    # How many reverse proxies stand in front of gunicorn. The per-address throttles key on the
    # connection's address (0) or on the address the outermost trusted proxy saw (the Nth entry
    # from the end of X-Forwarded-For): never on the whole header, which a client can make up to
    # get a fresh allowance with every request.
    "NUM_PROXIES": env_int("NUM_PROXIES", 0, minimum=0),
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Paperscope API",
    "DESCRIPTION": "Topic tags for arXiv papers, topic momentum, follows and reading lists.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
}

# --- Logging ------------------------------------------------------------------------------
# One line per record on stderr, where gunicorn, Celery and any process supervisor collect it.
# LOG_FORMAT=json (the default when DEBUG is off) writes one JSON object per line for a log
# pipeline; plain is for reading in a terminal (make run).
LOG_LEVEL = env_str("LOG_LEVEL", "INFO")
LOG_FORMAT = env_choice("LOG_FORMAT", ("plain", "json"), "plain" if DEBUG else "json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"},
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(process)d %(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
            "timestamp": False,
        },
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "paperscope": {"handlers": ["console"], "level": LOG_LEVEL, "propagate": False},
        "papers": {"handlers": ["console"], "level": LOG_LEVEL, "propagate": False},
        "topics": {"handlers": ["console"], "level": LOG_LEVEL, "propagate": False},
        "accounts": {"handlers": ["console"], "level": LOG_LEVEL, "propagate": False},
        "ask": {"handlers": ["console"], "level": LOG_LEVEL, "propagate": False},
    },
}

PAPERSCOPE_VERSION = "0.1.0"
TAGGER_BATCH_SIZE = env_int("TAGGER_BATCH_SIZE", 500, minimum=1)
# The refined tagging stage (topics.refine_tags): the worker re-tags papers with the contextual
# encoder minutes after the fast path tagged them. Off: the fast path's tags stay.
TAGGER_REFINED = env_bool("TAGGER_REFINED", default=True)

# --- Ask (issue 16): answers grounded in the papers ---------------------------------------------
# An OpenAI-compatible chat completions server (Ollama, vLLM, llama.cpp, a hosted provider); unset,
# Ask answers with the best passages instead. docs/ask.md has the details.
LLM_BASE_URL = env_url("LLM_BASE_URL", None, schemes=("http", "https"))
LLM_MODEL = env_str("LLM_MODEL", "")
LLM_API_KEY = env_str("LLM_API_KEY", "")
LLM_TIMEOUT = env_float("LLM_TIMEOUT", 20.0, minimum=1.0)  # seconds for the whole answer
ASK_QUESTION_MAX_CHARS = env_int("ASK_QUESTION_MAX_CHARS", 500, minimum=20)
ASK_RATE_USER = env_str("ASK_RATE_USER", "30/hour")  # per signed-in user (per address if anonymous)
ASK_RATE_ADDRESS = env_str("ASK_RATE_ADDRESS", "60/hour")  # per client address, whoever asks
ASK_CACHE_SECONDS = env_int("ASK_CACHE_SECONDS", 24 * 60 * 60, minimum=0)
ASK_FULLTEXT_FETCH = env_bool("ASK_FULLTEXT_FETCH", default=True)
ARXIV_HTML_URL = env_url("ARXIV_HTML_URL", "https://arxiv.org/html", schemes=("http", "https"))
ARXIV_PDF_URL = env_url("ARXIV_PDF_URL", "https://arxiv.org/pdf", schemes=("http", "https"))
