"""The simulations' shared fixture: the subword ladder, trained once a run."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def ladder(lab_cache):
    """The real ladder (1K, 8K, 32K) on enwiki-sample's lines, in the folder and under the name the
    lab's Subwords page keeps it: trained once a run for these modules, both workers and the lab
    (the ladder locks its folder while it trains; a later open loads the tokenizers)."""
    from embedlab.data.corpora import open_corpus
    from embedlab.sims.subwords import VocabularyLadder

    return VocabularyLadder.open(open_corpus("enwiki-sample"), lab_cache / "lab" / "subwords")
