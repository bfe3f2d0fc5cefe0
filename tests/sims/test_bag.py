"""The Bag of embeddings page's library side on real small runs over the gcide domains: accuracy above
the majority class and equal to `fasttext test`'s count, confusions that add up, contributions that add
up to the scores the classifier reads, and quantized files smaller than the .bin."""

from __future__ import annotations

import time

import numpy as np
import pytest
from tests.timeouts import margin

from embedlab.errors import BusyError, InvalidValueError
from embedlab.hashing.words import word_hashes, word_ngram_buckets
from embedlab.models.labelled import LabelledText
from embedlab.sims.bag import MAX_EPOCHS, BagLab, BagSettings, confusion, label_figures
from embedlab.sims.bag_rows import check_text
from embedlab.sims.bag_size import QuantizeSettings
from embedlab.vectors.io.fasttext import write_fasttext

SMALL = BagSettings(lines=2_000, dim=16, epochs=4, word_ngrams=2, bucket=20_000, lr=0.5)
RUN_S = margin(15.0)  # reading gcide's domains (~10 s, once a process) and 1+2+3+4 epochs of 2,000 lines
SCORE_TOLERANCE = 1e-4  # float32 dot products summed in another order


def _finished(bag: BagLab, timeout: float = RUN_S):
    deadline = time.monotonic() + timeout
    while (state := bag.state()).status == "running":
        assert time.monotonic() < deadline, "the run did not end"
        time.sleep(0.05)
    assert state.status == "finished", state.message
    return state


@pytest.fixture(scope="module")
def bag(tmp_path_factory):
    lab = BagLab(tmp_path_factory.mktemp("bag"))
    lab.start(SMALL)
    _finished(lab)
    yield lab
    lab.close()


def test_a_run_beats_the_majority_class_and_draws_its_curve(bag):
    state = bag.state()
    assert [p.epochs for p in state.curve] == [1, 2, 3, 4] and state.done == state.total == 10
    assert state.train_lines == 2_000 and 4_000 < state.test_lines <= 4_600  # the held-out fifth
    assert len(state.labels) == 15 and state.labels[0] == "zool"  # the most frequent label first
    assert 0.2 < state.majority < 0.35  # zoology: about 29% of the lines
    assert state.curve[-1].test_p1 > state.majority + 0.15
    assert state.curve[-1].train_p1 >= state.curve[-1].test_p1  # lines it saw score at least as well


def test_p_at_1_and_each_labels_figures_are_fasttext_tests(bag):
    state, trained = bag.state(), bag.trained()
    meter = trained.classifier.test(trained.test, k=1)
    assert state.curve[-1].test_p1 == pytest.approx(meter.precision, abs=1e-12)
    assert state.test_lines == meter.examples
    for mine, theirs in zip(state.per_label, meter.per_label(), strict=True):
        for key in ("precision", "recall", "f1"):
            assert getattr(mine, key) == pytest.approx(theirs[key], nan_ok=True), (mine.label, key)


def test_the_confusions_add_up_to_the_held_out_lines(bag):
    state = bag.state()
    counts = np.asarray(state.confusion)
    assert counts.shape == (15, 15) and counts.sum() == state.test_lines
    assert np.trace(counts) / counts.sum() == pytest.approx(state.curve[-1].test_p1)
    assert [f.gold for f in state.per_label] == counts.sum(axis=1).tolist()


def test_confusions_and_figures_of_a_worked_example():
    counts = confusion(np.array([0, 0, 1, 2]), np.array([0, 1, 1, 1]), 3)
    assert counts.tolist() == [[1, 1, 0], [0, 1, 0], [0, 1, 0]]
    a, b, c = label_figures(["a", "b", "c"], counts)
    assert (a.precision, a.recall) == (1.0, 0.5) and b.precision == pytest.approx(1 / 3) and b.recall == 1.0
    assert np.isnan(c.precision) and c.recall == 0.0 and c.f1 == 0.0  # never predicted: precision undefined


def test_contributions_add_up_to_the_score_the_classifier_reads(bag):
    text = "a small freshwater fish of the carp family qqqq the the"
    r = bag.explain(text, k=3)
    model = bag.trained().classifier.model
    np.testing.assert_allclose(r.contributions.sum(axis=1), r.scores, atol=SCORE_TOLERANCE)
    # the same score from the mean of the line's rows, as Dictionary.encode lists them
    line = LabelledText.of(text + "\n")
    ids = bag.trained().classifier.dictionary.encode(line).ids
    h = model.input[ids].mean(axis=0)
    scores = model.output @ h  # (labels,)
    labels = [f"__label__{name}" for name in r.labels]
    best = [bag.trained().classifier.labels.index(name) for name in labels]
    np.testing.assert_allclose(r.scores, scores[best], atol=SCORE_TOLERANCE)
    softmax = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
    np.testing.assert_allclose(r.probs, softmax[best] + 1e-5, rtol=1e-4)  # as fastText prints p
    assert r.n == len(ids) and r.counts.sum() == r.n and r.unknown == ["qqqq"]
    assert r.counts[r.rows.index("the")] == 3 and "</s>" in r.rows  # "the" thrice; the line's end has a row


def test_each_ngram_row_is_its_words_bucket(bag):
    r = bag.explain("the violin and the viola are played with a bow", k=1)
    nwords, bucket = bag.trained().classifier.model.nwords, SMALL.bucket
    grams = [(name, row) for name, kind, row in zip(r.rows, r.kinds, r.ids, strict=True) if kind == "ngram"]
    assert len(grams) >= 9  # every neighbouring pair, "</s>" included, some maybe sharing a bucket
    for names, row in grams:
        for name in names.split(" | "):
            words = [w.encode() for w in name.split(" ")]
            assert row == nwords + word_ngram_buckets(word_hashes(words), len(words), bucket)[len(words) - 2]


@pytest.mark.parametrize(
    "text, message",
    [("x" * 301, "text is 301 characters long; the limit is 300"), ("  \n ", "text is empty"),
     ("one </s> two", "'</s>', which fastText reads as the end of a line")],
)  # fmt: skip
def test_a_bad_text_is_named(text, message):
    with pytest.raises(InvalidValueError, match=message):
        check_text(text)


def test_quantized_files_are_smaller_and_measured_once(bag, tmp_path):
    settings = QuantizeSettings(cutoff=2_000, dsub=2)
    q = bag.quantized(settings)
    assert q.pruned and not q.retrained and q.after.rows == 2_000 and q.before.rows == bag.state().rows
    assert q.after.bytes < q.before.bytes / 5 and q.after.input_bytes < q.before.input_bytes
    assert q.before.format == ".bin" and q.after.format == ".ftz"
    assert q.before.bytes == write_fasttext(bag.trained().classifier.model, tmp_path / "m.bin").stat().st_size
    assert q.before.p1 == pytest.approx(bag.state().curve[-1].test_p1)
    assert q.after.p1 > bag.state().majority  # still a classifier
    assert bag.quantized(settings) is q  # kept
    whole = bag.quantized(QuantizeSettings(cutoff=0, dsub=4, qnorm=True))
    assert not whole.pruned and whole.after.rows == whole.before.rows and whole.after.bytes < whole.before.bytes / 5
    again = bag.quantized(QuantizeSettings(cutoff=2_000, dsub=2, retrain=True))
    assert again.retrained and again.after.rows == 2_000


@pytest.mark.parametrize(
    "settings, message",
    [(QuantizeSettings(cutoff=100), r"cutoff must be 0 \(keep every row\) or 256..250000"),
     (QuantizeSettings(dsub=3), "dsub must be one of 1, 2, 4, 8; got 3"),
     (QuantizeSettings(cutoff=-1), "cutoff must be between 0 and 250000; got -1")],
)  # fmt: skip
def test_bad_quantize_settings_are_named(bag, settings, message):
    with pytest.raises(InvalidValueError, match=message):
        bag.quantized(settings)


def test_a_dsub_that_does_not_divide_the_width_is_named(tmp_path):
    lab = BagLab(tmp_path)
    lab.start(BagSettings(lines=500, dim=6, epochs=1))
    _finished(lab)
    with pytest.raises(InvalidValueError, match="dsub 4 does not divide the rows' width 6: choose 1, 2"):
        lab.quantized(QuantizeSettings(dsub=4))


@pytest.mark.parametrize(
    "settings, message",
    [(BagSettings(dim=0), "dim must be between 2 and 100; got 0"),
     (BagSettings(epochs=MAX_EPOCHS + 1), f"epochs must be between 1 and {MAX_EPOCHS}; got {MAX_EPOCHS + 1}"),
     (BagSettings(lines=10), "lines must be between 500 and 18000; got 10"),
     (BagSettings(lr=3.0), "lr must be between 0.01 and 2.0; got 3.0")],
)  # fmt: skip
def test_settings_out_of_range_are_refused_before_a_run(tmp_path, settings, message):
    lab = BagLab(tmp_path)
    with pytest.raises(InvalidValueError, match=message):
        lab.start(settings)
    assert lab.state().run == 0 and lab.state().status == "idle"


def test_one_run_at_a_time_and_the_default_run_when_none(tmp_path):
    lab = BagLab(tmp_path)
    r = lab.explain("the chemistry of salts", k=2)  # no run yet: the page's default one is trained first
    assert r.run == 1 and lab.state().settings == BagSettings() and len(r.labels) == 2
    lab.start(BagSettings(epochs=8))  # 36 epochs of 4,000 lines: a second or more
    with pytest.raises(BusyError, match="a classifier is training already"):
        lab.start(SMALL)
    assert lab.explain("the chemistry of salts").run == 1  # the finished classifier answers meanwhile
    _finished(lab)
    assert lab.explain("the chemistry of salts").run == 2
