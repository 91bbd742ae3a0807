"""Helpers of the digest, alert and private-feed tests: readers who follow topics, papers that
arrive (tagged) after them, the mail backends switched on, and reading a digest back."""

from __future__ import annotations

import re
from email import message_from_bytes
from pathlib import Path

import pytest
from django.core import mail
from django.core.management import call_command
from django.utils import timezone

from accounts.services import follows
from accounts.tests.factories import user_create
from accounts.tests.mail_backends import FlakyBackend
from papers.tests.factories import paper_create

RSS = Path(__file__).resolve().parents[2] / "papers" / "tests" / "fixtures" / "rss"
FLAKY = "accounts.tests.mail_backends.FlakyBackend"
_ABS_LINE = re.compile(r"^  arXiv:  https://arxiv\.org/abs/(\S+)$", re.M)
_HTML_PAPER = re.compile(r'class="digest-paper" data-arxiv-id="([^"]+)"')


@pytest.fixture
def flaky(settings):
    """Mail goes through FlakyBackend (into mail.outbox); its failure switches start off."""
    settings.EMAIL_BACKEND = FLAKY
    FlakyBackend.reset()
    mail.outbox = []
    yield FlakyBackend
    FlakyBackend.reset()


def reader(username: str, *topics, email: str | None = None):
    """Someone with digest defaults (daily) who follows `topics`."""
    user = user_create(username, email=email)
    for topic in topics:
        follows.follow_create(user=user, topic_slug=topic.slug)
    return user


def arrived(arxiv_id: str | None = None, *, topics=(), **extra):
    """A paper the harvester stored and the tagger tagged just now."""
    return paper_create(arxiv_id, topics=list(topics), tagged_at=timezone.now(), **extra)


def send_digests(*args) -> str:
    from io import StringIO

    out = StringIO()
    call_command("send_digests", *args, stdout=out)
    return out.getvalue()


def text_of(message) -> str:
    return message.body


def html_of(message) -> str:
    (html, mimetype), *_ = message.alternatives
    assert mimetype == "text/html"
    return html


def listed_ids(message) -> list[str]:
    """arXiv ids of the new papers a digest lists, from its plain-text part."""
    text = text_of(message)
    papers_part = text.split("== News about papers you saved ==")[0]
    return _ABS_LINE.findall(papers_part)


def html_listed_ids(message) -> list[str]:
    return _HTML_PAPER.findall(html_of(message))


def groups_of(message) -> dict[str, list[str]]:
    """{topic name: arXiv ids listed under it} from the plain-text part."""
    groups: dict[str, list[str]] = {}
    current = None
    for line in text_of(message).splitlines():
        heading = re.match(r"^== (.+) \(\d+\) ==$", line)
        if heading:
            current = groups.setdefault(heading.group(1), [])
        elif line.startswith("== "):
            current = None
        elif current is not None:
            found = _ABS_LINE.match(line)
            if found:
                current.append(found.group(1))
    return groups


def eml_recipients(folder: Path) -> list[str]:
    return sorted(
        message_from_bytes(path.read_bytes())["To"] for path in sorted(folder.glob("*.eml"))
    )
