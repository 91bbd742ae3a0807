"""Template tags of the Ask box."""

from __future__ import annotations

import logging
import threading

from django import template

register = template.Library()
logger = logging.getLogger(__name__)
_warming = threading.Lock()
_warmed = False


def _warm() -> None:
    try:
        from ask import embeddings

        embeddings.encode(["warm up"])
    except Exception:  # Ask loads the model on first use instead
        logger.exception("could not preload Ask's embedding model")


@register.simple_tag
def ask_warm() -> str:
    """Load the embedding model in the background while the reader types the first question,
    so that answer does not also wait for the model (about half a second, once per process)."""
    global _warmed
    with _warming:
        if not _warmed:
            _warmed = True
            threading.Thread(target=_warm, name="ask-warm", daemon=True).start()
    return ""
