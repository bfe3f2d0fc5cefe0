"""Distillation (issue 33): each step of `embedlab distill` and the peers on four offline instruments,
and how much faster than their teacher the static models encode.

    python bench/distill.py                          # every side (about 45 minutes on 2 cores)
    python bench/distill.py --sides "distilled 256" "Model2Vec distill" --instruments wordsim7
    python bench/distill.py --write docs/results/distill.json     # docs/distill.md's table

Sides: the teacher (all-MiniLM-L6-v2, mean-pooled, through sentence-transformers in batches of 64: its
fastest mode here; "teacher (embedlab)" is the same model rebuilt from embedlab's layers), MiniLM's own
input table (the mean of its pieces' token rows, no encoder: the static baseline), distilled models
(widths, poolings, weightings), fitted ones (`--train`), and two peers, each in a virtual environment
of its own (their pins are not ours; see bench/peers/ for how to make them):
  Model2Vec distill   model2vec 0.10's `distill` of the same teacher folder, PCA 256, its defaults; its
                      folder is read and encoded by the model2vec package installed here ("+words":
                      its `vocabulary` the 5,000 words our "+words" sides add; "unpadded": distilled
                      from a copy of the teacher whose tokenizer.json does not pad to 128)
  WordLlama 256       wordllama 0.4's 256-d model (weights in its wheel), its own `embed`

Instruments (vectors.instruments): WordSim-7 (Spearman × 100), the gcide reverse dictionary (recall@10
and MRR × 100 of 5,000 headwords), gcide domains (held-out accuracy × 100, 15 subject labels) and
fidelity (Spearman × 100 of the side's cosines against the teacher's over 5,000 definition pairs), each
with its bootstrap interval. Speed is sentences per second through each side's `encode` on the same
gcide lines (passes repeated for a second at least), the sides alternated round by round; the ratio to
the teacher is the median of the rounds' ratios (WordLlama is timed in its own process, its rounds
between ours). Threads: torch and the tokenizers get --threads. Build CPU is the side's making (the
distillation, a peer's included, nothing read from the cache); a fitted side's teacher pass over its
20,000 sentences is targets CPU, made once a corpus and shared by the sides fitted on it.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")  # sentence-transformers reads the installed folder, no hub
PEERS = Path(__file__).parent / "peers"
FIT = {"train": "enwiki-sample"}
MEAN_ZIPF = {"pooling": "mean", "weighting": "zipf"}  # Model2Vec's recipe
# side -> distill's settings (None: not a distillation; "train": then fitted on that corpus)
SIDES = {
    "teacher": None,  # all-MiniLM-L6-v2 through sentence-transformers, batches of 64: its fastest here
    "teacher (embedlab)": None,  # the same model rebuilt from embedlab's layers (models.encoder)
    "input table": None,
    "Model2Vec distill": None,
    "Model2Vec distill +words": None,  # its `vocabulary` the same WORDS words
    "Model2Vec distill +words unpadded": None,  # the teacher's tokenizer.json without its padding to 128
    "WordLlama 256": None,
    "distilled 256 mean zipf": MEAN_ZIPF,
    "distilled 256 mean none": {"pooling": "mean", "weighting": "none"},
    "distilled 256 mean counts": {"pooling": "mean"},
    "distilled 256 token counts": {"pooling": "token"},
    "distilled 256 token+input zipf": {"weighting": "zipf"},
    "distilled 256": {},  # the defaults: token+input, counts
    "distilled 256 mean zipf +words": {**MEAN_ZIPF, "words": True},
    "distilled 256 +words": {"words": True},
    "distilled 64": {"dim": 64},
    "distilled 384": {"dim": 384},
    "fitted 256 mean zipf": {**MEAN_ZIPF, **FIT},
    "fitted 256": FIT,
    "fitted 256, gcide": {"train": "gcide"},
}
WORDS = 5000  # "+words": enwiki-sample's commonest words that MiniLM splits (`distill --add-words 5000`)
DEFAULT_SIDES = [s for s in SIDES if s != "teacher (embedlab)"]
INSTRUMENTS = ("wordsim7", "reverse_dictionary", "domains", "fidelity")


def build(side: str, args) -> tuple:
    """side -> (texts -> (N, D), build CPU seconds)."""
    start, children = time.process_time(), _children_cpu()
    if side == "teacher":
        from sentence_transformers import SentenceTransformer

        from embedlab.data.models import model_dir

        teacher = SentenceTransformer(str(model_dir("minilm")), device="cpu")
        encode = lambda texts: teacher.encode(texts, batch_size=64)  # noqa: E731
    elif side == "teacher (embedlab)":
        from embedlab.models.encoder import Encoder

        encode = Encoder.load("minilm").sentence_vectors
    elif side == "input table":
        encode = _input_table().encode
    elif side.startswith("Model2Vec distill"):
        encode = _model2vec(args, _words() if "+words" in side else [], unpadded=side.endswith("unpadded"))
    elif side == "WordLlama 256":
        encode = lambda texts: _wordllama(args, texts)  # noqa: E731
    else:
        encode = _distilled(SIDES[side]).encode
    return encode, time.process_time() - start + _children_cpu() - children


def _distilled(settings: dict):
    """A distillation made in full (nothing read from the cache), then fitted if `settings` say "train"."""
    from embedlab.train.distill import distill
    from embedlab.train.static_fit import fit_table

    settings = dict(settings)
    corpus = settings.pop("train", None)
    words = _words() if settings.pop("words", False) else []
    static = distill("minilm", dim=settings.pop("dim", 256), words=words, keep=False, **settings)
    if corpus is None:
        return static
    texts, targets = _targets(corpus)
    fitted, report = fit_table(static, texts, targets)
    print(f"  fitted on {corpus}: {report}", flush=True)
    return fitted


@functools.cache
def _words() -> list[str]:
    """The WORDS words the "+words" sides add, ours and Model2Vec's alike."""
    from embedlab.data.corpora import open_corpus
    from embedlab.data.models import resolve_model
    from embedlab.models.pretrained import load_tokenizer
    from embedlab.train.distill_vocabulary import frequent_words

    return frequent_words(load_tokenizer(resolve_model("minilm")), open_corpus("enwiki-sample"), WORDS)


TARGETS_CPU: dict[str, float] = {}  # corpus -> CPU seconds of the teacher's pass over its sentences


@functools.cache
def _targets(corpus: str):
    """(texts, the teacher's vectors of them) for `corpus`, made once a run (not read from the cache)."""
    from embedlab.models.encoder import Encoder
    from embedlab.train.static_fit import TEXTS, teacher_targets, training_texts

    start = time.process_time()
    texts = training_texts(corpus, TEXTS)
    with tempfile.TemporaryDirectory() as folder:
        targets = teacher_targets(Encoder.load("minilm"), texts, folder=Path(folder))
    TARGETS_CPU[corpus] = time.process_time() - start
    return texts, targets


def _input_table():
    """MiniLM's token table as a static model: each text the mean of its pieces' input rows."""
    from tokenizers import Tokenizer

    from embedlab.models.encoder import Encoder
    from embedlab.vectors.static import StaticModel

    encoder = Encoder.load("minilm")
    tokenizer = Tokenizer.from_str(encoder.tokenizer.to_str())
    tokenizer.post_processor = None
    rows = encoder.embedding.token.weight.detach().numpy().astype(np.float32)
    return StaticModel(tokenizer, rows, normalize=True, config={"teacher": "minilm", "layers": 0})


def _model2vec(args, words: list[str], unpadded: bool = False):
    """Model2Vec's distillation (its vocabulary extended by `words`) run in its own environment; its
    folder encoded by model2vec here."""
    from model2vec import StaticModel

    from embedlab.data.models import model_dir

    out = Path(tempfile.mkdtemp(prefix="m2v-"))
    script = PEERS / "model2vec_distill.py"
    command = [args.model2vec_python, str(script), str(model_dir("minilm")), str(out / "model"), "--threads",
               str(args.threads)]  # fmt: skip
    if words:
        (out / "words.txt").write_text("\n".join(words), encoding="utf-8")
        command += ["--words", str(out / "words.txt")]
    if unpadded:
        command.append("--unpadded")
    subprocess.run(command, check=True, capture_output=True)  # its progress bars would drown the table
    model = StaticModel.from_pretrained(str(out / "model"))

    def encode(texts: list[str]) -> np.ndarray:
        # model2vec 0.10's encode of more than 10,000 texts (domains: 23,009) sets TOKENIZERS_PARALLELISM=false
        # for the whole process (model.py), and every later batch encoding here, ours and its own, would run
        # on one thread: in stop 42's run that halved every static side's speed. Put back after each call.
        before = os.environ.get("TOKENIZERS_PARALLELISM")
        try:
            return np.asarray(model.encode(texts), dtype=np.float32)
        finally:
            if before is None:
                os.environ.pop("TOKENIZERS_PARALLELISM", None)
            else:
                os.environ["TOKENIZERS_PARALLELISM"] = before

    return encode


def _wordllama(args, texts: list[str], rounds: int = 0) -> np.ndarray | list[float]:
    """WordLlama's rows for `texts`, or with `rounds`, its sentences per second of each round."""
    if any("\n" in t for t in texts):
        raise ValueError("WordLlama's texts travel one a line")
    with tempfile.TemporaryDirectory() as folder:
        source, out = Path(folder) / "texts.txt", Path(folder) / "rows.npy"
        source.write_text("".join(f"{t}\n" for t in texts), encoding="utf-8")
        command = [args.wordllama_python, str(PEERS / "wordllama_encode.py"), str(source), str(out)]
        done = subprocess.run([*command, "--rounds", str(rounds)], check=True, capture_output=True, text=True)
        return json.loads(done.stdout) if rounds else np.load(out)


def _children_cpu() -> float:
    times = os.times()
    return times.children_user + times.children_system


def memo(encode):
    """encode, remembering its answer to each list of texts (the teacher is asked twice for some)."""
    kept: dict = {}

    def remembered(texts):
        key = tuple(texts)
        if key not in kept:
            kept[key] = encode(list(texts))
        return kept[key]

    return remembered


def measure(side: str, encode, teacher, instruments, resamples: int) -> dict:
    from embedlab.vectors import instruments as inst

    out = {}
    if "wordsim7" in instruments:
        score = inst.wordsim7(encode, resamples=resamples)
        out["wordsim7"] = {"score": score.score, "interval": score.interval, "sets": score.sets}
    if "reverse_dictionary" in instruments:
        out["reverse_dictionary"] = inst.reverse_dictionary(encode, resamples=resamples).to_dict()
    if "domains" in instruments:
        out["domains"] = inst.domains(encode, resamples=resamples).to_dict()
    if "fidelity" in instruments and side != "teacher":
        out["fidelity"] = inst.fidelity(teacher, encode, resamples=resamples).to_dict()
    return out


def lines(n: int) -> list[str]:
    """The first n gcide lines of 5 words or more: definitions, a sentence's length."""
    from embedlab.data.corpora import open_corpus

    out = []
    for line in open_corpus("gcide"):
        if len(line.split()) >= 5:
            out.append(line)
            if len(out) == n:
                return out
    return out


def speed(encoders: dict, texts: list[str], rounds: int, args) -> dict:
    """{side: [sentences/s per round]}, the sides alternated within each round."""
    per = {side: [] for side in encoders}
    for _ in range(rounds):
        for side, encode in encoders.items():
            if side == "WordLlama 256":
                per[side].extend(_wordllama(args, texts, rounds=1))
                continue
            per[side].append(_rate(encode, texts))
    return per


def _rate(encode, texts: list[str], at_least: float = 1.0) -> float:
    """Sentences per second of `encode` over `texts`, passes repeated until `at_least` seconds have gone
    (a static model's pass takes a tenth of a second: one pass alone is mostly the timer's noise)."""
    passes, start = 0, time.perf_counter()
    while not passes or time.perf_counter() - start < at_least:
        encode(texts)
        passes += 1
    return passes * len(texts) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sides", nargs="+", default=DEFAULT_SIDES, choices=SIDES)
    parser.add_argument("--instruments", nargs="+", default=list(INSTRUMENTS), choices=INSTRUMENTS)
    parser.add_argument("--lines", type=int, default=2000, help="gcide lines for the speed rounds")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--model2vec-python", default="/tmp/model2vec-venv/bin/python")
    parser.add_argument("--wordllama-python", default="/tmp/wordllama-venv/bin/python")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--write", metavar="PATH", help="also write the JSON object here (docs/results/distill.json)")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(args.threads)
    os.environ["RAYON_NUM_THREADS"] = str(args.threads)  # the tokenizers' batch encoding
    sides = ["teacher", *(s for s in args.sides if s != "teacher")]  # the teacher is every ratio's base
    encoders, plain, results = {}, {}, {}  # plain: each side's own encode, for the speed rounds
    for side in sides:
        print(f"{side} ...", flush=True)
        targets_before = sum(TARGETS_CPU.values())
        encode, built = build(side, args)
        plain[side] = encode
        encoders[side] = memo(encode) if side == "teacher" else encode
        built -= sum(TARGETS_CPU.values()) - targets_before  # the teacher's pass is reported on its own
        results[side] = {"build_cpu_s": built, **measure(side, encoders[side], encoders["teacher"],
                                                         args.instruments, args.resamples)}  # fmt: skip
        corpus = (SIDES[side] or {}).get("train")
        if corpus:
            results[side]["targets_cpu_s"] = TARGETS_CPU[corpus]
    per = speed(plain, lines(args.lines), args.rounds, args)
    for side in sides:
        ratios = [mine / base for mine, base in zip(per[side], per["teacher"], strict=True)]
        results[side] |= {"sentences_per_s": statistics.median(per[side]), "vs_teacher": statistics.median(ratios)}
    record = json.dumps({"lines": args.lines, "rounds": args.rounds, "threads": args.threads,
                         "resamples": args.resamples, "sides": results})  # fmt: skip
    if args.write:
        from embedlab.files import atomic_write_text

        atomic_write_text(args.write, record + "\n")
    if args.json:
        print(record)
        return
    print(table(results))


def table(results: dict) -> str:
    """The results as text: a row a side, each figure with its interval."""

    def cell(figures: dict | None, name: str) -> str:
        if figures is None:
            return f"{'-':>20}"
        value = figures["score"] if "score" in figures else figures["figures"][name]
        low, high = figures["interval"] if "score" in figures else figures["intervals"][name]
        return f"{value:6.1f} [{low:5.1f}, {high:5.1f}]"

    head = ["WordSim-7", "reverse r@10", "reverse MRR", "domains acc", "fidelity"]
    rows = [f"{'side':36} " + " ".join(f"{h:>20}" for h in head) + f" {'sent/s':>9} {'× teacher':>9} {'build s':>8}"]
    for side, r in results.items():
        cells = [cell(r.get("wordsim7"), ""), cell(r.get("reverse_dictionary"), "recall@10"),
                 cell(r.get("reverse_dictionary"), "mrr"), cell(r.get("domains"), "accuracy"),
                 cell(r.get("fidelity"), "spearman")]  # fmt: skip
        rows.append(f"{side:36} " + " ".join(cells) + f" {r['sentences_per_s']:9,.0f} {r['vs_teacher']:9.0f}"
                    f" {r['build_cpu_s']:8.1f}")  # fmt: skip
    return "\n".join(rows)


if __name__ == "__main__":
    main()
