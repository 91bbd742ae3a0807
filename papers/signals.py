"""Signals other apps listen to, so papers never imports them."""

from django.dispatch import Signal

# Sent after the transaction that created papers commits; `arxiv_ids` lists the new papers.
papers_created = Signal()
# Sent the same way for papers that existed already and whose version, journal_ref, doi or
# withdrawn flag changed: what a reader who saved the paper wants to hear about.
papers_updated = Signal()
