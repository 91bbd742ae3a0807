"""Title and abstract search: PostgreSQL full-text search there, a term-by-term match elsewhere."""

from __future__ import annotations

import re

from django.db import connection
from django.db.models import Expression, Q, QuerySet

MAX_TERMS = 12


class StoredSearchVector(Expression):
    """The paper row's search_vector column (PostgreSQL only, not a model field), named through
    the query's own alias for papers_paper so that it also works inside a subquery."""

    def as_sql(self, compiler, connection):
        alias = compiler.quote_name_unless_alias(compiler.query.get_initial_alias())
        return f"{alias}.{connection.ops.quote_name('search_vector')}", []


def search_terms(query: str) -> list[str]:
    return [t for t in re.findall(r"[\w\-]+", query.lower()) if len(t) > 1][:MAX_TERMS]


def search_filter(papers: QuerySet, query: str) -> QuerySet:
    if connection.vendor == "postgresql":
        from django.contrib.postgres.search import SearchQuery, SearchVectorField

        # papers_paper.search_vector is setweight(title, 'A') || setweight(abstract, 'B') in the
        # english configuration, a stored generated column with a GIN index (papers migration
        # 0003): a rare word is an index lookup, a common one a walk down the newest-first index
        # that tests each row's stored vector, and no row's text is parsed at query time.
        return papers.alias(search=StoredSearchVector(SearchVectorField())).filter(
            search=SearchQuery(query, config="english", search_type="websearch")
        )
    # SQLite fallback: every term must appear in the title or the abstract.
    condition = Q()
    for term in search_terms(query):
        condition &= Q(title__icontains=term) | Q(abstract__icontains=term)
    return papers.filter(condition)
