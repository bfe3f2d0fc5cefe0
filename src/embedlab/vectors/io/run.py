"""A training run's folder, the one owner of its files: each file's name, its writer and its reader.

`embedlab train` (train/run.py) writes the folder; Vectors.load, SubwordVectors, the lab's pages and
the tests read it. Both sides go through this module, so each file's name and layout are written once.

    run.json               write_record / read_record: {"embedlab": version, "status", "config",
                           "corpus_file"}, and "reason" once a run diverged or failed (STATUSES)
    vocab.json             write_vocab / read_vocab: word2vec's words and counts, what a resume reads
    tokenizer.json         an lm's tokenizer, what a resume reads: tokenizer.FastTokenizer.save / load
    vectors.safetensors    write_run_table / read_run_table: the table (V, D) float32, with its
                           vectors.vocab.json (keys, counts); vectors.txt the same as word2vec text
    update_counts.npy      write_update_counts / read_update_counts: (V,) int64 gradient steps per row
    subwords.safetensors   write_subwords / read_subwords: a subword run's rows (RunSubwords)
    snapshots.safetensors  write_snapshots / read_snapshots: the watched rows over the run (Snapshots)
    metrics.json           write_metrics / read_metrics: speed, loss, benchmarks, timings
    checkpoint.pt          while running: train/checkpoint.py's, the only module that reads it (resume)

Every file is written atomically (files.atomic_writer). A writer of rows refuses NaN or ±inf with
DivergedError (the run diverged), naming row and column, before its file is touched; a reader
refuses a damaged file with FileFormatError naming it.

subwords.safetensors, beside the whole-word table (which holds each word's composed vector):

    word_rows      (V, D) float32  each word's own input row, in the table's key order (fastText's mode only)
    ngram_rows     (B, D) float32  the bucket rows
    bucket_counts  (B,) int64      training updates each bucket row took (0: never trained)
    metadata       min_n, max_n, buckets, and hash_count in floret's mode (strings, as safetensors keeps them)

A floret run's file has no word_rows tensor at all (rather than an empty one): its metadata's
hash_count says the mode. It is streamed from the training table (arrays.write_tensors): a
2,000,000 × 100 bucket matrix is 800 MB, never copied; on read it is memory-mapped.

snapshots.safetensors: "vectors" (S, W, D) float32, "words" (S,) int64 units trained at each
snapshot (words, or an lm's pieces), "ids" (W,) int64 the watched rows; metadata "tokens" (a JSON
list of the W keys) and "unit".
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from embedlab import __version__
from embedlab.errors import DivergedError, FileFormatError, InvalidValueError, MissingDataError
from embedlab.files import atomic_write_text, atomic_writer, json_safe
from embedlab.files.reading import file_exists, read_json
from embedlab.vectors.io.arrays import (
    map_safetensors,
    read_array,
    read_safetensors,
    sidecar,
    write_safetensors,
    write_tensors,
)
from embedlab.vectors.io.table import Table, check_finite
from embedlab.vectors.io.word2vec import write_word2vec

RUN_FILE = "run.json"
RUN_VOCAB = "vocab.json"
RUN_TOKENIZER = "tokenizer.json"
RUN_TABLE = "vectors.safetensors"
RUN_TEXT = "vectors.txt"
UPDATE_COUNTS = "update_counts.npy"
RUN_SUBWORDS = "subwords.safetensors"
RUN_SNAPSHOTS = "snapshots.safetensors"
RUN_METRICS = "metrics.json"
CHECKPOINT = "checkpoint.pt"
# every file but run.json: what a diverged run leaves behind is removed (clear_outputs)
_OUTPUTS = (RUN_VOCAB, RUN_TOKENIZER, RUN_TABLE, RUN_TEXT, UPDATE_COUNTS, RUN_SUBWORDS, RUN_SNAPSHOTS,
            RUN_METRICS, CHECKPOINT)  # fmt: skip
# running: training or killed (resumable from its checkpoint); stopped: stopped early, resumable;
# diverged: rows went to NaN or ±inf, nothing kept but run.json; failed: an error ended it ("reason")
STATUSES = ("running", "stopped", "finished", "diverged", "failed")
DIVERGED = "the run diverged (its rows went to NaN or infinity); train again with a lower learning rate"
DAMAGED_RUN = "the run cannot resume: remove the folder, or train again in another one"  # past a damaged file
UPDATE_COUNTS_FORMAT = "update counts: a NumPy .npy array (V,) of integers >= 0"


# ----- run.json, vocab.json, metrics.json -----------------------------------------------------------


def write_record(out: Path, status: str, config: dict, corpus_file: str, reason: str | None = None) -> Path:
    """run.json: the run's settings (RunConfig.to_dict()), corpus file and status, with the reason
    for a diverged or failed run."""
    if status not in STATUSES:
        raise InvalidValueError(f"status must be one of {', '.join(STATUSES)}; got {status!r}")
    record = {"embedlab": __version__, "status": status, "config": config, "corpus_file": corpus_file}
    if reason is not None:
        record["reason"] = reason
    return atomic_write_text(out / RUN_FILE, json.dumps(record, indent=2) + "\n")


def read_record(out: Path) -> dict:
    """run.json as a dict holding at least "config" (a dict) and "status" (one of STATUSES)."""
    record = read_json(out / RUN_FILE, "embedlab run", DAMAGED_RUN, keys=("config", "status"))
    if not isinstance(record["config"], dict) or record["status"] not in STATUSES:
        raise FileFormatError(f"{out / RUN_FILE}: not a readable embedlab run (its config or status); {DAMAGED_RUN}")
    return record


def write_vocab(out: Path, vocab: dict) -> Path:
    """vocab.json: word2vec's {"index_to_key": [V words], "counts": [V ints]} (WordVocab.to_dict())."""
    return atomic_write_text(out / RUN_VOCAB, json.dumps(vocab))


def read_vocab(out: Path) -> dict:
    """vocab.json as a dict holding "index_to_key" and "counts" (WordVocab.from_dict checks the rest)."""
    return read_json(out / RUN_VOCAB, "word2vec vocabulary", DAMAGED_RUN, keys=("index_to_key", "counts"))


def write_metrics(out: Path, metrics: dict) -> dict:
    """metrics.json: `metrics` as strict JSON (NaN and ±inf as null) -> what was written."""
    metrics = json_safe(metrics)
    atomic_write_text(out / RUN_METRICS, json.dumps(metrics, indent=2, allow_nan=False) + "\n")
    return metrics


def read_metrics(out: Path) -> dict:
    return read_json(out / RUN_METRICS, "run's metrics", "train the run again to write them")


# ----- the table and its update counts ---------------------------------------------------------------


def write_run_table(out: Path, table: Table) -> list[Path]:
    """vectors.safetensors (with its vectors.vocab.json) and vectors.txt, each atomically. A NaN or
    ±inf row is DivergedError naming its row, key and column, before either file is touched."""
    check_finite(Path(f"cannot write {out / RUN_TABLE}"), table.keys, table.vectors, error=DivergedError, why=DIVERGED)
    return write_safetensors(table, out / RUN_TABLE) + write_word2vec(table, out / RUN_TEXT)


def read_run_table(out: Path) -> Table:
    return read_safetensors(out / RUN_TABLE)


def write_update_counts(out: Path, counts: np.ndarray) -> Path:
    """update_counts.npy: (V,) int64 gradient steps each row of the table took."""
    counts = np.asarray(counts)
    if counts.ndim != 1 or counts.dtype.kind not in "iu" or (counts < 0).any():
        raise InvalidValueError(f"update counts must be (V,) integers >= 0; got {counts.dtype} {counts.shape}")
    with atomic_writer(out / UPDATE_COUNTS, "wb") as f:
        np.save(f, counts.astype(np.int64), allow_pickle=False)
    return out / UPDATE_COUNTS


def read_update_counts(source: str | Path) -> np.ndarray:
    """A run folder (or its vectors.safetensors) -> (V,) int64 update counts, read without pickles."""
    path = Path(source)
    folder = path.parent if path.name == RUN_TABLE and path.is_file() else path
    file = folder / UPDATE_COUNTS
    if not file_exists(file, UPDATE_COUNTS_FORMAT):
        raise MissingDataError(
            f"{source} has no {UPDATE_COUNTS}: only folders written by `embedlab train` record update counts"
        )
    counts = read_array(file, UPDATE_COUNTS_FORMAT)  # the header's shape checked against the file's size first
    if counts.ndim != 1 or not np.issubdtype(counts.dtype, np.integer) or (counts < 0).any():
        raise FileFormatError(f"{file}: expected {UPDATE_COUNTS_FORMAT}; found {counts.dtype} {counts.shape}")
    return counts.astype(np.int64)


# ----- the snapshots -------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Snapshots:
    """The watched rows over a run, from the random start to the trained table."""

    vectors: np.ndarray  # (S, W, D) float32: the watched rows at each snapshot
    done: np.ndarray  # (S,) int64 units trained at each (the file's "words")
    ids: np.ndarray  # (W,) int64 the watched rows of the table
    tokens: list[str]  # (W,) their keys
    unit: str  # what `done` counts: "words" | "pieces"


def write_snapshots(out: Path, snapshots: Snapshots) -> Path:
    """snapshots.safetensors; a NaN or ±inf row is DivergedError naming the snapshot, token and
    column, before the file is touched."""
    S, W = len(snapshots.done), len(snapshots.ids)
    if snapshots.vectors.ndim != 3 or snapshots.vectors.shape[:2] != (S, W) or len(snapshots.tokens) != W:
        raise InvalidValueError(
            f"snapshots: vectors {snapshots.vectors.shape} must be (S, W, D) for {S} snapshots of "
            f"{W} ids and {len(snapshots.tokens)} tokens"
        )
    path = out / RUN_SNAPSHOTS
    for s, rows in enumerate(snapshots.vectors):
        where = Path(f"{path} snapshot {s} (at {int(snapshots.done[s]):,} {snapshots.unit})")
        check_watched_rows(where, snapshots.tokens, rows)
    tensors = {
        "vectors": snapshots.vectors.astype(np.float32, copy=False),
        "words": np.asarray(snapshots.done, dtype=np.int64),
        "ids": np.asarray(snapshots.ids, dtype=np.int64),
    }
    return write_tensors(path, tensors, {"tokens": json.dumps(snapshots.tokens), "unit": snapshots.unit})


def check_watched_rows(where: Path, tokens: list[str], rows: np.ndarray) -> None:
    """(W, D) watched rows -> DivergedError at the first NaN or ±inf, naming `where`, its token and
    column: what a snapshot, taken or written, must pass."""
    check_finite(where, tokens, rows, error=DivergedError, why=DIVERGED)


def read_snapshots(out: Path) -> Snapshots:
    """snapshots.safetensors -> Snapshots (copied out of the file: they are small)."""
    path = out / RUN_SNAPSHOTS
    arrays, meta = map_safetensors(path)
    try:
        vectors, done, ids = (np.array(arrays[name]) for name in ("vectors", "words", "ids"))
        tokens, unit = json.loads(meta["tokens"]), meta["unit"]
    except (KeyError, json.JSONDecodeError) as err:
        raise FileFormatError(f"{path}: not a run's snapshots (no {err})") from None
    S, W = len(done), len(ids)
    if vectors.ndim != 3 or vectors.shape[:2] != (S, W) or not isinstance(tokens, list) or len(tokens) != W:
        raise FileFormatError(f"{path}: vectors {vectors.shape} do not match {S} snapshots of {W} watched rows")
    for s, rows in enumerate(vectors):
        check_finite(Path(f"{path} snapshot {s}"), tokens, rows)
    return Snapshots(vectors, done, ids, tokens, unit)


# ----- a subword run's rows -------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class RunSubwords:
    """A subword run's rows as subwords.safetensors holds them, memory-mapped (read-only)."""

    word_rows: np.ndarray | None  # (V, D) float32 each word's own row; None in floret's mode
    ngram_rows: np.ndarray  # (B, D) float32 the bucket rows
    bucket_counts: np.ndarray  # (B,) int64 training updates each bucket row took
    min_n: int  # shortest n-gram of "<word>"
    max_n: int  # longest
    hash_count: int | None  # floret's rows per key; None in fastText's mode


def write_subwords(
    out: Path, word_rows: np.ndarray | None, ngram_rows: np.ndarray, bucket_counts: np.ndarray, *,
    min_n: int, max_n: int, hash_count: int | None = None,
) -> Path:  # fmt: skip
    """subwords.safetensors (see the module docstring), streamed and atomic; a NaN or ±inf row is
    DivergedError naming it, and nothing is written. word_rows None with hash_count: floret's mode."""
    if (word_rows is None) == (hash_count is None):
        raise InvalidValueError("give word_rows in fastText's mode, or hash_count in floret's (not both, not neither)")
    path = out / RUN_SUBWORDS
    if word_rows is not None:  # a diverged run's NaN rows are refused before the file is touched
        check_finite(Path(f"cannot write {path} (word rows)"), None, word_rows, error=DivergedError, why=DIVERGED)
    check_finite(Path(f"cannot write {path} (n-gram bucket rows)"), None, ngram_rows, error=DivergedError, why=DIVERGED)
    tensors = {"word_rows": word_rows, "ngram_rows": ngram_rows, "bucket_counts": bucket_counts}
    metadata = {"min_n": min_n, "max_n": max_n, "buckets": len(ngram_rows)}
    if hash_count is not None:
        metadata["hash_count"] = hash_count
    return write_tensors(path, {name: a for name, a in tensors.items() if a is not None}, metadata)


def read_subwords(out: Path) -> RunSubwords:
    """subwords.safetensors -> RunSubwords, its rows memory-mapped (nothing read until used)."""
    path = out / RUN_SUBWORDS
    arrays, meta = map_safetensors(path)
    try:
        hash_count = int(meta["hash_count"]) if "hash_count" in meta else None  # floret's mode
        names = ("ngram_rows", "bucket_counts") if hash_count else ("word_rows", "ngram_rows", "bucket_counts")
        rows = {name: arrays[name] for name in names}
        min_n, max_n = int(meta["min_n"]), int(meta["max_n"])
    except (KeyError, ValueError) as err:
        raise FileFormatError(f"{path}: not a subword run's rows (no {err})") from None
    return RunSubwords(rows.get("word_rows"), rows["ngram_rows"], rows["bucket_counts"], min_n, max_n, hash_count)


# ----- a run that ends without a table ---------------------------------------------------------------


def clear_outputs(out: Path) -> None:
    """Remove every file of the run but run.json (a diverged run's rows are NaN: nothing else in the
    folder can be used, nor resumed). Only the names this module owns are touched."""
    tables = (sidecar(out / RUN_TABLE), sidecar(out / RUN_TOKENIZER, ".counts.json"))
    for path in (*(out / name for name in _OUTPUTS), *tables):
        path.unlink(missing_ok=True)
