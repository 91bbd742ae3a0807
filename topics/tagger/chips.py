"""Chips: which of a paper's tags a reader sees, and in what order (DESIGN.md, "Chips").

The one display rule every surface follows (the API's ``tags``, pages, the extension, digests,
``tag_papers --output``): a paper's chips are its most specific topics, the most defining first,
at most :data:`MAX_CHIPS`. An area is never a chip (it is the topic's area line). A tag that is an
ancestor of another of the paper's tags is *implied*: it stays stored, so the paper is on that
topic's page and in its counts, but it is not a chip. The order of the whole list, which is also
the stored ``rank``, is: chips, then the specific tags that are not chips, then implied topics, then
areas; within each group by score, a deeper topic first on equal scores, then in the order
given (callers pass the previous order, so a tie never reshuffles a paper's tags). The chips
themselves are ordered by ``order`` where the tagger's chip-order model gave one
(:mod:`.chip_order`: how likely each chip is right beside the others), else by score. Where it
gave one, a chip after the first is shown only when that likelihood is at least
:data:`MIN_CHIP_ORDER`: a chip says "this paper is about X", and a tag the model thinks more
likely not the paper's own topic (a broad topic that merely applies, a fill-up tag) stays a tag
(on the topic's page, in its counts) without being claimed as a chip. A paper shows as many
chips as it has likely topics, not a fixed number: on the gold set two in three papers have one
or two most specific topics, so three chips each could be right at most 70% of the time
(docs/tagging.md, "Chips a paper has").

A tag's *confidence* (:func:`tag_confidence`) is the number a reader sees beside it: how likely
it is right. For a tag the chip-order model ranked, that model's P(right): it sees the paper's
other chips, and on the chips it shows it is the better calibrated of the two (gold, refined
stage: ECE 0.041 against the scores' 0.078, docs/tagging.md "A chip's confidence"). Otherwise
the scorer's calibrated score. The score itself stays what chose the tag and what orders tags.

Pure Python (the tagger, the services and the migrations call it): a tag is described by a
:class:`ChipTag` whose ``key`` the caller chooses (a slug, a topic id).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

MAX_CHIPS = 7
# A chip after the first needs the chip-order model's P(right) at least this: more likely the
# paper's topic than not (the same reading as the scorer's 0.5 threshold on calibrated scores).
MIN_CHIP_ORDER = 0.5


def tag_confidence(score: float, chip_order: float | None) -> float:
    """How likely a tag is right, as shown to a reader: the chip-order model's P(right) where it
    ranked the tag, else the scorer's calibrated score."""
    return score if chip_order is None else chip_order


@dataclass(frozen=True)
class ChipTag:
    key: Hashable
    ancestors: tuple[Hashable, ...]  # keys of the topic's ancestors, parent first, area last
    is_area: bool
    score: float
    depth: int = 0
    order: float | None = None  # the chip-order model's P(right) (None: order by score)


@dataclass(frozen=True)
class Placed:
    key: Hashable
    shown: bool  # a chip
    implied: bool  # an ancestor of another of the paper's tags


def chips_arrange(tags: Sequence[ChipTag], *, max_chips: int = MAX_CHIPS) -> list[Placed]:
    """The paper's tags in display order with their ``shown`` and ``implied`` flags."""
    present = {t.key for t in tags}
    implied = {a for t in tags for a in t.ancestors if a in present}

    def best(t: ChipTag) -> tuple:
        return (-t.score, -t.depth)  # sorted() is stable: ties keep the order given

    def first(t: ChipTag) -> tuple:
        return (-(t.score if t.order is None else t.order),)

    specific = sorted((t for t in tags if not t.is_area and t.key not in implied), key=best)
    # The chips are the best-scored specific tags; the chip-order model may reorder them.
    specific[:max_chips] = sorted(specific[:max_chips], key=first)
    parents = sorted((t for t in tags if not t.is_area and t.key in implied), key=best)
    areas = sorted((t for t in tags if t.is_area), key=best)

    def chip(n: int, t: ChipTag) -> bool:
        return n < max_chips and (n == 0 or t.order is None or t.order >= MIN_CHIP_ORDER)

    flags = [chip(n, t) for n, t in enumerate(specific)]
    return [
        *(Placed(t.key, True, False) for t, f in zip(specific, flags, strict=True) if f),
        *(Placed(t.key, False, False) for t, f in zip(specific, flags, strict=True) if not f),
        *(Placed(t.key, False, True) for t in parents),
        *(Placed(t.key, False, t.key in implied) for t in areas),
    ]
