"""A training run people can trust: an output folder, checkpoints, resume, snapshots, metrics.

    result = train(RunConfig(corpus="enwiki-sample"), "runs/wiki")          # `embedlab train`
    result = train(RunConfig(corpus="enwiki-sample"), "runs/wiki", resume=True)
    Vectors.load("runs/wiki")                                               # the trained table

The folder, once a run finishes:

    run.json               settings, corpus, status (running | stopped | finished | diverged | failed)
                           and the reason a run diverged or failed
    vocab.json             word2vec: the words and their counts  (lm: tokenizer.json)
    vectors.safetensors    the embedding table (V, D) float32, with vectors.vocab.json (keys, counts)
    vectors.txt            the same table as word2vec text
    update_counts.npy      (V,) int64: the gradient steps each row received (with subwords: each word's rows)
    subwords.safetensors   with subwords only: word_rows (V, D), ngram_rows (B, D), bucket_counts (B,) and
                           min_n, max_n, buckets (vectors.io.run); the table above then holds each
                           word's composed vector, the mean of its word row and its n-gram rows
                           (floret's mode: no word_rows, hash_count in the metadata, each word the
                           mean of the bucket rows its floret ids pick)
    snapshots.safetensors  the watched tokens' rows over the run: "vectors" (S, W, D), "words" (S,)
    metrics.json           speed, loss, the benchmarks (WordSim-353, SimLex-999, Google analogies),
                           "init" (init_from's rows matched and not, freeze: init_table.InitReport) and
                           "timings": seconds of setup (vocabulary), training, writing, evaluation
    checkpoint.pt          while running: the state `resume` continues from (removed at the end)

vectors.io.run owns these files (names, writers, readers). Rows gone to NaN or ±inf are caught at
the first snapshot holding one (a distributed run's at the end): run.json says "diverged" with the
first bad row, the other files go, DivergedError is raised. Another error records "failed" and why.

A checkpoint is written atomically every `checkpoint_every` seconds (a distributed run: at each
epoch's end but the last, the finished table being written then instead), and when a run is stopped. It
holds the whole state and a cursor (epoch, steps done in it); a resumed run re-reads the corpus,
skips the steps already done and goes on. With one thread and a seed, a resumed word2vec run ends
bit for bit where an uninterrupted one does.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from embedlab.data.corpora import Corpus, open_corpus
from embedlab.data.themes import WORDS
from embedlab.errors import DivergedError, FileFormatError, InvalidValueError, MissingDataError, plain
from embedlab.files import check_path, make_new_folder
from embedlab.files.reading import file_exists
from embedlab.tokenizer.bytes import word_key
from embedlab.train.checkpoint import load_checkpoint, save_checkpoint
from embedlab.train.config import RunConfig
from embedlab.train.distributed import Dist
from embedlab.train.init_table import InitReport, check_some_match, load_source, match_rows
from embedlab.train.job import JOBS, Job
from embedlab.vectors.io import Table
from embedlab.vectors.io import run as run_files  # the folder's file names, writers and readers

SNAPSHOTS = 100  # snapshots of the watched rows per run, besides the one before training
# Watched when no tokens are named: themed sets whose clusters a 2-D map makes visible.
DEFAULT_WATCH = list(WORDS)  # the themed words (embedlab.data.themes)


@dataclass(frozen=True)
class Progress:
    """Where a run stands, given to on_progress after every step."""

    epoch: int  # 0-based
    epochs: int
    done: int  # words (word2vec) or pieces (lm) trained so far
    total: int  # planned for the whole run
    unit: str  # "words" | "pieces"
    loss: float  # this epoch's mean training loss so far (nan before any)
    lr: float
    seconds: float  # wall time of this process's part of the run
    rate: float  # units per second in this process's part


@dataclass
class RunResult:
    path: Path
    status: str  # "finished" | "stopped" (a run that diverged or failed raises instead)
    metrics: dict = field(default_factory=dict)


@dataclass
class RunState:
    """One run as its loop drives it: what `train` was given and has checked, and what the loop
    keeps for the end. Built once by `train`; `_run` steps it, `_finish` writes it out."""

    config: RunConfig  # the run's settings (a resumed run's own, read from its folder)
    out: Path  # the run folder
    corpus: Corpus  # where the lines come from: its name and file go into run.json and metrics.json
    job: Job  # the method's steps, tables and state (job.Job)
    dist: Dist  # this process among the torch.distributed ranks (one process: rank 0 of 1)
    watched: np.ndarray  # (W,) int64 rows of the watched tokens, snapshotted over the run
    resume: bool  # go on from the folder's checkpoint instead of starting the folder
    checkpoint_every: float  # seconds between checkpoints, besides the one at each epoch's end
    evaluate: bool  # score the table on the word benchmarks at the end
    on_progress: Callable[[Progress], None] | None  # called after every step
    on_snapshot: Callable[[list[str], np.ndarray, int], None] | None  # (tokens, rows (W, D), done) per snapshot
    should_stop: Callable[[], bool] | None  # polled after every step: True stops the run with a checkpoint
    timings: dict[str, float]  # seconds of "setup", then "training", "writing" and "evaluation" as each ends
    init: InitReport  # where the table started (init_from's matched rows, freeze): checkpointed, in metrics.json
    snapshots: list[tuple[int, np.ndarray]] = field(default_factory=list)  # (units done, (W, D) rows), in order
    done_at_start: int = 0  # units done before this process began: a resumed run's earlier part
    claimed: bool = False  # run.json is this run's to update: the folder was created, or its checkpoint read

    def snapshot(self) -> None:
        """Keep the watched rows as they are now (and show them to on_snapshot); a NaN or ±inf
        among them is DivergedError: the run stops there, not at its end."""
        rows, tokens = self.job.rows(self.watched), [self.job.keys[i] for i in self.watched]
        if self.dist.world == 1:  # subtle: one rank raising alone would leave the others waiting in a collective
            run_files.check_watched_rows(Path(f"the watched rows at {self.job.done:,} {self.job.unit}"), tokens, rows)
        self.snapshots.append((self.job.done, rows))
        if self.on_snapshot is not None:
            self.on_snapshot(tokens, rows, self.job.done)

    def ended(self, status: str, err: Exception) -> None:
        """Record in run.json a run that `status` ("diverged" | "failed") ended, with `err` as the
        reason; a diverged run's other files are removed (its rows are NaN: nothing can use them)."""
        if not (self.claimed and self.dist.main):
            return  # the folder is not (yet) this run's: another run's, or never created
        reason = str(err) if isinstance(err, DivergedError) else f"{type(err).__name__}: {plain(err)}"
        if status == "diverged":
            run_files.clear_outputs(self.out)
        _write_run(self.out, self.config, self.corpus, status, reason)

    def checkpoint(self, epoch: int, step: int) -> None:
        """Save the job's state, the snapshots so far and the cursor (epoch, steps done in it).
        A collective under torch.distributed: every rank calls it, rank 0 writes."""
        arrays, meta = self.job.state_dict()
        if self.dist.main:
            shape = (0, len(self.watched), self.config.dim)
            stack = np.stack([rows for _, rows in self.snapshots]) if self.snapshots else np.zeros(shape)
            save_checkpoint(
                self.out / run_files.CHECKPOINT,
                {**{f"job.{k}": v for k, v in arrays.items()}, "snapshots": stack.astype(np.float32)},
                {
                    "epoch": epoch,
                    "step": step,
                    "job": meta,
                    "snapshot_words": [w for w, _ in self.snapshots],
                    "init": self.init.to_dict(),
                },  # fmt: skip
            )


def train(
    config: RunConfig,
    out: str | Path,
    *,
    resume: bool = False,
    watch: list[str] | tuple[str, ...] = (),
    checkpoint_every: float = 60.0,
    evaluate: bool = True,
    on_progress: Callable[[Progress], None] | None = None,
    on_snapshot: Callable[[list[str], np.ndarray, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    dist: Dist | None = None,
) -> RunResult:
    """Train `config` into the folder `out` (new, or `resume` its last checkpoint) -> RunResult.

    resume: continue the folder's run with its own settings; any setting `config` was given
    (config.given) that differs from the folder's is an error. should_stop: polled after each
    step; True ends the run early with a checkpoint (status "stopped", resumable).
    on_snapshot(tokens, rows (W, D), done): each snapshot of the watched rows.
    """
    out, dist = Path(check_path(out, "a run's output folder")), dist or Dist()
    if checkpoint_every <= 0 or math.isnan(checkpoint_every):
        raise InvalidValueError(f"checkpoint_every must be > 0 seconds; got {checkpoint_every}")
    if resume:
        config = _resumable(out, config)
    else:
        _check_new(out)
        dist.barrier()  # every rank has looked before rank 0 writes
    # the source table is read (and its width checked) before the corpus: a wrong name costs nothing
    source = load_source(config.init_from, config.dim) if config.init_from is not None and not resume else None
    corpus = open_corpus(config.corpus)
    lines = dist.shard(corpus) if dist.world > 1 else corpus
    start = time.perf_counter()
    job = JOBS[config.method].create(lines, config, out, resume, dist)
    setup = time.perf_counter() - start  # the vocabulary pass (word2vec) or the tokenizer (lm)
    try:
        init = InitReport.of(config.init_from, len(job.keys), 0, config.freeze)  # resumed: the checkpoint's
        if source is not None:
            run_rows, source_rows = match_rows(job.keys, source, pieces=job.unit == "pieces")
            check_some_match(config.init_from, run_rows, job.keys, job.unit)
            job.init_rows(run_rows, source.vectors[source_rows])
            init = InitReport.of(config.init_from, len(job.keys), len(run_rows), config.freeze)
        run = RunState(
            config=config,
            out=out,
            corpus=corpus,
            job=job,
            dist=dist,
            watched=_watch_ids(job.keys, watch),  # the last check: nothing is written before it
            resume=resume,
            checkpoint_every=checkpoint_every,
            evaluate=evaluate,
            on_progress=on_progress,
            on_snapshot=on_snapshot,
            should_stop=should_stop,
            timings={"setup": setup},
            init=init,
        )
        try:
            return _run(run)
        except DivergedError as err:
            run.ended("diverged", err)
            raise
        except Exception as err:  # not KeyboardInterrupt: a killed run stays "running", resumable
            run.ended("failed", err)
            raise
    finally:
        job.close()  # the corpus cache's temporary files, also on an error or Ctrl-C


def _run(run: RunState) -> RunResult:
    """The training loop of `train`, after its checks."""
    job, config, dist, out = run.job, run.config, run.dist, run.out
    cursor = (0, 0)
    if run.resume:
        arrays, meta = load_checkpoint(out / run_files.CHECKPOINT)
        job.load_state_dict({k[4:]: v for k, v in arrays.items() if k.startswith("job.")}, meta["job"])
        cursor = (meta["epoch"], meta["step"])
        if "init" in meta:  # a checkpoint written before init_from existed: the run's own init
            run.init = InitReport(**meta["init"])
        run.snapshots = list(zip(meta["snapshot_words"], arrays["snapshots"], strict=True))
        run.claimed = True
    elif dist.main:
        # subtle: taken at the moment of creation, not only checked at the start (_check_new): of two
        # new runs into one folder, exactly one creates run.json; the other stops here, having written nothing
        make_new_folder(out, run_files.RUN_FILE)
        run.claimed = True
        _write_run(out, config, run.corpus, "running")
        job.save_setup(out)

    if not run.snapshots:
        run.snapshot()  # the rows before training: random
    every = max(1, job.total // SNAPSHOTS)
    start, last_save, stopped = time.perf_counter(), time.perf_counter(), False
    run.done_at_start = job.done
    epoch, step = cursor
    while epoch < config.epochs and not stopped:
        for _ in job.steps(epoch, step):
            step += 1
            if job.done // every > run.snapshots[-1][0] // every:
                run.snapshot()
            if run.on_progress is not None:
                seconds = time.perf_counter() - start
                rate = (job.done - run.done_at_start) / seconds if seconds > 0 else 0.0
                run.on_progress(
                    Progress(epoch, config.epochs, job.done, job.total, job.unit, job.loss, job.lr, seconds, rate)
                )
            if dist.world == 1 and time.perf_counter() - last_save >= run.checkpoint_every:
                run.checkpoint(epoch, step)  # distributed runs save at epoch ends, where all ranks agree
                last_save = time.perf_counter()
            if run.should_stop is not None and run.should_stop():
                stopped = True
                break
        if not stopped:
            epoch, step = epoch + 1, 0
        # A stop always saves. A distributed run saves at each epoch's end but the last (where its ranks
        # agree; the table is written after the last); a single process saves only by the clock above:
        # a subword run's checkpoint is ~900 MB and 2 s, and an extra one at each epoch's end would not
        # shorten the work a kill can lose below `checkpoint_every` seconds.
        if stopped or (dist.world > 1 and epoch < config.epochs):
            run.checkpoint(epoch, step)  # (a kill while writing resumes from the one before, ending the same)
            last_save = time.perf_counter()
    run.timings["training"] = time.perf_counter() - start
    if not stopped and run.snapshots[-1][0] != job.done:
        run.snapshot()  # the last step was short of a snapshot boundary: the final rows still end the series
    if stopped:
        if dist.main:
            _write_run(out, config, run.corpus, "stopped")
        return RunResult(out, "stopped")
    return RunResult(out, "finished", _finish(run))


def _finish(run: RunState) -> dict:
    """Write the table, its exports, update counts, snapshots and metrics; drop the checkpoint.
    Adds "writing" and "evaluation" to run.timings."""
    job, out, timings = run.job, run.out, run.timings
    counts, job_metrics = job.gather()  # a collective under torch.distributed: every rank calls it
    if not run.dist.main:
        return {}
    start, seconds = time.perf_counter(), timings["training"]
    table = Table(list(job.keys), np.ascontiguousarray(job.table(), dtype=np.float32), job.counts.tolist())
    run_files.write_run_table(out, table)
    run_files.write_update_counts(out, counts)
    job.save_outputs(out)
    vectors, done = np.stack([rows for _, rows in run.snapshots]), [done for done, _ in run.snapshots]  # (S, W, D)
    tokens = [job.keys[i] for i in run.watched]
    run_files.write_snapshots(out, run_files.Snapshots(vectors, np.array(done), run.watched, tokens, job.unit))
    timings["writing"] = time.perf_counter() - start
    trained = job_metrics.get(job.unit, job.done) - run.done_at_start  # exact over ranks
    metrics = {
        "method": run.config.method,
        "corpus": run.corpus.name,
        "vocabulary": len(job.keys),
        "dim": run.config.dim,
        job.unit: job.done,
        "seconds": round(seconds, 3),  # this process's part when resumed
        f"{job.unit}_per_second": round(trained / seconds, 1) if seconds > 0 else None,
        "final_loss": job.loss,
        "processes": run.dist.world,
        "init": run.init.to_dict(),
        **job_metrics,
    }
    if run.evaluate:
        start = time.perf_counter()
        metrics["benchmarks"] = _benchmarks(job)
        timings["evaluation"] = time.perf_counter() - start
    metrics["timings"] = {name: round(value, 3) for name, value in timings.items()}  # seconds
    metrics = run_files.write_metrics(out, metrics)
    _write_run(out, run.config, run.corpus, "finished")
    (out / run_files.CHECKPOINT).unlink(missing_ok=True)
    return metrics


def _benchmarks(job: Job) -> dict:
    """WordSim-353, SimLex-999 and Google analogies of the table's word rows (an lm's whole-word pieces)."""
    from embedlab.vectors import Vectors
    from embedlab.vectors.evaluate import evaluate_all

    results = evaluate_all(Vectors(*job.word_rows()))
    return {name: (r.to_dict() if r is not None else None) for name, r in results.items()}


def _check_new(out: Path) -> None:
    """A new run writes only into a missing or empty folder: nothing is ever overwritten."""
    if out.exists() and not out.is_dir():
        raise InvalidValueError(f"{out} is a file; a run needs a folder")
    if out.is_dir() and any(out.iterdir()):
        if file_exists(out / run_files.RUN_FILE, "an embedlab run"):
            saved = _read_run(out)
            c, status = saved["config"], saved["status"]
            then = "choose another folder" if status == "diverged" else "resume it, or choose another folder"
            raise InvalidValueError(
                f"{out} already holds a run ({c.get('method')} on {c.get('corpus')}, {status}); {then}"
            )
        raise InvalidValueError(f"{out} is not empty and holds no embedlab run; choose another folder")


def _resumable(out: Path, config: RunConfig) -> RunConfig:
    """The folder's config, after checking the settings `config` was given agree with it and there
    is something to resume."""
    if not file_exists(out / run_files.RUN_FILE, "an embedlab run"):
        raise MissingDataError(f"nothing to resume: {out} holds no {run_files.RUN_FILE}")
    saved = _read_run(out)
    saved_config = RunConfig.from_dict(saved["config"])
    if saved["status"] == "finished":
        raise InvalidValueError(f"the run in {out} is already finished; choose another folder to train again")
    if saved["status"] == "diverged":  # the same settings would diverge again, and they cannot change on resume
        raise InvalidValueError(f"the run in {out} cannot resume: {saved.get('reason', 'it diverged')}")
    different = config.differences(saved_config)
    if different:
        raise InvalidValueError(f"{out} holds a different run: {', '.join(different)}")
    if not file_exists(out / run_files.CHECKPOINT, "an embedlab checkpoint"):
        raise MissingDataError(
            f"nothing to resume: the run in {out} stopped before its first checkpoint; "
            "remove the folder or choose another one to start again"
        )
    return saved_config


def _read_run(out: Path) -> dict:
    """The folder's run.json; a damaged one is an error naming it, not a traceback."""
    saved = run_files.read_record(out)
    try:
        RunConfig.from_dict(saved["config"])
    except (ValueError, TypeError) as err:
        raise FileFormatError(
            f"{out / run_files.RUN_FILE}: not a readable embedlab run ({plain(err)}); {run_files.DAMAGED_RUN}"
        ) from None
    return saved


def _write_run(out: Path, config: RunConfig, corpus: Corpus, status: str, reason: str | None = None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    run_files.write_record(out, status, config.to_dict(), str(corpus.path), reason)


def _watch_ids(keys: list[str], watch) -> np.ndarray:
    """Rows of the watched tokens: those asked for (unknown ones are an error), else DEFAULT_WATCH.
    A word names its own key, or its byte-level BPE piece after a space (an lm's table)."""
    index = {k: i for i, k in enumerate(keys)}
    if watch:
        missing = [w for w in watch if word_key(w, index) is None]
        if missing:
            listed = ", ".join(map(repr, missing))
            raise InvalidValueError(f"watch: {listed} not in the vocabulary of {len(keys)} tokens")
        return np.array([index[word_key(w, index)] for w in watch], dtype=np.int64)
    ids = [index[key] for key in (word_key(w, index) for w in DEFAULT_WATCH) if key is not None]
    return np.array(ids if len(ids) >= 4 else range(min(20, len(keys))), dtype=np.int64)
