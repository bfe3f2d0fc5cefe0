"""A training run in a background thread, watched while it goes: the lab's live run (or a notebook's).

    live = LiveRun("cache/training")                       # names it may train on: the installed corpora
    live.start(RunConfig(corpus="enwiki-sample", dim=8, epochs=1), max_words=200_000)
    live.start_page_run(PageRun(dim=8, epochs=1))          # the same as the lab page starts it (LIMITS)
    live.state(since=0)                                    # TrainingState: status, progress, frames' maps
    live.state(themes=["animals", "colours"])              # only those groups' words, projected apart
    live.frame(3).row("king")                              # (D,) that token's row in frame 3
    live.row("king", 3).norm                               # the same row with its frame and its length
    live.stop(); live.close()

`embedlab.train.train` does the work; every snapshot of the watched rows (W, D) it reports becomes
a Frame with 2-D coordinates (W, 2) for a map (its FrameMap). One run at a time (sims.job): starting
while one runs raises BusyError. Each run writes its folder under `root` (a normal run folder: Vectors.load reads it
once finished); starting a run removes the folders of earlier ones.

Projection: each frame is put through its own PCA and then turned, by rotation or reflection only,
to line up with the frame before it (orthogonal Procrustes in 2-D). PCA axes are defined only up
to sign and order, so without the turn a frame could flip or swap axes against its neighbour and
the map would jump where the table barely moved. PCA axes of the last frame, shared by all frames,
were the other choice; they change with every new frame (so frames already drawn would move), and
the random start, whose spread lies on other axes, would collapse to a dot.

Themes: a run watches every themed word its vocabulary holds (embedlab.data.themes, through
train's default watch list), and a map may show a few groups only. Their rows then get frames of
their own, projected the same way but fitted on those rows alone (another group's spread would
otherwise decide the axes); each choice of groups is projected once per run and kept.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import shutil
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from embedlab.data.corpora import missing_corpora
from embedlab.data.themes import pick_themes, theme_of
from embedlab.errors import InvalidValueError, check_choice, check_int, unknown_name
from embedlab.files import Matrix, Vector
from embedlab.sims.job import Job, JobState
from embedlab.train.config import RunConfig
from embedlab.train.run import SNAPSHOTS, Progress, train
from embedlab.vectors.projection import project_frame

log = logging.getLogger("embedlab")

STATUSES = ("idle", "running", "stopped", "finished", "failed")
# The lab page's runs: bounded so that one run fits a page visit on a 2-core machine.
DIMS = (2, 8, 32, 100, 300)  # the page's choices; any width in 2..MAX_DIM is accepted
MAX_DIM = 300
MAX_EPOCHS = 10
MIN_WORDS, MAX_WORDS = 1_000, 5_000_000  # the word limit: ~45 s at the 116k words/s of one thread
MAX_NAME = 100  # characters of a corpus or token name
METHODS = ("sgns", "cbow")  # word2vec's two; the lm trains pieces, not the watched words
THREADS = 1  # one numba thread: the server's requests keep the other core
MAX_FRAMES = 2 * SNAPSHOTS  # a run has SNAPSHOTS + 2 frames at most; `since` beyond them is a mistake
LIMITS: dict[str, Any] = {"dim": [2, MAX_DIM], "epochs": [1, MAX_EPOCHS], "max_words": [MIN_WORDS, MAX_WORDS]}


@dataclass(frozen=True)
class PageRun:
    """A run as the lab page starts it: a built-in corpus and four settings, each bounded by LIMITS."""

    corpus: str = "enwiki-sample"  # a corpus name the LiveRun knows
    method: str = "sgns"  # one of METHODS
    dim: int = 8  # row width D, 2..MAX_DIM
    epochs: int = 3  # passes over the corpus, 1..MAX_EPOCHS
    max_words: int = MAX_WORDS  # stop after this many words, MIN_WORDS..MAX_WORDS

    def config(self) -> RunConfig:
        """The RunConfig this run trains, on THREADS thread(s); InvalidValueError past a limit."""
        check_choice("method", self.method, METHODS)
        check_int("dim", self.dim, low=2, high=MAX_DIM)
        check_int("epochs", self.epochs, low=1, high=MAX_EPOCHS)
        check_int("max_words", self.max_words, low=MIN_WORDS, high=MAX_WORDS)
        return RunConfig(corpus=self.corpus, method=self.method, dim=self.dim, epochs=self.epochs, threads=THREADS)


@dataclass(frozen=True)
class TrainingOptions:
    """What the page offers: the corpora installed here, the methods, the widths and the defaults."""

    corpora: tuple[str, ...]  # the built-in corpora installed here
    methods: tuple[str, ...]  # METHODS
    dims: tuple[int, ...]  # the page's choices of D (any width 2..MAX_DIM is accepted)
    defaults: PageRun  # the settings a page starts with


@dataclass(frozen=True, eq=False)
class FrameMap:
    """One snapshot of the watched rows as the page draws it (the rows themselves: LiveRun.row)."""

    index: int  # 0 = the rows before training
    done: int  # words trained when it was taken
    coordinates: Matrix  # (W, 2) float64, see project_frame
    variance: tuple[float, float]  # share of the frame's variance on each plotted axis


@dataclass(frozen=True, eq=False)
class Frame:
    """One snapshot of the watched rows, as trained so far, and its map."""

    tokens: tuple[str, ...]  # the watched tokens, one per row
    rows: np.ndarray  # (W, D) float32
    map: FrameMap

    @property
    def index(self) -> int:
        return self.map.index

    def row(self, token: str) -> np.ndarray:
        """(D,) float32: watched `token`'s row."""
        if token not in self.tokens:
            raise unknown_name("watched token", token, self.tokens)
        return self.rows[self.tokens.index(token)].copy()


@dataclass(frozen=True, eq=False)
class WatchedRow:
    """One watched token's row in one frame, and its length."""

    token: str  # the watched token
    frame: int  # the frame's index
    done: int  # words trained when the frame was taken
    row: Vector  # (D,) float32
    norm: float  # ‖row‖, summed in float64


@dataclass(frozen=True, eq=False)
class TrainingState:
    """What a LiveRun shows at one moment; `frames` are those from index `since` on."""

    run: int  # which run (1, 2, ...; 0 before the first)
    status: str  # one of STATUSES
    message: str  # why it stopped or failed ("" otherwise)
    config: dict[str, Any] | None  # the RunConfig's settings
    max_words: int | None  # the run stops once it has trained this many words
    progress: Progress | None  # None until the first step (the corpus is being read); loss None before any
    tokens: tuple[str, ...]  # the watched tokens (of the groups asked for), one per point of every frame
    themes: tuple[str, ...]  # each token's theme group
    frame_count: int  # frames so far
    frames: tuple[FrameMap, ...]  # from index `since` on


class LiveRun:
    """One training run at a time in a daemon thread (sims.job.Job), its frames kept as they arrive.

    `corpora` maps the names start() accepts to corpus sources (a built-in name or a text file);
    by default the installed built-in corpora. Every method may be called from any thread.
    """

    def __init__(self, root: str | Path, corpora: Mapping[str, str | Path] | None = None) -> None:
        self.root = Path(root)
        if corpora is None:  # the built-in corpora installed here, by their own names
            corpora = {name: name for name, missing in missing_corpora().items() if missing is None}
        self.corpora = dict(corpora)  # name -> source
        self._job = Job("embedlab-live")
        self._lock = threading.Lock()  # guards everything below
        self._run = 0
        self._config: RunConfig | None = None
        self._max_words: int | None = None
        self._progress: Progress | None = None
        self._frames: list[Frame] = []
        # (run, picked groups) -> the maps of those groups' tokens so far; extended under _maps_lock
        self._maps: dict[tuple[int, tuple[str, ...]], list[FrameMap]] = {}
        self._maps_lock = threading.Lock()

    @property
    def folder(self) -> Path | None:
        """The current (or last) run's folder."""
        return self._folder(self._run) if self._run else None

    def options(self) -> TrainingOptions:
        """What a page may start here: the corpora, METHODS, DIMS and PageRun's defaults."""
        return TrainingOptions(tuple(self.corpora), METHODS, DIMS, PageRun())

    def start_page_run(self, run: PageRun) -> TrainingState:
        """Start `run` as the lab page asks for it (bounded by LIMITS) -> the state with no frames yet."""
        self.start(run.config(), max_words=run.max_words)
        return self.state()

    def start(self, config: RunConfig, *, max_words: int | None = None, watch: Sequence[str] = ()) -> int:
        """Train `config` (its corpus one of `corpora`) in the background -> the run's number.

        max_words: stop once this many words are trained (status "stopped"). watch: the tokens to
        follow (default: run.py's DEFAULT_WATCH words in the vocabulary).
        """
        if config.corpus not in self.corpora:
            raise unknown_name("corpus", config.corpus, list(self.corpora))
        if max_words is not None:
            check_int("max_words", max_words, low=1)
        source = dataclasses.replace(config, corpus=str(self.corpora[config.corpus]))
        with self._lock:  # held while the job starts: its thread writes nothing before this block ends
            run = self._run + 1
            work = _Training(self, run, source, max_words, tuple(watch))
            busy = (
                f"run {self._run} ({self._config.method} on {self._config.corpus}) is still running"
                if self._config
                else "a run is still running"
            )
            self._job.start(work, busy=f"{busy}; stop it before starting another")
            self._run, self._config, self._max_words = run, config, max_words
            self._progress, self._frames, self._maps = None, work.frames, {}
            return run

    def stop(self, timeout: float | None = 5.0) -> TrainingState:
        """Ask the run to end after its current step and wait up to `timeout` seconds for it -> the
        state without frames. A run still reading its corpus notices only at its first step."""
        self._job.stop(timeout)
        return self.state(since=MAX_FRAMES)

    def close(self) -> None:
        """Stop the run (the lab calls this at shutdown). A run still reading its corpus cannot stop
        yet: after 5 s it is left to die with the process (a daemon thread), so shutdown goes on."""
        self._job.close(timeout=5.0)

    def state(self, since: int = 0, themes: Iterable[str] | None = None) -> TrainingState:
        """Status, progress, tokens and the frames from index `since` on (none if since >= count).

        `themes` keeps the watched tokens of those THEMES groups only (default: every watched token):
        the frames then hold their points alone, each projected on its own PCA of those rows and
        turned onto the frame before, as every frame is.
        """
        since = check_int("since", since, low=0)
        picked = None if themes is None else pick_themes(themes)
        with self._lock:
            job, run, frames = self._job.state(), self._run, list(self._frames)
            config, max_words, progress = self._config, self._max_words, self._progress
        tokens = frames[0].tokens if frames else ()
        maps = [frame.map for frame in frames]
        if picked is not None:
            tokens, maps = self._themed(run, picked, frames)
        return TrainingState(
            run=run,
            status=job.status,
            message=job.message,
            config=config.to_dict() if config else None,
            max_words=max_words,
            progress=progress,
            tokens=tokens,
            themes=tuple(theme_of(t) for t in tokens),
            frame_count=len(maps),
            frames=tuple(maps[since:]),
        )

    def _themed(self, run: int, picked: tuple[str, ...], frames: list[Frame]):
        """The watched tokens of the `picked` groups, and the maps of `frames` cut to their rows, projected anew."""
        tokens = frames[0].tokens if frames else ()
        keep = [i for i, token in enumerate(tokens) if theme_of(token) in picked]
        if frames and not keep:
            raise InvalidValueError(f"this run watches no word of {', '.join(picked)}; pick other themes")
        with self._maps_lock:
            cached = self._maps.setdefault((run, picked), [])
            for frame in frames[len(cached) :]:
                coordinates, variance = project_frame(frame.rows[keep], cached[-1].coordinates if cached else None)
                cached.append(FrameMap(frame.map.index, frame.map.done, coordinates, variance))
            return tuple(tokens[i] for i in keep), cached[: len(frames)]

    def frame(self, index: int) -> Frame:
        """Frame `index` of the current (or last) run."""
        with self._lock:
            frames = list(self._frames)
        if not frames:
            raise InvalidValueError("no frames yet: start a run and wait for its first snapshot")
        return frames[check_int("frame", index, low=0, high=len(frames) - 1)]

    def row(self, token: str, frame: int) -> WatchedRow:
        """Watched `token`'s row (D,) in frame `frame` of the current (or last) run, and its norm."""
        snapshot = self.frame(frame)
        row = snapshot.row(token)
        norm = float(np.linalg.norm(row.astype(np.float64)))
        return WatchedRow(token, snapshot.map.index, snapshot.map.done, row, norm)

    def _folder(self, run: int) -> Path:
        return self.root / f"{os.getpid()}-{run}"

    def _remove_old_folders(self) -> None:
        """Remove run folders of this process and of processes that have ended (a lab killed mid-run)."""
        if not self.root.is_dir():
            return
        for path in self.root.iterdir():
            pid, _, run = path.name.partition("-")
            if path.is_dir() and pid.isdigit() and run.isdigit() and (int(pid) == os.getpid() or not _alive(int(pid))):
                shutil.rmtree(path, ignore_errors=True)


@dataclass
class _Training:
    """The job's body for run `run`: train, record frames and progress, say how it ended."""

    live: LiveRun
    run: int
    config: RunConfig
    max_words: int | None
    watch: tuple[str, ...]
    done: int = 0  # words trained, as the last progress report said
    frames: list[Frame] = dataclasses.field(default_factory=list)  # the LiveRun's, appended under its lock

    def __call__(self, stop: threading.Event) -> JobState:
        live = self.live
        live._remove_old_folders()

        def on_progress(progress: Progress) -> None:
            self.done = progress.done
            with live._lock:
                live._progress = progress

        def on_snapshot(tokens: list[str], rows: np.ndarray, words: int) -> None:
            frames = self.frames  # only this thread appends
            coordinates, variance = project_frame(rows, frames[-1].map.coordinates if frames else None)
            frame = Frame(
                tuple(tokens), np.array(rows, dtype=np.float32), FrameMap(len(frames), words, coordinates, variance)
            )
            with live._lock:
                frames.append(frame)

        def should_stop() -> bool:
            return stop.is_set() or (self.max_words is not None and self.done >= self.max_words)

        result = train(self.config, live._folder(self.run), watch=self.watch, evaluate=False, on_progress=on_progress,
                       on_snapshot=on_snapshot, should_stop=should_stop)  # fmt: skip
        if result.status == "finished":
            return JobState("finished", "")
        if stop.is_set():
            return JobState("stopped", "stopped on request")
        return JobState("stopped", f"stopped at the limit of {self.max_words:,} words")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True
