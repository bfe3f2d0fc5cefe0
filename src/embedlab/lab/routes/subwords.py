"""Subword explorer (simulation 8): a word's pieces under byte-level BPE vocabularies of 1K, 8K
and 32K pieces, each piece with how often it occurs in the corpus the vocabularies were trained on;
and the vocabulary-size table measured on the corpus's held-out lines (embedlab.sims.subword_table).

The vocabularies are trained on first use (embedlab.sims.subwords, through deps.LadderDep) and
kept under the lab's cache folder, so later requests and later servers load them instead.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from embedlab.data.corpora import missing_corpora
from embedlab.lab.deps import DEFAULT_CORPUS, LadderDep, SubwordFolderDep, SubwordTableDep
from embedlab.lab.schemas import Limit, SplitAnswer, SubwordTableAnswer, VocabulariesAnswer
from embedlab.sims.subwords import SIZES, VocabularyInfo, stored
from embedlab.vectors.frequency import BANDS

router = APIRouter(prefix="/api/subwords", tags=["subwords"])

MAX_TEXT = 100  # characters of a word or a short phrase
LIMITS: dict[str, Limit] = {"text": MAX_TEXT, "frequent": BANDS[0][0]}  # the count the colour ramp tops out at

Text = Annotated[str, Query(min_length=1, max_length=MAX_TEXT, description=f"1..{MAX_TEXT} characters")]


@router.get("/vocabularies", response_model=VocabulariesAnswer)
def vocabularies(folder: SubwordFolderDep) -> dict:
    """The built-in corpora, whether each can be read here, and which ladder sizes are trained."""
    corpora = [{"name": name, "available": missing is None, "missing": missing,
                "vocabularies": [vocabulary_state(stored(folder, name, size), size) for size in SIZES]}
               for name, missing in missing_corpora().items()]  # fmt: skip
    return {"sizes": list(SIZES), "default": DEFAULT_CORPUS, "corpora": corpora}


def vocabulary_state(info: VocabularyInfo | None, size: int) -> dict:
    """One ladder size of a corpus: trained or not, and how it was made when it was."""
    return {"size": size, "trained": info is not None, **(info.to_dict() if info else {})}


@router.get("/split", response_model=SplitAnswer)
def split(ladder: LadderDep, text: Text, leading_space: bool = True) -> dict:
    """`text`'s pieces under each vocabulary (smallest first): piece, readable text, id, corpus count.

    The first request for a corpus trains its vocabularies (enwiki-sample: seconds) and waits.
    """
    splits = ladder.split(text, leading_space=leading_space)
    return {"corpus": ladder.corpus, "text": text, "leading_space": leading_space,
            "vocabularies": [s.to_dict() for s in splits]}  # fmt: skip


@router.get("/table", response_model=SubwordTableAnswer)
def table(measured: SubwordTableDep) -> dict:
    """Per vocabulary size, on the corpus's held-out lines (every 10th): BPE tokens per word and per
    rare word, a fixed paragraph's length in tokens, the token table's size at d = 768, and the
    out-of-vocabulary share of a whole-word vocabulary of as many rows.

    The first request for a corpus trains its vocabularies if no request did, then measures (seconds).
    """
    return measured.to_dict()
