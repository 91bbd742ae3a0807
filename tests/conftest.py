"""Fixtures shared by the cross-app tests."""

from tests.fake_arxiv import fake_arxiv  # noqa: F401 - a fixture: a running fake arXiv server
