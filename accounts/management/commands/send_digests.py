"""manage.py send_digests [--dry-run] [--user U] [--frequency daily|weekly] [--resume]

Sends the digests due now from this process, batch after batch, with the same claims as the
workers (a worker and this command running together still send each digest once).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db.models import Q
from django.utils import timezone

from accounts.models import DigestSettings
from accounts.services.delivery import (
    BatchResult,
    batches,
    deliveries_due,
    delivery_batch_send,
    digest_cutoff,
    digests_plan,
    due_settings,
    run_pending_ids,
    with_news,
)
from accounts.services.digests import digest_compose, digest_render


class Command(BaseCommand):
    help = "Send the email digests due now (daily ones, and weekly ones whose day it is)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--dry-run", action="store_true", help="print what would be sent; send nothing"
        )
        parser.add_argument(
            "--user",
            metavar="U",
            help="only this person (username or email), whatever their weekday",
        )
        parser.add_argument(
            "--frequency", choices=["daily", "weekly"], help="only daily or only weekly digests"
        )
        parser.add_argument(
            "--resume",
            action="store_true",
            help="only retry failed sends whose backoff is over and resume interrupted ones",
        )

    def handle(self, *args, **options):
        user = self._user(options["user"]) if options["user"] else None
        if options["dry_run"]:
            self._dry_run(user=user, frequency=options["frequency"])
            return
        if options["resume"]:
            ids = deliveries_due()
            self.stdout.write(f"{len(ids)} digest(s) to retry or resume")
        else:
            if user is not None:
                prefs = DigestSettings.objects.filter(user=user).first()
                if prefs is None or prefs.frequency == DigestSettings.Frequency.OFF:
                    raise CommandError(f"{user.get_username()} has turned digests off.")
            run = digests_plan(user=user, frequency=options["frequency"], trigger="command")
            ids = run_pending_ids(run)
            self.stdout.write(f"run {run.pk}: {len(ids)} digest(s) to send")
        total = BatchResult()
        for chunk in batches(ids):
            total.add(delivery_batch_send(delivery_ids=chunk))
            self.stdout.write(total.summary())
        if not ids:
            self.stdout.write("nothing to send")

    def _user(self, name: str):
        found = list(get_user_model().objects.filter(Q(username=name) | Q(email__iexact=name))[:2])
        if len(found) != 1:
            raise CommandError(f"{name!r}: no such user" if not found else f"{name!r}: ambiguous")
        return found[0]

    def _dry_run(self, *, user, frequency) -> None:
        now = timezone.now()
        cutoff = digest_cutoff(now=now)
        if user is not None:
            # The preview of one person's next digest, even if it is off or not due today.
            prefs = DigestSettings.objects.filter(user=user)
            due = list(prefs.select_related("user"))
        else:
            due = list(
                with_news(due_settings(now=now, frequency=frequency), cutoff=cutoff)
                .select_related("user")
                .order_by("user_id")
            )
        shown = 0
        for prefs in due:
            digest = digest_compose(
                user=prefs.user, window_start=prefs.covered_until, window_end=cutoff
            )
            if digest.is_empty:
                if user is not None:
                    self.stdout.write(f"{user.get_username()}: nothing new, no digest")
                continue
            shown += 1
            text, _ = digest_render(digest)
            self.stdout.write(f"To: {prefs.user.email or '(no address)'} ({prefs.frequency})")
            self.stdout.write(f"Subject: {digest.subject}")
            self.stdout.write("")
            self.stdout.write(text)
            self.stdout.write("-" * 72)
        self.stdout.write(f"dry run: {shown} digest(s) would be sent; nothing was sent")
