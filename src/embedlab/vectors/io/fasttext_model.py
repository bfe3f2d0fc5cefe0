"""What a fastText (or floret) .bin or .ftz holds: its Args layouts and fastText's codes, and FastTextModel.

    FastTextModel(args, words, counts, entry_types, input, output, ntokens, pruneidx=None)
    FastTextModel.from_arrays(words, word_rows, ngram_rows, counts, min_n=3, max_n=6)   # fastText's defaults
    model.training                    {"epoch": 5, "window": 5, ...}: from_arrays' settings, as the Args say
    training_of_run(config, where)    the same settings of an `embedlab train` run (its run.json "config")

Reading and writing the file itself is fasttext.py's; the byte layout is described there.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from embedlab.errors import FileFormatError, InvalidValueError, check_choice, check_float, check_int, describe
from embedlab.hashing import MAX_BUCKETS
from embedlab.vectors.quantize import QuantizedMatrix

MAGIC, VERSION = 793712314, 12  # fastText's FASTTEXT_FILEFORMAT_MAGIC_INT32 and FASTTEXT_VERSION
MAGIC_BYTES = struct.pack("<i", MAGIC)  # b"\xba\x16\x4f\x2f"
EXPECTED = "a fastText model (.bin, starting with the magic number 793712314)"
# fastText's Args as saved, in file order, with the tool's defaults for unsupervised training
ARGS = {
    "dim": ("i", 100),
    "ws": ("i", 5),
    "epoch": ("i", 5),
    "minCount": ("i", 5),
    "neg": ("i", 5),
    "wordNgrams": ("i", 1),
    "loss": ("i", 2),  # LOSSES
    "model": ("i", 2),  # MODELS
    "bucket": ("i", 2_000_000),
    "minn": ("i", 3),
    "maxn": ("i", 6),
    "lrUpdateRate": ("i", 100),
    "t": ("d", 1e-4),
}
# floret's Args: fastText's with mode and hashCount after maxn (floret's defaults for its own mode)
FLORET_ARGS = dict(list(ARGS.items())[:11] + [("mode", ("i", 2)), ("hashCount", ("i", 2))] + list(ARGS.items())[11:])
LOSSES = {"hs": 1, "ns": 2, "softmax": 3, "ova": 4}  # fastText's loss_name codes
MODELS = {"cbow": 1, "skipgram": 2, "supervised": 3}  # fastText's model_name codes
MODES = {"fasttext": 1, "floret": 2}  # floret's mode_name codes
TRAINED = ("cbow", "skipgram")  # the models from_arrays writes: word vectors, not a classifier
# an `embedlab train` run's method -> fastText's model (its word2vec trainer: negative sampling, "ns")
RUN_MODELS = {"sgns": "skipgram", "cbow": "cbow"}
MAX_HASH_COUNT = 4  # floret's hashCount: 1..4 of the four 32-bit parts of a 128-bit MurmurHash3
LAYOUTS = {"fastText": ARGS, "floret": FLORET_ARGS}  # the two Args a .bin may hold, by whose they are
DICT_FORMAT = "<iiiqq"  # size, nwords, nlabels, ntokens, pruneidx_size: 28 bytes
MATRIX_FORMAT = "<qq"  # rows, cols
ROWS_PER_WRITE = 65536  # matrix rows written at once: a write never copies a whole matrix


@dataclass(frozen=True, eq=False)  # eq=False: comparing arrays elementwise has no single truth value
class FastTextModel:
    """What a fastText .bin or .ftz holds. `input` row i < nwords is word i's own row; row nwords + b
    is n-gram bucket b's (the bucket ids of embedlab.hashing), or in a pruned model (`fasttext quantize
    -cutoff`, pruneidx set) row nwords + r is the r-th kept n-gram row, bucket b's where pruneidx maps
    b to r (a bucket it does not map is dropped from a word's mean). A .ftz's input (and with -qout
    its output) is a QuantizedMatrix; fastText reads a pruned model only with a quantized input.

    >>> m = FastTextModel.from_arrays(["cat", "dog"], np.ones((2, 4)), np.zeros((10, 4)), [3, 2])
    >>> m.input.shape, m.nwords, m.buckets, m.min_n, m.max_n
    ((12, 4), 2, 10, 3, 6)
    """

    args: dict  # the Args, every field of ARGS (or floret's FLORET_ARGS) in file order: {"dim": 100, ...}
    words: list[str]  # (V,) the dictionary: nwords words (type 0), then labels (type 1)
    counts: np.ndarray  # (V,) int64 corpus counts
    entry_types: np.ndarray  # (V,) int8: 0 word, 1 label
    input: np.ndarray | QuantizedMatrix  # (nwords + bucket, D) float32: word rows, then bucket rows; read-only
    # when read; (nwords + P, D) when pruned
    output: np.ndarray | QuantizedMatrix  # (nwords, D) float32 (nlabels, D) for a supervised model
    ntokens: int = 0  # tokens in the training corpus
    pruneidx: np.ndarray | None = None  # (P, 2) int32 (bucket, its row among the kept n-gram rows), in file
    # order (fastText writes them from a hash map); None: never pruned (the file's pruneidx size -1)

    def __post_init__(self) -> None:
        args = dict(self.args)
        fields = FLORET_ARGS if "mode" in args else ARGS
        if list(args) != list(fields):
            raise InvalidValueError(
                f"args must hold fastText's fields {', '.join(ARGS)} in that order (floret's: mode and hashCount "
                f"after maxn); got {list(args)}"
            )
        for name, (kind, _) in fields.items():
            if kind == "i":
                args[name] = check_int(f"args[{name!r}]", args[name], low=-(2**31), high=2**31 - 1)
        args["t"] = check_float("args['t']", args["t"])
        check_args(args)
        words = list(self.words)
        counts = np.asarray(self.counts, dtype=np.int64)
        types = np.asarray(self.entry_types, dtype=np.int8)
        if counts.shape != (len(words),) or types.shape != (len(words),):
            raise InvalidValueError(
                f"need one count and one entry type per word: {len(words)} words, counts {counts.shape}, "
                f"entry_types {types.shape}"
            )
        if ((types != 0) & (types != 1)).any() or (np.diff(types) < 0).any():
            raise InvalidValueError("entry_types must be 0 (word) or 1 (label), every word before every label")
        if (counts < 0).any():
            raise InvalidValueError(f"counts must be >= 0; got {int(counts.min())}")
        nwords = int(np.count_nonzero(types == 0))
        nlabels = len(words) - nwords
        pruneidx = None if self.pruneidx is None else _check_pruneidx(self.pruneidx, args["bucket"])
        rows = {
            "input": nwords + (args["bucket"] if pruneidx is None else len(pruneidx)),
            "output": nlabels if args["model"] == MODELS["supervised"] else nwords,
        }
        for name, want in rows.items():
            matrix = getattr(self, name)
            quantized = isinstance(matrix, QuantizedMatrix)
            if not quantized and (not isinstance(matrix, np.ndarray) or matrix.dtype != np.float32):
                raise InvalidValueError(f"{name} must be a float32 array or a QuantizedMatrix; got {describe(matrix)}")
            if matrix.shape != (want, args["dim"]):
                raise InvalidValueError(
                    f"{name} must have shape ({want}, {args['dim']}); got {tuple(matrix.shape)}"
                    + (" (nwords + the pruned n-gram rows)" if name == "input" and pruneidx is not None else "")
                )
        object.__setattr__(self, "args", args)
        object.__setattr__(self, "words", words)
        object.__setattr__(self, "counts", counts)
        object.__setattr__(self, "entry_types", types)
        object.__setattr__(self, "pruneidx", pruneidx)

    @property
    def dim(self) -> int:
        return self.args["dim"]

    @property
    def nwords(self) -> int:
        return len(self.input) - (self.args["bucket"] if self.pruneidx is None else len(self.pruneidx))

    @property
    def quantized(self) -> bool:
        """Whether the input matrix is product-quantized (a .ftz)."""
        return isinstance(self.input, QuantizedMatrix)

    @property
    def buckets(self) -> int:
        return self.args["bucket"]

    @property
    def min_n(self) -> int:
        return self.args["minn"]

    @property
    def max_n(self) -> int:
        """0: no n-grams, each word is its own row (fastText's -maxn 0)."""
        return self.args["maxn"]

    @property
    def hash_count(self) -> int | None:
        """floret's hashCount for a model in floret's mode (its words have no rows but row 0: see
        word_vectors); None for fastText's hashing (a floret file in fastText's mode included)."""
        return self.args["hashCount"] if self.args.get("mode") == MODES["floret"] else None

    @property
    def training(self) -> dict | None:
        """The training settings the Args hold, by from_arrays' names (window for ws, sample for t,
        ...), so a table read from this file writes them back; None for a model from_arrays does not
        write (a supervised one) or codes fastText does not define."""
        a, models, losses = self.args, {v: k for k, v in MODELS.items()}, {v: k for k, v in LOSSES.items()}
        if models.get(a["model"]) not in TRAINED or losses.get(a["loss"]) is None:
            return None
        settings = {"epoch": a["epoch"], "window": a["ws"], "negative": a["neg"], "min_count": a["minCount"]}
        return settings | {"model": models[a["model"]], "loss": losses[a["loss"]], "sample": a["t"]}

    @property
    def word_rows(self) -> np.ndarray:
        """(nwords, D) each word's own input row (a view; decoded, a copy, when quantized)."""
        if self.quantized:
            return self.input.rows(np.arange(self.nwords))
        return self.input[: self.nwords]

    @property
    def ngram_rows(self) -> np.ndarray:
        """(B, D) the n-gram bucket rows (a view; decoded, a copy, when quantized). A pruned model has
        no row for most buckets: InvalidValueError (fasttext.word_vectors composes its words)."""
        if self.pruneidx is not None:
            raise InvalidValueError(
                f"this model's dictionary is pruned (fasttext quantize -cutoff): it keeps {len(self.pruneidx):,} of "
                f"{self.buckets:,} n-gram buckets' rows, and a word's vector averages only the kept ones; compose "
                "its words with word_vectors (read_fasttext_table), or use the model it was pruned from"
            )
        if self.quantized:
            return self.input.rows(np.arange(self.nwords, len(self.input)))
        return self.input[self.nwords :]

    @classmethod
    def from_arrays(
        cls,
        words: Sequence[str],
        word_rows: np.ndarray,
        ngram_rows: np.ndarray,
        counts: Sequence[int] | np.ndarray | None = None,
        output: np.ndarray | None = None,
        *,
        min_n: int = 3,
        max_n: int = 6,
        epoch: int = 5,
        window: int = 5,
        negative: int = 5,
        min_count: int = 5,
        model: str = "skipgram",
        loss: str = "ns",
        sample: float = 1e-4,
        ntokens: int | None = None,
        hash_count: int | None = None,
    ) -> FastTextModel:
        """A model of V words from plain arrays: word_rows (V, D), ngram_rows (B, D) (B = 0 with
        max_n = 0: no n-grams), counts (V,) (None: 1 each), output (V, D) (None: zeros, which is
        enough to read vectors but not to train on). The other Args take fastText's defaults;
        ntokens None is the sum of the counts. The input matrix is their concatenation, a copy.
        hash_count 1..4: floret's Args, in floret's mode (floret reads only word_rows[0]: see word_vectors)."""
        word_rows = np.asarray(word_rows, dtype=np.float32)
        ngram_rows = np.asarray(ngram_rows, dtype=np.float32)
        if word_rows.ndim != 2 or ngram_rows.ndim != 2 or ngram_rows.shape[1] != word_rows.shape[1]:
            raise InvalidValueError(
                f"word_rows (V, D) and ngram_rows (B, D) must be 2-D with the same D; got {word_rows.shape} and "
                f"{ngram_rows.shape}"
            )
        counts = np.ones(len(words), np.int64) if counts is None else np.asarray(counts, dtype=np.int64)
        if output is None:
            output = np.zeros_like(word_rows)
        fields = ARGS if hash_count is None else FLORET_ARGS
        defaults = {name: default for name, (_, default) in fields.items()}
        if hash_count is not None:
            defaults |= {"mode": MODES["floret"], "hashCount": hash_count}
        args = defaults | {
            "dim": word_rows.shape[1],
            "ws": window,
            "epoch": epoch,
            "minCount": min_count,
            "neg": negative,
            "loss": LOSSES[check_choice("loss", loss, tuple(LOSSES))],
            "model": MODELS[check_choice("model", model, TRAINED)],
            "bucket": len(ngram_rows),
            "minn": min_n,
            "maxn": max_n,
            "t": sample,
        }
        if len(word_rows) != len(words):
            raise InvalidValueError(f"{len(words)} words for {len(word_rows)} word rows; need one row per word")
        return cls(
            args,
            list(words),
            counts,
            np.zeros(len(words), np.int8),
            np.concatenate([word_rows, ngram_rows]),
            np.asarray(output, dtype=np.float32),
            int(counts.sum()) if ntokens is None else ntokens,
        )


def training_of_run(config: object, where: str) -> dict:
    """An `embedlab train` run's settings (run.json's "config", `where` names the file) -> from_arrays'
    training settings: epochs, window, negative, min_count and sample as fastText's epoch, ws, neg,
    minCount and t (fastText's t is word2vec's sample: both keep a word of frequency f with
    probability sqrt(t/f) + t/f). FileFormatError naming the setting for one missing or out of range.

    >>> training_of_run({"method": "cbow", "epochs": 3, "window": 2, "negative": 7, "min_count": 1, "sample": 0.0}, "r")
    {'epoch': 3, 'window': 2, 'negative': 7, 'min_count': 1, 'sample': 0.0, 'model': 'cbow', 'loss': 'ns'}
    """
    fields = {"epoch": "epochs", "window": "window", "negative": "negative", "min_count": "min_count"}
    try:
        if not isinstance(config, dict):
            raise InvalidValueError(f"its config must be an object; got {describe(config)}")
        method = check_choice("method", config.get("method"), tuple(RUN_MODELS))
        settings = {name: check_int(ours, config.get(ours), low=1, high=2**31 - 1) for name, ours in fields.items()}
        settings["sample"] = check_float("sample", config.get("sample"), low=0.0)
    except InvalidValueError as err:
        raise FileFormatError(f"{where}: not the settings of a word2vec run ({err})") from None
    return settings | {"model": RUN_MODELS[method], "loss": "ns"}


def _check_pruneidx(pruneidx: object, buckets: int) -> np.ndarray:
    """(P, 2) int32 (bucket, row) pairs, each bucket in [0, buckets) once and the rows 0..P-1 each
    once (as fastText's Dictionary::prune numbers them) -> the array; else InvalidValueError."""
    pairs = np.asarray(pruneidx)
    if pairs.ndim != 2 or pairs.shape[1] != 2 or not np.issubdtype(pairs.dtype, np.integer):
        raise InvalidValueError(f"pruneidx must be (P, 2) integer (bucket, row) pairs; got {describe(pruneidx)}")
    if problem := pruneidx_problem(pairs, buckets):
        raise InvalidValueError(f"pruneidx {problem[1]}")
    return pairs.astype(np.int32)


def pruneidx_problem(pairs: np.ndarray, buckets: int) -> tuple[int, str] | None:
    """(P, 2) pairs -> None if each bucket is in [0, buckets) once and the rows are 0..P-1 once each,
    else (the first bad pair's index, what is wrong with it)."""
    for col, (what, size) in enumerate((("bucket", buckets), ("row", len(pairs)))):
        values = pairs[:, col].astype(np.int64)
        if len(bad := np.flatnonzero((values < 0) | (values >= size))):
            return int(bad[0]), f"pair {int(bad[0]):,} names {what} {values[bad[0]]:,}, outside 0..{size - 1:,}"
        order = np.argsort(values, kind="stable")
        repeats = order[1:][np.diff(values[order]) == 0]
        if len(repeats):
            i = int(repeats.min())
            return i, f"pair {i:,} names {what} {values[i]:,} again: each must appear once"
    return None


def args_format(fields: dict) -> str:
    """The struct format of Args in `fields`' layout: fastText's 12 int32 and a float64 (56 bytes), floret's 14 (64)."""
    return "<" + "".join(kind for kind, _ in fields.values())


def check_args(args: dict, where: str = "args") -> None:
    """Raise InvalidValueError unless the sizes in `args` make a model fastText can use."""
    rules = [  # (field, holds, allowed range)
        ("dim", args["dim"] >= 1, ">= 1"),
        ("bucket", 0 <= args["bucket"] <= MAX_BUCKETS, f"0..{MAX_BUCKETS}"),
        ("maxn", args["maxn"] >= 0, ">= 0 (0: no n-grams)"),
        ("minn", args["maxn"] == 0 or 1 <= args["minn"] <= args["maxn"], f"1..maxn ({args['maxn']})"),
        ("bucket", args["maxn"] == 0 or args["bucket"] >= 1, ">= 1 when maxn > 0 (n-grams need buckets)"),
    ]
    if "mode" in args:  # floret's two more fields
        rules += [
            ("mode", args["mode"] in MODES.values(), "1 (fastText) or 2 (floret)"),
            ("hashCount", 1 <= args["hashCount"] <= MAX_HASH_COUNT, f"1..{MAX_HASH_COUNT}"),
            # floret's mode hashes n-grams: with none, embedlab.hashing has nothing to hash but the word
            ("maxn", args["mode"] != MODES["floret"] or args["maxn"] >= 1, ">= 1 in floret's mode"),
        ]
    for name, holds, allowed in rules:
        if not holds:
            raise InvalidValueError(f"expected {where} {name} {allowed}; found {args[name]}")
