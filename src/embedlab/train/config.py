"""RunConfig: every setting of a training run, written once with its default, as run.json keeps it.

    RunConfig(corpus="gcide", method="sgns")               # word2vec defaults: dim 100, lr 0.025, 5 epochs
    RunConfig(corpus="enwiki-sample", method="lm")         # a small transformer: dim 128, lr 3e-3, 1 epoch
    RunConfig(corpus="gcide", dim=50).given                # ('corpus', 'dim'): what the caller named

A setting left as None takes its default, which for dim, lr and epochs depends on the method. The
config remembers which settings the caller named (`given`), so a resumed run can check those
against the folder's and leave the rest to it. Adding a setting means a field here (with its
default and check) and, for the command line, one option in `cli/train.py`.

Sizes are set against this machine's memory before anything is allocated (`check_memory` (embedlab.sizing.memory)): the
lm's and the n-gram buckets' when the config is made, word2vec's tables again once the corpus is
counted.

    RunConfig(corpus="gcide", subwords=True)               # fastText's model: n-grams 3-6 in 2,000,000 buckets
    RunConfig(corpus="gcide", subwords=True, floret=True, buckets=50_000)   # floret's: words hashed too, 2 rows a key

A run's table starts from the run's seeded init, or from another table's rows of the same keys
(init_from: a built-in model or a run folder or file, `train/init_table.py`); freeze keeps an lm's
token table fixed, from either start ("fixed random" without init_from).

    RunConfig(corpus="enwiki-sample", method="lm", dim=100, init_from="runs/wiki-sgns", freeze=True)

A setting that belongs to a mode (the n-gram settings to subwords, hash_count to floret) is None
outside it, where naming it is an error, and takes its default inside it (`MODES`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from embedlab.errors import InvalidValueError, check_choice, check_float, check_int
from embedlab.hashing import BUCKETS, MAX_N, MIN_N, check_ngram_range
from embedlab.hashing.murmur import MAX_HASH_COUNT
from embedlab.sizing import EmbeddingLayout, gpt2_params
from embedlab.sizing.memory import check_memory

METHODS = ("sgns", "cbow", "lm")
DEVICES = ("cpu", "cuda")
WORD2VEC_MIN_LR = 1e-4  # word2vec's rate at the last word (gensim's min_alpha), or lr if lower
LM_FLOOR = 0.1  # the lm's cosine schedule ends at this share of lr
FLOAT32 = 4  # bytes; every table and optimizer state is float32
HASH_COUNT = 2  # floret's ids per key: floret's own default is 1, its README's and tests' runs use 2
MODES = {  # mode -> why a setting of that mode (a field whose metadata names it) needs it on
    "subwords": "only a subword run trains n-grams",
    "floret": f"only floret's mode hashes each word and n-gram into 1..{MAX_HASH_COUNT} rows",
}


def _default(value, *, word2vec=None, lm=None):
    """A field whose default is `value`, or one per method family (word2vec=..., lm=...)."""
    by_family = {"word2vec": word2vec, "lm": lm} if value is None else {"word2vec": value, "lm": value}
    return field(default=None, metadata={"default": by_family})


@dataclass
class RunConfig:
    corpus: str  # a built-in corpus name or a text file
    method: str = _default("sgns")  # sgns | cbow (word2vec) | lm (a causal transformer over BPE pieces)
    dim: int = _default(None, word2vec=100, lm=128)  # D, the embedding width (word2vec's: gensim's)
    epochs: int = _default(None, word2vec=5, lm=1)  # passes over the corpus
    lr: float = _default(None, word2vec=0.025, lm=3e-3)  # word2vec: starting rate, linear decay; lm: AdamW peak
    seed: int = _default(1)
    threads: int = _default(2)  # CPU threads (word2vec's Hogwild threads; torch's intra-op threads for lm)
    device: str = _default("cpu")  # word2vec on cuda uses the batched torch engine
    # the table's start (train/init_table.py)
    init_from: str | None = _default(None)  # a table (built-in name or path) whose rows start the matching keys' rows
    freeze: bool = _default(False)  # lm: the token table is not trained (from init_from, or fixed random)
    # word2vec
    window: int = _default(5)  # words each side at most; each centre word draws its own 1..window
    negative: int = _default(5)  # noise words per true word (5-20 suit small corpora, 2-5 large ones)
    min_count: int = _default(5)  # words seen fewer times are dropped
    sample: float = _default(1e-3)  # subsampling threshold as a share of the corpus (0: keep every word)
    # the share of each epoch's fall in rate taken within it (kernels.linear_lr): 1 is the straight line;
    # gensim's corpus_file mode with k workers trains at 1/k, a rate that jumps back at each epoch's start.
    # 0.5 (corpus_file's with 2 workers): over 3 seeds of gcide subword runs it scored higher than the
    # straight line on all four benchmarks at the same speed (docs/benchmarks.md, docs/results/w2v_gap.json)
    epoch_decay: float = _default(0.5)
    subwords: bool = _default(False)  # fastText's model: a word's input is the mean of its row and its n-grams' rows
    # subwords only (None otherwise, so a copy of a plain run's config names none of them)
    min_n: int | None = field(default=None, metadata={"subwords": MIN_N})  # shortest n-gram of <word> (fastText's minn)
    max_n: int | None = field(default=None, metadata={"subwords": MAX_N})  # longest (fastText's maxn)
    buckets: int | None = field(default=None, metadata={"subwords": BUCKETS})  # hashed n-gram rows (fastText's bucket)
    # floret's mode (its -mode floret): no word rows; "<word>" is hashed into the bucket rows like its n-grams
    floret: bool | None = field(default=None, metadata={"subwords": False})
    hash_count: int | None = field(default=None, metadata={"floret": HASH_COUNT})  # rows per key (its -hashCount)
    # sgns with subwords: the centre's rows take each pair's step at once, h summed again from them for the
    # next pair (gensim's and fastText's order, ~2x slower); off: h moves by each step, the rows take the sum once
    pair_steps: bool | None = field(default=None, metadata={"subwords": False})
    # sgns with subwords: h = the rows' sum / the n-gram count (gensim's skip-gram); off: / the row count (fastText's)
    ngram_divisor: bool | None = field(default=None, metadata={"subwords": False})
    # lm
    vocab_size: int = _default(4000)  # BPE pieces, 256 bytes included
    context: int = _default(64)  # pieces per training window
    layers: int = _default(2)
    heads: int = _default(4)
    tied: bool = _default(True)  # the output head reads the token table
    batch_size: int = _default(32)
    given: tuple[str, ...] = field(default=(), init=False, repr=False, compare=False)  # settings named

    def __post_init__(self) -> None:
        self.given = tuple(f.name for f in fields(self) if f.init and getattr(self, f.name) is not None)
        check_choice("method", self.method if self.method is not None else "sgns", METHODS)
        family = self.family
        for f in self._settings():
            if getattr(self, f.name) is None:
                setattr(self, f.name, f.metadata["default"][family])
        check_int("dim", self.dim, low=1)
        check_int("epochs", self.epochs, low=1)
        check_float("lr", self.lr, low=0.0)
        if self.lr == 0.0:
            raise InvalidValueError("lr must be > 0; got 0.0")
        check_int("seed", self.seed, low=0)
        check_int("threads", self.threads, low=1, high=1024)
        check_choice("device", self.device.split(":")[0], DEVICES)
        check_int("window", self.window, low=1)
        check_int("negative", self.negative, low=1)
        check_int("min_count", self.min_count, low=1)
        check_float("sample", self.sample, low=0.0, high=1.0)
        check_float("epoch_decay", self.epoch_decay, low=0.0, high=1.0)
        if self.epoch_decay == 0.0:
            raise InvalidValueError(
                "epoch_decay must be in (0, 1]: at 0 the rate never falls; got 0.0", param="epoch_decay"
            )
        self._check_subwords()
        self._check_init()
        check_int("vocab_size", self.vocab_size, low=257, high=1_000_000)
        check_int("context", self.context, low=1)
        check_int("layers", self.layers, low=0)
        check_int("heads", self.heads, low=1)
        check_int("batch_size", self.batch_size, low=1)
        if self.family == "lm" and self.dim % self.heads:
            raise InvalidValueError(f"dim must be a multiple of heads ({self.heads}) for lm; got {self.dim}")
        self.check_memory()

    def _check_subwords(self) -> None:
        """The n-gram settings belong to a subword run of sgns or cbow on the CPU kernels, hash_count
        to floret's mode; each mode's settings take their defaults when it is on (MODES)."""
        for mode, why in MODES.items():  # subwords first: floret is one of its settings
            on = getattr(self, mode)
            if on is not None and not isinstance(on, bool):
                raise InvalidValueError(f"{mode} must be True or False; got {on!r}")
            for f in fields(self):
                value = getattr(self, f.name)
                if mode not in f.metadata:
                    continue
                if not on and value is not None:
                    raise InvalidValueError(f"{f.name} {value} needs {mode}: {why}", param=f.name)
                if on and value is None:
                    setattr(self, f.name, f.metadata[mode])
        if not self.subwords:
            return
        if self.family != "word2vec":
            raise InvalidValueError(f"subwords train with sgns or cbow; got method {self.method}")
        if self.device != "cpu":
            raise InvalidValueError(f"subwords train on the cpu kernels only; got device {self.device}")
        check_ngram_range(self.min_n, self.max_n, self.buckets, self.hash_count)
        for name in ("pair_steps", "ngram_divisor"):  # the skip-gram centre's update rule
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise InvalidValueError(f"{name} must be True or False; got {value!r}", param=name)
            if value and self.method != "sgns":
                raise InvalidValueError(f"{name} is a rule of skip-gram's centre word; got method {self.method}",
                                        param=name)  # fmt: skip
        if self.ngram_divisor and self.floret:
            raise InvalidValueError("ngram_divisor needs a word row beside the n-grams; floret's mode has none",
                                    param="ngram_divisor")  # fmt: skip

    def _check_init(self) -> None:
        """init_from names a table (its width is checked when it is loaded); freeze is the lm's."""
        if self.init_from is not None and (not isinstance(self.init_from, str) or not self.init_from):
            raise InvalidValueError(f"init_from must name a table (a built-in name or a path); got {self.init_from!r}")
        if self.init_from is not None and self.subwords:
            raise InvalidValueError("init_from starts whole-word rows; a subword run's n-gram rows have no keys")
        if not isinstance(self.freeze, bool):
            raise InvalidValueError(f"freeze must be True or False; got {self.freeze!r}")
        if self.freeze and self.family != "lm":
            raise InvalidValueError(
                f"freeze keeps an lm's token table fixed; got method {self.method} "
                "(word2vec's kernels update the input table in place)"
            )

    @property
    def family(self) -> str:
        """ "word2vec" or "lm"."""
        return "lm" if self.method == "lm" else "word2vec"

    @property
    def min_lr(self) -> float:
        """The rate the schedule ends at: word2vec's WORD2VEC_MIN_LR (at most lr), the lm's LM_FLOOR × lr."""
        return self.lr * LM_FLOOR if self.family == "lm" else min(WORD2VEC_MIN_LR, self.lr)

    def check_memory(self, words: int = 0) -> None:
        """Raise InvalidValueError if this run needs more memory than the machine has available.

        The figure is a lower bound, so a refusal is certain: word2vec's input and output tables
        (`words` × dim float32 each, once the corpus is counted) and its kernels' scratch; the lm's
        weights, gradients and two AdamW moments (16 bytes a parameter; its blocks are GPT-2's) and
        one batch's logits with their gradient. A subword run's input table has `buckets` more rows
        (each with an int64 update count at the end), and at the end the composed (words, dim) table
        is made beside it: (words + buckets) × dim + 2 × words × dim float32, known before the corpus.
        In floret's mode the input table is the bucket rows alone: the kernels follow each word's row
        ids, which there are bucket ids only, so no word row is ever allocated.
        """
        if self.family == "lm":
            layout = EmbeddingLayout(
                vocab_size=self.vocab_size, dim=self.dim, positions="learned", max_len=self.context, tied=self.tied
            )
            weights = 4 * FLOAT32 * gpt2_params(layout, self.layers)
            logits = 2 * FLOAT32 * self.batch_size * self.context * self.vocab_size
            sizes = f"vocab_size {self.vocab_size:,}, dim {self.dim:,}, {self.layers} layers"
            check_memory(f"lm with {sizes}, context {self.context:,}, batch_size {self.batch_size:,}", weights + logits)
            return
        rows = self.input_table_rows(words)
        n = FLOAT32 * (rows + words) * self.dim + 8 * self.threads * words  # w_in, w_out; int64 update counts
        if self.subwords:  # the composed table written at the end, the bucket counts, each word's row ids (int64)
            n += FLOAT32 * words * self.dim + 8 * self.buckets + 8 * 2 * words
        if self.device == "cpu":  # each thread's scratch in kernels.py: two centre words' targets (int64) ...
            scratch = 2 * 8 * (self.negative + 1)
            if self.method == "sgns":  # ... and, for skip-gram, a window's gradients: 2·window rows
                scratch += 2 * FLOAT32 * self.window * (self.dim + self.negative + 1)
            n += self.threads * scratch
        else:  # the batched engine: at least one word's context window (int64 index, bool mask)
            n += 2 * 9 * self.window
        on = f" on {words:,} words" if words else ""
        if self.subwords:
            on += f" and {self.buckets:,} n-gram buckets"
        sizes = f"window {self.window:,}, negative {self.negative:,}, {self.threads} threads"
        check_memory(f"{self.method} with dim {self.dim:,}{on} ({sizes})", n)

    def input_table_rows(self, words: int) -> int:
        """Rows of word2vec's input table for `words` words: the words', then a subword run's buckets
        (the buckets alone in floret's mode, which keeps no word rows)."""
        if not self.subwords:
            return words
        return self.buckets + (0 if self.floret else words)

    def to_dict(self) -> dict:
        """Every setting (run.json's "config"); a mode's settings only for a run in that mode."""
        record = asdict(self)
        del record["given"]
        for f in fields(self):
            if any(mode in f.metadata for mode in MODES) and record[f.name] is None:
                del record[f.name]  # None: not a setting of this run
        return record

    @classmethod
    def from_dict(cls, data: dict) -> RunConfig:
        known = {f.name for f in fields(cls) if f.init}
        settings = {k: v for k, v in data.items() if k in known}
        # a run recorded before epoch_decay existed trained on the straight line, whatever today's default
        settings.setdefault("epoch_decay", 1.0)
        return cls(**settings)

    def differences(self, other: RunConfig) -> list[str]:
        """The settings this config was given that differ from `other`'s: ['dim 50 (run has 100)']."""
        return [f"{name} {getattr(self, name)} (run has {getattr(other, name)})"
                for name in self.given if getattr(self, name) != getattr(other, name)]  # fmt: skip

    @classmethod
    def _settings(cls):
        return [f for f in fields(cls) if "default" in f.metadata]
