"""Emerging topics: propose new topics from recent papers the taxonomy covers poorly, for a
person to accept or reject in the admin. The method is described in ``find``; ``clustering`` and
``phrases`` are its Django-free steps, ``decide`` stores proposals and decisions."""

from topics.services.proposals.clustering import average_linkage
from topics.services.proposals.decide import (
    proposal_description,
    proposal_keywords,
    proposal_taxonomy_entry,
    topic_proposal_accept,
    topic_proposal_reject,
    topic_proposals_create,
)
from topics.services.proposals.find import (
    PROPOSAL_TAXONOMY_VERSION,
    Cluster,
    ProposalRun,
    topic_proposals_find,
)
from topics.services.proposals.phrases import class_phrases, document_phrases, title_case

__all__ = [
    "PROPOSAL_TAXONOMY_VERSION",
    "Cluster",
    "ProposalRun",
    "average_linkage",
    "class_phrases",
    "document_phrases",
    "proposal_description",
    "proposal_keywords",
    "proposal_taxonomy_entry",
    "title_case",
    "topic_proposal_accept",
    "topic_proposal_reject",
    "topic_proposals_create",
    "topic_proposals_find",
]
