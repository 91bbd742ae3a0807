"""Test settings: the base settings with a throwaway key, fast hashing and eager Celery."""

import os
import tempfile

os.environ.setdefault("DEBUG", "0")
os.environ.setdefault("SECRET_KEY", "test-only-" + "x" * 40)
os.environ.setdefault("PAPERSCOPE_DATA_DIR", tempfile.mkdtemp(prefix="paperscope-test-"))
os.environ.setdefault("ALLOWED_HOSTS", "testserver,127.0.0.1,localhost")

from config.settings.base import *  # noqa: E402,F403
from config.settings.base import REDIS_URL  # noqa: E402

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
ARXIV_REQUEST_DELAY = 0.0
# Tests never reach the real arXiv: on-demand fetches run only where a test turns them on and
# points the client at the fake server; any other request is refused on the discard port.
ARXIV_FETCH_ON_DEMAND = False
ARXIV_OAI_URL = "http://127.0.0.1:9/oai"
ARXIV_RSS_URL = "http://127.0.0.1:9/rss"
ARXIV_API_URL = "http://127.0.0.1:9/api/query"
# Enrichment is off unless a test points it at the fake OpenAlex (tests/fake_openalex.py).
OPENALEX_URL = ""
OPENALEX_REQUEST_DELAY = 0.0
ARXIV_HTML_URL = "http://127.0.0.1:9/html"
ARXIV_PDF_URL = "http://127.0.0.1:9/pdf"
LLM_BASE_URL = None  # Ask tests point it at their fake model server
if not REDIS_URL:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Tests render pages without running collectstatic first: plain static names, no manifest.
# (tests/test_deployment.py runs the production settings with the release command.)
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Whitenoise looks for STATIC_ROOT at start-up; the test data folder is new on every run.
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # noqa: F405

# Threads in the tests (gate, concurrency, live server) must not leave connections behind that
# keep PostgreSQL from dropping the test database at the end.
DATABASES["default"]["CONN_MAX_AGE"] = 0  # noqa: F405
