"""Static vs contextual (a lab page): one word in two to four sentences through MiniLM's layers,
within the page's LIMITS. The work is models/context.py's (ContextModel), shared with `embedlab context`.

    page_answer(model, texts, "bank", layer=2, head=5)   the page's answer: every layer, the tokens'
                                                         map, one head's attention rows
"""

from __future__ import annotations

from typing import Any

from embedlab.errors import InvalidValueError
from embedlab.models.context import MIN_TEXTS, POOLINGS, ContextAnswer, ContextModel

MAX_TEXTS = 4  # the page's limit; the command line takes any number from MIN_TEXTS
MAX_TEXT = 300  # characters of one sentence on the lab page
MAX_WORD = 50  # characters of the word on the lab page
MAX_TOKENS = 64  # pieces per sentence on the lab page, [CLS] and [SEP] included
# Occurrences of the word in all sentences together, on the lab page: n occurrences draw n(n-1)/2
# curves and cost n nearest-row searches per layer (240 took 14.5 s); 8 keep the curves readable.
MAX_OCCURRENCES = 8
MAX_HEAD = 63  # bounds for the query; the model's own head and layer counts are checked by the library
MAX_LAYER = 63
LIMITS: dict[str, Any] = {
    "texts": [MIN_TEXTS, MAX_TEXTS],
    "text": MAX_TEXT,
    "tokens": MAX_TOKENS,
    "word": MAX_WORD,
    "occurrences": MAX_OCCURRENCES,
    "head": [0, MAX_HEAD],
    "layer": [0, MAX_LAYER],
    "pooling": list(POOLINGS),
}


def page_answer(
    model: ContextModel, texts: list[str], word: str, pooling: str = "mean", layer: int = 0, head: int = 0
) -> ContextAnswer:
    """The lab page's answer: `word` in 2..4 `texts` within the page's LIMITS, with the tokens' map
    and the occurrences' attention rows in encoder layer `layer`, head `head`."""
    if not MIN_TEXTS <= len(texts) <= MAX_TEXTS:
        raise InvalidValueError(f"give {MIN_TEXTS} to {MAX_TEXTS} sentences; got {len(texts)}")
    for i, sentence in enumerate(texts):
        if len(sentence) > MAX_TEXT:
            raise InvalidValueError(f"text {i} is {len(sentence)} characters long; the limit is {MAX_TEXT}")
    if len(word) > MAX_WORD:
        raise InvalidValueError(f"the word is {len(word)} characters long; the limit is {MAX_WORD}")
    view = model.compare(texts, word, pooling=pooling, max_tokens=MAX_TOKENS, max_occurrences=MAX_OCCURRENCES)
    return view.answer(attention=(layer, head), with_map=True)
