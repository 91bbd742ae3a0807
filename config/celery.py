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


def _keep_workers_alive_when_redis_goes_away() -> None:
    """Work around a crash of Celery/kombu 5.7 (tests/faults/test_redis_outage.py).

    When the Redis connection drops while the worker holds unacknowledged messages (a task
    running with acks_late, a countdown task waiting for its time), the consumer closes the
    broken connection, then closes its channel again; that second close tries to give the
    messages back through a transport that is already torn down, raises AttributeError, and
    the worker exits with "Unrecoverable error" instead of reconnecting. Skipping that give-back
    loses nothing: Redis keeps every delivered message in its "unacked" hash and hands it out
    again after the visibility timeout, as after a kill -9.
    """
    # TODO [2027-06-01]: drop when a kombu release guards QoS.restore_unacked itself.
    from kombu.transport import redis as kombu_redis

    give_back = kombu_redis.QoS.restore_unacked

    def restore_unacked(self, client=None):
        transport = getattr(self.channel, "connection", None)
        if client is None and getattr(transport, "client", None) is None:
            logger.warning(
                "broker connection lost with %d unacknowledged message(s); Redis delivers "
                "them again after the visibility timeout",
                len(self._delivered),
            )
            return None
        return give_back(self, client)

    kombu_redis.QoS.restore_unacked = restore_unacked  # type: ignore[method-assign]  # the patch


_keep_workers_alive_when_redis_goes_away()


def _warm_tagger() -> None:
    """Load the tagger before the first task needs it: an unknown id the extension asked about
    should not wait for the model (about 1.5-5 s) on top of arXiv's answer."""
    try:
        from topics.runtime import tagger_get

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
