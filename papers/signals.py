"""Signals other apps listen to, so papers never imports them."""

from django.dispatch import Signal

# Sent after the transaction that created papers commits; `arxiv_ids` lists the new papers.
papers_created = Signal()
