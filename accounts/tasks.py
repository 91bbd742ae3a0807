"""Celery tasks of the accounts app: digests. Thin: services.delivery holds the logic.

Task names are a public API (messages already queued carry them): rename with care.
"""

from __future__ import annotations

from functools import partial

from celery import shared_task
from django.db import transaction


@shared_task(name="accounts.send_digests")
def send_digests_task(frequency: str | None = None) -> str:
    """Plan the digests due now and queue them in batches (the beat schedule's entry point)."""
    from accounts.services.delivery import digests_plan, run_pending_ids

    run = digests_plan(frequency=frequency, trigger=f"schedule:{frequency or 'all'}")
    queued = digests_queue(run_pending_ids(run))
    return f"run {run.pk}: {run.planned} planned, {queued} batches"


# acks_late: a worker killed mid-batch gives the message back; the claims already made keep
# anyone from getting a second copy, and the resume task takes over the one in flight.
@shared_task(name="accounts.send_digest_batch", acks_late=True, soft_time_limit=20 * 60,
             time_limit=25 * 60)  # fmt: skip
def send_digest_batch_task(delivery_ids: list[int]) -> str:
    from accounts.services.delivery import delivery_batch_send

    return delivery_batch_send(delivery_ids=delivery_ids).summary()


@shared_task(name="accounts.resume_digests")
def resume_digests_task() -> int:
    """Queue failed sends whose backoff is over and digests whose worker died."""
    from accounts.services.delivery import deliveries_due

    return digests_queue(deliveries_due())


def digests_queue(delivery_ids: list[int]) -> int:
    """Queue batches of deliveries (after the current transaction commits); returns batches."""
    from accounts.services.delivery import batches

    chunks = batches(delivery_ids)
    for chunk in chunks:
        transaction.on_commit(partial(send_digest_batch_task.delay, chunk))
    return len(chunks)


@shared_task(name="accounts.import_list", acks_late=True)
def import_list_task(job_id: int) -> str:
    """A large import (accounts.services.import_jobs); returns quietly if the job is gone."""
    from accounts.services.import_jobs import import_job_run

    return import_job_run(job_id=job_id)
