"""The classifier against the fastText 0.9.2 tool: its models read here predict as the tool predicts
them, ours read by the tool predict as we do, and `test` counts as `fasttext test` counts, for every
loss, word n-grams and character n-grams; the text is split as the tool splits it."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from embedlab.data.gcide import domain_text
from embedlab.hashing.words import word_hashes, word_ngram_buckets
from embedlab.models.bag import Classifier, huffman_tree, tree_paths
from embedlab.models.labelled import Dictionary, LabelledText
from embedlab.train.supervised import Supervised, train_classifier
from embedlab.vectors.io.fasttext import write_fasttext

TOOL = shutil.which("fasttext")
# The tool prints 6 significant digits, and its float32 sums (dot products over D, the softmax's z) run in
# another order than ours: scores then differ by a few float32 ulps of the largest term, which a softmax
# turns into a relative error of about that size in each probability (1e-5 seen at D = 8); 1e-4 holds it
# with room, and a wrong row, hash or tokenization moves probabilities by far more.
PROBABILITIES = {"rtol": 1e-4, "atol": 1e-6}
# (loss, wordNgrams, minn, maxn): every loss, longer word n-grams, and character n-grams for unseen words
KINDS = [("softmax", 2, 0, 0), ("ova", 2, 0, 0), ("ns", 2, 0, 0), ("hs", 3, 0, 0), ("softmax", 2, 2, 4)]


def _tool() -> str:
    assert TOOL, "these tests need the fastText 0.9.2 tool: apt-get install fasttext"
    return TOOL


def tool_predictions(model, path, k: int, threshold: float = 0.0) -> list[list[tuple[str, float]]]:
    done = subprocess.run(
        [_tool(), "predict-prob", str(model), str(path), str(k), str(threshold)],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [line.split() for line in done.stdout.split("\n")[:-1]]
    return [[(t[i], float(t[i + 1])) for i in range(0, len(t), 2)] for t in lines]


def tool_test(model, path, k: int = 1) -> dict[str, float]:
    done = subprocess.run([_tool(), "test", str(model), str(path), str(k)], capture_output=True, text=True, check=True)
    return {name: float(value) for name, value in (line.split("\t") for line in done.stdout.splitlines())}


def assert_same_predictions(ours: list, theirs: list) -> None:
    assert len(ours) == len(theirs)
    for line, (a, b) in enumerate(zip(ours, theirs, strict=True)):
        assert [label for label, _ in a] == [label for label, _ in b], f"line {line + 1}: {a} != {b}"
        np.testing.assert_allclose([p for _, p in a], [p for _, p in b], **PROBABILITIES, err_msg=f"line {line + 1}")


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """1,500 training and 300 held-out lines of the gcide domains, as files."""
    folder = tmp_path_factory.mktemp("domains")
    train, test = folder / "train.txt", folder / "test.txt"
    train.write_text("".join(domain_text(False).splitlines(keepends=True)[:1500]))
    test.write_text("".join(domain_text(True).splitlines(keepends=True)[:300]))
    return train, test


@pytest.fixture(scope="module", params=KINDS, ids=["-".join(map(str, kind)) for kind in KINDS])
def tool_model(request, data):
    loss, ngrams, minn, maxn = request.param
    out = data[0].parent / f"tool-{loss}-{ngrams}-{minn}"
    command = [_tool(), "supervised", "-input", str(data[0]), "-output", str(out), "-dim", "8", "-epoch", "3"]
    command += ["-loss", loss, "-wordNgrams", str(ngrams), "-minn", str(minn), "-maxn", str(maxn)]
    subprocess.run([*command, "-bucket", "5000", "-thread", "1", "-verbose", "0"], check=True, capture_output=True)
    return out.with_suffix(".bin")


def test_the_tools_models_predict_here_as_in_the_tool(tool_model, data):
    clf = Classifier.read(tool_model)
    top = clf.predict(LabelledText.read(data[1]), k=3)
    ours = [top.labels_of(line) for line in range(len(top.labels))]
    assert_same_predictions(ours, tool_predictions(tool_model, data[1], 3))


def test_test_counts_as_the_tool_counts(tool_model, data):
    clf = Classifier.read(tool_model)
    for k in (1, 3):
        meter, theirs = clf.test(LabelledText.read(data[1]), k=k), tool_test(tool_model, data[1], k)
        assert meter.examples == theirs["N"]
        # the tool prints 3 significant digits
        assert meter.precision == pytest.approx(theirs[f"P@{k}"], abs=5e-4)
        assert meter.recall == pytest.approx(theirs[f"R@{k}"], abs=5e-4)


@pytest.mark.parametrize("loss", ["softmax", "ova", "ns", "hs"])
def test_our_models_predict_in_the_tool_as_here(loss, data, tmp_path):
    settings = Supervised(dim=8, epoch=3, word_ngrams=2, bucket=5000, loss=loss, threads=1, min_n=2, max_n=3)
    model = train_classifier(LabelledText.read(data[0]), settings)
    path = write_fasttext(model, tmp_path / "ours.bin")
    top = Classifier.read(path).predict(LabelledText.read(data[1]), k=2, threshold=0.05)
    ours = [top.labels_of(line) for line in range(len(top.labels))]
    assert_same_predictions(ours, tool_predictions(path, data[1], 2, 0.05))


def test_text_is_split_as_the_tool_splits_it(tool_model, tmp_path):
    """Tabs, CR, runs of spaces, blank lines, labels among the words, unknown labels, a last line
    without a newline (no "</s>"), and text the model never saw."""
    text = (
        "the\tlarva of a\r\nsmall  fish,   with spines\n\n__label__bot a genus of plants  __label__nothing here\n"
        "   \n" + "zzyzx qwerty\n" + "a bone of the skull"
    )
    path = tmp_path / "odd.txt"
    path.write_text(text)
    top = Classifier.read(tool_model).predict(LabelledText.read(path), k=2)
    ours = [top.labels_of(line) for line in range(len(top.labels))]
    assert_same_predictions(ours, tool_predictions(tool_model, path, 2))


def test_word_ngram_rows_are_the_reference_hashes():
    text = LabelledText.of("__label__a new york city is big\n__label__b caf\u00e9 au lait\n")
    dictionary = Dictionary.build(text, word_ngrams=3, bucket=1000)
    bags = dictionary.encode(text)
    nwords = len(dictionary.words)
    for line, words in enumerate([["new", "york", "city", "is", "big", "</s>"], ["café", "au", "lait", "</s>"]]):
        ids = bags.ids[bags.offsets[line] : bags.offsets[line + 1]]
        assert ids[: len(words)].tolist() == [dictionary.words.index(w) for w in words]
        expected = word_ngram_buckets(word_hashes([w.encode() for w in words]), 3, 1000)
        assert (ids[len(words) :] - nwords).tolist() == expected.tolist()
        assert len(expected) == 2 * len(words) - 3  # pairs and triples


def test_the_label_tree_is_a_huffman_tree():
    counts = np.array([50, 30, 10, 6, 4])
    left, right = huffman_tree(counts)
    offsets, rows, codes = tree_paths(left, right)
    depth = np.diff(offsets)
    assert depth.tolist() == [1, 2, 3, 4, 4]  # the commonest label one step from the root
    assert (np.sort(np.concatenate([left[5:], right[5:]])) == np.arange(8)).all()  # each node a child once
    assert rows.max() == len(counts) - 2  # internal nodes are output rows 0..n-2
    assert codes[offsets[0]] != codes[offsets[2] - 1]  # label 0 and label 1's last step meet at the root from two sides


def test_splitting_finds_each_distinct_token_once_with_its_hash():
    """Thousands of distinct tokens (the kernel's table grows several times), non-ASCII bytes, and a
    "</s>" typed in a line, which ends the line there as in the tool."""
    words = [f"w{i}é" for i in range(5000)]
    text = LabelledText.of(" ".join(words) + "\n" + " ".join(reversed(words)) + " x </s> y z")
    assert text.types == [w.encode() for w in words] + [b"</s>", b"x", b"y", b"z"]
    assert text.hashes.tolist() == word_hashes(text.types).tolist()
    assert np.diff(text.offsets).tolist() == [5001, 5002, 2]  # each "</s>" ends a line; "y z" has none


def test_the_tools_quantized_models_predict_here_as_in_the_tool(data):
    """A .ftz of the tool's: pruned to 2,000 rows, retrained, norms apart, the output quantized too."""
    base = data[0].parent / "ftz-base"
    command = [_tool(), "supervised", "-input", str(data[0]), "-output", str(base), "-dim", "8", "-epoch", "3"]
    subprocess.run([*command, "-wordNgrams", "2", "-bucket", "5000", "-thread", "1", "-verbose", "0"], check=True)
    quantize = [_tool(), "quantize", "-input", str(data[0]), "-output", str(base), "-qnorm", "-retrain"]
    subprocess.run([*quantize, "-cutoff", "2000", "-thread", "1", "-verbose", "0"], check=True, capture_output=True)
    ftz = base.with_suffix(".ftz")
    top = Classifier.read(ftz).predict(LabelledText.read(data[1]), k=3)
    assert_same_predictions([top.labels_of(i) for i in range(len(top.labels))], tool_predictions(ftz, data[1], 3))
