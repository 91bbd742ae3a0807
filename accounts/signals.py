"""Every account starts with a library and its default "Reading list", however it was created
(sign-up page, createsuperuser, the admin)."""

from __future__ import annotations

from django.conf import settings
from django.db.models.signals import post_save
from django.dispatch import receiver

from papers.signals import papers_created, papers_updated


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts.user_setup")
def user_setup(sender, instance, created, raw=False, **kwargs):
    if created and not raw:
        from accounts.services.lists import account_setup

        account_setup(user=instance)


def _link_saved_items(sender, arxiv_ids, **kwargs):
    """Papers saved before we had them (from arxiv.org, by the extension) get their link."""
    from accounts.services.lists import list_items_link_papers

    list_items_link_papers(arxiv_ids=arxiv_ids)


papers_created.connect(_link_saved_items, dispatch_uid="accounts.link_saved_items")


def _record_alerts(sender, arxiv_ids, **kwargs):
    """A new version, journal reference, DOI or withdrawal of a saved paper: tell its readers."""
    from accounts.services.alerts import alerts_record

    alerts_record(arxiv_ids=arxiv_ids)


papers_updated.connect(_record_alerts, dispatch_uid="accounts.record_alerts")
