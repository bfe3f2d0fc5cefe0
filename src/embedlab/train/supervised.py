"""Training fastText's classifier (`embedlab classify train`): its flags, its defaults, its update.

    settings = Supervised(epoch=25, lr=1.0, word_ngrams=2)      # fastText's `supervised` defaults otherwise
    model = train_classifier(LabelledText.read("train.txt"), settings, progress=print)   # -> FastTextModel
    model = train_classifier(text, settings, checkpoint=Path("m.bin.partial"), resume=True)   # after a kill
    model = retrain(prune(model, 100_000), text)        # fastText's quantize -retrain, before quantizing

The result is what the tool's .bin holds (words, labels, the input table of word rows then bucket rows,
the output table of label rows), so `write_fasttext` saves it for the tool and `Classifier` predicts
with it. The step itself is in supervised_kernels.py.
"""

from __future__ import annotations

import dataclasses
import hashlib
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from embedlab.errors import FileFormatError, InvalidValueError, check_choice, check_float, check_int
from embedlab.hashing import MAX_BUCKETS
from embedlab.hashing.words import MAX_WORD_NGRAMS
from embedlab.models.bag import huffman_tree, tree_paths
from embedlab.models.labelled import Bags, Dictionary, LabelledText
from embedlab.train.corpus import WordVocab
from embedlab.train.kernels import guide_table
from embedlab.vectors.io.fasttext_inplace import Place
from embedlab.vectors.io.fasttext_model import ARGS, LOSSES, MODELS, FastTextModel

TOKENS_PER_CALL = 1 << 19  # tokens one kernel call trains: progress and checkpoints come between calls
CHECKPOINT_EVERY = 60.0  # seconds between checkpoints: the most work a kill loses


@dataclass(frozen=True)
class Supervised:
    """fastText's flags for `supervised`, named as `embedlab classify train` names them, with its defaults."""

    dim: int = 100  # width of every row
    lr: float = 0.1  # the rate at the start; it falls linearly to 0
    epoch: int = 5  # passes over the text
    word_ngrams: int = 1  # the longest word n-gram given a row (2: each pair of neighbouring words too)
    bucket: int = 2_000_000  # hashed rows shared by the word and character n-grams
    min_count: int = 1  # words seen fewer times get no row of their own
    min_count_label: int = 0  # labels seen fewer times are dropped
    min_n: int = 0  # character n-grams of min_n..max_n characters; max_n 0: none
    max_n: int = 0
    loss: str = "softmax"  # softmax | ns (negative sampling) | hs (hierarchical softmax) | ova (one-vs-all)
    neg: int = 5  # labels drawn per step with ns
    threads: int = 12  # fastText's default
    seed: int = 0

    def __post_init__(self) -> None:
        check_int("dim", self.dim, low=1, high=100_000)
        check_float("lr", self.lr, low=1e-12, high=1e6)
        check_int("epoch", self.epoch, low=1, high=1_000_000)
        check_int("word_ngrams", self.word_ngrams, low=1, high=MAX_WORD_NGRAMS)
        check_int("bucket", self.bucket, low=0, high=MAX_BUCKETS)
        check_int("min_count", self.min_count, low=1)
        check_int("min_count_label", self.min_count_label, low=0)
        check_int("max_n", self.max_n, low=0, high=100)
        if self.max_n:
            check_int("min_n", self.min_n, low=1, high=self.max_n)
        check_choice("loss", self.loss, tuple(LOSSES))
        check_int("neg", self.neg, low=1, high=1000)
        check_int("threads", self.threads, low=1, high=1024)
        check_int("seed", self.seed, low=0, high=2**31 - 1)
        if (self.word_ngrams > 1 or self.max_n > 0) and self.bucket < 1:
            raise InvalidValueError(f"bucket must be >= 1 with word or character n-grams; got {self.bucket}")

    def args(self, bucket: int) -> dict:
        """fastText's Args for the .bin (`bucket` the one the dictionary kept: 0 without n-grams)."""
        defaults = {name: default for name, (_, default) in ARGS.items()}
        return defaults | {
            "dim": self.dim,
            "epoch": self.epoch,
            "minCount": self.min_count,
            "neg": self.neg,
            "wordNgrams": self.word_ngrams,
            "loss": LOSSES[self.loss],
            "model": MODELS["supervised"],
            "bucket": bucket,
            "minn": self.min_n,
            "maxn": self.max_n,
        }


Progress = Callable[[int, int, float], None]  # (tokens done, tokens in all, mean loss so far)


def train_classifier(
    text: LabelledText,
    settings: Supervised = Supervised(),
    progress: Progress | None = None,
    checkpoint: Path | None = None,
    resume: bool = False,
    checkpoint_every: float = CHECKPOINT_EVERY,
    place: Place | None = None,
) -> FastTextModel:
    """Train the classifier on `text` -> the model. With `checkpoint`, the state is saved there every
    `checkpoint_every` seconds; `resume` continues from it (it must be this text's and these settings').
    `place` (vectors.io.fasttext_inplace) puts the tables in the .bin being written instead of in memory."""
    from embedlab.train.supervised_kernels import uniform_rows  # numba, imported only here

    text.check_labelled()
    s = settings
    dictionary = Dictionary.build(text, s.min_count, s.min_count_label, s.word_ngrams, s.bucket, s.min_n, s.max_n)
    if len(dictionary.labels) < 2:
        found = ", ".join(dictionary.labels) or "none"
        raise InvalidValueError(f"{text.where}: a classifier needs 2 or more labels; found {found}")
    bags = dictionary.encode(text)
    fingerprint = _fingerprint(text, s)
    words = dictionary.words + dictionary.labels
    counts = np.concatenate([dictionary.word_counts, dictionary.label_counts])
    types = np.repeat(np.array([0, 1], np.int8), [len(dictionary.words), len(dictionary.labels)])
    args, ntokens = s.args(dictionary.bucket), int(bags.tokens.sum())
    shapes = (dictionary.rows, s.dim), (len(dictionary.labels), s.dim)
    if place is None:
        w_in, w_out = np.empty(shapes[0], np.float32), np.empty(shapes[1], np.float32)
    else:  # the tables are the .bin's own rows
        w_in, w_out = place(args, words, counts, types, ntokens, *shapes)
    state = _resumed(checkpoint, fingerprint) if resume else None
    if state is None:
        uniform_rows(w_in, 1.0 / s.dim, s.seed)
        w_out[:] = 0.0
        rng = np.arange(s.threads, dtype=np.uint64) + np.uint64(s.seed)
        sums = np.zeros((s.threads, 2), np.float64)
        epoch, line = 0, 0
    else:
        (saved_in, saved_out, rng, sums), (epoch, line) = state
        np.copyto(w_in, saved_in)
        np.copyto(w_out, saved_out)
        if len(rng) != s.threads:  # resumed with another thread count: fresh draws, the loss so far kept
            rng = np.arange(s.threads, dtype=np.uint64) + np.uint64(s.seed + epoch)
            sums = np.vstack([sums.sum(axis=0), np.zeros((s.threads - 1, 2))])
    saved = time.monotonic()

    def save(epoch: int, line: int) -> None:
        nonlocal saved
        if checkpoint is not None and time.monotonic() - saved >= checkpoint_every:
            from embedlab.train.checkpoint import save_checkpoint  # torch: loaded only when a run is long

            arrays = {"w_in": w_in, "w_out": w_out, "rng": rng, "sums": sums}
            save_checkpoint(checkpoint, arrays, {"fingerprint": fingerprint, "epoch": epoch, "line": line})
            saved = time.monotonic()

    _fit(bags, dictionary, w_in, w_out, s.loss, s.lr, s.epoch, s.neg, rng, sums, (epoch, line), progress, save)
    return FastTextModel(args, words, counts, types, w_in, w_out, ntokens)


def retrain(
    model: FastTextModel,
    text: LabelledText,
    lr: float = 0.05,
    epoch: int = 5,
    threads: int = 12,
    seed: int = 0,
    progress: Progress | None = None,
) -> FastTextModel:
    """fastText's `quantize -retrain`: `epoch` more passes over `text` from `model`'s own tables (copied),
    on the rows it kept when pruned, at the quantize command's rate (its defaults: 0.05, 5 epochs) ->
    the model with the new tables; its Args stay as they were."""
    check_float("lr", lr, low=1e-12, high=1e6)
    check_int("epoch", epoch, low=1, high=1_000_000)
    check_int("threads", threads, low=1, high=1024)
    if not isinstance(model.input, np.ndarray) or not isinstance(model.output, np.ndarray):
        raise InvalidValueError("cannot retrain a quantized model: retrain the .bin it was quantized from")
    text.check_labelled()
    dictionary = Dictionary.of_model(model)
    bags = dictionary.encode(text)
    w_in, w_out = np.array(model.input), np.array(model.output)
    rng = np.arange(threads, dtype=np.uint64) + np.uint64(seed)
    loss = {code: name for name, code in LOSSES.items()}[model.args["loss"]]
    _fit(bags, dictionary, w_in, w_out, loss, lr, epoch, model.args["neg"], rng, np.zeros((threads, 2)), (0, 0),
         progress, lambda epoch, line: None)  # fmt: skip
    return dataclasses.replace(model, input=w_in, output=w_out)


def _fit(bags: Bags, dictionary: Dictionary, w_in: np.ndarray, w_out: np.ndarray, loss: str, lr: float, epochs: int,
         neg: int, rng: np.ndarray, sums: np.ndarray, at: tuple[int, int], progress: Progress | None,
         save: Callable[[int, int], None]) -> None:  # fmt: skip
    """Train w_in (rows, D) and w_out (labels, D) in place from (epoch, line) `at` to the end of `epochs`,
    one thread per entry of `rng`; `progress` and `save(epoch, line)` are called between kernel calls."""
    from embedlab.train.supervised_kernels import train_lines  # numba, imported only here

    threads, ntokens = len(rng), int(bags.tokens.sum())
    total = float(epochs) * ntokens
    noise = WordVocab(dictionary.labels, dictionary.label_counts).noise_table(0.5)
    guide = guide_table(noise)
    path_offsets, path_rows, path_codes = tree_paths(*huffman_tree(dictionary.label_counts))
    per_call = max(threads, int(TOKENS_PER_CALL * len(bags) / max(ntokens, 1)))
    starts = np.concatenate([[0], np.cumsum(bags.tokens)])
    epoch, line = at
    while epoch < epochs:
        end = min(line + per_call, len(bags))
        done = epoch * ntokens + int(starts[line])
        train_lines(bags.ids, bags.offsets, bags.labels, bags.label_offsets, bags.tokens, line, end, w_in, w_out,
                    LOSSES[loss], lr, float(done), total, threads, neg, noise, guide, path_offsets, path_rows,
                    path_codes, rng, sums)  # fmt: skip
        line = end
        if line == len(bags):
            epoch, line = epoch + 1, 0
        if progress is not None:
            mean_loss = float(sums[:, 0].sum() / max(sums[:, 1].sum(), 1))
            progress(epoch * ntokens + int(starts[line]), int(total), mean_loss)
        if epoch < epochs:
            save(epoch, line)
    if not np.isfinite(w_out).all():
        raise InvalidValueError(f"training diverged (the output table holds NaN or inf): lower the rate (now {lr})")


def _fingerprint(text: LabelledText, settings: Supervised) -> str:
    """md5 of the text's tokens and the settings but threads: what a checkpoint must match to be resumed."""
    digest = hashlib.md5(b"\n".join(text.types))
    digest.update(text.tokens.tobytes() + text.offsets.tobytes())
    digest.update(repr(sorted((k, v) for k, v in asdict(settings).items() if k != "threads")).encode())
    return digest.hexdigest()


def _resumed(path: Path | None, fingerprint: str) -> tuple | None:
    """The state saved at `path` -> ((w_in, w_out, rng, sums), (epoch, line)); None if the run was killed
    before its first checkpoint (the file is empty: it only claimed the name)."""
    if path is None or (path.exists() and path.stat().st_size == 0):
        return None
    from embedlab.train.checkpoint import load_checkpoint  # torch, as above

    arrays, meta = load_checkpoint(path)
    if meta.get("fingerprint") != fingerprint:
        raise FileFormatError(
            f"{path}: the checkpoint is of another text or other settings; run without --resume (and --force) "
            "to start again"
        )
    return (arrays["w_in"], arrays["w_out"], arrays["rng"], arrays["sums"]), (int(meta["epoch"]), int(meta["line"]))
