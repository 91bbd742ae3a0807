"""Learning from people (issue 4, item 3): votes change a paper's tags and the tagger at once.

``accounts.services.feedback.tag_feedback_submit`` stores a vote (and makes a confirmed or added
tag a "user" tag); after the commit it calls :func:`feedback_applied`, which

1. settles the paper's tags in the database at once: the net verdict over everyone's votes
   (:func:`topics.selectors.feedback_verdicts`) either keeps a user tag (plus the ancestors it
   implies) or removes the topic's model and user tags and the model's tags below it;
2. updates the topic's prototype in this process's tagger, if one is loaded (Rocchio + example
   and rejection memory, ``Tagger.apply_feedback``);
3. queues a re-tag of the paper, so the model fills the gap with the updated prototype; the
   re-tag honours rejections (``papers_tag``).

Other processes learn the vote when they rebuild their tagger (``topics.runtime.tagger_build``
replays the newest judgements and curated tags) or, between rebuilds, from ``tagger_catch_up``,
which ``tagger_get`` calls with every use. Paper vectors are cached in memory and under the data
folder, so replaying 20,000 judgements takes seconds, not a re-embedding of every paper.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import Max

from papers.models import Paper
from topics.models import PaperTopic, Topic
from topics.runtime import tagger_feedback_apply, tagger_peek
from topics.selectors import feedback_verdicts, topic_descendant_ids
from topics.services.chips import paper_chips_refresh

logger = logging.getLogger(__name__)


# --- one vote ----------------------------------------------------------------------------------
def feedback_applied(paper_id: int, topic_slug: str, vote: str) -> None:
    """Called by the accounts app after a vote is committed. See the module docstring."""
    paper = Paper.objects.filter(pk=paper_id).first()
    topic = Topic.objects.filter(slug=topic_slug).first()
    if paper is None or topic is None:
        return
    verdict = feedback_verdicts(pairs=[(paper.pk, topic.pk)]).get((paper.pk, topic.pk))
    if verdict is None:  # the vote is gone again
        return
    paper_tags_settle(paper=paper, topic=topic, confirm=verdict.confirm)
    tagger = tagger_peek()
    if tagger is not None:
        tagger_feedback_apply(tagger, [(paper.pk, topic.pk, verdict.confirm)])
    logger.info("feedback %s on %s / %s: net %s", vote, paper.arxiv_id, topic.slug, verdict.confirm)
    from topics.tasks import tag_papers_task

    transaction.on_commit(lambda: tag_papers_task.delay([paper.pk]))


@transaction.atomic
def paper_tags_settle(*, paper: Paper, topic: Topic, confirm: bool) -> None:
    """The paper's stored tags after a verdict on one topic. Rejected: the topic's model and
    user tags go, and so do the model's tags below it (a child implies its parent); curated tags
    are an editor's decision and stay. Confirmed: a user tag (kept by re-tagging) and its
    ancestors (as model tags, so that the hierarchy holds until the next re-tag)."""
    _settle(paper=paper, topic=topic, confirm=confirm)
    paper_chips_refresh(paper_ids=[paper.pk])


def _settle(*, paper: Paper, topic: Topic, confirm: bool) -> None:
    tags = PaperTopic.objects.filter(paper=paper)
    if not confirm:
        tags.filter(topic=topic).exclude(source=PaperTopic.Source.CURATED).delete()
        below = topic_descendant_ids([topic.pk])
        if below:
            tags.filter(topic_id__in=below, source=PaperTopic.Source.MODEL).delete()
        return
    tag = tags.filter(topic=topic).first()
    last = tags.aggregate(m=Max("rank"))["m"] or 0
    if tag is None:
        tag = PaperTopic.objects.create(
            paper=paper,
            topic=topic,
            score=1.0,
            rank=last + 1,
            source=PaperTopic.Source.USER,
            evidence={"feedback": "confirm"},
        )
        last += 1
    elif tag.source == PaperTopic.Source.MODEL:
        tag.source = PaperTopic.Source.USER
        tag.save(update_fields=["source"])
    present = set(tags.values_list("topic_id", flat=True))
    rejected = {t for (_, t), v in feedback_verdicts(paper_ids=[paper.pk]).items() if not v.confirm}
    node = topic.parent
    while node is not None:
        if node.pk not in present and node.pk not in rejected:
            last += 1
            PaperTopic.objects.create(
                paper=paper,
                topic=node,
                # Not the child's score: the re-tag queued by feedback_applied gives the
                # ancestor the model's own score for it; until then it claims nothing.
                score=0.0,
                rank=last,
                source=PaperTopic.Source.MODEL,
                evidence={"implied_by": topic.slug},
            )
        node = node.parent
