"""The compiled one-pass scan of a text file against the Python way it replaces: count_words
for the counts and their order, encode for every Chunk."""

from __future__ import annotations

import numpy as np
import pytest

from embedlab.data.corpora import open_corpus
from embedlab.train.config import RunConfig
from embedlab.train.corpus import ChunkCache, WordVocab, count_words, encode
from embedlab.train.distributed import Dist
from embedlab.train.scan import _FNV_OFFSET, _FNV_PRIME, ScannedText, _scan_block, scan_text
from embedlab.train.word2vec import Word2VecJob

TRICKY = (
    "The King's men -- 3 of them_all -- aren't here.\n"
    "\n"
    "rock'n'roll 'quoted' it''s trailing' O'NEIL o'neil\r\n"
    "UPPER lower MiXeD 42 4x4 x\t\ty\n"
    "a\n"
    "last line without a newline don't"
)


def python_way(path, vocab_min_count: int, chunk_words: int):
    counter = count_words(open_corpus(path))
    vocab = WordVocab.from_counts(counter, vocab_min_count)
    return counter, vocab, list(encode(open_corpus(path), vocab, chunk_words))


def assert_same_chunks(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(a.ids, b.ids)
        np.testing.assert_array_equal(a.starts, b.starts)


@pytest.mark.parametrize("block_bytes", [7, 64, 1 << 20])  # lines longer than a block; many blocks; one
def test_tricky_text_counts_and_encodes_as_the_python_way(tmp_path, block_bytes):
    path = tmp_path / "tricky.txt"
    path.write_bytes(TRICKY.encode())
    counter, vocab, chunks = python_way(path, 1, 5)
    scan = scan_text(path, block_bytes)
    assert scan is not None
    assert list(scan.counter().items()) == list(counter.items())  # counts, and the order ties break in
    assert_same_chunks(list(scan.encode(vocab, 5)), chunks)
    scan.close()


def test_a_real_corpus_encodes_chunk_for_chunk_as_the_python_way(tmp_path):
    path = tmp_path / "gcide.txt"
    lines = [line for _, line in zip(range(20_000), open_corpus("gcide"), strict=False)]
    path.write_text("\n".join(lines) + "\n", encoding="ascii")
    counter, vocab, chunks = python_way(path, 5, 2_000)
    scan = scan_text(path, block_bytes=100_000)  # chunks that straddle blocks
    assert list(scan.counter().items()) == list(counter.items())
    with ChunkCache(scan, vocab, 2_000, encoder=ScannedText.encode) as cache:
        assert_same_chunks(list(cache), chunks)
        assert_same_chunks(list(cache), chunks)  # replayed for a second epoch
    scan.close()


def test_non_ascii_text_is_left_to_the_python_way(tmp_path):
    path = tmp_path / "café.txt"
    path.write_text("the café\nthe cat\n", encoding="utf-8")
    assert scan_text(path) is None


def test_two_words_with_one_hash_stop_the_scan_rather_than_merge():
    h = int(_FNV_OFFSET)
    for byte in b"cat":  # FNV-1a in Python integers, modulo 2**64
        h = (h ^ byte) * int(_FNV_PRIME) % 2**64
    h = np.uint64(h)
    slots = np.full(8, -1, np.int64)
    slots[int(h & np.uint64(7))] = 0  # word 0 has the hash of "cat"...
    word_hash, buf = np.array([h, 0, 0], np.uint64), np.zeros(16, np.uint8)
    buf[:3] = np.frombuffer(b"dog", np.uint8)  # ...but is "dog"
    starts, lengths, counts = np.zeros(3, np.int64), np.array([3, 0, 0]), np.array([1, 0, 0])
    data = np.frombuffer(b"cat\n", np.uint8)
    found = _scan_block(data, slots, word_hash, buf, 3, starts, lengths, counts, 1, np.empty(2, np.int32),
                        np.empty(2, np.int32))  # fmt: skip
    assert found[0] == -1
    data = np.frombuffer(b"dog\n", np.uint8)  # another hash: a new word beside it
    n_ids, n_lines, _, n_words = _scan_block(data, slots, word_hash, buf, 3, starts, lengths, counts, 1,
                                             np.empty(2, np.int32), np.empty(2, np.int32))  # fmt: skip
    assert (n_ids, n_lines, n_words) == (1, 1, 2)


def test_a_run_on_a_scanned_file_equals_the_python_way_bit_for_bit(tmp_path):
    path = tmp_path / "gcide.txt"
    lines = [line for _, line in zip(range(5_000), open_corpus("gcide"), strict=False)]
    path.write_text("\n".join(lines) + "\n", encoding="ascii")
    config = RunConfig(corpus=str(path), method="sgns", dim=16, epochs=2, threads=1, min_count=2)
    tables = []
    for source in (open_corpus(path), lines):  # a text file is scanned; a list of lines is not
        job = Word2VecJob.create(source, config, tmp_path, resume=False, dist=Dist())
        assert (job.scan is not None) == (source is not lines)
        for epoch in range(config.epochs):
            for _ in job.steps(epoch, skip=0):
                pass
        tables.append(job.table().copy())
        job.close()
    np.testing.assert_array_equal(tables[0], tables[1])
