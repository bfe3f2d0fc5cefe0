"""word2vec as a training job: one step = one chunk of words, on the numba kernels or the batched engine.

    job = Word2VecJob.create(lines, RunConfig(corpus="gcide"), out, resume=False, dist=Dist())
    for epoch in range(config.epochs):
        for _ in job.steps(epoch, skip=0): ...        # each step: ~threads × 10,000 words
    Vectors(job.keys, job.table())                    # the input table is the embedding
    arrays, meta = job.state_dict()                   # everything a resume needs

On CPU the numba Hogwild kernels of `kernels.py` train; on a CUDA device the batched torch engine
(`batched.py`). With config.subwords, fastText's model on the kernels of `subword_kernels.py`: the
input table gains the n-gram bucket rows, `table()` is each word's composed vector (the mean of its
row and its n-grams' rows), and `save_outputs` writes the rows themselves (`subwords.py`). With
config.floret too, floret's model: the input table is the bucket rows alone, each word the mean of
the rows its floret ids pick. Under torch.distributed each rank trains its shard of lines and the
ranks add their changes to the tables after every round (see `distributed.py`). The run loop around
a job (folder, checkpoints, snapshots, metrics) is `run.py`'s; what a job must offer is `job.Job`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path

import numba
import numpy as np
import torch

from embedlab.errors import FileFormatError, InvalidValueError, plain
from embedlab.train.batched import BatchedTrainer
from embedlab.train.config import RunConfig
from embedlab.train.corpus import Chunk, ChunkCache, WordVocab, count_words, prefetch
from embedlab.train.distributed import Dist
from embedlab.train.kernels import CBOW_MEAN, LOSS_EVERY, cbow_chunk, linear_lr, sgns_chunk
from embedlab.train.scan import ScannedText, scan_text
from embedlab.train.subword_kernels import cbow_subword_chunk, compose, sgns_subword_chunk
from embedlab.train.subwords import bucket_counts, input_rows
from embedlab.train.tables import Tables, TrainState, vocab_tables
from embedlab.vectors.io.run import DAMAGED_RUN, RUN_VOCAB, read_vocab, write_subwords, write_vocab

BATCH_WORDS = 10_000  # words per thread per kernel call (gensim's job size); a device takes 20 threads' worth


def split_parts(starts: np.ndarray, parts: int) -> np.ndarray:
    """(S+1,) sentence offsets -> (parts+1,) sentence bounds cutting the words into near-equal parts.

    >>> split_parts(np.array([0, 4, 5, 9, 10]), 2).tolist()
    [0, 2, 4]
    """
    targets = np.linspace(0, starts[-1], parts + 1)[1:-1]
    inner = np.searchsorted(starts, targets, side="left")  # first sentence starting at or after the target
    return np.concatenate([[0], inner, [len(starts) - 1]]).astype(np.int64)


def train_chunk(
    state: TrainState, chunk: Chunk, tables: Tables, config: RunConfig,
    subwords: tuple[np.ndarray, np.ndarray] | None = None,
) -> None:  # fmt: skip
    """Train on one Chunk with the numba kernels, updating `state` in place. subwords: each word's
    input rows (subwords.input_rows: offsets, rows) for a subword run.

    With one thread the result depends only on the state and the words, not on how the corpus
    was cut into chunks: the learning rate follows each sentence's position in the whole run.
    """
    threads = len(state.rng_state)
    bounds = split_parts(chunk.starts, threads)  # thread p trains sentences bounds[p]:bounds[p+1]
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    tables_in = (state.w_in, state.w_out, *(subwords or ()), *tables, state.rng_state, state.update_counts)
    args = (chunk.ids, chunk.starts, bounds, *tables_in, config.window, config.negative, config.lr, config.min_lr,
            state.words_done, state.words_total, LOSS_EVERY)  # fmt: skip
    if config.method == "sgns":
        kernel, extra = (sgns_chunk if subwords is None else sgns_subword_chunk), ()
    else:
        kernel, extra = (cbow_chunk if subwords is None else cbow_subword_chunk), (CBOW_MEAN,)
    kept, loss_sum, loss_terms = kernel(*args, *extra)
    state.words_done += len(chunk.ids)
    state.kept_words += int(kept)
    state.loss_sum += float(loss_sum)  # a Python float: checkpoints hold plain values
    state.loss_terms += int(loss_terms)


BUCKETS_PER_NGRAM = 100  # buckets beyond this many per distinct n-gram of the vocabulary are refused ...
SMALL_BUCKETS = (
    100_000  # ... unless there are at most this many: a small table costs little, and exact-count tests use one
)


def check_buckets(config: RunConfig, words: int, ids: np.ndarray) -> None:
    """Raise InvalidValueError if config.buckets dwarfs the distinct n-grams the vocabulary hashes to.

    `ids`: the (N,) bucket rows of every word's n-grams (floret's: its ids). Past BUCKETS_PER_NGRAM
    buckets per distinct n-gram, nearly every bucket row is one no word reaches: the table is mostly
    never trained (2,000,000 buckets over a small corpus: 820 MB at dim 100, where every neighbour
    came out at cosine 1.0). Distinct ids count distinct n-grams here, since so many buckets leave
    almost no collision.
    """
    distinct = len(np.unique(ids))
    if config.buckets > max(SMALL_BUCKETS, BUCKETS_PER_NGRAM * distinct):
        from embedlab.sizing.memory import format_bytes

        size = format_bytes(4 * config.buckets * config.dim)
        raise InvalidValueError(
            f"buckets {config.buckets:,} dwarf the {distinct:,} distinct character n-grams "
            f"({config.min_n}-{config.max_n} characters of <word>) of the corpus's {words:,} words: "
            f"over {BUCKETS_PER_NGRAM} rows per n-gram, nearly all never trained, in a {size} table; "
            f"set buckets near the n-gram count, e.g. {max(1000, 2 * distinct):,}",
            param="buckets",
        )


class Word2VecJob:
    """sgns or cbow under `run.train`: see `job.Job` for what each member means to the run loop."""

    unit = "words"
    setup_file = RUN_VOCAB  # what a resume needs besides the checkpoint: the vocabulary

    @classmethod
    def create(cls, lines: Iterable[str], config: RunConfig, out: Path, resume: bool, dist: Dist) -> Word2VecJob:
        """Count the words (all ranks' counts merged) into a vocabulary, or read it back on resume.

        One process reading an ASCII text file counts and encodes it in one compiled pass (`scan`).
        """
        plain = getattr(lines, "plain_file", None) if dist.world == 1 else None
        scan = scan_text(plain) if plain is not None else None
        try:
            return cls._create(lines, config, out, resume, dist, scan)
        except BaseException:
            if scan is not None:
                scan.close()
            raise

    @classmethod
    def _create(cls, lines, config, out, resume, dist, scan) -> Word2VecJob:
        if resume:
            path = out / cls.setup_file
            saved = read_vocab(out)
            try:
                vocab = WordVocab.from_dict(saved)
            except (ValueError, TypeError) as err:
                raise FileFormatError(
                    f"{path}: not a readable word2vec vocabulary ({plain(err)}); {DAMAGED_RUN}"
                ) from None
            return cls(lines, vocab, config, dist, scan=scan)
        counter = scan.counter() if scan is not None else dist.merge_counts(count_words(lines))
        if not counter:
            raise InvalidValueError(f"corpus {Path(config.corpus).name} has no words")
        vocab = WordVocab.from_counts(counter, config.min_count)
        if len(vocab) == 0:
            raise InvalidValueError(
                f"min_count {config.min_count} leaves no vocabulary: the most frequent word of "
                f"{Path(config.corpus).name} occurs {max(counter.values())} times"
            )
        return cls(lines, vocab, config, dist, scan=scan)

    def __init__(
        self, lines: Iterable[str], vocab: WordVocab, config: RunConfig, dist: Dist | None = None,
        chunk_words: int | None = None, scan: ScannedText | None = None,
    ) -> None:  # fmt: skip
        """scan: the lines already counted and encoded by scan_text (the job then owns it)."""
        if len(vocab) == 0:
            raise InvalidValueError("the vocabulary is empty: a smaller min_count or a larger corpus gives one")
        if len(vocab) == 1:  # every context of the one word is itself: nothing tells one row from another
            raise InvalidValueError(
                f"the vocabulary holds one word, {vocab.index_to_key[0]!r}: word2vec learns a word from the other "
                "words around it; train on a corpus of two distinct words or more (or a smaller min_count)"
            )
        self.vocab, self.config, self.dist = vocab, config, dist or Dist()
        # each word's input rows (its own, then its n-grams' buckets; floret: its ids): hashed once, here, for the
        # run, and before the tables are made, so buckets that dwarf the n-grams are refused before allocating them
        self.subwords = (
            input_rows(vocab.index_to_key, config.min_n, config.max_n, config.buckets, hash_count=config.hash_count)
            if config.subwords
            else None
        )
        if self.subwords is not None:
            check_buckets(
                config, len(vocab), self.subwords[1][self.subwords[1] >= (0 if config.floret else len(vocab))]
            )
        self.state = TrainState.new(vocab, config)  # every rank starts from the same tables...
        if self.dist.world > 1:  # ...and draws its own random numbers
            self._reseed(0)
        self.bucket_counts = None  # (B,) int64 updates of each bucket row, over ranks: set by gather
        self.state.words_total = config.epochs * max(1, vocab.total // self.dist.world)  # this rank's share
        self.tables = vocab_tables(vocab, config.sample)
        self.device = torch.device(config.device)
        # numba threads take BATCH_WORDS each; a device is kept busy by chunks twenty threads large
        chunk_words = chunk_words or BATCH_WORDS * (config.threads if self.device.type == "cpu" else 20)
        self.scan = scan
        if scan is not None:
            self.cache = ChunkCache(scan, vocab, chunk_words, encoder=ScannedText.encode)
        else:
            self.cache = ChunkCache(lines, vocab, chunk_words)
        self.engine = (
            None if self.device.type == "cpu" else BatchedTrainer(self.state, self.tables, config, self.device)
        )
        self.epoch_loss = (0.0, 0)  # loss sums at the start of the current epoch
        self._bases = None  # distributed: the tables as of the last round

    @property
    def keys(self) -> list[str]:
        return self.vocab.index_to_key

    @property
    def counts(self) -> np.ndarray:
        return self.vocab.counts

    @property
    def total(self) -> int:
        """Words the whole run trains, all ranks and epochs."""
        return self.state.words_total * self.dist.world

    @property
    def done(self) -> int:
        return self.state.words_done * self.dist.world  # ranks advance together: an estimate off by < a round

    @property
    def loss(self) -> float:
        """Mean -log σ per scored target in this epoch so far (this rank's sample)."""
        terms = self.state.loss_terms - self.epoch_loss[1]
        return (self.state.loss_sum - self.epoch_loss[0]) / terms if terms else math.nan

    @property
    def lr(self) -> float:
        c = self.config
        return float(linear_lr(c.lr, c.min_lr, self.state.words_done, self.state.words_total))

    def steps(self, epoch: int, skip: int) -> Iterator[None]:
        """Train epoch `epoch` from its step `skip` on, yielding after each step."""
        if skip == 0:
            self.epoch_loss = (self.state.loss_sum, self.state.loss_terms)
        if self.dist.world > 1 and self._bases is None:  # the tables as all ranks hold them now
            self._bases = [t.clone() for t in self._tables()]
        chunks = prefetch(islice(iter(self.cache), skip, None))
        try:
            while True:
                chunk = next(chunks, None)
                if chunk is not None:
                    if self.engine is None:
                        train_chunk(self.state, chunk, self.tables, self.config, self.subwords)
                    else:
                        self.engine.train_chunk(chunk)
                if self.dist.world > 1:  # lockstep rounds: a rank out of lines still adds its (zero) change
                    if self.dist.all_done(chunk is None):
                        return
                    self.dist.sum_updates(self._tables(), self._bases)
                elif chunk is None:
                    return
                yield
        finally:
            chunks.close()

    def init_rows(self, ids: np.ndarray, rows: np.ndarray) -> None:
        """Word rows `ids` of the input table set to `rows`, on every rank alike (before any step)."""
        self._sync()
        self.state.w_in[ids] = rows
        if self.engine is not None:  # the engine holds its own copy of the tables
            self.engine = BatchedTrainer(self.state, self.tables, self.config, self.device)

    def save_setup(self, out: Path) -> None:
        write_vocab(out, self.vocab.to_dict())

    def table(self) -> np.ndarray:
        """(V, D) float32 the input table: the embedding (live on CPU); with subwords, a new array of
        each word's composed vector (the mean of its word row and its n-gram rows)."""
        self._sync()
        if self.subwords is not None:
            return compose(self.state.w_in, *self.subwords, np.arange(len(self.vocab)))
        return self.state.w_in

    def word_rows(self) -> tuple[list[str], np.ndarray]:
        """Every row is a word's: the keys and the table (with subwords, the composed vectors)."""
        return self.keys, self.table()

    def rows(self, ids: np.ndarray) -> np.ndarray:
        """(W, D) float32 copies of the embedding rows `ids`."""
        if self.engine is not None:
            return self.engine.w_in[torch.as_tensor(ids, device=self.device)].cpu().numpy()
        if self.subwords is not None:
            return compose(self.state.w_in, *self.subwords, np.asarray(ids, dtype=np.int64))
        return self.state.w_in[ids].copy()

    def state_dict(self) -> tuple[dict[str, np.ndarray], dict]:
        self._sync()
        s = self.state
        counts = s.update_counts if self.dist.world == 1 else self.dist.sum(s.update_counts)  # a collective
        arrays = {"w_in": s.w_in, "w_out": s.w_out, "rng_state": s.rng_state, "update_counts": counts}
        meta = {"words_done": s.words_done, "kept_words": s.kept_words, "loss_sum": s.loss_sum,
                "loss_terms": s.loss_terms, "epoch_loss": list(self.epoch_loss)}  # fmt: skip
        return arrays, meta

    def load_state_dict(self, arrays: dict[str, np.ndarray], meta: dict) -> None:
        s = self.state
        s.w_in[:], s.w_out[:] = arrays["w_in"], arrays["w_out"]
        if self.dist.world == 1:  # exact resume; ranks of a distributed run keep their fresh streams
            s.rng_state[:], s.update_counts[:] = arrays["rng_state"], arrays["update_counts"]
            s.words_done, s.kept_words = meta["words_done"], meta["kept_words"]
            s.loss_sum, s.loss_terms = meta["loss_sum"], meta["loss_terms"]
            self.epoch_loss = tuple(meta["epoch_loss"])
        else:
            s.update_counts[:] = 0  # the saved counts are all ranks' sum: rank 0 carries them on
            if self.dist.main:
                s.update_counts[0] = arrays["update_counts"].sum(axis=0)
            s.words_done = meta["words_done"]
            self._reseed(s.words_done)
            self._bases = None
        if self.engine is not None:
            self.engine = BatchedTrainer(s, self.tables, self.config, self.device)

    def gather(self) -> tuple[np.ndarray, dict]:
        """-> (V,) int64 gradient steps each embedding row took, and the job's metrics, summed
        over ranks and threads (a collective under torch.distributed: every rank calls it)."""
        self._sync()
        s = self.state
        counts = self.dist.sum(s.update_counts.sum(axis=0))
        if self.subwords is not None:
            self.bucket_counts = self._bucket_counts(counts)
        words, kept = self.dist.sum(np.array([s.words_done, s.kept_words], dtype=np.int64)).tolist()
        return counts, {"words": words, "kept_words": kept, "final_lr": self.lr}

    def save_outputs(self, out: Path) -> None:
        """With subwords, write subwords.safetensors: the word rows (none in floret's mode), the bucket
        rows and bucket_counts (after gather). Without, nothing: the whole-word table is all there is."""
        if self.subwords is None:
            return
        c, w_in = self.config, self.state.w_in
        counts = self.bucket_counts
        if counts is None:
            counts = self._bucket_counts(self.state.update_counts.sum(axis=0))
        V = 0 if c.floret else len(self.vocab)  # where the bucket rows start
        word_rows = None if c.floret else w_in[:V]
        write_subwords(out, word_rows, w_in[V:], counts, min_n=c.min_n, max_n=c.max_n,
                       hash_count=c.hash_count)  # fmt: skip

    def _bucket_counts(self, word_counts: np.ndarray) -> np.ndarray:
        """(V,) int64 steps each word's input rows took -> (B,) int64 steps each bucket row took."""
        c = self.config
        return bucket_counts(*self.subwords, word_counts, c.buckets, word_rows=not c.floret)

    def close(self) -> None:
        self.cache.close()
        if self.scan is not None:
            self.scan.close()

    def _sync(self) -> None:
        if self.engine is not None:
            self.engine.sync_state()

    def _tables(self) -> list[torch.Tensor]:
        """The two tables as tensors sharing memory with what the engine writes."""
        if self.engine is not None:
            return [self.engine.w_in, self.engine.w_out]
        return [torch.from_numpy(self.state.w_in), torch.from_numpy(self.state.w_out)]

    def _reseed(self, words_done: int) -> None:
        """A distributed rank's own LCG streams (a resume draws new ones: ranks do not save theirs)."""
        seeds = np.random.SeedSequence((self.config.seed, self.dist.rank, words_done))
        self.state.rng_state[:] = seeds.generate_state(self.config.threads, dtype=np.uint64)
