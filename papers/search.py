"""Title and abstract search: PostgreSQL full-text search there, a term-by-term match elsewhere."""

from __future__ import annotations

import re

from django.db import connection
from django.db.models import Q, QuerySet

MAX_TERMS = 12


def search_terms(query: str) -> list[str]:
    return [t for t in re.findall(r"[\w\-]+", query.lower()) if len(t) > 1][:MAX_TERMS]


def search_filter(papers: QuerySet, query: str) -> QuerySet:
    if connection.vendor == "postgresql":
        from django.contrib.postgres.search import SearchQuery, SearchVector

        vector = SearchVector("title", weight="A", config="english") + SearchVector(
            "abstract", weight="B", config="english"
        )
        return papers.annotate(search=vector).filter(
            search=SearchQuery(query, config="english", search_type="websearch")
        )
    # SQLite fallback: every term must appear in the title or the abstract.
    condition = Q()
    for term in search_terms(query):
        condition &= Q(title__icontains=term) | Q(abstract__icontains=term)
    return papers.filter(condition)
