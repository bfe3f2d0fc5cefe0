"""Model2Vec's own distillation of a teacher folder, for bench/distill.py. It runs in a virtual
environment of its own, since model2vec[distill] pins transformers below the project's:

    python3 -m venv /tmp/model2vec-venv
    /tmp/model2vec-venv/bin/pip install torch==2.13.0
    /tmp/model2vec-venv/bin/pip install 'model2vec[distill,quantization]==0.10.0'   # distill imports scikit-learn

    /tmp/model2vec-venv/bin/python bench/peers/model2vec_distill.py TEACHER_DIR OUT_DIR [--dim 256] [--words FILE]

Model2Vec's defaults otherwise (mean pooling, Zipf SIF 1e-4, the teacher's vocabulary less [unusedN],
float16); --words FILE (one word a line) is its `vocabulary`: words added whole. Offline: the teacher is
a local folder and the hub is switched off before anything imports it.
"""

import argparse
import os
import sys

os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("teacher")
parser.add_argument("out")
parser.add_argument("--dim", type=int, default=256)
parser.add_argument("--threads", type=int, default=2)
parser.add_argument("--words", help="a file of words to add to the vocabulary, one a line")
args = parser.parse_args()
words = open(args.words, encoding="utf-8").read().split("\n") if args.words else None

import torch  # noqa: E402

torch.set_num_threads(args.threads)
from model2vec.distill import distill  # noqa: E402

model = distill(model_name=os.path.abspath(args.teacher), vocabulary=words, pca_dims=args.dim, device="cpu")
model.save_pretrained(args.out)
print(f"{args.out}: {tuple(model.embedding.shape)} {model.embedding.dtype}", file=sys.stderr)
