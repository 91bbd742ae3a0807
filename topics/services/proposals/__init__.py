"""Emerging topics (issue 4, item 6; research/tagging.md section 3.7): propose new topics from
recent papers the taxonomy covers poorly, for a person to accept or reject in the admin.

1. **Window**: papers announced in the last 28 days up to the newest announcement (tagged ones,
   at most the newest 20,000).
2. **Residual pool**: papers with fewer than 3 confident non-area tags (score at the tagger's
   threshold or tags people gave) or whose best cosine to any topic prototype is low; the worst
   covered 3,000 at most.
3. **Clusters**: average-linkage agglomerative clustering on the tagger's paper vectors (cosine,
   numpy only), merging while clusters are on average closer than 0.35 (random pairs of papers:
   0.01 median, 0.29 at the 99th percentile). Kept: >= 5 papers from >= 3 distinct first
   authors, not already covered (no existing topic is a confident tag of half the members, and
   the centre is not close to an existing topic's prototype).
4. **Names**: c-TF-IDF (BERTopic's class-based TF-IDF: term frequency in the cluster x
   log(1 + average class size / frequency over all classes), with the rest of the window as one
   class) over 1-3-grams of titles and abstracts; the name is the best phrase of two or more
   words that most members use, else the best word. Parent: the topic nearest the centre.
5. A cluster that mostly repeats an open proposal refreshes it; one that repeats an accepted or
   rejected proposal is skipped (a person already decided).

Accepting (:func:`topic_proposal_accept`) creates the topic (slug from the name, description
drafted from the phrases and the most central titles, for a person to edit), tags the member
papers at once as "curated" (the tagger replays curated tags as examples, so the new topic is
taggable straight away), and the topic-edit signal re-tags the papers it may concern.
"""

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
