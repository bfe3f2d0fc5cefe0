"""WordLlama's 256-d model (its wheel ships the weights) encoding texts for bench/distill.py, in a
virtual environment of its own (it needs no torch):

    python3 -m venv /tmp/wordllama-venv && /tmp/wordllama-venv/bin/pip install wordllama==0.4.0.post1
    /tmp/wordllama-venv/bin/python bench/peers/wordllama_encode.py TEXTS.txt OUT.npy [--rounds 3]

TEXTS.txt holds one text a line; OUT.npy gets their (N, 256) float32 rows, WordLlama's mean of token
rows unnormalised (its default). With --rounds, the texts are encoded that many more times and the
sentences per second of each round printed as JSON (the speed of its own `embed`, batches of 64).

Offline: wordllama 0.4.0 looks for its tokenizer under <package>/tokenizer/ but the wheel ships it under
<package>/tokenizers/, so the file is copied into a cache folder where `load` looks next.
"""

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

os.environ["HF_HUB_OFFLINE"] = "1"
NAME = "l2_supercat_tokenizer_config.json"

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("texts")
parser.add_argument("out")
parser.add_argument("--rounds", type=int, default=0)
args = parser.parse_args()

import numpy as np  # noqa: E402
import wordllama  # noqa: E402

cache = Path(tempfile.gettempdir()) / "wordllama-cache"
(cache / "tokenizers").mkdir(parents=True, exist_ok=True)
if not (cache / "tokenizers" / NAME).exists():
    shutil.copyfile(Path(wordllama.__file__).parent / "tokenizers" / NAME, cache / "tokenizers" / NAME)
model = wordllama.WordLlama.load(config="l2_supercat", dim=256, disable_download=True, cache_dir=str(cache))
texts = Path(args.texts).read_text(encoding="utf-8").split("\n")[:-1]
np.save(args.out, np.asarray(model.embed(texts), dtype=np.float32))
speeds = []
for _ in range(args.rounds):
    start = time.perf_counter()
    model.embed(texts)
    speeds.append(len(texts) / (time.perf_counter() - start))
if args.rounds:
    print(json.dumps(speeds))
