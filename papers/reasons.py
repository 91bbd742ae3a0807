"""One human line per chip, built from the evidence the tagger stored: why a paper carries a topic.

"Title says “agentic RL”; 17 of its 20 nearest papers carry it". The paper page's diagnostic table
(papers.views.evidence_items) shows every key; this line picks the two strongest, in the order a
reader trusts them: the paper's own words, then its neighbours, then the rest.
"""

from __future__ import annotations

PHRASE_KEYS = ("phrases", "matched_phrases", "matches")
NEIGHBOUR_KEYS = ("neighbours", "neighbors", "nearest", "knn")
# Below this cosine the description match says little; the line then falls back to categories.
SIMILARITY_WORTH_SAYING = 0.35
MAX_PARTS = 2


def _text(entry) -> str:
    if isinstance(entry, dict):
        for key in ("text", "phrase", "term", "keyword"):
            if isinstance(entry.get(key), str) and entry[key].strip():
                return entry[key].strip()
        return ""
    return entry.strip() if isinstance(entry, str) else ""


def _phrase_part(evidence: dict) -> str:
    phrases: list = next(
        (evidence[k] for k in PHRASE_KEYS if isinstance(evidence.get(k), list)), []
    )
    entries = [p for p in phrases if _text(p)]
    if not entries:
        return ""
    in_title = [p for p in entries if isinstance(p, dict) and p.get("where") == "title"]
    if in_title:
        return f"title says “{_text(in_title[0])[:60]}”"
    first = entries[0]
    count = first.get("count") if isinstance(first, dict) else None
    times = f" {count}×" if isinstance(count, int) and count > 1 else ""
    return f"abstract says “{_text(first)[:60]}”{times}"


def _neighbour_part(evidence: dict) -> str:
    """Neighbours as counts ({"carry": 17, "of": 20}, any two whole numbers, the larger being
    how many were looked at) or as a list of neighbour papers that carry the topic."""
    value = next((evidence[k] for k in NEIGHBOUR_KEYS if evidence.get(k)), None)
    if isinstance(value, dict):
        numbers = [v for v in value.values() if isinstance(v, int) and not isinstance(v, bool)]
        if len(numbers) >= 2:
            carry, looked = sorted(numbers[:2])
            return f"{carry} of its {looked} nearest papers carry it"
    if isinstance(value, list) and value:
        return f"{len(value)} of its nearest papers carry it"
    return ""


def _example_part(evidence: dict) -> str:
    examples = evidence.get("examples")
    if not isinstance(examples, list) or not examples or not isinstance(examples[0], dict):
        return ""
    title = str(examples[0].get("title") or examples[0].get("id") or "").strip()
    return f"close to “{title[:50]}{'…' if len(title) > 50 else ''}”" if title else ""


def reason_line(evidence, *, topic_names: dict[str, str] | None = None) -> str:
    """The one-line reason for a chip, or "" when the evidence says nothing a reader can use."""
    if not isinstance(evidence, dict) or not evidence:
        return ""
    parts = [p for p in (_phrase_part(evidence), _neighbour_part(evidence)) if p]
    implied = evidence.get("implied_by")
    if isinstance(implied, str) and implied:
        name = (topic_names or {}).get(implied, "")
        parts.append(f"implied by its subtopic {name}" if name else "implied by a subtopic")
    if len(parts) < MAX_PARTS and (example := _example_part(evidence)):
        parts.append(example)
    if not parts:
        categories = evidence.get("categories")
        similarity = evidence.get("similarity")
        if isinstance(similarity, int | float) and similarity >= SIMILARITY_WORTH_SAYING:
            parts.append("abstract reads like the topic’s description")
        elif isinstance(categories, list) and categories:
            parts.append(f"listed in {', '.join(str(c) for c in categories[:3])}")
    line = "; ".join(parts[:MAX_PARTS])
    if evidence.get("low_confidence") and line:
        line += " (low confidence)"
    return line[:1].upper() + line[1:]


def evidence_topic_slugs(evidence) -> set[str]:
    """Topic slugs a reason names (to look their names up in one query per page)."""
    if isinstance(evidence, dict) and isinstance(evidence.get("implied_by"), str):
        return {evidence["implied_by"]}
    return set()
