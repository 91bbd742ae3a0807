"""Emerging topics (issue 4, item 6): recent papers the taxonomy covers poorly are clustered into
named proposals; accepting one creates the topic and tags its papers at once."""

from __future__ import annotations

from datetime import date, timedelta
from io import StringIO

import numpy as np
import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import transaction
from django.test import Client

from papers.tests.factories import paper_create
from topics.models import PaperTopic, Topic, TopicProposal
from topics.services import proposals as proposal_services
from topics.services.proposals import (
    average_linkage,
    class_phrases,
    topic_proposal_accept,
    topic_proposal_reject,
    topic_proposals_create,
)
from topics.services.tagging import papers_tag
from topics.tasks import propose_topics_task
from topics.tests.learning_setup import GNN_PAPER, OFFLINE_PAPER, PPO_PAPER

pytestmark = pytest.mark.django_db

NEWEST = date(2025, 3, 28)
WIDGET_PAPERS = [
    (
        "Quantum sea-ice widgets for Arctic buoy arrays",
        "We build quantum sea-ice widgets that measure brine channels in Arctic sea ice with "
        "entangled photon probes. The widgets survive the polar winter and report hourly.",
    ),
    (
        "Calibrating quantum sea-ice widgets against drifting floes",
        "Quantum sea-ice widgets drift with the floes they sit on. We calibrate widget readings "
        "of brine volume and ice thickness against coring campaigns in the Beaufort Sea.",
    ),
    (
        "Low-power quantum sea-ice widgets",
        "Sea-ice widgets based on quantum sensing need power through the polar night. We design "
        "a low-power quantum widget that samples sea ice brine and floe temperature for a year.",
    ),
    (
        "Entanglement budgets of quantum sea-ice widgets",
        "How much entanglement does a quantum sea-ice widget need? We bound the photon budget of "
        "widgets measuring brine pockets in first-year Arctic sea ice and floes.",
    ),
    (
        "A benchmark of quantum sea-ice widgets",
        "We release measurements from forty quantum sea-ice widgets deployed on Arctic floes, "
        "with brine salinity, ice thickness and widget health, as a benchmark for the field.",
    ),
    (
        "Quantum sea-ice widgets meet satellite altimetry",
        "We fuse quantum sea-ice widget readings of brine and ice thickness with satellite "
        "altimetry over Arctic floes, and show the widgets correct the freeboard estimates.",
    ),
    (
        "Fault detection for quantum sea-ice widgets",
        "Quantum sea-ice widgets fail when brine freezes inside the probe. We detect faulty "
        "widgets from their photon counts across a winter of Arctic sea ice floe data.",
    ),
    (
        "Swarms of quantum sea-ice widgets",
        "A swarm of quantum sea-ice widgets covers an Arctic floe field. We place widgets to "
        "map brine drainage and sea ice thickness with the fewest entangled probes.",
    ),
]
NOISE_PAPERS = [
    ("Transformer music generation with chord constraints", "We generate piano music with a "
     "transformer that respects chord progressions written by composers."),
    ("Protein folding intermediates from molecular dynamics", "We identify folding "
     "intermediates of small proteins in long molecular dynamics trajectories."),
    ("Forecasting urban traffic with loop detectors", "Loop detector counts on city roads are "
     "forecast an hour ahead with a seasonal regression model."),
    ("Legal contract clause retrieval", "Lawyers search contracts for indemnity clauses; we "
     "rank clauses with a lexical retriever tuned on annotated agreements."),
    ("Crop yield estimation from drone imagery", "Drone images of wheat fields predict harvest "
     "yield per plot before the harvest."),
    ("Speech emotion recognition for call centres", "Customer calls are labelled with anger, "
     "joy or neutral tone from acoustic features of the voice."),
    ("Solar flare prediction from magnetograms", "Magnetogram patches of active regions on the "
     "Sun predict major flares within a day."),
    ("Fair exam scheduling with integer programming", "University exams are scheduled so that "
     "no student sits two exams on one day, using an integer program."),
    ("Bird song syllable segmentation", "Field recordings of songbirds are split into "
     "syllables with an onset detector and a small classifier."),
    ("Estimating bridge vibration from smartphones", "Phones of pedestrians crossing a bridge "
     "record accelerations that reveal its vibration modes."),
]  # fmt: skip
AUTHORS = ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Emmy Noether"]


def corpus(*, widget_authors=AUTHORS) -> dict:
    """8 widget papers from the given first authors, 18 papers the taxonomy covers, 10
    unrelated ones, one old widget paper outside the window; all tagged."""
    widgets = [
        paper_create(
            title=title,
            abstract=abstract,
            authors=[widget_authors[n % len(widget_authors)], "Coauthor Smith"],
            announced=NEWEST - timedelta(days=n * 3),
            categories="physics.ao-ph cs.LG",
        )
        for n, (title, abstract) in enumerate(WIDGET_PAPERS)
    ]
    covered = [
        paper_create(
            title=f"{title} ({n})",
            abstract=abstract,
            authors=[f"Author {n} of {title[:20]}"],  # many first authors: only coverage skips
            announced=NEWEST - timedelta(days=n),
        )
        for n in range(6)
        for title, abstract in (PPO_PAPER, OFFLINE_PAPER, GNN_PAPER)
    ]
    noise = [
        paper_create(title=title, abstract=abstract, announced=NEWEST - timedelta(days=n))
        for n, (title, abstract) in enumerate(NOISE_PAPERS)
    ]
    old = paper_create(
        title=WIDGET_PAPERS[0][0],
        abstract=WIDGET_PAPERS[0][1],
        announced=NEWEST - timedelta(days=60),
    )
    papers_tag(paper_ids=[p.id for p in [*widgets, *covered, *noise, old]])
    return {"widgets": widgets, "covered": covered, "noise": noise, "old": old}


def test_a_clear_uncovered_cluster_is_proposed_with_a_sensible_name(topics):
    papers = corpus()
    run = topic_proposals_create()

    assert run.window_start == NEWEST - timedelta(days=27)
    assert run.window_end == NEWEST
    assert len(run.proposals) == 1, run.clusters
    proposal = run.proposals[0]
    assert "sea-ice widget" in proposal.name.lower()
    assert proposal.name[0].isupper()
    members = set(proposal.papers.values_list("id", flat=True))
    widget_ids = {p.id for p in papers["widgets"]}
    assert len(members & widget_ids) >= 6
    assert members <= widget_ids
    assert papers["old"].id not in members
    assert proposal.parent is not None
    assert any("widget" in phrase.lower() for phrase in proposal.phrases)
    assert proposal.stats["first_authors"] >= 3
    assert len(proposal.stats["central_titles"]) == 3
    # The covered papers clustered too, but an existing topic tags them: not proposed.
    skipped = [c for c in run.clusters if c.skipped.startswith("covered")]
    assert skipped
    assert all(set(c.paper_ids) & {p.id for p in papers["covered"]} for c in skipped)


def test_accepting_creates_the_topic_and_tags_the_members_at_once(
    topics, django_capture_on_commit_callbacks
):
    papers = corpus()
    proposal = topic_proposals_create().proposals[0]
    members = list(proposal.papers.all())
    parent = proposal.parent

    with django_capture_on_commit_callbacks(execute=True):
        topic = topic_proposal_accept(proposal)

    assert topic.slug == "quantum-sea-ice-widgets" or "sea-ice-widget" in topic.slug
    assert topic.parent == parent
    assert topic.active
    assert topic.depth == parent.depth + 1
    assert topic.taxonomy_version == "proposal"
    assert topic.description.startswith(f"{topic.name} covers recent work on")
    central = proposal.stats["central_titles"][0]["title"]
    assert f"Representative papers: {central}" in topic.description
    assert topic.keywords
    assert all(k == k.lower() for k in topic.keywords)
    proposal.refresh_from_db()
    assert proposal.status == "accepted"
    assert proposal.accepted_topic == topic
    ancestors = []
    node = parent
    while node is not None:
        ancestors.append(node.slug)
        node = node.parent
    for member in members:
        tags = {t.topic.slug: t for t in PaperTopic.objects.filter(paper=member)}
        assert tags[topic.slug].source == "curated"
        assert set(ancestors) <= set(tags)
    # Taggable straight away: a new paper like the members gets the topic from the tagger.
    fresh = paper_create(
        title="Quantum sea-ice widgets under snow load",
        abstract=(
            "Snow on top of quantum sea-ice widgets changes the brine readings; we correct "
            "widget data from Arctic floes for the snow load."
        ),
        announced=NEWEST,
    )
    papers_tag(paper_ids=[fresh.id])
    assert topic.slug in set(
        PaperTopic.objects.filter(paper=fresh).values_list("topic__slug", flat=True)
    )
    # Accepting again changes nothing.
    assert topic_proposal_accept(proposal) == topic
    assert Topic.objects.filter(taxonomy_version="proposal").count() == 1
    assert {m.id for m in members} <= {p.id for p in papers["widgets"]}


def test_the_weekly_task_does_not_propose_decided_clusters_again(topics):
    corpus()
    assert propose_topics_task.delay().get() == 1
    assert propose_topics_task.delay().get() == 1  # refreshes the open proposal
    assert TopicProposal.objects.count() == 1
    topic_proposal_reject(TopicProposal.objects.get())
    assert propose_topics_task.delay().get() == 0
    assert TopicProposal.objects.get().status == "rejected"


def test_one_lab_s_series_is_not_a_topic(topics):
    corpus(widget_authors=["Ada Lovelace", "Grace Hopper"])
    run = topic_proposals_create()
    assert run.proposals == []
    assert any("first authors" in c.skipped for c in run.clusters)


def test_the_admin_accepts_a_proposal(topics, django_capture_on_commit_callbacks):
    corpus()
    proposal = topic_proposals_create().proposals[0]
    admin = get_user_model().objects.create_superuser("admin", "a@example.org", "x" * 20)
    client = Client()
    client.force_login(admin)
    page = client.get(f"/admin/topics/topicproposal/{proposal.id}/change/")
    assert page.status_code == 200
    assert b"Quantum sea-ice widgets" in page.content  # member and central titles
    listing = client.get("/admin/topics/topicproposal/")
    assert listing.status_code == 200
    assert proposal.name.encode() in listing.content
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/admin/topics/topicproposal/",
            {"action": "accept_proposals", "_selected_action": [proposal.id]},
            follow=True,
        )
    assert response.status_code == 200
    proposal.refresh_from_db()
    assert proposal.status == "accepted"
    assert b"Created" in response.content
    page = client.get(f"/admin/topics/topicproposal/{proposal.id}/change/")
    assert f"slug: {proposal.accepted_topic.slug}".encode() in page.content  # YAML entry


def test_a_proposal_without_a_parent_cannot_be_accepted(topics):
    proposal = TopicProposal.objects.create(name="Orphans", phrases=["orphan"])
    with pytest.raises(ValueError, match="parent"), transaction.atomic():
        topic_proposal_accept(proposal)
    assert not Topic.objects.filter(name="Orphans").exists()


def test_the_command_prints_the_proposals(topics):
    corpus()
    out = StringIO()
    call_command("propose_topics", stdout=out)
    text = out.getvalue()
    assert "1 proposed" in text
    assert "Sea-Ice Widget" in text
    assert "proposal " in text
    dry = StringIO()
    call_command("propose_topics", "--dry-run", "--all", stdout=dry)
    assert "skipped: covered" in dry.getvalue()
    assert TopicProposal.objects.count() == 1


def test_no_papers_no_proposals(topics):
    run = topic_proposals_create()
    assert run.proposals == []
    assert "nothing to propose" in run.summary()


def test_average_linkage_separates_clear_groups():
    rng = np.random.default_rng(0)
    centres = np.eye(3, 16, dtype=np.float32)
    points = np.concatenate([c + 0.05 * rng.standard_normal((6, 16)) for c in centres])
    points /= np.linalg.norm(points, axis=1, keepdims=True)
    groups = sorted(sorted(g.tolist()) for g in average_linkage(points.astype(np.float32), 0.5))
    assert groups == [list(range(0, 6)), list(range(6, 12)), list(range(12, 18))]
    assert average_linkage(np.zeros((0, 4), dtype=np.float32), 0.5) == []


def test_c_tf_idf_names_prefer_the_phrase_members_share():
    cluster = [
        f"Quantum sea-ice widgets, part {n}. We study quantum sea-ice widgets." for n in "ab"
    ]
    cluster += ["Sea-ice widgets in quantum regimes. The widgets measure brine."]
    background = ["We study deep learning for images.", "Transformers for text models."] * 5
    [(name, phrases)] = class_phrases([cluster], background)
    assert name == "Quantum Sea-Ice Widgets"
    assert phrases[0].lower() == name.lower()
    assert proposal_services.title_case("LLMs for graph-based RAG") == "LLMs for Graph-Based RAG"
