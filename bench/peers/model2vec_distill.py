"""Model2Vec's own distillation of a teacher folder, for bench/distill.py. It runs in a virtual
environment of its own, since model2vec[distill] pins transformers below the project's:

    python3 -m venv /tmp/model2vec-venv
    /tmp/model2vec-venv/bin/pip install torch==2.13.0
    /tmp/model2vec-venv/bin/pip install 'model2vec[distill,quantization]==0.10.0'   # distill imports scikit-learn

    /tmp/model2vec-venv/bin/python bench/peers/model2vec_distill.py TEACHER_DIR OUT_DIR [--dim 256] [--words FILE]

Model2Vec's defaults otherwise (mean pooling, Zipf SIF 1e-4, the teacher's vocabulary less [unusedN],
float16); --words FILE (one word a line) is its `vocabulary`: words added whole; --unpadded distils a
copy of the teacher whose tokenizer pads nothing (see below). Offline: the teacher is
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
parser.add_argument(
    "--unpadded", action="store_true", help="distil a copy of the teacher whose tokenizer.json pads nothing"
)
args = parser.parse_args()
words = open(args.words, encoding="utf-8").read().split("\n") if args.words else None

import torch  # noqa: E402

torch.set_num_threads(args.threads)
from model2vec.distill import distill  # noqa: E402

teacher = os.path.abspath(args.teacher)
if args.unpadded:
    # model2vec 0.10 encodes each added word with the teacher's tokenizer as it stands: all-MiniLM-L6-v2's pads
    # every text to 128, so the word's row is the mean over 128 positions, [PAD] mostly (its PR #376, after
    # 0.10, turns padding off); this copy shows its method without that
    import json
    import shutil
    import tempfile

    copy = os.path.join(tempfile.mkdtemp(prefix="teacher-"), "model")
    shutil.copytree(teacher, copy)
    with open(os.path.join(copy, "tokenizer.json"), encoding="utf-8") as f:
        state = json.load(f)
    state["padding"] = None
    with open(os.path.join(copy, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(state, f)
    teacher = copy
model = distill(model_name=teacher, vocabulary=words, pca_dims=args.dim, device="cpu")
model.save_pretrained(args.out)
print(f"{args.out}: {tuple(model.embedding.shape)} {model.embedding.dtype}", file=sys.stderr)
