"""Corpora streamed line by line: gcide and enwiki-sample cleaned, any file with bad bytes."""

from __future__ import annotations

import logging
import re
import tracemalloc
from itertools import islice

import pytest

from embedlab.data import corpora
from embedlab.data.corpora import CORPORA, missing_corpora, open_corpus
from embedlab.errors import InvalidValueError, MissingDataError

STREAM_PEAK_BYTES = 8 * 2**20  # the cleaned gcide text is ~27 MB; a stream holds one entry at a time


def test_gcide_is_plain_english():
    lines = list(islice(open_corpus("gcide"), 3000))
    text = "\n".join(lines)
    assert "A collection of pus or purulent matter" in text  # the Abscess entry
    assert not re.search(r"\[1913 Webster|\[WordNet|\\|\[[a-z]\^\]|[{}]", text)
    assert 'co["o]rdinate' not in text and "coordinate" in text


def _read_traced(lines: int) -> tuple[int, int]:
    """Read gcide's first `lines` lines under tracemalloc -> (characters read, peak bytes traced)."""
    tracemalloc.start()
    characters = sum(len(line) for line in islice(open_corpus("gcide"), lines))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return characters, peak


def test_gcide_streams_without_holding_the_corpus():
    # A stream holds one entry at a time, so reading twice as many lines leaves the peak where it was; a
    # reader that kept what it read would grow by at least the text added (a str is >= 1 byte a character).
    # A slice shows it as well as the whole dictionary would, at a tenth of the cost.
    first, peak_first = _read_traced(10_000)
    both, peak_both = _read_traced(20_000)
    assert both > 1.8 * first and peak_first < STREAM_PEAK_BYTES
    assert peak_both - peak_first < (both - first) / 2  # grew by under half of what the second slice added


def test_enwiki_sample_is_article_text_without_markup():
    corpus = open_corpus("enwiki-sample")
    first = next(iter(corpus))
    assert first.startswith("Anarchism is a political philosophy")
    sample = "\n".join(islice(corpus, 2000))
    assert not re.search(r"'''|\[\[|\]\]|\{\{|^=+", sample, flags=re.M)
    assert list(islice(corpus, 3)) == list(islice(corpus, 3))  # re-iterable


def test_a_parsed_dump_is_kept_and_a_damaged_copy_parsed_again(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBEDLAB_CACHE", str(tmp_path))
    path = open_corpus("enwiki-sample").path
    key = (path, path.stat().st_size, path.stat().st_mtime_ns)
    paragraphs = corpora._wiki_paragraphs.__wrapped__  # past the process's own copy, to the cache folder's
    parsed = paragraphs(*key)  # parsed here, in a cache folder of its own
    (kept,) = (tmp_path / "corpora").iterdir()
    assert path.name in kept.name and len(parsed) > 1000
    monkeypatch.setattr(corpora, "_parse_wiki", lambda _: pytest.fail("parsed again"))
    assert paragraphs(*key) == parsed  # read back, not parsed
    kept.write_text(kept.read_text(encoding="utf-8")[:-300], encoding="utf-8")  # cut short: a count too many
    monkeypatch.setattr(corpora, "_parse_wiki", lambda _: ("parsed again",))
    assert paragraphs(*key) == ("parsed again",)
    assert kept.read_text(encoding="utf-8") == "1\nparsed again\n"  # and kept in the damaged copy's place
    kept.unlink()
    kept.mkdir()  # a folder where the kept text goes: parsed, answered, and nothing kept
    assert paragraphs(*key) == ("parsed again",) and kept.is_dir()


def test_any_file_invalid_utf8_is_replaced_and_counted(tmp_path, caplog):
    path = tmp_path / "notes.txt"
    path.write_bytes(b"good line\nbad \xff\xfe line\r\n\xe2\x82 cut\n")
    with caplog.at_level(logging.WARNING, logger="embedlab"):
        lines = list(open_corpus(path))
    assert lines == ["good line", "bad \ufffd\ufffd line", "\ufffd\ufffd cut"]
    assert "replaced 4 invalid UTF-8 byte(s)" in caplog.text


def test_missing_and_empty_corpora(tmp_path, monkeypatch):
    with pytest.raises(MissingDataError, match="'nope.txt' is neither a built-in name .* nor a file"):
        open_corpus("nope.txt")
    (tmp_path / "empty.txt").write_bytes(b"")
    with pytest.raises(InvalidValueError, match="empty.txt is empty"):
        open_corpus(tmp_path / "empty.txt")
    monkeypatch.setattr(corpora, "GCIDE_PATH", tmp_path / "absent.dict.dz")
    with pytest.raises(MissingDataError, match="apt-get install dict-gcide"):
        open_corpus("gcide")


def test_missing_corpora_names_what_to_install(monkeypatch, tmp_path):
    missing = missing_corpora()
    assert set(missing) == set(CORPORA) and missing["enwiki-sample"] is None
    assert (missing["gcide"] is None) == corpora.GCIDE_PATH.is_file()
    monkeypatch.setattr(corpora, "GCIDE_PATH", tmp_path / "no-gcide.dict.dz")  # as on a machine without it
    assert "apt-get install dict-gcide" in missing_corpora()["gcide"]
