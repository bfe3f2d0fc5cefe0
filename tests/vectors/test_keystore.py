"""A map's key store (vectors/keystore.py): written in chunks, mapped, searched; its answers against
brute force over the keys as Python strings (the oracle), for many patterns."""

from __future__ import annotations

import numpy as np
import pytest
import regex
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError
from embedlab.vectors import keystore
from embedlab.vectors.keystore import KeyStore, fnv1a64, fnv1a64_one

KEYS = ["king", "queen", "", "café", "Ġdog", "a b", "ab", "ba", "aab\r", "x\u2028y", "bucket 3", "日本", "b", "a"]
ALPHABET = "ab é\r\u2028"  # letters, a space, a 2-byte letter, a CR, a Unicode line break
PIECES = ["a", "b", "é", " ", ".", r"\n", "\n", "[^a]", r"\s", r"\w", "^", "$", r"\b", r"\B", r"\A", r"\Z", "(?s:.)",
          "(?i:A)", "(?=a)", "(?!a)", "(?<=a)", "(?<!a)", "(?<![^b])", "(?>[^x]*)", "a++", r"\Ka", "(?w:$)",
          r"\X", r"\r", "(?w)", "(?V1)", r"\m", r"\M", "(a)", r"\1", "[[:alpha:]]", "(?-m:^a)", "(?-m)$",
          "(?x)a* +"]  # fmt: skip


def oracle(keys: list[str], pattern: str) -> list[int]:
    return [i for i, key in enumerate(keys) if regex.search(pattern, key, regex.MULTILINE)]


def fnv_reference(data: bytes) -> int:
    h = 14695981039346656037
    for byte in data:
        h = ((h ^ byte) * 1099511628211) % 2**64
    return h


@pytest.fixture
def store(tmp_path) -> KeyStore:
    return KeyStore.write(tmp_path / "keys", [KEYS[:5], [], KEYS[5:]])  # an empty chunk too


def test_files_hold_the_keys_as_the_contract_says(store):
    blob = (store.folder / "keys.bin").read_bytes()
    assert blob == b"".join(key.encode() + b"\n" for key in KEYS)
    idx = np.load(store.folder / "keys.idx")
    assert idx.dtype == np.int64 and idx.shape == (len(KEYS) + 1,)
    assert [blob[idx[i] : idx[i + 1] - 1].decode() for i in range(len(KEYS))] == KEYS
    hashes = np.load(store.folder / "keys.hash.npy")
    assert hashes.dtype == np.uint64 and hashes.shape == (len(KEYS), 2)
    assert np.all(np.diff(hashes[:, 0].astype(np.float64)) >= 0)  # sorted by hash
    assert {int(h): int(r) for h, r in hashes} == {fnv_reference(k.encode()): i for i, k in enumerate(KEYS)}
    assert len(store) == len(KEYS) and store.keys(range(len(KEYS))) == KEYS and store.key(3) == "café"
    assert not store.blob.flags.writeable and not store.offsets.flags.writeable


@given(st.lists(st.binary(max_size=12), min_size=1, max_size=20))
def test_vectorised_fnv1a64_equals_the_byte_loop(parts):
    blob = np.frombuffer(b"".join(parts) or b"\0", np.uint8)
    lengths = np.array([len(p) for p in parts])
    starts = np.cumsum(lengths) - lengths
    assert fnv1a64(blob, starts, lengths).tolist() == [fnv_reference(p) for p in parts]
    assert [fnv1a64_one(p) for p in parts] == [fnv_reference(p) for p in parts]  # find's hash of one key


def test_find_each_key_and_none_for_others(store):
    assert [store.find(key) for key in KEYS] == list(range(len(KEYS)))
    assert store.find("kin") is None and store.find("King") is None and store.find("a\n") is None
    assert "Ġdog" in store and "dog" not in store and 3 not in store


def test_find_tells_keys_of_one_hash_apart(tmp_path, monkeypatch):
    def weak(blob, starts, lengths):  # every key of one length collides
        return np.asarray(lengths, dtype=np.uint64)

    monkeypatch.setattr(keystore, "fnv1a64", weak)
    monkeypatch.setattr(keystore, "fnv1a64_one", len)
    keys = ["ab", "cd", "ef", "x", "y", "cd2"]
    store = KeyStore.write(tmp_path, [keys])
    assert [store.find(k) for k in keys] == list(range(len(keys)))
    assert store.find("gh") is None and store.find("z") is None


def test_a_line_break_in_a_key_is_refused_naming_its_row(tmp_path):
    with pytest.raises(InvalidValueError, match=r"'b\\nc' of row 3"):
        KeyStore.write(tmp_path, [["a", "x"], ["y", "b\nc"]])
    assert not (tmp_path / "keys.bin").exists()  # nothing written, no temporary file left
    assert list(tmp_path.iterdir()) == []


def test_open_says_what_is_missing_or_wrong(tmp_path, store):
    with pytest.raises(MissingDataError, match="keys.bin is missing"):
        KeyStore.open(tmp_path / "none")
    hashes = store.folder / "keys.hash.npy"
    whole = hashes.read_bytes()
    hashes.write_bytes(whole[: len(whole) // 2])  # cut short: its header promises more than the file holds
    with pytest.raises(FileFormatError, match="cannot be read"):
        KeyStore.open(store.folder)
    hashes.write_bytes(whole)
    (store.folder / "keys.bin").write_bytes(b"king\n")  # another table's blob
    with pytest.raises(FileFormatError, match="disagree"):
        KeyStore.open(store.folder)


def test_a_store_of_no_keys(tmp_path):
    store = KeyStore.write(tmp_path, [])
    assert len(store) == 0 and store.find("a") is None
    assert store.search("a").count == 0 and store.search(".", regex=True).count == 0


@pytest.mark.parametrize("pattern", ["a", "ab", "é", "b", " ", "日", "Ġ", "", "\n", "a\nb", "king", "zz", "bucket 3"])
def test_substring_search_counts_every_key(store, pattern, monkeypatch):
    want = [i for i, key in enumerate(KEYS) if pattern in key]
    for size in (keystore.SEARCH_BYTES, 1, 7):  # one chunk; a key a chunk; keys split across chunk edges
        monkeypatch.setattr(keystore, "SEARCH_BYTES", size)
        hits = store.search(pattern)
        assert hits.count == len(want) and hits.rows.tolist() == want and hits.seconds >= 0
    assert store.search(pattern, limit=1).rows.tolist() == want[:1]
    assert store.search(pattern, limit=0).count == len(want)


@pytest.mark.parametrize(
    "pattern",
    [r"^a", r"a$", r"^$", r"^.{0,2}$", r"a\nb", r"b\s*a", r"[^x]+y", r"\bb", r"\Bb", r"\Aa", r"b\Z", r"(?<=\n)a",
     r"(?<![^b])a", r"a(?!\n)", r"(?s)a.b", r"(?>[^x]*)$", r"x\Ky", r"(?i)KING", r"\p{Han}", r"a*", r"(?w)^y",
     r"(?r)a", r"(?:ab){e<=1}", r"\X$"],
)  # fmt: skip
def test_regex_search_equals_the_key_by_key_oracle(store, pattern, monkeypatch):
    want = oracle(KEYS, pattern)
    for size in (keystore.SEARCH_BYTES, 1, 9):
        monkeypatch.setattr(keystore, "SEARCH_BYTES", size)
        assert store.search(pattern, regex=True).rows.tolist() == want, (pattern, size)


@st.composite
def patterns(draw) -> str:
    pieces = draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=5))
    quantified = [p + draw(st.sampled_from(["", "", "*", "+", "?", "{1,2}"])) for p in pieces]
    if draw(st.booleans()) and len(quantified) > 1:
        cut = draw(st.integers(1, len(quantified) - 1))
        return "".join(quantified[:cut]) + "|" + "".join(quantified[cut:])
    return "".join(quantified)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(keys=st.lists(st.text(ALPHABET, max_size=14), min_size=1, max_size=12), pattern=patterns(),
       chunk=st.sampled_from([1, 5, 1 << 20]))  # fmt: skip
def test_regex_search_equals_the_oracle_for_many_patterns(tmp_path_factory, keys, pattern, chunk):
    store = KeyStore.write(tmp_path_factory.mktemp("keys"), [keys])
    try:
        want = oracle(keys, pattern)
    except regex.error:
        with pytest.raises(InvalidValueError, match="does not compile"):
            store.search(pattern, regex=True)
        return
    keystore_bytes, keystore.SEARCH_BYTES = keystore.SEARCH_BYTES, chunk
    try:
        hits = store.search(pattern, regex=True, budget_s=10)
    finally:
        keystore.SEARCH_BYTES = keystore_bytes
    assert hits.rows.tolist() == want and hits.count == len(want)


@settings(max_examples=100, deadline=None)
@given(keys=st.lists(st.text(ALPHABET, max_size=6), min_size=1, max_size=12), needle=st.text(ALPHABET, max_size=3))
def test_substring_search_equals_the_oracle(tmp_path_factory, keys, needle):
    store = KeyStore.write(tmp_path_factory.mktemp("keys"), [keys])
    assert store.search(needle).rows.tolist() == [i for i, key in enumerate(keys) if needle in key]


def test_bad_patterns_are_refused_saying_why(store):
    with pytest.raises(InvalidValueError, match=r"does not compile: missing \)"):
        store.search("(ab", regex=True)
    with pytest.raises(InvalidValueError, match="at most 1,000 characters; got 1,001"):
        store.search("a" * 1001)
    with pytest.raises(InvalidValueError, match="limit must be >= 0"):
        store.search("a", limit=-1)


def test_a_pattern_past_its_budget_is_refused(tmp_path):
    store = KeyStore.write(tmp_path, [["a" * 28 + "!"] * 3])
    with pytest.raises(InvalidValueError, match=r"ran past 0.05 s over 3 keys; make it more specific"):
        store.search(r"(a|aa)+$", regex=True, budget_s=0.05)


def test_rows_out_of_range_are_refused(store):
    with pytest.raises(InvalidValueError, match=f"row 14 is out of range: the table has {len(KEYS)} rows"):
        store.keys([0, 14])
    with pytest.raises(InvalidValueError, match="row must be between 0 and 13; got -1"):
        store.key(-1)
