"""Fixtures shared by the topics tests."""

from __future__ import annotations

import pytest

from topics.tests.learning_setup import isolate_tagger, mini_taxonomy


@pytest.fixture
def topics(settings, tmp_path):
    """The mini taxonomy of learning_setup as database rows, slug -> Topic, with a data folder
    and a tagger of the test's own."""
    isolate_tagger(settings, tmp_path)
    return mini_taxonomy()
