"""What a person chooses about the email digest: how often, which day, which topics to leave out."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.errors import InvalidInput
from accounts.models import DigestSettings, Follow

FREQUENCIES = tuple(DigestSettings.Frequency.values)
WEEKDAY_NAMES = tuple(label.lower() for label in DigestSettings.Weekday.labels)


def digest_settings_get(*, user) -> DigestSettings:
    """The person's digest settings, created (daily, new papers from now on) if missing."""
    DigestSettings.objects.bulk_create(
        [DigestSettings(user=user, covered_until=timezone.now())], ignore_conflicts=True
    )
    return DigestSettings.objects.select_related("user").get(user=user)


def weekday_parse(value) -> int:
    """A weekday from its English name ("friday", any case) or number (0 = Monday)."""
    if isinstance(value, bool):
        value = str(value)
    if isinstance(value, int) and 0 <= value <= 6:
        return value
    if isinstance(value, str):
        name = value.strip().lower()
        if name in WEEKDAY_NAMES:
            return WEEKDAY_NAMES.index(name)
        if name.isdigit() and int(name) <= 6:
            return int(name)
    raise InvalidInput(
        f"weekday must be one of {', '.join(WEEKDAY_NAMES)}, not {str(value)[:40]!r}.",
        code="invalid_weekday",
    )


@transaction.atomic
def digest_settings_update(
    *,
    user,
    frequency: str | None = None,
    weekday=None,
    muted: list[str] | None = None,
) -> DigestSettings:
    """Change the digest's frequency, weekday and muted topics (slugs of followed topics).

    Turning digests back on starts from now: the next digest does not carry everything that
    arrived while they were off. Saving also lifts a pause after a bounce: the person has
    seen the address and says it works.
    """
    if frequency is not None and frequency not in FREQUENCIES:
        raise InvalidInput(
            f"frequency must be one of {', '.join(FREQUENCIES)}, not {str(frequency)[:40]!r}.",
            code="invalid_frequency",
        )
    day = weekday_parse(weekday) if weekday is not None else None
    follows = {f.topic.slug: f for f in Follow.objects.filter(user=user).select_related("topic")}
    if muted is not None:
        unknown = sorted({str(slug)[:100] for slug in muted} - set(follows))
        if unknown:
            raise InvalidInput(
                f"You can only mute topics you follow; you do not follow {', '.join(unknown)}.",
                code="not_followed",
                topics=unknown,
            )
    current = digest_settings_get(user=user)
    current = DigestSettings.objects.select_for_update().get(pk=current.pk)
    now = timezone.now()
    changed = ["bounced_email", "bounced_at", "bounce_reason", "modified_at"]
    if frequency is not None and frequency != current.frequency:
        if current.frequency == DigestSettings.Frequency.OFF:
            current.covered_until = now
            changed.append("covered_until")
        current.frequency = frequency
        changed.append("frequency")
    if day is not None:
        current.weekday = day
        changed.append("weekday")
    current.bounced_email, current.bounced_at, current.bounce_reason = "", None, ""
    current.save(update_fields=changed)
    if muted is not None:
        wanted = set(muted)
        for slug, follow in follows.items():
            if follow.digest_muted != (slug in wanted):
                Follow.objects.filter(pk=follow.pk).update(digest_muted=slug in wanted)
    return current


def digest_unsubscribe(*, user) -> bool:
    """Turn someone's digest off (the one-click link in every digest); True if it was on."""
    digest_settings_get(user=user)
    return bool(
        DigestSettings.objects.filter(user=user)
        .exclude(frequency=DigestSettings.Frequency.OFF)
        .update(frequency=DigestSettings.Frequency.OFF, modified_at=timezone.now())
    )
