"""The WSGI entry point (gunicorn: config/gunicorn.py; runserver: WSGI_APPLICATION)."""

import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")


def freeze_loaded_app() -> int:
    """Load every view now and take what is loaded out of the garbage collector's sight.

    A 2,000-id lookup allocates enough objects to set off a full collection every request or
    two, and a full collection walks every object alive: ~130,000 of Django and the app, about
    65 ms on our machines (docs/benchmarks.md). Those objects live as long as the process, so
    gc.freeze() moves them to a generation the collector never walks. Under gunicorn's
    preload_app this runs once in the master, and the forked workers also share those pages
    instead of copying them when the collector would have touched them.
    """
    get_resolver().url_patterns  # noqa: B018 - imports every view, serializer and form module
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


application = get_wsgi_application()
freeze_loaded_app()
