"""Clients configured from settings: the one place that knows the URLs, contact and gate."""

from __future__ import annotations

from django.conf import settings

from papers.clients.atom import QueryClient
from papers.clients.gate import gate_from_settings
from papers.clients.http import ArxivHttp
from papers.clients.oai import OaiClient
from papers.clients.rss import RssClient


def user_agent() -> str:
    return f"Paperscope/{settings.PAPERSCOPE_VERSION} (mailto:{settings.ARXIV_CONTACT_EMAIL})"


def arxiv_http() -> ArxivHttp:
    return ArxivHttp(gate=gate_from_settings(), user_agent=user_agent())


def oai_client() -> OaiClient:
    return OaiClient(arxiv_http(), settings.ARXIV_OAI_URL)


def rss_client() -> RssClient:
    return RssClient(arxiv_http(), settings.ARXIV_RSS_URL)


def query_client() -> QueryClient:
    return QueryClient(arxiv_http(), settings.ARXIV_API_URL)
