"""Bag of embeddings (a lab page): fastText's classifier trained on the gcide domains while the page
watches, its accuracy over epochs and its confusions on held-out lines, a typed text's rows taken apart
(bag_rows.py), and the model before and after quantization (bag_size.py).

    bag = BagLab(cache_dir() / "lab" / "bag")
    bag.start(BagSettings(lines=4000, dim=32, epochs=10))   # in a background thread (sims.job)
    bag.state()            BagState: progress, the accuracy curve so far; when finished the confusions
    bag.explain("a small fish of the carp family", k=3)     # the latest classifier's top labels and rows
    bag.quantized(QuantizeSettings(cutoff=10_000))          # P@1 and bytes of the .bin and of the .ftz

The data is the built-in gcide domains set (data.gcide.domain_text: 15 subject labels, training lines
in a fixed shuffled order, a held-out fifth): a run trains on its first `lines` training lines and is
scored on every held-out line. The curve's point e is a classifier trained for e epochs, each its own
run: fastText's rate falls linearly to zero over the epochs asked for, so a run of E epochs stopped
after e is not the classifier that `-epoch e` trains. The last point is the classifier kept.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from embedlab.data.gcide import domain_text
from embedlab.errors import BusyError, InvalidValueError, check_float, check_int
from embedlab.files import IdMatrix
from embedlab.models.bag import Classifier
from embedlab.models.labelled import LABEL, LabelledText
from embedlab.sims import bag_size
from embedlab.sims.bag_rows import MAX_K, MAX_TEXT, BagExplanation, check_text, explain_text
from embedlab.sims.bag_size import DSUBS, MAX_CUTOFF, MIN_CUTOFF, QuantizeAnswer, QuantizeSettings
from embedlab.sims.job import Job, JobState
from embedlab.sims.once import MadeOnce
from embedlab.train.supervised import Supervised, train_classifier

# The curve trains 1 + 2 + ... + E epochs (measured on 2 busy cores, gcide already read): at the defaults
# 55 epochs in 3.7 s; at the largest settings (18,000 lines, D 100, trigrams, 200,000 buckets) 120 in 27 s.
MIN_LINES, MAX_LINES = 500, 18_000  # training lines, of gcide's ~18,477
MAX_DIM = 100  # fastText's default width
MAX_EPOCHS = 15
MAX_NGRAMS = 3
MIN_BUCKET, MAX_BUCKET = 1_000, 200_000  # hashed n-gram rows: at most 80 MB of float32 at MAX_DIM
LR = (0.01, 2.0)
THREADS = 2  # numba threads a run trains on: the server's requests keep the other cores
BUSY = "a classifier is training already; wait for it to finish"
LIMITS: dict[str, Any] = {"lines": [MIN_LINES, MAX_LINES], "dim": [2, MAX_DIM], "epochs": [1, MAX_EPOCHS],
                          "word_ngrams": [1, MAX_NGRAMS], "bucket": [MIN_BUCKET, MAX_BUCKET], "lr": list(LR),
                          "text": MAX_TEXT, "k": [1, MAX_K], "dsubs": list(DSUBS),
                          "cutoff": [0, MAX_CUTOFF], "min_cutoff": MIN_CUTOFF}  # fmt: skip
T = TypeVar("T")


@dataclass(frozen=True)
class BagSettings:
    """A run as the page starts it, each setting bounded by LIMITS (threads: THREADS, seed 0)."""

    lines: int = 4_000  # training lines, the first of gcide's shuffled training set
    dim: int = 32  # width D of every row
    epochs: int = 10  # passes over the lines: the curve's last point
    word_ngrams: int = 2  # the longest word n-gram given a row (1: words alone)
    bucket: int = 100_000  # hashed rows shared by the word n-grams (unused with word_ngrams 1)
    lr: float = 0.5  # the rate at the start, falling linearly to 0

    def supervised(self, epochs: int) -> Supervised:
        """fastText's settings for a run of `epochs` epochs; InvalidValueError past a limit."""
        check_int("lines", self.lines, low=MIN_LINES, high=MAX_LINES)
        check_int("dim", self.dim, low=2, high=MAX_DIM)
        check_int("epochs", self.epochs, low=1, high=MAX_EPOCHS)
        check_int("word_ngrams", self.word_ngrams, low=1, high=MAX_NGRAMS)
        check_int("bucket", self.bucket, low=MIN_BUCKET, high=MAX_BUCKET)
        check_float("lr", self.lr, low=LR[0], high=LR[1])
        return Supervised(dim=self.dim, lr=self.lr, epoch=epochs, word_ngrams=self.word_ngrams,
                          bucket=self.bucket, threads=THREADS)  # fmt: skip


@dataclass(frozen=True)
class CurvePoint:
    """A classifier trained for `epochs` epochs, scored."""

    epochs: int  # its -epoch
    test_p1: float  # P@1 on the held-out lines
    train_p1: float  # P@1 on the lines it trained on
    loss: float  # its mean training loss over the run
    seconds: float  # its training time


@dataclass(frozen=True)
class LabelFigures:
    """One label on the held-out lines, as `fasttext test-label` reports it (NaN: undefined)."""

    label: str  # the name after "__label__"
    gold: int  # held-out lines of this label
    predicted: int  # lines predicted as this label
    precision: float
    recall: float
    f1: float


@dataclass(frozen=True, eq=False)
class BagState:
    """The run this server trains or last trained: its progress, its curve, and when finished its confusions."""

    status: str  # idle | running | finished | failed | stopped
    message: str  # why it failed or stopped
    run: int  # which run (1, 2, ...; 0 before the first)
    settings: BagSettings  # the run's settings (the page's defaults before the first run)
    reading: bool  # the gcide domains are being read (the first run of a server: ~10 s)
    done: float  # epochs trained so far over the curve's runs, of `total`
    total: int  # 1 + 2 + ... + epochs
    curve: tuple[CurvePoint, ...]  # one point per run finished so far
    train_lines: int  # lines trained on
    test_lines: int  # held-out lines scored (those with a known label and a row)
    labels: list[str]  # the classifier's labels, most frequent in training first, without "__label__"
    majority: float | None  # share of the held-out lines whose label is the most frequent one in training
    confusion: IdMatrix | None  # (labels, labels) held-out lines: row the true label, column the predicted
    per_label: tuple[LabelFigures, ...]  # each label's figures from the confusions (empty before the end)
    rows: int  # the kept classifier's input rows: words, then n-gram buckets
    words: int  # its word rows (with "</s>")


@dataclass(eq=False)
class Trained:
    """A finished run: its classifier and what the page asks of it."""

    run: int
    settings: BagSettings
    classifier: Classifier  # trained for settings.epochs epochs
    train: LabelledText
    test: LabelledText
    state: BagState
    kept: MadeOnce = dataclasses.field(default_factory=MadeOnce)  # quantize settings -> QuantizeAnswer


def confusion(gold: np.ndarray, predicted: np.ndarray, nlabels: int) -> np.ndarray:
    """(nlabels, nlabels) int64 counts: [i, j] lines of label i predicted j.

    >>> confusion(np.array([0, 0, 1]), np.array([0, 1, 1]), 2).tolist()
    [[1, 1], [0, 1]]
    """
    counts = np.zeros((nlabels, nlabels), np.int64)
    np.add.at(counts, (gold, predicted), 1)
    return counts


def label_figures(labels: list[str], counts: np.ndarray) -> tuple[LabelFigures, ...]:
    """Precision, recall and F1 of each label from (labels, labels) confusions."""
    right, gold, predicted = np.diag(counts), counts.sum(axis=1), counts.sum(axis=0)

    def ratio(a: float, b: float) -> float:
        return float(a) / float(b) if b else float("nan")

    return tuple(LabelFigures(name, int(g), int(p), ratio(r, p), ratio(r, g), ratio(2 * r, p + g))
                 for name, r, g, p in zip(labels, right, gold, predicted, strict=True))  # fmt: skip


class BagLab:
    """One classifier run at a time in a daemon thread, and the latest finished classifier.

    `root` is where the .bin and .ftz are written to be measured (a temporary folder, removed after).
    `texts(held_out)` gives the labelled lines (data.gcide.domain_text by default).
    """

    def __init__(self, root: str | Path, texts: Callable[[bool], str] = domain_text) -> None:
        self.root = Path(root)
        self.texts = texts
        self._job = Job("embedlab-bag")
        self._lock = threading.Lock()  # guards everything below
        self._run = 0
        self._settings = BagSettings()
        self._reading = False
        self._done = 0.0
        self._curve: list[CurvePoint] = []
        self._trained: Trained | None = None  # the latest finished run
        self._data: tuple[list[str], LabelledText] | None = None  # (training lines, held-out text), read once

    def start(self, settings: BagSettings) -> BagState:
        """Train `settings` in the background -> the state it starts in. BusyError while one runs;
        InvalidValueError (before anything starts) past a limit."""
        settings.supervised(settings.epochs)  # checked here: a mistake is the caller's answer, not a failed run
        with self._lock:
            self._job.start(lambda stop: self._work(settings, stop), busy=BUSY)
            self._run += 1
            self._settings, self._done, self._curve = settings, 0.0, []
        return self.state()

    def _work(self, settings: BagSettings, stop: threading.Event) -> JobState | None:
        train_lines, test = self._read()
        train = LabelledText.of("".join(train_lines[: settings.lines]), "the gcide domains' training lines")
        for epochs in range(1, settings.epochs + 1):
            if stop.is_set():
                return JobState("stopped", f"stopped after {epochs - 1} of {settings.epochs} runs")
            classifier, point = self._point(train, test, settings, epochs)
            with self._lock:
                self._curve.append(point)
        with self._lock:
            run = self._run
        trained = Trained(run, settings, classifier, train, test, self._finished_state(classifier, train, test))
        with self._lock:
            self._trained = trained
        return None

    def _point(self, train: LabelledText, test: LabelledText, settings: BagSettings, epochs: int
               ) -> tuple[Classifier, CurvePoint]:  # fmt: skip
        """A classifier trained for `epochs` epochs, and its point of the curve."""
        before, loss = sum(range(epochs)), [float("nan")]  # epochs the curve's earlier runs trained

        def progress(done: int, total: int, mean_loss: float) -> None:
            loss[0] = mean_loss
            with self._lock:
                self._done = before + epochs * done / max(total, 1)

        t0 = time.perf_counter()
        classifier = Classifier(train_classifier(train, settings.supervised(epochs), progress))
        seconds = time.perf_counter() - t0
        p1 = bag_size.precision_at_1(classifier, test), bag_size.precision_at_1(classifier, train)
        return classifier, CurvePoint(epochs, *p1, loss[0], seconds)

    def _read(self) -> tuple[list[str], LabelledText]:
        """The training lines and the held-out text, read on the first run (gcide: ~10 s)."""
        if self._data is None:
            with self._lock:
                self._reading = True
            try:
                lines = self.texts(False).splitlines(keepends=True)
                self._data = lines, LabelledText.of(self.texts(True), "the gcide domains' held-out lines")
            finally:
                with self._lock:
                    self._reading = False
        return self._data

    def _finished_state(self, classifier: Classifier, train: LabelledText, test: LabelledText) -> BagState:
        labels = [name.removeprefix(LABEL) for name in classifier.labels]
        gold, predicted = bag_size.p_at_1(classifier, test)
        counts = confusion(gold, predicted, len(labels))
        with self._lock:
            base = self._state_now()
        return dataclasses.replace(
            base, status="finished", train_lines=len(train), test_lines=len(gold), labels=labels,
            majority=float(np.mean(gold == 0)) if len(gold) else None, confusion=counts,
            per_label=label_figures(labels, counts), rows=len(classifier.model.input), words=classifier.model.nwords,
        )  # fmt: skip

    def _state_now(self) -> BagState:
        """The state as it stands, without a finished run's figures (call holding _lock)."""
        job = self._job.state()
        e = self._settings.epochs
        return BagState(job.status, job.message, self._run, self._settings, self._reading, self._done,
                        e * (e + 1) // 2, tuple(self._curve), 0, 0, [], None, None, (), 0, 0)  # fmt: skip

    def state(self) -> BagState:
        """Progress and the curve so far; the finished run's confusions once it has ended."""
        with self._lock:
            now, trained = self._state_now(), self._trained
        if trained is not None and trained.run == now.run and now.status == "finished":
            return dataclasses.replace(trained.state, message=now.message)
        return now

    def trained(self) -> Trained:
        """The latest finished run; with none yet, the page's default run is trained first (or the
        running one waited for). InvalidValueError when that run fails."""
        with self._lock:
            trained = self._trained
        if trained is not None:
            return trained
        if not self._job.running:
            try:
                self.start(BagSettings())
            except BusyError:  # a run began meanwhile: wait for it
                pass
        self._job.join()
        with self._lock:
            trained = self._trained
        if trained is None:
            why = self._job.state().message or "it was stopped"
            raise InvalidValueError(f"no classifier could be trained: {why}")
        return trained

    def explain(self, text: str, k: int = 3, compute: Callable[[Callable[[], T]], T] | None = None) -> BagExplanation:
        """The latest classifier's top `k` labels for `text` and each input row's part of their scores
        (bag_rows.explain_text); `compute(make)` runs the computation (the lab's heavy slot)."""
        text, k = check_text(text), check_int("k", k, low=1, high=MAX_K)
        trained = self.trained()
        return (compute or _now)(lambda: explain_text(trained.run, trained.classifier, text, k))

    def quantized(self, settings: QuantizeSettings, compute: Callable[[Callable[[], T]], T] | None = None
                  ) -> QuantizeAnswer:  # fmt: skip
        """The latest classifier before and after `settings`' quantization, measured once per setting."""
        settings.check()
        t, compute = self.trained(), compute or _now
        settings.check_model(t.settings.dim)
        before = t.kept.get(
            "before", lambda: compute(lambda: bag_size.model_size(t.classifier.model, t.test, self.root))
        )
        make = lambda: bag_size.measure(t.run, t.classifier, t.train, t.test, settings, before, self.root, THREADS)  # noqa: E731
        return t.kept.get(settings, lambda: compute(make))

    def close(self, timeout: float = 5.0) -> None:
        """At shutdown: stop a run between its epochs' runs, waiting up to `timeout` s."""
        self._job.close(timeout)


def _now(make: Callable[[], T]) -> T:
    return make()
