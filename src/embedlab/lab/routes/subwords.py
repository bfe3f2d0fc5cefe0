"""Subword explorer (simulation 8): a word's pieces under byte-level BPE vocabularies of 1K, 8K
and 32K pieces, each piece with how often it occurs in the corpus the vocabularies were trained on.

The vocabularies are trained on first use (embedlab.sims.subwords) and kept under the lab's
cache folder, so later requests and later servers load them instead.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from embedlab.data.corpora import CORPORA, missing_corpora, open_corpus
from embedlab.errors import unknown_name
from embedlab.sims.subwords import SIZES, VocabularyLadder, stored

router = APIRouter(prefix="/api/subwords", tags=["subwords"])

MAX_TEXT = 100  # characters of a word or a short phrase
DEFAULT_CORPUS = "enwiki-sample"  # always there (gensim's test data); gcide needs a Debian package

Text = Annotated[str, Query(min_length=1, max_length=MAX_TEXT, description=f"1..{MAX_TEXT} characters")]
CorpusName = Annotated[str, Query(max_length=50, description=f"a built-in corpus: {', '.join(CORPORA)}")]


@router.get("/vocabularies")
def vocabularies(request: Request) -> dict:
    """The built-in corpora, whether each can be read here, and which ladder sizes are trained."""
    folder = request.app.state.lab.cache_dir / "subwords"
    corpora = []
    for name, missing in missing_corpora().items():
        infos = {size: stored(folder, name, size) for size in SIZES}
        corpora.append({"name": name, "available": missing is None, "missing": missing,
                        "vocabularies": [{"size": s, "trained": i is not None, **(i.to_dict() if i else {})}
                                         for s, i in infos.items()]})  # fmt: skip
    return {"sizes": list(SIZES), "default": DEFAULT_CORPUS, "max_text": MAX_TEXT, "corpora": corpora}


@router.get("/split")
def split(request: Request, text: Text, corpus: CorpusName = DEFAULT_CORPUS, leading_space: bool = True) -> dict:
    """`text`'s pieces under each vocabulary (smallest first): piece, readable text, id, corpus count.

    The first request for a corpus trains its vocabularies (enwiki-sample: seconds) and waits.
    """
    if corpus not in CORPORA:
        raise unknown_name("corpus", corpus, CORPORA)
    lab = request.app.state.lab
    ladder = lab.service(f"subwords:{corpus}",
                         lambda: VocabularyLadder.open(open_corpus(corpus), lab.cache_dir / "subwords"))  # fmt: skip
    splits = ladder.split(text, leading_space=leading_space)
    return {"corpus": corpus, "text": text, "leading_space": leading_space,
            "vocabularies": [s.to_dict() for s in splits]}  # fmt: skip
