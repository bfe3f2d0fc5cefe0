"""A training run in a background thread, watched while it goes: the lab's live run (or a notebook's).

    live = LiveRun("cache/training")                       # names it may train on: the installed corpora
    live.start(RunConfig(corpus="enwiki-sample", dim=8, epochs=1), max_words=200_000)
    live.state(since=0)                                    # status, progress, the frames so far
    live.state(themes=["animals", "colours"])              # only those groups' words, projected apart
    live.frame(3).row("king")                              # (D,) that token's row in frame 3
    live.row("king", 3).norm                               # the same row with its frame and its length
    live.stop(); live.close()

`embedlab.train.train` does the work; every snapshot of the watched rows (W, D) it reports becomes
a Frame with 2-D coordinates (W, 2) for a map. One run at a time: starting while one runs raises
BusyError. Each run writes its folder under `root` (a normal run folder: Vectors.load reads it
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
import math
import os
import shutil
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from embedlab.data.corpora import missing_corpora
from embedlab.data.themes import pick_themes, theme_of
from embedlab.errors import BusyError, EmbedlabError, InvalidValueError, check_int, unknown_name
from embedlab.train.config import RunConfig
from embedlab.train.run import Progress, train
from embedlab.vectors.projection import project_frame

log = logging.getLogger("embedlab")

STATUSES = ("idle", "running", "stopped", "finished", "failed")
# The lab page's bounds, listed by /api/config (lab/schemas/training.py's StartRequest enforces them).
LIMITS = {"dim": [2, 300], "epochs": [1, 10], "max_words": [1_000, 5_000_000]}


@dataclass(frozen=True, eq=False)
class Frame:
    """One snapshot of the watched rows, as trained so far."""

    index: int  # 0 = the rows before training
    done: int  # words trained when it was taken
    tokens: tuple[str, ...]  # the watched tokens, one per row
    rows: np.ndarray  # (W, D) float32
    coordinates: np.ndarray  # (W, 2) float64, see project_frame
    variance: tuple[float, float]  # share of the frame's variance on each plotted axis

    def row(self, token: str) -> np.ndarray:
        """(D,) float32: watched `token`'s row."""
        if token not in self.tokens:
            raise unknown_name("watched token", token, self.tokens)
        return self.rows[self.tokens.index(token)].copy()

    def to_dict(self) -> dict:
        """The frame without its tokens and rows (ask row() for one): plain JSON."""
        return {"index": self.index, "done": self.done, "coordinates": self.coordinates.tolist(),
                "variance": list(self.variance)}  # fmt: skip


@dataclass(frozen=True, eq=False)
class WatchedRow:
    """One watched token's row in one frame, and its length."""

    token: str
    frame: int  # the frame's index
    done: int  # words trained when the frame was taken
    row: np.ndarray  # (D,) float32

    @property
    def norm(self) -> float:
        """‖row‖, summed in float64."""
        return float(np.linalg.norm(self.row.astype(np.float64)))

    def to_dict(self) -> dict:
        return {"token": self.token, "frame": self.frame, "done": self.done, "row": self.row.tolist(),
                "norm": self.norm}  # fmt: skip


@dataclass(frozen=True, eq=False)
class LiveState:
    """What a LiveRun shows at one moment; `frames` are those from index `since` on."""

    run: int  # which run (1, 2, ...; 0 before the first)
    status: str  # one of STATUSES
    message: str  # why it stopped or failed ("" otherwise)
    config: dict | None  # the RunConfig's settings
    max_words: int | None  # the run stops once it has trained this many words
    progress: Progress | None  # None until the first step (the corpus is being read)
    tokens: tuple[str, ...]  # the watched tokens, one per row of every frame
    frame_count: int  # frames so far
    frames: tuple[Frame, ...]

    def to_dict(self) -> dict:
        progress = dataclasses.asdict(self.progress) if self.progress is not None else None
        if progress is not None and not math.isfinite(progress["loss"]):
            progress["loss"] = None  # no loss before the first scored word; JSON has no NaN
        return {
            "run": self.run, "status": self.status, "message": self.message, "config": self.config,
            "max_words": self.max_words, "progress": progress, "tokens": list(self.tokens),
            "themes": [theme_of(t) for t in self.tokens], "frame_count": self.frame_count,
            "frames": [f.to_dict() for f in self.frames],
        }  # fmt: skip


class LiveRun:
    """One training run at a time in a daemon thread, its frames kept as they arrive.

    `corpora` maps the names start() accepts to corpus sources (a built-in name or a text file);
    by default the installed built-in corpora. Every method may be called from any thread.
    """

    def __init__(self, root: str | Path, corpora: Mapping[str, str | Path] | None = None) -> None:
        self.root = Path(root)
        if corpora is None:  # the built-in corpora installed here, by their own names
            corpora = {name: name for name, missing in missing_corpora().items() if missing is None}
        self.corpora = dict(corpora)  # name -> source
        self._lock = threading.Lock()  # guards everything below
        self._run = 0
        self._status, self._message = "idle", ""
        self._config: RunConfig | None = None
        self._max_words: int | None = None
        self._progress: Progress | None = None
        self._tokens: tuple[str, ...] = ()
        self._frames: list[Frame] = []
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        # (run, picked groups) -> the frames of those groups' tokens so far; extended under _maps_lock
        self._maps: dict[tuple[int, tuple[str, ...]], list[Frame]] = {}
        self._maps_lock = threading.Lock()

    @property
    def folder(self) -> Path | None:
        """The current (or last) run's folder."""
        return self._folder(self._run) if self._run else None

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
        with self._lock:
            if self._status == "running":
                raise BusyError(
                    f"run {self._run} ({self._config.method} on {self._config.corpus}) is still running; "
                    "stop it before starting another"
                )
            self._run += 1
            self._status, self._message, self._config, self._max_words = "running", "", config, max_words
            self._progress, self._tokens, self._frames = None, (), []
            self._maps = {}
            self._stop = threading.Event()
            self._remove_old_folders()
            self._thread = threading.Thread(
                target=self._train, args=(source, self._folder(self._run), max_words, tuple(watch), self._stop),
                name=f"embedlab-live-{self._run}", daemon=True,
            )  # fmt: skip
            self._thread.start()
            return self._run

    def stop(self, timeout: float | None = 5.0) -> None:
        """Ask the run to end after its current step and wait up to `timeout` seconds for it.

        A run still reading its corpus notices only at its first step. Nothing running: no-op.
        """
        self._stop.set()
        thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def close(self) -> None:
        """Stop the run (the lab calls this at shutdown). A run still reading its corpus cannot stop
        yet: after 5 s it is left to die with the process (a daemon thread), so shutdown goes on."""
        self.stop(timeout=5.0)

    def state(self, since: int = 0, themes: Iterable[str] | None = None) -> LiveState:
        """Status, progress, tokens and the frames from index `since` on (none if since >= count).

        `themes` keeps the watched tokens of those THEMES groups only (default: every watched token):
        the frames then hold their rows alone, each projected on its own PCA of those rows and turned
        onto the frame before, as every frame is.
        """
        since = check_int("since", since, low=0)
        picked = None if themes is None else pick_themes(themes)
        with self._lock:
            run, tokens, frames = self._run, self._tokens, list(self._frames)
            state = (self._run, self._status, self._message, self._config.to_dict() if self._config else None,
                     self._max_words, self._progress)  # fmt: skip
        if picked is not None:
            tokens, frames = self._themed(run, picked, tokens, frames)
        return LiveState(*state, tokens, len(frames), tuple(frames[since:]))

    def _themed(self, run: int, picked: tuple[str, ...], tokens: tuple[str, ...], frames: list[Frame]):
        """The watched tokens of the `picked` groups, and `frames` cut to their rows and projected anew."""
        keep = [i for i, token in enumerate(tokens) if theme_of(token) in picked]
        if frames and not keep:
            raise InvalidValueError(f"this run watches no word of {', '.join(picked)}; pick other themes")
        with self._maps_lock:
            cached = self._maps.setdefault((run, picked), [])
            for frame in frames[len(cached) :]:
                rows = frame.rows[keep]  # (W', D)
                coordinates, variance = project_frame(rows, cached[-1].coordinates if cached else None)
                cached.append(Frame(frame.index, frame.done, tuple(tokens[i] for i in keep), rows, coordinates,
                                    variance))  # fmt: skip
            return tuple(tokens[i] for i in keep), cached[: len(frames)]

    def frame(self, index: int) -> Frame:
        """Frame `index` of the current (or last) run."""
        with self._lock:
            frames = list(self._frames)
        if not frames:
            raise InvalidValueError("no frames yet: start a run and wait for its first snapshot")
        return frames[check_int("frame", index, low=0, high=len(frames) - 1)]

    def row(self, token: str, frame: int) -> WatchedRow:
        """Watched `token`'s row (D,) in frame `frame` of the current (or last) run."""
        snapshot = self.frame(frame)
        return WatchedRow(token, snapshot.index, snapshot.done, snapshot.row(token))

    def _train(self, config: RunConfig, out: Path, max_words: int | None, watch: tuple, stop: threading.Event):
        """The thread's body: train, record frames and progress, end in stopped, finished or failed."""
        done = 0  # words trained, as the last progress report said

        def on_progress(progress: Progress) -> None:
            nonlocal done
            done = progress.done
            with self._lock:
                self._progress = progress

        def on_snapshot(tokens: list[str], rows: np.ndarray, words: int) -> None:
            previous = self._frames[-1].coordinates if self._frames else None  # only this thread appends
            coordinates, variance = project_frame(rows, previous)
            frame = Frame(len(self._frames), words, tuple(tokens), np.array(rows, dtype=np.float32), coordinates,
                          variance)  # fmt: skip
            with self._lock:
                self._tokens = frame.tokens
                self._frames.append(frame)

        def should_stop() -> bool:
            return stop.is_set() or (max_words is not None and done >= max_words)

        try:
            result = train(config, out, watch=watch, evaluate=False, on_progress=on_progress,
                           on_snapshot=on_snapshot, should_stop=should_stop)  # fmt: skip
        except EmbedlabError as err:
            self._end("failed", str(err))
        except Exception:  # an unexpected bug: the traceback goes to the log, the page gets no internals
            log.exception("live training run failed")
            self._end("failed", "internal error (see the server log)")
        else:
            if result.status == "finished":
                self._end("finished", "")
            elif stop.is_set():
                self._end("stopped", "stopped on request")
            else:
                self._end("stopped", f"stopped at the limit of {max_words:,} words")

    def _end(self, status: str, message: str) -> None:
        with self._lock:
            self._status, self._message = status, message

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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True
