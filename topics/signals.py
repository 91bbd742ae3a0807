"""Editing a topic re-tags the papers it may change, in the background (issue 4, item 3).

A change of a topic's name, description, aliases, keywords, categories, parent or active flag
(in the admin, through ``load_taxonomy`` or in code) queues ``topics.retag_topics`` once the
transaction commits. Every topic changed in one transaction rides in one task: a taxonomy reload
that edits 300 topics queues one task, not 300. Nothing is queued if the transaction rolls back.
"""

from __future__ import annotations

import logging
import threading

from django.db import transaction
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver
from django.utils import timezone

from topics.models import Topic

logger = logging.getLogger(__name__)

# What the tagger reads from a topic (slug never changes; position/area/depth follow these).
RETAG_FIELDS = ("name", "description", "aliases", "keywords", "categories", "parent_id", "active")
_UPDATE_NAMES = {f.removesuffix("_id") for f in RETAG_FIELDS} | set(RETAG_FIELDS)
_SKIP = object()


@receiver(pre_save, sender=Topic, dispatch_uid="topics-retag-remember")
def topic_remember_before_save(sender, instance, raw=False, update_fields=None, **kwargs):
    if raw or instance.pk is None:
        instance._retag_before = None
        return
    if update_fields is not None and not _UPDATE_NAMES.intersection(update_fields):
        instance._retag_before = _SKIP
        return
    instance._retag_before = (
        Topic.objects.filter(pk=instance.pk).values(*RETAG_FIELDS).first() or _SKIP
    )


@receiver(post_save, sender=Topic, dispatch_uid="topics-retag-queue")
def topic_queue_retag(sender, instance, created, raw=False, **kwargs):
    if raw:
        return
    before = instance.__dict__.pop("_retag_before", None)
    if created:
        changed = instance.active
    elif before is _SKIP or before is None:
        changed = False
    else:
        changed = any(before[f] != getattr(instance, f) for f in RETAG_FIELDS)
    if changed:
        topic_retag_queue(instance.pk)


class _Batch:
    """Topic ids changed in one transaction; flushed (one task) when it commits."""

    def __init__(self, topic_id: int):
        self.ids = {topic_id}
        self.flushed = False

    def flush(self) -> None:
        self.flushed = True
        ids = sorted(self.ids)
        if not ids:
            return
        from topics.tasks import retag_topics_task

        retag_topics_task.delay(ids, timezone.now().isoformat())


_local = threading.local()


def topic_retag_queue(topic_id: int) -> None:
    """Re-tag this topic's papers after the current transaction commits (at once outside one)."""
    batch = getattr(_local, "batch", None)
    connection = transaction.get_connection()
    if batch is not None and not batch.flushed and connection.in_atomic_block:
        # Ride along only in the same (savepoint of the) transaction the batch waits for.
        here = set(connection.savepoint_ids)
        for sids, callback, *_ in connection.run_on_commit:
            if callback == batch.flush and set(sids) == here:
                batch.ids.add(topic_id)
                return
    batch = _local.batch = _Batch(topic_id)
    transaction.on_commit(batch.flush, robust=True)
