from celery import shared_task


@shared_task(name="ask.fetch_paper_text", acks_late=True, soft_time_limit=5 * 60, time_limit=6 * 60)
def paper_text_fetch(paper_id: int) -> bool:
    """Fetch and store one paper's full text (ask.services.fulltext.paper_text_fetch)."""
    from ask.services.fulltext import paper_text_fetch

    return paper_text_fetch(paper_id=paper_id) is not None


@shared_task(name="ask.index_passages", acks_late=True, soft_time_limit=20 * 60, time_limit=21 * 60)
def passages_index_pending() -> int:
    """Index the passages of papers stored since the last run (ask.services.passages)."""
    from ask.services.passages import passages_index_pending

    return passages_index_pending()
