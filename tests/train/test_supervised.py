"""The classifier's training: one step of each loss against torch autograd, a run cut short and resumed
equal to one that was not, the same seed the same model, accuracy level with the fastText tool's, and
bad text refused by line."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import torch

from embedlab.data.gcide import domain_text
from embedlab.errors import FileFormatError, InvalidValueError
from embedlab.models.bag import Classifier, huffman_tree, tree_paths
from embedlab.models.bag_kernels import SIGMOID_TABLE
from embedlab.models.bag_module import BagOfEmbeddings
from embedlab.models.labelled import LabelledText
from embedlab.train import supervised
from embedlab.train.supervised import Supervised, train_classifier
from embedlab.train.supervised_kernels import train_lines
from embedlab.vectors.io.fasttext_model import LOSSES

# float32 arithmetic in another order than torch's (sums over D = 4 and 3 labels, each update ~1e-1): a few ulps
STEP = {"rtol": 1e-5, "atol": 1e-6}
IDS = np.array([1, 5, 5, 9], np.int32)  # row 5 twice: the bag counts it twice, and so does its update


def table_sigmoid(x: torch.Tensor) -> torch.Tensor:
    """fastText's table sigmoid of float32 x, as bag_kernels.sigmoid reads it."""
    v = x.detach().numpy().astype(np.float32)
    at = np.clip(((v + np.float32(8)) * np.float32(32)).astype(np.int64), 0, 512)
    out = np.where(v < -8, 0.0, np.where(v > 8, 1.0, SIGMOID_TABLE[at]))
    return torch.from_numpy(out.astype(np.float32))


def one_step(loss: str, labels: list[int], lr: float = 0.1, seed: int = 0):
    """Our kernel's step on one line from fixed tables -> (w_in, w_out, the tables before, the tree)."""
    rng = np.random.default_rng(seed)
    w_in0 = rng.normal(0, 0.5, (12, 4)).astype(np.float32)
    w_out0 = rng.normal(0, 0.5, (3, 4)).astype(np.float32)
    w_in, w_out = w_in0.copy(), w_out0.copy()
    left, right = huffman_tree(np.array([5, 3, 2]))
    offsets, rows, codes = tree_paths(left, right)
    noise, guide = np.array([1, 2, 3], np.uint32), np.zeros(3, np.int64)
    train_lines(IDS, np.array([0, 4]), np.array(labels, np.int32), np.array([0, len(labels)]), np.array([4]), 0, 1,
                w_in, w_out, LOSSES[loss], lr, 0.0, 1e12, 1, 5, noise, guide, offsets, rows, codes,
                np.zeros(1, np.uint64), np.zeros((1, 2)))  # fmt: skip
    return w_in, w_out, (w_in0, w_out0), (offsets, rows, codes)


def autograd_step(w_in0, w_out0, surrogate, lr: float = 0.1):
    """The tables after one SGD step on `surrogate(scores)` of BagOfEmbeddings."""
    module = BagOfEmbeddings(12, 4, 3)
    with torch.no_grad():
        module.bag.weight.copy_(torch.from_numpy(w_in0))
        module.out.weight.copy_(torch.from_numpy(w_out0))
    scores = module(torch.from_numpy(IDS.astype(np.int64)), torch.tensor([0]))[0]  # (3,)
    surrogate(scores).backward()
    with torch.no_grad():
        return (module.bag.weight - lr * module.bag.weight.grad).numpy(), (
            module.out.weight - lr * module.out.weight.grad
        ).numpy()


def test_a_softmax_step_is_sgd_on_the_cross_entropy():
    w_in, w_out, before, _ = one_step("softmax", [2])
    want_in, want_out = autograd_step(*before, lambda s: torch.nn.functional.cross_entropy(s[None], torch.tensor([2])))
    np.testing.assert_allclose(w_in, want_in, **STEP)
    np.testing.assert_allclose(w_out, want_out, **STEP)
    assert not np.allclose(w_in[5], before[0][5])  # the step moved the rows


def test_an_ova_step_is_sgd_on_each_labels_logistic_loss():
    """Labels 0 and 2 positive, 1 negative; the sigmoid is fastText's table (its gradient too: d/dx of
    the loss is table_sigmoid(x) - target)."""
    w_in, w_out, before, _ = one_step("ova", [0, 2])
    target = torch.tensor([1.0, 0.0, 1.0])
    want_in, want_out = autograd_step(*before, lambda s: ((table_sigmoid(s) - target) * s).sum())
    np.testing.assert_allclose(w_in, want_in, **STEP)
    np.testing.assert_allclose(w_out, want_out, **STEP)


def test_an_hs_step_follows_the_labels_path_down_the_tree():
    w_in, w_out, before, (offsets, rows, codes) = one_step("hs", [1])
    path, code = rows[offsets[1] : offsets[2]], torch.from_numpy(codes[offsets[1] : offsets[2]].astype(np.float32))

    def surrogate(scores):  # scores of output rows, here the internal nodes on label 1's path
        s = scores[torch.from_numpy(path.astype(np.int64))]
        return ((table_sigmoid(s) - code) * s).sum()

    want_in, want_out = autograd_step(*before, surrogate)
    np.testing.assert_allclose(w_in, want_in, **STEP)
    np.testing.assert_allclose(w_out, want_out, **STEP)
    untouched = np.setdiff1d(np.arange(3), path)
    assert np.array_equal(w_out[untouched], before[1][untouched])


@pytest.fixture(scope="module")
def text():
    return LabelledText.of("".join(domain_text(False).splitlines(keepends=True)[:1500]), "domains")


def test_a_run_cut_short_and_resumed_equals_one_not_cut(text, tmp_path, monkeypatch):
    monkeypatch.setattr(supervised, "TOKENS_PER_CALL", 3000)  # ~8 calls an epoch, a checkpoint after each
    settings = Supervised(dim=8, epoch=3, word_ngrams=2, bucket=3000, threads=1, seed=4)
    whole = train_classifier(text, settings)
    calls = []

    def kill_at_five(done, total, loss):
        calls.append(done)
        if len(calls) == 5:
            raise KeyboardInterrupt

    partial = tmp_path / "m.bin.partial"
    with pytest.raises(KeyboardInterrupt):
        train_classifier(text, settings, kill_at_five, partial, checkpoint_every=0.0)
    resumed = train_classifier(text, settings, None, partial, resume=True, checkpoint_every=0.0)
    assert np.array_equal(resumed.input, whole.input) and np.array_equal(resumed.output, whole.output)
    with pytest.raises(FileFormatError, match="another text or other settings"):
        train_classifier(text, Supervised(dim=8, epoch=4, threads=1), None, partial, resume=True)


def test_one_thread_and_one_seed_give_one_model(text):
    settings = Supervised(dim=8, epoch=2, threads=1, seed=3)
    a, b = train_classifier(text, settings), train_classifier(text, settings)
    c = train_classifier(text, Supervised(dim=8, epoch=2, threads=1, seed=4))
    assert np.array_equal(a.input, b.input) and np.array_equal(a.output, b.output)
    assert not np.array_equal(a.output, c.output)


def test_accuracy_is_level_with_the_tools(tmp_path):
    """-epoch 10 -lr 0.5 -wordNgrams 2 on 3,000 lines, scored on 600 held-out ones: ours and the tool's
    differ by less than 0.1 (on so few lines fastText's defaults, 5 epochs at 0.1, learn nothing: both
    score the majority class). Each accuracy has a binomial sd of sqrt(0.25/600) = 0.02, their
    difference 0.03 (and seeds add theirs): 0.1 is over 3 sd, while a broken step scores the majority
    class's 0.29 or worse, far below the tool's ~0.63."""
    tool = shutil.which("fasttext")
    assert tool, "this test needs the fastText 0.9.2 tool: apt-get install fasttext"
    train, test = tmp_path / "train.txt", tmp_path / "test.txt"
    train.write_text("".join(domain_text(False).splitlines(keepends=True)[:3000]))
    test.write_text("".join(domain_text(True).splitlines(keepends=True)[:600]))
    args = ["-epoch", "10", "-lr", "0.5", "-wordNgrams", "2", "-bucket", "100000", "-thread", "1", "-verbose", "0"]
    subprocess.run([tool, "supervised", "-input", train, "-output", tmp_path / "tool", *args], check=True)
    theirs = Classifier.read(tmp_path / "tool.bin").test(LabelledText.read(test)).precision
    settings = Supervised(lr=0.5, epoch=10, word_ngrams=2, bucket=100_000, threads=1)
    model = train_classifier(LabelledText.read(train), settings)
    ours = Classifier(model).test(LabelledText.read(test)).precision
    assert theirs > 0.5 and abs(ours - theirs) < 0.1, (ours, theirs)


@pytest.mark.parametrize(
    ("data", "named"),
    [
        ("__label__a one two\nno label here\n", "line 2 has no label"),
        ("__label__a one two\n__label__b __label__a\n", "line 2 has labels but no text"),
        ("__label__a one two\n\n__label__b three\n", "line 2 has no label"),
        (b"__label__a one\n__label__b caf\xff\n", r"t.txt line 2 \(byte 29\).*0xff, which is not UTF-8"),
        (b"__label__a one\x00two\n", r"t.txt line 1 \(byte 14\).*a NUL byte"),
        ("__label__a one two\n__label__a three\n", "2 or more labels; found __label__a"),
    ],
)
def test_bad_text_is_refused_by_line(data, named):
    with pytest.raises(InvalidValueError, match=named):
        train_classifier(LabelledText.of(data, "t.txt"), Supervised(dim=4, threads=1))


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"word_ngrams": 0}, "word_ngrams must be between 1 and 64; got 0"),
        ({"word_ngrams": 2, "bucket": 0}, "bucket must be >= 1"),
        ({"loss": "hinge"}, "loss"),
        ({"max_n": 3, "min_n": 4}, "min_n"),
        ({"dim": 0}, "dim must be between 1"),
    ],
)
def test_bad_settings_are_named(change, named):
    with pytest.raises(InvalidValueError, match=named):
        Supervised(**change)
