"""Shared set-up of the learning tests (feedback, retrain, topic-edit re-tagging, proposals):
a small taxonomy in the database taken from the real taxonomy files, papers, and a tagger
whose data folder is the test's own."""

from __future__ import annotations

import itertools

from topics.models import Topic
from topics.services.taxonomy import TAXONOMY_DIR
from topics.tagger import load_taxonomy_files

# slug -> parent in the small taxonomy (areas: rl, ml); texts come from topics/taxonomy/*.yaml
MINI = {
    "rl": None,
    "policy-gradient": "rl",
    "proximal-policy-optimization": "policy-gradient",
    "offline-rl": "rl",
    "ml": None,
    "graph-neural-networks": "ml",
    "federated-learning": "ml",
    "diffusion-models": "ml",
}
_numbers = itertools.count(1)
_specs = None


def _real_specs():
    global _specs
    if _specs is None:
        _specs = {t.slug: t for t in load_taxonomy_files(TAXONOMY_DIR).topics}
    return _specs


def mini_taxonomy() -> dict[str, Topic]:
    """The topics of MINI as database rows, with the real names, descriptions and keywords."""
    specs = _real_specs()
    topics: dict[str, Topic] = {}
    for position, (slug, parent_slug) in enumerate(MINI.items()):
        spec = specs[slug]
        parent = topics.get(parent_slug) if parent_slug else None
        topic = Topic.objects.create(
            slug=slug,
            name=spec.name,
            code=spec.code or "",
            parent=parent,
            area=(parent.area if parent else None),
            depth=(parent.depth + 1) if parent else 0,
            position=position,
            description=spec.description,
            aliases=list(spec.aliases),
            keywords=list(spec.keywords),
            categories=list(spec.categories),
        )
        if parent is None:
            topic.area = topic
            topic.save(update_fields=["area"])
        topics[slug] = topic
    return topics


PPO_PAPER = (
    "Revisiting clipping in proximal policy optimization",
    "Proximal policy optimization (PPO) constrains each policy update with a clipped surrogate "
    "objective. We study how the clipping ratio and advantage normalisation affect stability "
    "of policy gradient training on MuJoCo continuous-control tasks and show that a simple "
    "adaptive clipping schedule improves sample efficiency.",
)
OFFLINE_PAPER = (
    "Conservative value estimates for offline reinforcement learning",
    "Offline reinforcement learning learns a policy from a fixed dataset of logged transitions "
    "without further interaction. We propose a conservative Q-learning variant that penalises "
    "out-of-distribution actions and evaluate it on D4RL locomotion and AntMaze datasets.",
)
GNN_PAPER = (
    "Message passing graph neural networks for molecule property prediction",
    "Graph neural networks learn node and graph representations by message passing between "
    "neighbours. We design an equivariant message passing layer for molecular graphs and "
    "report node classification and molecular property prediction results.",
)


def isolate_tagger(settings, tmp_path) -> None:
    """A data folder of the test's own and no tagger or cached vectors from other tests."""
    from topics.runtime import paper_vectors_reset, tagger_reset

    settings.DATA_DIR = tmp_path
    tagger_reset()
    paper_vectors_reset()
