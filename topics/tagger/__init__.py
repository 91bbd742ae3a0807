"""Paperscope's topic tagger: pure Python + numpy, no Django imports (see engine.py)."""

from .engine import PaperInput, Priors, Tag, Tagger, UnknownTopicError
from .scoring import ScorerParams, fit_scorer
from .taxonomy import Taxonomy, TaxonomyError, TopicSpec, load_taxonomy_files

__all__ = [
    "PaperInput",
    "Priors",
    "ScorerParams",
    "Tag",
    "Tagger",
    "Taxonomy",
    "TaxonomyError",
    "TopicSpec",
    "UnknownTopicError",
    "fit_scorer",
    "load_taxonomy_files",
]
