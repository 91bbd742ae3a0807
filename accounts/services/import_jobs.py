"""Large imports as a Celery task with progress, so a web worker is never held by one.

The request checks the file cheaply (imports.import_precheck) and stores it in an ImportJob; the
task parses it once and saves it in one transaction, reporting progress through the cache (a
transaction's own rows are invisible to the page that polls). A failure saves nothing and says
so on the job.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

from accounts.errors import AccountsError, NotFoundError
from accounts.models import ImportJob
from accounts.services import imports as import_services

logger = logging.getLogger(__name__)
PROGRESS_TIMEOUT = 6 * 60 * 60
# A job still waiting after this long lost its task (a broker outage): say so, not "queued".
STALE_AFTER = timedelta(hours=1)


def _progress_key(job_id: int) -> str:
    return f"accounts:import-job:{job_id}:progress"


def import_job_create(*, user, list_id: int, content: str, fmt: str) -> ImportJob:
    """Store the file and queue its import after commit. The list must be the user's."""
    from accounts.selectors import reading_list_get

    reading_list = reading_list_get(user=user, list_id=list_id)
    job = ImportJob(user=user, reading_list=reading_list, format=fmt, content=content)
    job.full_clean()
    job.save()
    from accounts.tasks import import_list_task

    transaction.on_commit(lambda: import_list_task.delay(job.pk))
    return job


def import_job_run(*, job_id: int) -> str:
    """Parse and import one queued job; returns a summary. A job that is gone or was claimed by
    another worker is left alone."""
    claimed = ImportJob.objects.filter(pk=job_id, status=ImportJob.Status.QUEUED).update(
        status=ImportJob.Status.RUNNING
    )
    if not claimed:
        return "not queued"
    job = ImportJob.objects.select_related("user").get(pk=job_id)

    def progress(done: int, total: int) -> None:
        cache.set(_progress_key(job_id), [done, total], timeout=PROGRESS_TIMEOUT)

    try:
        parsed = import_services.import_parse(content=job.content, fmt=job.format)
        progress(0, len(parsed.entries))
        report = import_services.list_import(
            user=job.user, list_id=job.reading_list_id, parsed=parsed, progress=progress
        )
    except AccountsError as error:
        return _finish(job, status=ImportJob.Status.FAILED, error=error.detail)
    except Exception:
        logger.exception("import job %s failed", job_id)
        return _finish(job, status=ImportJob.Status.FAILED, error="The import failed; nothing "
                       "was saved. Try again, or split the file.")  # fmt: skip
    return _finish(
        job,
        status=ImportJob.Status.DONE,
        total=len(parsed.entries),
        result=report.as_dict(),
    )


def _finish(job: ImportJob, *, status: str, error: str = "", total=None, result=None) -> str:
    job.status = status
    job.error = error
    job.content = ""  # the file is not kept once read
    job.total = job.total if total is None else total
    job.done = job.total if status == ImportJob.Status.DONE else 0
    job.result = result or {}
    job.finished_at = timezone.now()
    job.save(update_fields=["status", "error", "content", "total", "done", "result",
                            "finished_at"])  # fmt: skip
    cache.delete(_progress_key(job.pk))
    return f"import {job.pk}: {status}"


def import_job_get(*, user, job_id: int) -> ImportJob:
    job = ImportJob.objects.filter(user=user, pk=job_id).first()
    if job is None:
        raise NotFoundError("No such import.")
    return job


def import_job_state(*, job: ImportJob) -> dict:
    """What a poller sees: status, progress {done, total}, and the result or error when over."""
    done, total = job.done, job.total
    status, error = job.status, job.error
    if status in (ImportJob.Status.QUEUED, ImportJob.Status.RUNNING):
        done, total = cache.get(_progress_key(job.pk)) or (0, 0)
        if job.created_at < timezone.now() - STALE_AFTER:
            status, error = ImportJob.Status.FAILED, "The import did not run; please try again."
    return {
        "id": job.pk,
        "list": job.reading_list_id,
        "status": status,
        "progress": {"done": done, "total": total},
        "result": job.result or None,
        "error": error or None,
    }
