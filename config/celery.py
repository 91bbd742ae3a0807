"""The Celery app: one for web and workers, configured from Django settings (CELERY_*)."""

import logging
import os

from celery import Celery
from celery.signals import worker_process_init, worker_ready

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

app = Celery("paperscope")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

logger = logging.getLogger("paperscope")


def _warm_tagger() -> None:
    """Load the tagger before the first task needs it: an unknown id the extension asked about
    should not wait for the model (about 1.5-5 s) on top of arXiv's answer."""
    try:
        from topics.selectors import tagger_get

        tagger_get()
    except Exception:  # a worker without a loaded taxonomy still serves every other task
        logger.exception("could not preload the tagger; it loads on first use")


@worker_process_init.connect
def _warm_pool_process(**kwargs) -> None:
    _warm_tagger()


@worker_ready.connect
def _warm_solo_worker(sender=None, **kwargs) -> None:
    # Prefork children warmed themselves above; the solo and thread pools run tasks here.
    if sender is not None and "prefork" not in type(sender.pool).__module__:
        _warm_tagger()
