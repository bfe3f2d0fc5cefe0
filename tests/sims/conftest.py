"""The simulations' shared fixture: the subword ladder, trained once a run."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def ladder(wiki_text, once):
    """The real ladder (1K, 8K, 32K) on enwiki-sample's lines, trained once for every module and worker
    that reads it (each later open loads the tokenizers from the folder)."""
    from embedlab.data.corpora import open_corpus
    from embedlab.sims.subwords import VocabularyLadder

    def make(folder: Path) -> None:
        folder.mkdir()
        VocabularyLadder.open(open_corpus(wiki_text), folder)

    return VocabularyLadder.open(open_corpus(wiki_text), once("ladder", make))
