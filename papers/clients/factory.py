"""Clients configured from settings: the one place that knows the URLs, contact and gate."""

from __future__ import annotations

from django.conf import settings

from papers.clients.atom import QueryClient
from papers.clients.http import ArxivHttp
from papers.clients.oai import OaiClient
from papers.clients.rss import RssClient


def oai_client() -> OaiClient:
    return OaiClient(ArxivHttp.from_settings(), str(settings.ARXIV_OAI_URL))


def rss_client() -> RssClient:
    return RssClient(ArxivHttp.from_settings(), str(settings.ARXIV_RSS_URL))


def query_client() -> QueryClient:
    return QueryClient(ArxivHttp.from_settings(), str(settings.ARXIV_API_URL))
