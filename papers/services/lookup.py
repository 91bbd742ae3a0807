"""On-demand fetching of papers that someone asked about and we do not have yet.

The queue is bounded (finding 4 of the security review, docs/security.md): each client may add
PENDING_PER_CLIENT new ids an hour and the queue holds about PENDING_MAX waiting ids; the rest
are answered `unavailable` (ask again later). Real-looking ids (numbers their month can have) and
the most recently asked go first, so junk cannot make a real id wait. A failed attempt backs off
(retry_delay, growing to hours); after MAX_ATTEMPTS the lookup answers `unavailable` instead of
`pending`, and asking again a day later queues the id anew. What arXiv says does not exist is
answered `not_found`, and forgotten after NOT_FOUND_TTL.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from papers.clients.errors import ArxivTransientError
from papers.models import Paper, PendingLookup
from papers.services.harvest import harvest_ids
from papers.services.storage import UpsertResult

logger = logging.getLogger(__name__)

# Ids asked for within this many seconds share one query-API request (up to 100 ids each).
COALESCE_SECONDS = 1
MAX_ATTEMPTS = 5
FETCH_BATCH = 1000  # ids per fetch run, in query-API requests of 100
PENDING_PER_CLIENT = 2000  # new ids one client address may queue per CLIENT_WINDOW
CLIENT_WINDOW = 60 * 60
PENDING_MAX = 20_000  # ids waiting in all; concurrent lookups may overshoot by a batch each
# A month's numbers run this far past the highest we hold of it (we harvest some categories,
# arXiv numbers all of them); a month we hold nothing of is taken to end at MONTH_CEILING.
PLAUSIBLE_SLACK = 3000
MONTH_CEILING = 40_000
MONTHS_CHECKED = 24  # per lookup; ids of further months count as plausible
CLAIM_LEASE = timedelta(minutes=10)  # the last attempt's; a worker killed mid-request frees it
REVIVE_AFTER = timedelta(days=1)
NOT_FOUND_TTL = timedelta(days=7)
PENDING_TTL = timedelta(days=3)  # asked once, never fetched, never asked again: dropped


@dataclass
class LookupOutcome:
    """What became of ids we do not hold: queued or waiting, or not fetchable now."""

    pending: list[str] = field(default_factory=list)
    unavailable: list[str] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)


def retry_delay(attempts: int) -> timedelta:
    """The wait after the `attempts`-th failed try: 10 min, 40 min, 2 h 40, then 6 h."""
    return min(timedelta(hours=6), timedelta(minutes=10) * 4 ** max(0, attempts - 1))


def pending_register(*, arxiv_ids: list[str], client: str | None = None) -> LookupOutcome:
    """Queue unknown ids within the bounds and schedule one fetch for all that arrive close
    together. `client` is the asking address (None for list saves, which are per-user throttled
    and only meet the total bound). Ids already queued cost nothing and count as asked now."""
    outcome = LookupOutcome()
    if not arxiv_ids:
        return outcome
    now = timezone.now()
    arxiv_ids = list(dict.fromkeys(arxiv_ids))
    existing = {row.arxiv_id: row for row in PendingLookup.objects.filter(arxiv_id__in=arxiv_ids)}
    if existing:
        _revive_given_up(existing, now)
        PendingLookup.objects.filter(arxiv_id__in=list(existing)).update(asked_at=now)
    new = [arxiv_id for arxiv_id in arxiv_ids if arxiv_id not in existing]
    plausible = _plausibility(new)
    new.sort(key=lambda arxiv_id: not plausible[arxiv_id])  # stable: real-looking ones first
    admitted = new[: _room(len(new), client)]
    PendingLookup.objects.bulk_create(
        [PendingLookup(arxiv_id=i, asked_at=now, plausible=plausible[i]) for i in admitted],
        ignore_conflicts=True,
    )
    admitted_set = set(admitted)
    for arxiv_id in arxiv_ids:
        row = existing.get(arxiv_id)
        if row is not None:
            state = _state(row, now)
        else:
            state = "pending" if arxiv_id in admitted_set else "unavailable"
        getattr(outcome, state).append(arxiv_id)
    if outcome.pending:  # new or still waiting (say, queued while the broker was down)
        _schedule_fetch()
    return outcome


def _state(row: PendingLookup, now) -> str:
    if row.not_found:
        return "not_found"
    if row.attempts >= MAX_ATTEMPTS and row.next_attempt_at <= now:
        return "unavailable"  # every try failed; asked again after REVIVE_AFTER, it is retried
    return "pending"


def _revive_given_up(existing: dict[str, PendingLookup], now) -> None:
    revive = [
        row
        for row in existing.values()
        if not row.not_found
        and row.attempts >= MAX_ATTEMPTS
        and row.next_attempt_at <= now - REVIVE_AFTER
    ]
    if revive:
        PendingLookup.objects.filter(pk__in=[row.pk for row in revive]).update(
            attempts=0, next_attempt_at=now
        )
        for row in revive:
            row.attempts, row.next_attempt_at = 0, now
        _schedule_fetch()


def _room(wanted: int, client: str | None) -> int:
    """How many of `wanted` new ids may be queued now: the client's share, then the total's."""
    if wanted == 0:
        return 0
    room = wanted
    if client is not None:
        from accounts.ratelimit import counter_key, rate_hit

        count = rate_hit(key=counter_key("pending", client), window=CLIENT_WINDOW, amount=wanted)
        if count is not None:
            room = max(0, min(wanted, PENDING_PER_CLIENT - (count - wanted)))
    if room:
        waiting = PendingLookup.objects.filter(not_found=False, attempts__lt=MAX_ATTEMPTS).count()
        room = max(0, min(room, PENDING_MAX - waiting))
    return room


def _plausibility(arxiv_ids: list[str]) -> dict[str, bool]:
    """Whether each id's number is one its month can have: at most PLAUSIBLE_SLACK past the
    highest we hold of that month (one index range read per month)."""
    months = list(dict.fromkeys(i[:4] for i in arxiv_ids if "/" not in i))[:MONTHS_CHECKED]
    ceiling = {}
    for month in months:
        # "." < "/" in ASCII: the range holds exactly the ids "<month>.<number>".
        highest = (
            Paper.objects.filter(arxiv_id__gt=f"{month}.", arxiv_id__lt=f"{month}/")
            .order_by("-arxiv_id")
            .values_list("arxiv_id", flat=True)
            .first()
        )
        ceiling[month] = int(highest[5:]) + PLAUSIBLE_SLACK if highest else MONTH_CEILING
    return {i: "/" in i or i[:4] not in ceiling or int(i[5:]) <= ceiling[i[:4]] for i in arxiv_ids}


def _schedule_fetch() -> None:
    if settings.ARXIV_FETCH_ON_DEMAND and cache.add(
        "papers:fetch-pending-scheduled", 1, timeout=COALESCE_SECONDS
    ):
        from papers.tasks import fetch_pending_task

        # Robust: when the broker went away since the cache answered, the error is logged and
        # the request still answers; the ids are stored, and the next fetch takes every pending
        # one (docs/faults.md).
        transaction.on_commit(
            lambda: fetch_pending_task.apply_async(countdown=COALESCE_SECONDS), robust=True
        )


def pending_fetch(*, client=None) -> UpsertResult:
    """Fetch up to FETCH_BATCH due ids, real-looking and most recently asked first.

    Each is claimed before the request with its back-off already set, so a failure (raised as
    ArxivTransientError) or a killed worker leaves it to be retried after retry_delay."""
    now = timezone.now()
    with transaction.atomic():
        due = PendingLookup.objects.filter(
            not_found=False, attempts__lt=MAX_ATTEMPTS, next_attempt_at__lte=now
        )
        rows = list(
            due.order_by("-plausible", "-asked_at", "id").select_for_update(skip_locked=True)[
                :FETCH_BATCH
            ]
        )
        for row in rows:
            row.attempts += 1
            last = row.attempts >= MAX_ATTEMPTS
            row.next_attempt_at = now + (CLAIM_LEASE if last else retry_delay(row.attempts))
        PendingLookup.objects.bulk_update(rows, ["attempts", "next_attempt_at"])
    if not rows:
        return UpsertResult()
    ids = [row.arxiv_id for row in rows]
    try:
        return harvest_ids(arxiv_ids=ids, client=client)
    except ArxivTransientError as exc:
        if exc.retry_after:  # arXiv said when: not before then
            later = now + timedelta(seconds=exc.retry_after)
            PendingLookup.objects.filter(arxiv_id__in=ids, next_attempt_at__lt=later).update(
                next_attempt_at=later
            )
        raise


def pending_purge() -> int:
    """Forget what arXiv said does not exist NOT_FOUND_TTL after it said so, however often it is
    asked about since (asking again re-queues it: an id may have been announced since), and ids
    nobody asked about again for PENDING_TTL that we never got (given up, or junk)."""
    now = timezone.now()
    # A not-found row's next_attempt_at is when its last attempt was claimed (plus at most the
    # first back-off): close enough to when arXiv answered.
    deleted, _ = PendingLookup.objects.filter(
        Q(not_found=True, next_attempt_at__lt=now - NOT_FOUND_TTL)
        | Q(asked_at__lt=now - PENDING_TTL)
    ).delete()
    return deleted
