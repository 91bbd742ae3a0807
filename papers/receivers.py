"""What the papers app does when papers arrive: enrich the new ones from OpenAlex."""

from __future__ import annotations

from django.conf import settings

from papers.signals import papers_created


def enrich_new_papers(sender, arxiv_ids, **kwargs) -> None:
    """After each harvest or import (papers_created is sent once its transaction commits)."""
    if not settings.OPENALEX_URL or not arxiv_ids:
        return
    from papers.tasks import enrich_papers_task

    enrich_papers_task.delay(list(arxiv_ids))


papers_created.connect(enrich_new_papers, dispatch_uid="papers.enrich_new_papers")
