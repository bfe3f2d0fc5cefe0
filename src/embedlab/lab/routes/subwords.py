"""Subword explorer (simulation 8): a word's pieces under byte-level BPE vocabularies of 1K, 8K
and 32K pieces, each piece with how often it occurs in the corpus the vocabularies were trained on;
and the vocabulary-size table measured on the corpus's held-out lines (embedlab.sims.subword_table).

The vocabularies are trained on first use (embedlab.sims.subwords, through deps.LadderDep) and
kept under the lab's cache folder, so later requests and later servers load them instead.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.lab.deps import DEFAULT_CORPUS, LadderDep, SubwordFolderDep, SubwordTableDep
from embedlab.lab.schemas import answer_model
from embedlab.sims import subwords as sims
from embedlab.sims.subword_table import VocabularyTable
from embedlab.sims.subwords import MAX_TEXT, TextSplits, Vocabularies

router = APIRouter(prefix="/api/subwords", tags=["subwords"])


Text = Annotated[str, Query(min_length=1, max_length=MAX_TEXT, description=f"1..{MAX_TEXT} characters")]


@router.get("/vocabularies", response_model=answer_model(Vocabularies))
def vocabularies(folder: SubwordFolderDep) -> Vocabularies:
    """The built-in corpora, whether each can be read here, and which ladder sizes are trained."""
    return sims.vocabularies(folder, DEFAULT_CORPUS)


@router.get("/split", response_model=answer_model(TextSplits))
def split(ladder: LadderDep, text: Text, leading_space: bool = True) -> TextSplits:
    """`text`'s pieces under each vocabulary (smallest first): piece, readable text, id, corpus count.

    The first request for a corpus trains its vocabularies (enwiki-sample: seconds) and waits.
    """
    return ladder.splits(text, leading_space)


@router.get("/table", response_model=answer_model(VocabularyTable))
def table(measured: SubwordTableDep) -> VocabularyTable:
    """Per vocabulary size, on the corpus's held-out lines (every 10th): BPE tokens per word and per
    rare word, a fixed paragraph's length in tokens, the token table's size at d = 768, and the
    out-of-vocabulary share of a whole-word vocabulary of as many rows.

    The first request for a corpus trains its vocabularies if no request did, then measures (seconds).
    """
    return measured
