"""Sending digests exactly once, in batches, whatever the workers and the mail server do.

1. `digests_plan` picks who is due and has something new, and records one `DigestDelivery`
   per person (`pending`). The partial unique constraint on (user, window_start) means two
   planners running at once, or a planner meeting a digest still being retried, add nothing.
2. `delivery_batch_send` claims each delivery with a conditional UPDATE (pending -> sending,
   or a `sending` whose lease ran out) that exactly one worker can win, and commits the claim
   before it talks to the mail server. Then it builds the mail, sends it, and records the
   outcome under the same claim token; the watermark moves only with `sent` (or `empty`).
3. A failed send goes back to `pending` with an exponential backoff (jittered), until
   DIGEST_MAX_ATTEMPTS; a refused address fails at once and pauses that person's digests.
   `deliveries_due` finds what is due again, and digests a killed worker had claimed.

A worker killed while sending leaves a claim behind that the next worker takes over once the
lease (DIGEST_CLAIM_LEASE_SECONDS) has run out. An SMTP server delivers nothing from a session
that ends before it has accepted the whole message, so that digest goes out once. The one
window nothing can close is between the server's "250 accepted" and our UPDATE a few
microseconds later; the Message-ID is the same on every attempt so clients can collapse a copy.
"""

from __future__ import annotations

import logging
import random
import smtplib
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.mail import get_connection
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Exists, F, Min, OuterRef, Q, QuerySet
from django.db.models.functions import Lower
from django.utils import timezone

from accounts.models import DigestDelivery, DigestRun, DigestSettings, PaperAlert
from accounts.services.digest_settings import digest_settings_get
from accounts.services.digests import Digest, digest_compose, digest_message
from papers.models import Paper
from topics.models import PaperTopic

logger = logging.getLogger(__name__)

State = DigestDelivery.State
Frequency = DigestSettings.Frequency
Clock = Callable[[], datetime]

# Transient failures in a row after which a batch stops trying: the server is down, and the
# rest of the batch waits for the resume task instead of timing out one by one.
BREAKER_AFTER = 3
MAX_RETRY_DELAY = timedelta(hours=6)


class PermanentSendError(Exception):
    """A send that retrying cannot fix (an invalid or refused address)."""

    def __init__(self, reason: str, *, bounce: bool = True) -> None:
        super().__init__(reason)
        self.bounce = bounce


@dataclass
class BatchResult:
    sent: int = 0
    empty: int = 0
    cancelled: int = 0
    retrying: int = 0
    failed: int = 0
    not_claimed: int = 0  # sent, taken or not yet due: another worker's or nobody's business

    def add(self, other: BatchResult) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def summary(self) -> str:
        return (
            f"sent {self.sent}, nothing new {self.empty}, cancelled {self.cancelled}, "
            f"retrying {self.retrying}, failed {self.failed}, not claimed {self.not_claimed}"
        )


# --- who is due ------------------------------------------------------------------------------


def local_time(moment: datetime) -> datetime:
    return moment.astimezone(ZoneInfo(settings.DIGEST_TIMEZONE))


def digest_cutoff(*, now: datetime) -> datetime:
    """Up to when papers count: now, or just before the oldest recent paper still waiting for
    its tags (it goes into the next digest rather than into none)."""
    grace = timedelta(seconds=settings.DIGEST_TAGGING_GRACE_SECONDS)
    oldest = Paper.objects.filter(
        tagged_at__isnull=True, created_at__gt=now - grace, created_at__lte=now
    ).aggregate(oldest=Min("created_at"))["oldest"]
    return min(now, oldest - timedelta(microseconds=1)) if oldest else now


def due_settings(
    *, now: datetime, frequency: str | None = None, user=None
) -> QuerySet[DigestSettings]:
    """Digest settings of active people with an address that has not bounced, and who are due:
    daily ones always (the schedule runs after each announcement), weekly ones on their day,
    once. A named `user` is due whatever the day, unless their digest is off."""
    settings_qs = (
        DigestSettings.objects.filter(user__is_active=True)
        .exclude(user__email="")
        .exclude(frequency=Frequency.OFF)
        .annotate(address=Lower("user__email"))
        .exclude(bounced_at__isnull=False, bounced_email=F("address"))
    )
    if user is not None:
        return settings_qs.filter(user=user)
    local = local_time(now)
    start_of_day = local.replace(hour=0, minute=0, second=0, microsecond=0)
    daily = Q(frequency=Frequency.DAILY)
    weekly = Q(frequency=Frequency.WEEKLY, weekday=local.weekday()) & (
        Q(last_sent_at__isnull=True) | Q(last_sent_at__lt=start_of_day)
    )
    if frequency == Frequency.DAILY:
        return settings_qs.filter(daily)
    if frequency == Frequency.WEEKLY:
        return settings_qs.filter(weekly)
    return settings_qs.filter(daily | weekly)


def with_news(settings_qs: QuerySet[DigestSettings], *, cutoff: datetime):
    """Only those with a new paper in a followed, unmuted topic or an alert not yet sent."""
    new_papers = PaperTopic.objects.filter(
        topic__followers__user=OuterRef("user_id"),
        topic__followers__digest_muted=False,
        topic__active=True,
        paper__created_at__gt=OuterRef("covered_until"),
        paper__created_at__lte=cutoff,
        paper__tagged_at__isnull=False,
    )
    alerts = PaperAlert.objects.filter(
        user=OuterRef("user_id"), delivery__isnull=True, dismissed_at__isnull=True
    )
    return settings_qs.filter((Q(covered_until__lt=cutoff) & Exists(new_papers)) | Exists(alerts))


# --- planning --------------------------------------------------------------------------------


def digests_plan(
    *,
    now: datetime | None = None,
    frequency: str | None = None,
    user=None,
    trigger: str = "command",
) -> DigestRun:
    """Record a pending delivery for everyone due with something new. Idempotent: planning
    again before those are sent adds nothing for the same people."""
    now = now or timezone.now()
    cutoff = digest_cutoff(now=now)
    run = DigestRun.objects.create(trigger=trigger[:40], cutoff=cutoff, started_at=now)
    due = with_news(due_settings(now=now, frequency=frequency, user=user), cutoff=cutoff)
    DigestDelivery.objects.bulk_create(
        [
            DigestDelivery(
                run=run,
                user_id=user_id,
                window_start=covered_until,
                window_end=cutoff,
                not_before=now,
            )
            for user_id, covered_until in due.values_list("user_id", "covered_until")
        ],
        ignore_conflicts=True,  # an open delivery for the same window exists: it will be sent
        batch_size=500,
    )
    run.planned = run.deliveries.count()
    run.save(update_fields=["planned"])
    return run


def run_pending_ids(run: DigestRun) -> list[int]:
    return list(
        run.deliveries.filter(state=State.PENDING).order_by("id").values_list("id", flat=True)
    )


def deliveries_due(*, now: datetime | None = None, limit: int = 10_000) -> list[int]:
    """Deliveries to (re)try now: pending ones past their backoff, and claims whose worker
    died (older than the lease)."""
    now = now or timezone.now()
    return list(
        DigestDelivery.objects.filter(_claimable(now))
        .order_by("id")
        .values_list("id", flat=True)[:limit]
    )


def batches(ids: Iterable[int], size: int | None = None) -> list[list[int]]:
    ids = list(ids)
    size = size or settings.DIGEST_BATCH_SIZE
    return [ids[start : start + size] for start in range(0, len(ids), size)]


# --- claiming and sending --------------------------------------------------------------------


def _claimable(now: datetime) -> Q:
    stale = now - timedelta(seconds=settings.DIGEST_CLAIM_LEASE_SECONDS)
    return Q(state=State.PENDING, not_before__lte=now) | Q(
        state=State.SENDING, claimed_at__lt=stale
    )


def delivery_claim(*, delivery_id: int, clock: Clock = timezone.now) -> str | None:
    """Take one delivery for this worker; the claim token, or None if another worker has it,
    it is sent already, or it is not due. One UPDATE: only one of any number of workers wins.
    Must run outside a transaction, so the claim is committed before anything is sent."""
    token = uuid.uuid4().hex
    now = clock()
    won = (
        DigestDelivery.objects.filter(pk=delivery_id)
        .filter(_claimable(now))
        .update(state=State.SENDING, claim_token=token, claimed_at=now, attempts=F("attempts") + 1)
    )
    return token if won == 1 else None


def delivery_batch_send(
    *, delivery_ids: Iterable[int], clock: Clock = timezone.now, connection=None
) -> BatchResult:
    """Claim and send each delivery in turn over one mail connection. A failure is recorded on
    its delivery and the batch goes on; after BREAKER_AFTER transient failures in a row the
    rest is left pending for the resume task."""
    result = BatchResult()
    connection = connection or get_connection()
    _open(connection)
    failures_in_a_row = 0
    try:
        for delivery_id in delivery_ids:
            if failures_in_a_row >= BREAKER_AFTER:
                result.not_claimed += 1
                continue
            token = delivery_claim(delivery_id=delivery_id, clock=clock)
            if token is None:
                result.not_claimed += 1
                continue
            outcome = _deliver(delivery_id, token, connection=connection, clock=clock)
            setattr(result, outcome, getattr(result, outcome) + 1)
            if outcome == "retrying":
                failures_in_a_row += 1
                _close(connection)
                _open(connection)
            else:
                failures_in_a_row = 0
    finally:
        _close(connection)
    return result


def _open(connection) -> None:
    try:
        connection.open()
    except Exception:  # noqa: BLE001 - the sends report it, one delivery at a time
        logger.warning("could not open the mail connection", exc_info=True)


def _close(connection) -> None:
    try:
        connection.close()
    except Exception:  # noqa: BLE001
        logger.debug("closing the mail connection failed", exc_info=True)


def _deliver(delivery_id: int, token: str, *, connection, clock: Clock) -> str:
    """Build and send one claimed delivery; returns the BatchResult field it counts in."""
    delivery = DigestDelivery.objects.select_related("user").filter(pk=delivery_id).first()
    if delivery is None:
        return "cancelled"  # the account was deleted since the claim
    user = delivery.user
    try:
        prefs = digest_settings_get(user=user)
        if not user.is_active or prefs.frequency == Frequency.OFF:
            _finish(delivery, token, State.CANCELLED, clock=clock)
            return "cancelled"
        address = user.email.strip()
        try:
            validate_email(address)
        except ValidationError:
            raise PermanentSendError(f"not a valid email address: {address!r}") from None
        digest = digest_compose(
            user=user, window_start=delivery.window_start, window_end=delivery.window_end
        )
        if digest.is_empty:
            _finish(delivery, token, State.EMPTY, clock=clock, advance=True)
            return "empty"
        key = f"{delivery.pk}.{delivery.user_id}.{int(delivery.window_start.timestamp())}"
        message = digest_message(digest=digest, to=address, message_key=key)
        if not connection.send_messages([message]):
            raise PermanentSendError("the mail backend accepted no recipient", bounce=False)
    except Exception as exc:  # noqa: BLE001 - recorded on the delivery; the batch goes on
        outcome = _failed(delivery, token, exc, clock=clock)
        if isinstance(exc, SoftTimeLimitExceeded):
            raise  # the task is out of time: this one is retried, the rest stay pending
        return outcome
    _sent(delivery, token, digest, address, clock=clock)
    return "sent"


def _sent(delivery: DigestDelivery, token: str, digest: Digest, address: str, *, clock) -> None:
    now = clock()
    with transaction.atomic():
        won = _mine(delivery, token).update(
            state=State.SENT,
            sent_at=now,
            email=address,
            last_error="",
            paper_count=digest.paper_count,
            alert_count=len(digest.alerts),
            arxiv_ids=digest.arxiv_ids,
        )
        if not won:
            logger.error(
                "digest %s was sent but its claim had been taken over; is "
                "DIGEST_CLAIM_LEASE_SECONDS shorter than a send?",
                delivery.pk,
            )
            return
        _advance(delivery, now=now)
        DigestSettings.objects.filter(user_id=delivery.user_id).update(last_sent_at=now)
        PaperAlert.objects.filter(pk__in=digest.alert_ids, delivery__isnull=True).update(
            delivery=delivery
        )


def _finish(delivery: DigestDelivery, token: str, state: str, *, clock, advance=False) -> None:
    with transaction.atomic():
        if _mine(delivery, token).update(state=state, last_error="") and advance:
            _advance(delivery, now=clock())


def _advance(delivery: DigestDelivery, *, now: datetime) -> None:
    """Move the watermark to the end of this delivery's window (never backwards)."""
    DigestSettings.objects.filter(
        user_id=delivery.user_id, covered_until__lt=delivery.window_end
    ).update(covered_until=delivery.window_end, modified_at=now)


def _mine(delivery: DigestDelivery, token: str):
    return DigestDelivery.objects.filter(pk=delivery.pk, state=State.SENDING, claim_token=token)


def is_permanent(exc: BaseException) -> bool:
    """Refused recipients and 5xx answers to the message are permanent; the rest (connection
    errors, timeouts, 4xx, a refused sender or login: our configuration) may pass."""
    if isinstance(exc, PermanentSendError | smtplib.SMTPRecipientsRefused):
        return True
    return isinstance(exc, smtplib.SMTPDataError) and 500 <= exc.smtp_code < 600


def retry_delay(attempts: int) -> timedelta:
    """DIGEST_RETRY_SECONDS, doubling with each attempt, at most six hours, jittered by 20%."""
    seconds = settings.DIGEST_RETRY_SECONDS * 2 ** max(0, attempts - 1)
    delay = min(timedelta(seconds=seconds), MAX_RETRY_DELAY)
    return delay * random.uniform(0.8, 1.2)


def _failed(delivery: DigestDelivery, token: str, exc: Exception, *, clock) -> str:
    error = f"{type(exc).__name__}: {exc}"[:2000]
    attempts = DigestDelivery.objects.filter(pk=delivery.pk).values_list("attempts", flat=True)[0]
    permanent = is_permanent(exc)
    now = clock()
    if permanent or attempts >= settings.DIGEST_MAX_ATTEMPTS:
        logger.warning("digest %s failed for good: %s", delivery.pk, error)
        with transaction.atomic():
            _mine(delivery, token).update(state=State.FAILED, last_error=error)
            if permanent and getattr(exc, "bounce", True):
                # Pause this person's digests until the address changes or they say it works.
                DigestSettings.objects.filter(user_id=delivery.user_id).update(
                    bounced_email=delivery.user.email.strip().lower(),
                    bounced_at=now,
                    bounce_reason=error,
                )
        return "failed"
    logger.info("digest %s failed (attempt %s), will retry: %s", delivery.pk, attempts, error)
    _mine(delivery, token).update(
        state=State.PENDING, last_error=error, not_before=now + retry_delay(attempts)
    )
    return "retrying"


# --- preview ---------------------------------------------------------------------------------


def digest_preview(*, user, now: datetime | None = None) -> Digest:
    """The digest this person would get if it were sent now (nothing is recorded)."""
    now = now or timezone.now()
    prefs = digest_settings_get(user=user)
    return digest_compose(
        user=user, window_start=prefs.covered_until, window_end=digest_cutoff(now=now)
    )
