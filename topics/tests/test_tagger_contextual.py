"""The refined stage's contextual encoder (topics/tagger/contextual.py) and the tagger that
uses it: real MiniLM vectors from the packaged ONNX file, joined to the static ones for the kNN
vote and the heads, and the shipped refined model in topics/tagger/model/refined/."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from topics.tagger import contextual
from topics.tagger.contextual import (
    ContextModelError,
    ContextualEmbedder,
    load_context_vectors,
    save_context_vectors,
)
from topics.tagger.engine import PaperInput, Tagger
from topics.tagger.scoring import ScorerParams
from topics.tagger.taxonomy import load_taxonomy_files
from topics.tests.learning_setup import GNN_PAPER, PPO_PAPER

TAXONOMY = "topics/taxonomy"


@pytest.fixture(scope="module")
def encoder():
    return ContextualEmbedder()


@pytest.fixture(scope="module")
def refined(encoder):
    return Tagger(load_taxonomy_files(TAXONOMY).topics, context=encoder)


def test_vectors_are_unit_rows_and_an_empty_text_gets_zeros(encoder):
    vecs = encoder.encode([PPO_PAPER[0], "", PPO_PAPER[0]])
    assert vecs.shape == (3, 384)
    assert np.isclose(np.linalg.norm(vecs[0]), 1.0, atol=1e-5)
    assert not np.any(vecs[1])
    assert np.array_equal(vecs[0], vecs[2])  # batch position does not change a vector


def test_context_tells_related_papers_from_unrelated_ones(encoder):
    gnn, molecules, speech = encoder.encode(
        [
            "Message passing neural networks on graphs",
            "Graph neural networks predict molecular properties from atoms and bonds",
            "End-to-end speech recognition with streaming transducers",
        ]
    )
    assert gnn @ molecules > gnn @ speech + 0.2


def test_a_damaged_model_file_is_refused(monkeypatch, tmp_path):
    damaged = tmp_path / "model.onnx"
    damaged.write_bytes(b"not a model")
    monkeypatch.setattr(contextual, "_package_model", lambda: (damaged, "0" * 64))
    with pytest.raises(ContextModelError, match="sha256"):
        ContextualEmbedder(fine_tuned=False)


def fine_tuned_folder(folder, model: bytes, sha256: str) -> None:
    """What tools/finetune_encoder.py leaves in model/contextual/: the model, its record, and
    the tokenizer beside them."""
    (folder / contextual.ENCODER_FILE).write_bytes(model)
    (folder / contextual.ENCODER_INFO).write_text(json.dumps({"sha256": sha256}))
    (folder / contextual.TOKENIZER_FILE).write_bytes(
        (contextual.CONTEXT_DIR / contextual.TOKENIZER_FILE).read_bytes()
    )


def test_a_fine_tuned_model_replaces_the_package_model_and_renames_the_encoder(encoder, tmp_path):
    # the package's own file stands in for a fine-tuned one: the folder's record decides
    package_file, _, package_name = contextual.model_file(tmp_path)
    assert package_name == encoder.name == f"minilm-int8-{contextual.MAX_TOKENS}"
    data = package_file.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    fine_tuned_folder(tmp_path, data, digest)
    tuned = ContextualEmbedder(folder=tmp_path)
    assert tuned.name == f"minilm-ft{digest[:8]}-int8-{contextual.MAX_TOKENS}"
    texts = ["Message passing neural networks on graphs", "Streaming speech recognition"]
    assert np.allclose(tuned.encode_raw(texts), encoder.encode_raw(texts), atol=1e-5)
    # vectors cached under the package encoder's name are not this encoder's
    path = tmp_path / "labelled_context.npz"
    save_context_vectors(path, ["2501.00001"], encoder.encode(texts[:1]), encoder.name)
    assert load_context_vectors(path, tuned) == {}


def test_a_fine_tuned_model_that_does_not_match_its_record_is_refused(tmp_path):
    fine_tuned_folder(tmp_path, b"not a model", "0" * 64)
    with pytest.raises(ContextModelError, match="sha256"):
        ContextualEmbedder(folder=tmp_path)


def test_saved_vectors_load_for_the_same_encoder_only(encoder, tmp_path):
    path = tmp_path / "labelled_context.npz"
    vecs = encoder.encode(["a paper on graphs", "a paper on speech"])
    save_context_vectors(path, ["2501.00001", "2501.00002"], vecs, encoder.name)
    loaded = load_context_vectors(path, encoder)
    assert sorted(loaded) == ["2501.00001", "2501.00002"]
    assert np.allclose(loaded["2501.00001"], vecs[0], atol=2e-3)  # stored as float16
    other = type("Other", (), {"name": "another-encoder"})()
    assert load_context_vectors(path, other) == {}
    assert load_context_vectors(tmp_path / "missing.npz", encoder) == {}


def test_a_refined_scorer_needs_the_encoder_and_a_fast_one_ignores_it(encoder):
    topics = load_taxonomy_files(TAXONOMY).topics
    refined_params = ScorerParams.load(contextual.REFINED_SCORER_PATH)
    assert refined_params.embedding["context_weight"] > 0
    with pytest.raises(ValueError, match="contextual encoder"):
        Tagger(topics, params=refined_params, neighbours=())
    fast = Tagger(topics, neighbours=(), params=ScorerParams.load(), context=encoder)
    assert fast.context is None
    assert "+" not in fast.model_version


def test_the_shipped_refined_tagger_joins_the_vectors_and_tags(refined, encoder):
    assert refined.context is encoder
    assert refined.model_version.endswith("/static+" + encoder.name)
    memory = refined.neighbour_memory()
    assert memory is not None
    assert memory.vecs.shape[1] == 256 + 384
    # the labelled papers' vectors came from the shipped file, not from encoding them again
    assert all(pid in refined._context_known for pid in memory.ids)
    assert np.allclose(np.linalg.norm(memory.vecs, axis=1), 1.0, atol=1e-3)
    assert refined.heads_view() is not None
    assert refined.chip_order is not None

    paper = PaperInput("x1", GNN_PAPER[0], GNN_PAPER[1], ("cs.LG",))
    joined = refined.joined_vectors([paper])
    assert joined.shape == (1, 640)
    static = refined.embed([paper])
    assert np.allclose(joined[0, :256], static[0] * np.sqrt(1 - refined.context_weight))
    tags = refined.tag(paper)
    shown = [t.slug for t in tags if t.shown]
    assert "graph-neural-networks" in [t.slug for t in tags]
    assert 1 <= len(shown) <= 7


def test_the_refined_tagger_scores_topics_by_their_contextual_similarity(refined, encoder):
    paper = PaperInput("x2", GNN_PAPER[0], GNN_PAPER[1], ("cs.LG",))
    feats = refined.pair_features(
        [paper], [["graph-neural-networks", "automatic-speech-recognition"]]
    )[0]
    gnn, speech = feats["graph-neural-networks"], feats["automatic-speech-recognition"]
    # z-scores against ordinary papers (model/contextual/reference.npz): far above for the
    # topic the paper is about, ordinary for one it is not
    assert gnn["ctx_desc"] > 3
    assert gnn["ctx_kw"] > 3
    assert speech["ctx_desc"] < 1
    assert gnn["ctx_gap"] > speech["ctx_gap"]
    assert speech["ctx_gap"] < 0
    assert encoder.reference is not None
    assert encoder.reference.shape == (2000, 384)


def test_the_fast_tagger_has_no_contextual_features():
    fast = Tagger(load_taxonomy_files(TAXONOMY).topics)
    paper = PaperInput("x3", GNN_PAPER[0], GNN_PAPER[1], ("cs.LG",))
    feats = fast.pair_features([paper], [["graph-neural-networks"]])[0]["graph-neural-networks"]
    assert (feats["ctx_desc"], feats["ctx_kw"], feats["ctx_gap"]) == (0.0, 0.0, 0.0)
    assert feats["sim_desc"] > 0


def test_topic_texts_are_encoded_once_and_reused_by_their_text(encoder):
    calls: list[list[str]] = []

    class Counting:
        dim = encoder.dim

        def encode(self, texts):
            calls.append(list(texts))
            return encoder.encode(texts)

    known: dict[str, np.ndarray] = {}
    first = contextual.encode_texts(Counting(), ["graphs", "speech", "graphs"], known)
    assert calls == [["graphs", "speech"]] or calls == [["speech", "graphs"]]
    assert np.array_equal(first[0], first[2])
    again = contextual.encode_texts(Counting(), ["speech", "bandits"], known)
    assert calls[1] == ["bandits"]  # only the new text
    assert np.array_equal(again[0], first[1])
    assert len(known) == 3


def test_the_shipped_topic_vectors_cover_the_taxonomy(refined):
    # every topic text was found in model/refined/topic_context.npz: nothing was encoded at
    # start (the tagger would have added the new texts to the same dictionary)
    shipped = load_context_vectors(contextual.TOPIC_VECTORS_PATH, refined.context)
    assert set(refined._topic_context) == set(shipped)
    assert len(shipped) == 2 * len(refined.topics)
