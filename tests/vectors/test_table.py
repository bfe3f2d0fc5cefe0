"""Vectors queries against gensim's KeyedVectors on the real MiniLM table, against NumPy brute
force for the metrics gensim lacks, and the lessons' numbers."""

from __future__ import annotations

import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch
from gensim.models import KeyedVectors
from tests.timeouts import COMMAND_S

from embedlab.errors import InvalidValueError
from embedlab.vectors import Neighbors, UnknownKeyError, Vectors

requires_gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")

WORDS = ["king", "cat", "paris", "music", "running", "blue", "happy", "computer", "river", "seven"]
ANALOGIES = [
    ("man", "king", "woman"),
    ("paris", "france", "london"),
    ("good", "better", "bad"),
    ("walk", "walked", "go"),
]


def same_answers(ours: Neighbors, theirs: list[tuple[str, float]], atol: float = 2e-6) -> None:
    """Equal keys in order, equal scores; a swap is allowed only between near-equal scores."""
    assert len(ours) == len(theirs)
    np.testing.assert_allclose(ours.scores, [s for _, s in theirs], atol=atol)
    for (key, score), (their_key, _) in zip(ours, theirs, strict=True):
        if key != their_key:  # a float32 near-tie may rank differently; the scores must then agree
            assert abs(score - dict(theirs)[key]) <= atol if key in dict(theirs) else False


@pytest.fixture(scope="module")
def small():
    """A random table of 200 rows × 16 with a zero row and known keys w0..w199."""
    rng = np.random.default_rng(0)
    table = rng.normal(size=(200, 16)).astype(np.float32)
    table[7] = 0.0
    return Vectors([f"w{i}" for i in range(200)], table, counts=np.arange(200, 0, -1), name="small")


# ---- gensim as the oracle ----------------------------------------------------------------------


@pytest.mark.parametrize("word", WORDS)
def test_most_similar_equals_gensim(minilm_vectors, minilm_keyed, word):
    same_answers(minilm_vectors.most_similar(word, topn=10), minilm_keyed.most_similar(word, topn=10))


@pytest.mark.filterwarnings("ignore:Call to deprecated `init_sims`")  # inside gensim's most_similar_cosmul
@pytest.mark.parametrize("a, b, c", ANALOGIES)
def test_analogy_3cosadd_and_3cosmul_equal_gensim(minilm_vectors, minilm_keyed, a, b, c):
    ours = minilm_vectors.analogy(f"{b} - {a} + {c}", topn=5)
    same_answers(ours, minilm_keyed.most_similar(positive=[b, c], negative=[a], topn=5))
    ours = minilm_vectors.analogy(f"{b} - {a} + {c}", topn=5, method="3cosmul")
    same_answers(ours, minilm_keyed.most_similar_cosmul(positive=[b, c], negative=[a], topn=5))
    assert ours.metric == "3cosmul" and ours.inputs == (b, a, c)


def test_weighted_terms_vectors_and_restrict_vocab_equal_gensim(minilm_vectors, minilm_keyed):
    query = dict(positive=[("king", 2.0), "woman"], negative=[("man", -0.5)], topn=8)
    same_answers(minilm_vectors.most_similar(**query), minilm_keyed.most_similar(**query))
    same_answers(
        minilm_vectors.most_similar("cat", restrict_vocab=5000), minilm_keyed.most_similar("cat", restrict_vocab=5000)
    )
    vector = minilm_vectors["ocean"] + minilm_vectors["river"]
    same_answers(minilm_vectors.similar_by_vector(vector, topn=6), minilm_keyed.similar_by_vector(vector, topn=6))


def test_similarity_and_doesnt_match_equal_gensim(minilm_vectors, minilm_keyed):
    assert minilm_vectors.similarity("king", "queen") == pytest.approx(
        float(minilm_keyed.similarity("king", "queen")), abs=1e-6
    )
    for words in (
        ["breakfast", "cereal", "dinner", "lunch"],
        ["cat", "dog", "mouse", "car"],
        ["red", "blue", "green", "seven"],
    ):
        assert minilm_vectors.doesnt_match(words) == minilm_keyed.doesnt_match(words)


def test_batch_equals_one_query_at_a_time(minilm_vectors):
    for metric in ("cosine", "dot", "euclidean"):
        batch = minilm_vectors.most_similar_batch(WORDS, topn=7, metric=metric)
        for word, answer in zip(WORDS, batch, strict=True):
            alone = minilm_vectors.most_similar(word, topn=7, metric=metric)
            assert answer.keys == alone.keys and answer.inputs == (word,)
            np.testing.assert_allclose(answer.scores, alone.scores, atol=1e-5)


def test_batch_of_raw_vectors_excludes_nothing(small):
    rows = small.vectors[[3, 5]]
    first, second = small.most_similar_batch(rows, topn=1)
    assert (first.keys, second.keys) == (("w3",), ("w5",)) and first.query == "<vector>"


# ---- the exclusion is visible ------------------------------------------------------------------


def test_king_minus_man_plus_woman_returns_king_without_the_exclusion(minilm_vectors):
    excluded = minilm_vectors.analogy("king - man + woman", topn=3)
    kept = minilm_vectors.analogy("king - man + woman", topn=3, exclude=False)
    assert excluded.keys[0] == "queen" and excluded.excluded == ("king", "man", "woman")
    assert kept.keys[0] == "king" and kept.excluded == () and not kept.exclude_inputs
    assert kept.query == "king - man + woman"
    assert kept.to_dict()["exclude_inputs"] is False and excluded.to_dict()["neighbors"][0]["key"] == "queen"


# ---- metrics gensim does not have: NumPy brute force in float64 -------------------------------


@pytest.mark.parametrize("metric", ["dot", "euclidean"])
def test_dot_and_euclidean_rank_the_raw_arithmetic(small, metric):
    E = small.vectors.astype(np.float64)
    u = E[10] - E[20] + E[30]  # weights sum to 1: exactly the lessons' u = v_king - v_man + v_woman
    scores = E @ u if metric == "dot" else np.linalg.norm(E - u, axis=1)
    order = np.argsort(-scores if metric == "dot" else scores, kind="stable")
    expected = [i for i in order if i not in (10, 20, 30)][:5]
    result = small.analogy("w10 - w20 + w30", topn=5, metric=metric)
    assert result.keys == tuple(f"w{i}" for i in expected)
    np.testing.assert_allclose(result.scores, scores[expected], rtol=1e-4, atol=1e-4)
    assert result.higher_is_better == (metric == "dot")


def test_positive_pair_averages_for_euclidean(small):
    E = small.vectors.astype(np.float64)
    centre = (E[1] + E[2]) / 2
    expected = [i for i in np.argsort(np.linalg.norm(E - centre, axis=1)) if i not in (1, 2)][:3]
    assert small.most_similar(["w1", "w2"], topn=3, metric="euclidean").keys == tuple(f"w{i}" for i in expected)


def test_lesson_similarities():
    lesson = Vectors(["a", "b", "c", "d"], [[3, 0, 0], [1, 0, 0], [2, 0, 1], [1, 1, 0]])
    assert lesson.similarity("a", "b", "dot") == 3.0
    assert lesson.similarity("a", "b") == pytest.approx(1.0)  # same direction: cosine ignores the norm
    assert lesson.similarity("c", "d", "dot") == 2.0
    assert lesson.similarity("c", "d") == pytest.approx(2 / np.sqrt(10))
    assert round(lesson.similarity("c", "d"), 3) == 0.632
    assert lesson.similarity("a", "b", "euclidean") == pytest.approx(2.0)


def test_unit_rows_and_zero_rows(small):
    unit = small.normalized()
    norms = np.linalg.norm(unit.vectors, axis=1)
    np.testing.assert_allclose(np.delete(norms, 7), 1.0, atol=1e-6)
    assert norms[7] == 0.0 and small.similarity("w7", "w1") == 0.0  # a zero row has cosine 0, not NaN
    assert unit.index_to_key == small.index_to_key and (unit.counts == small.counts).all()
    assert small.norms[7] == 0.0 and small.norms.shape == (200,)


# ---- container behaviour -----------------------------------------------------------------------


def test_container_protocol(small):
    assert len(small) == 200 and "w3" in small and "nope" not in small and small.vector_size == 16
    assert small.index_of("w3") == 3 and small["w3"].shape == (16,) and small[["w3", "w4"]].shape == (2, 16)
    np.testing.assert_array_equal(small.get_vector("w3"), small.vectors[3])
    np.testing.assert_allclose(np.linalg.norm(small.get_vector("w3", norm=True)), 1.0, rtol=1e-6)
    assert repr(small) == "Vectors('small', 200 keys × 16)"
    assert small.has_index_for("w3") and not small.has_index_for("nope") and small.source("w3") == "word"
    assert small[[]].shape == (0, 16)
    np.testing.assert_array_equal(small.get_vector("w3", norm=True), small.unit_vectors[3])  # the cached rows
    with pytest.raises(UnknownKeyError, match="nope"):
        small.source("nope")
    answer = small.most_similar(["w3", "w4"], topn=2)  # every key of a plain table has its own row
    assert answer.sources == ("word", "word") and answer.from_ngrams == ()
    assert answer.to_dict()["from"] == {"w3": "word", "w4": "word"}


def fresh_small() -> Vectors:
    """A table of its own (the module's `small` is shared): 5 rows × 3."""
    return Vectors(
        [f"w{i}" for i in range(5)], np.arange(15, dtype=np.float32).reshape(5, 3) + 1, counts=[5, 4, 3, 2, 1]
    )


def test_rows_handed_out_are_read_only_as_gensims():
    vectors = fresh_small()
    before_unit, before_table = vectors.unit.clone(), vectors.vectors.copy()
    views = (
        vectors["w1"],
        vectors.vectors,
        vectors.unit_vectors,
        vectors.get_vector("w1"),
        vectors.get_vector("w1", norm=True),
    )
    for view in views:
        assert not view.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            view[0] = 100.0
    np.testing.assert_array_equal(vectors.vectors, before_table)
    torch.testing.assert_close(vectors.unit, before_unit)  # the cached unit rows still match the table
    assert vectors.most_similar("w1", topn=4) == fresh_small().most_similar("w1", topn=4)
    copy = vectors[["w1", "w2"]]  # a list of keys gives a copy (as gensim's): changing it changes nothing
    copy[0] = 0.0
    np.testing.assert_array_equal(vectors.vectors, before_table)


def test_read_only_rows_pass_into_torch_and_new_tables_without_warnings():
    vectors = fresh_small()
    always = torch.is_warn_always_enabled()
    torch.set_warn_always(True)  # torch warns once per process that it cannot share a read-only array
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            again = Vectors(vectors.index_to_key, vectors.vectors)
            vectors.similar_by_vector(vectors["w2"], topn=2)
            vectors.most_similar(positive=[vectors["w2"]], negative=["w4"])
            vectors.most_similar_batch(vectors.vectors[:2], topn=1)
            tensors = [again.table, again.unit, vectors.table]  # over the rows' own (writable) memory
    finally:
        torch.set_warn_always(always)
    assert all(t.shape == (5, 3) for t in tensors)
    again.table[0] = 0.0  # the new table owns a copy: the first one is untouched
    assert vectors.vectors[0, 0] == 1.0


@pytest.mark.parametrize(
    ("name", "format"),
    [("t.txt", "word2vec"), ("t.vec", "word2vec"), ("t.bin", "word2vec-bin"), ("t.safetensors", "safetensors"),
     ("t.npy", "npy"), ("folder", "projector")],
)  # fmt: skip
def test_save_follows_the_extension_as_load_does(tmp_path, name, format):
    from embedlab.vectors.io import detect_format

    vectors = fresh_small()
    vectors.save(tmp_path / name)
    assert detect_format(tmp_path / name) == format
    again = Vectors.load(tmp_path / name)
    assert again.index_to_key == vectors.index_to_key
    np.testing.assert_array_equal(again.vectors, vectors.vectors)


@pytest.mark.parametrize("binary", [False, True])
def test_gensim_reads_a_table_saved_as_txt_or_bin(tmp_path, binary):
    vectors = fresh_small()
    path = tmp_path / ("t.bin" if binary else "t.txt")
    vectors.save(path)
    kv = KeyedVectors.load_word2vec_format(path, binary=binary)
    assert kv.index_to_key == vectors.index_to_key
    np.testing.assert_array_equal(kv.vectors, vectors.vectors)


def test_save_with_an_explicit_format_or_an_unknown_extension(tmp_path):
    vectors = fresh_small()
    assert vectors.save(tmp_path / "t.data", format="npy") == [tmp_path / "t.data", tmp_path / "t.vocab.json"]
    assert (tmp_path / "t.data").read_bytes().startswith(b"\x93NUMPY")
    with pytest.raises(InvalidValueError, match=r"extension '\.pt'; known: \.txt \(word2vec\)"):
        vectors.save(tmp_path / "t.pt")
    assert not (tmp_path / "t.pt").exists()


def test_unknown_key_names_it_and_suggests_spellings(minilm_vectors):
    with pytest.raises(KeyError) as info:
        minilm_vectors["kign"]
    assert isinstance(info.value, UnknownKeyError)
    message = str(info.value)
    assert "'kign'" in message and "closest: king" in message
    with pytest.raises(UnknownKeyError, match="closest: paris"):
        minilm_vectors.most_similar("Paris")  # the table is lower-cased: the other casing comes first


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(positive="w1", topn=0), "topn must be"),
        (dict(positive="w1", metric="manhattan"), "metric must be one of"),
        (dict(positive="w1", restrict_vocab=0), "restrict_vocab must be"),
        (dict(positive=None), "at least one"),
        (dict(positive=[np.zeros(3)]), r"shape \(16,\)"),
    ],
)
def test_bad_queries(small, kwargs, match):
    with pytest.raises(InvalidValueError, match=match):
        small.most_similar(**kwargs)


def test_bad_tables():
    with pytest.raises(InvalidValueError, match="one key per row"):
        Vectors(["a"], np.zeros((2, 3)))
    with pytest.raises(InvalidValueError, match="'a' is at rows 0 and 2"):
        Vectors(["a", "b", "a"], np.zeros((3, 3)))
    with pytest.raises(InvalidValueError, match=r"shape \(V, d\)"):
        Vectors(["a"], np.zeros(3))
    with pytest.raises(InvalidValueError, match="one entry per row"):
        Vectors(["a", "b"], np.zeros((2, 3)), counts=[1])


def test_cosmul_rejects_bad_topn(small):
    with pytest.raises(InvalidValueError, match="topn must be"):
        small.most_similar_cosmul(["w1"], topn=0)


def test_tensors_of_any_float_dtype_are_read_as_arrays(small):
    half = torch.from_numpy(small.vectors.copy()).bfloat16()  # NumPy has no bfloat16: read through float32
    table = Vectors(small.index_to_key, half)
    np.testing.assert_array_equal(table.vectors, half.float().numpy())
    assert table.similar_by_vector(half[3], topn=1).keys == ("w3",)
    by_tensor = small.most_similar_batch(torch.from_numpy(small.vectors[:2].copy()), topn=3)
    assert by_tensor == small.most_similar_batch(small.vectors[:2], topn=3)


def test_table_and_unit_are_tensors_over_the_same_rows():
    vectors = fresh_small()
    assert isinstance(vectors.table, torch.Tensor) and vectors.table is vectors.table  # made once
    vectors.table[0, 0] = 7.0  # the CPU tensor is the rows' own memory, as the stored tensor was before
    assert vectors.vectors[0, 0] == 7.0
    np.testing.assert_array_equal(vectors.unit.numpy(), vectors.unit_vectors)
    np.testing.assert_allclose(np.linalg.norm(vectors.unit_vectors, axis=1), 1.0, rtol=1e-6)
    assert vectors.to("cpu").table.data_ptr() == vectors.table.data_ptr()  # to() shares the rows


def test_queries_import_no_torch():
    # torch takes about a second to import: a neighbours query on a built-in table must not pay it
    code = (
        "import sys; from embedlab.vectors import Vectors; v = Vectors.load('minilm'); "
        "v.most_similar('king'); v.analogy('king - man + woman'); v.analogy('king - man + woman', method='3cosmul'); "
        "v.doesnt_match(['cat', 'dog', 'car']); v.similar_by_vector(v['king']); v.most_similar_batch(['cat', 'dog']); "
        "[v.most_similar('king', metric=m) for m in ('dot', 'euclidean')]; v.similarity('king', 'queen'); "
        "assert 'torch' not in sys.modules, 'torch was imported'"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=COMMAND_S)
    assert result.returncode == 0, result.stderr


def test_a_bfloat16_checkpoint_loads_as_its_float32_values(tmp_path, minilm_dir, minilm_vectors):
    from safetensors.torch import save_file

    for name in ("config.json", "tokenizer.json"):
        shutil.copy(minilm_dir / name, tmp_path / name)
    half = minilm_vectors.table.bfloat16()  # (V, D)
    save_file({"embeddings.word_embeddings.weight": half}, tmp_path / "model.safetensors")
    loaded = Vectors.load(tmp_path)
    assert loaded.index_to_key == minilm_vectors.index_to_key
    np.testing.assert_array_equal(loaded.vectors, half.float().numpy())  # bfloat16 -> float32 is exact


def test_topn_larger_than_table_returns_every_other_row(small):
    assert len(small.most_similar("w0", topn=1000)) == 199
    assert len(small.analogy("w1 - w2 + w3", topn=1000, method="3cosmul")) == 197


# ---- FAISS -------------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["cosine", "dot", "euclidean"])
def test_flat_faiss_index_gives_the_exact_answers(minilm_vectors, metric):
    vectors = Vectors(minilm_vectors.index_to_key, minilm_vectors.table, name="copy")
    exact = vectors.most_similar_batch(WORDS, topn=10, metric=metric)
    exact_analogy = vectors.analogy("king - man + woman", metric=metric)
    vectors.build_index("flat", metric=metric)
    indexed = vectors.most_similar_batch(WORDS, topn=10, metric=metric)
    for a, b in zip(exact, indexed, strict=True):
        assert a.keys == b.keys
        np.testing.assert_allclose(a.scores, b.scores, atol=1e-5)
    assert vectors.analogy("king - man + woman", metric=metric).keys == exact_analogy.keys
    vectors.drop_index()
    assert not vectors._indexes


@pytest.mark.parametrize("kind", ["hnsw", "ivf"])
def test_approximate_faiss_indexes_find_the_obvious_neighbour(small, kind):
    vectors = Vectors(small.index_to_key, small.table)
    vectors.build_index(kind, nlist=8, nprobe=8)
    answers = vectors.most_similar_batch(small.vectors[:20], topn=1)
    assert [answers[i].keys[0] for i in range(20) if i != 7] == [f"w{i}" for i in range(20) if i != 7]


def test_faiss_rejects_unknown_kind(small):
    with pytest.raises(InvalidValueError, match="kind must be one of flat, hnsw, ivf"):
        small.build_index("lsh")


@requires_gpu
def test_to_cuda_hands_out_cuda_tensors_and_answers_as_on_cpu(minilm_vectors):
    gpu = minilm_vectors.to("cuda")
    assert gpu.table.device.type == gpu.unit.device.type == "cuda"
    torch.testing.assert_close(gpu.table.cpu(), minilm_vectors.table, atol=0, rtol=0)
    for a, b in zip(gpu.most_similar_batch(WORDS), minilm_vectors.most_similar_batch(WORDS), strict=True):
        assert a == b
    assert gpu.analogy("king - man + woman").keys[0] == "queen"
