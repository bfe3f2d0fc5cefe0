"""Input recipe (lab simulation 3): one piece of a sentence as token + position (+ segment) rows,
their sum and, where the recipe has one, LayerNorm; and the whole sentence's X, the rows that
enter attention, compared piece with piece.

"bert" is MiniLM's real input embedding; "gpt2" and "transformer" are fresh layers of the same
size (MiniLM's vocabulary and width, seed 0) fed MiniLM's token ids, so the three compare. Each adds
its own family's special tokens (models.pipeline.SPECIALS): bert [CLS] … [SEP], the others none.

    recipe = Recipe("bert", Pipeline.load("minilm"))
    view = recipe.place("the cat sat on the mat", index=2, position=40)
    view.rows["token"]                    # (D,) "cat"'s row: the same at every position
    view.rows["position"]                 # (D,) row 40 of the position table
    view.x_cosine                         # (T, T) cosine between the X rows of every two pieces

    off = recipe.place("the cat sat on the mat", index=2, addends=("token", "segment"))
    off.identical                         # ((1, 5),): with no position rows both "the" are one row of X

Any addend may be left out, the token too: the lesson's "only position" sum is the same for every
sentence, which is its point. Leaving all out is refused (LayerNorm of a zero row is just its bias).
The model's own modules do the arithmetic (InputEmbedding.addends with `include`), so the LayerNorm
shown is MiniLM's, applied to the reduced sum.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import torch

from embedlab.errors import InvalidValueError, check_choice, check_int
from embedlab.files import Matrix, Vector
from embedlab.layers.recipes import ADDEND_NAMES, RECIPES
from embedlab.models.pipeline import SPECIALS, Pipeline, Specials
from embedlab.vectors.similarity import score_matrix

RECIPE_NAMES = ("bert", "gpt2", "transformer")
PRETRAINED = "bert"  # the recipe whose layers are MiniLM's trained ones; the others are fresh
MODEL = "minilm"  # the built-in model whose tokenizer (and, for bert, whose layers) every recipe uses
SEED = 0  # fresh recipes: the same layers at every start
MAX_TOKENS = 64  # pieces of a sentence, the special tokens included: a page shows each as a chip
MAX_TEXT = 200  # characters of the lab's sentence
MAX_POSITION = 4999  # the longest table served (transformer: 5000 sinusoid rows); each recipe checks its own
LIMITS = {
    "text": MAX_TEXT,
    "tokens": MAX_TOKENS,
    "position": [0, MAX_POSITION],
    "recipes": list(RECIPE_NAMES),
    "pretrained": PRETRAINED,
    "segmented": [name for name in RECIPE_NAMES if RECIPES[name].get("n_segments")],
    "addends": list(ADDEND_NAMES),
    # what each recipe adds around a text, known to the page before an answer says so
    "specials": {name: {"start": list(SPECIALS[name].start), "end": list(SPECIALS[name].end)} for name in RECIPE_NAMES},
}


def fresh_pipeline(name: str, seed: int = SEED) -> Pipeline:
    """A fresh (untrained) recipe at MiniLM's V and D, with MiniLM's tokenizer."""
    return Pipeline.fresh(check_choice("recipe", name, RECIPE_NAMES), MODEL, seed=seed)


@dataclass(frozen=True, eq=False)
class RecipeView:
    """Piece `index` of a sentence, placed: the recipe, its config, the sentence's pieces and ids,
    the piece's addend rows, and the whole sentence's X compared row with row."""

    recipe: str  # the recipe's name
    pretrained: bool  # MiniLM's trained layers (PRETRAINED), or fresh ones
    config: dict[str, str | int | float | bool | None]  # the recipe's EmbeddingConfig fields
    pieces: list[str]  # the sentence's T pieces, the recipe's special tokens included
    ids: list[int]  # their ids
    specials: Specials  # the special tokens the recipe adds before and after a text
    special: list[bool]  # (T,) whether each piece is one of those, added rather than cut from the text
    index: int  # the piece placed
    available: tuple[str, ...]  # the recipe's addends
    addends: tuple[str, ...]  # those in the sum, in the recipe's order
    piece: str  # the piece placed
    id: int  # its id
    position: int  # where it is placed
    segment: int | None  # its segment; None: the recipe has no segment table
    rows: dict[str, Vector]  # addend -> (D,) its row; "total" the sum; "output" after LayerNorm (if any)
    norms: dict[str, float]  # the same names -> the row's L2 norm
    x_cosine: Matrix  # (T, T) cosine between the sentence's X rows, each at its own position
    identical: tuple[tuple[int, ...], ...]  # groups of pieces whose X rows are equal, bit for bit


@dataclass(frozen=True, eq=False)
class Recipe:
    """A named recipe and the pipeline (tokenizer + InputEmbedding) that runs it."""

    name: str
    pipeline: Pipeline

    def place(
        self,
        text: str,
        index: int,
        position: int | None = None,
        segment: int | None = None,
        addends: Sequence[str] | None = None,
        max_tokens: int = MAX_TOKENS,
    ) -> RecipeView:
        """Piece `index` of `text` (at most `max_tokens` pieces) at `position` (default: where it
        stands) in `segment` (default: its own), summing `addends` (default: all the recipe has)
        -> each of those addends' rows (D,), the sum and the output; and the whole text's X (T, D),
        every piece where it stands, as a (T, T) cosine matrix and the groups of equal rows."""
        max_tokens = check_int("max_tokens", max_tokens, low=1)
        walk = self.pipeline.walk(text, include=addends)
        if len(walk.ids) > max_tokens:
            raise InvalidValueError(f"the text is {len(walk.ids)} tokens long; the limit is {max_tokens}")
        placed = self.pipeline.place(walk, index, position, segment)
        x = walk.rows()["output"]  # (T, D): what enters attention
        return RecipeView(
            recipe=self.name,
            pretrained=self.name == PRETRAINED,
            config=asdict(self.pipeline.embedding.config),
            pieces=walk.pieces,
            ids=walk.ids,
            specials=self.pipeline.specials,
            special=walk.special,
            index=index,
            available=self.pipeline.embedding.addend_names,
            addends=walk.include,
            piece=placed.piece,
            id=placed.id,
            position=placed.position,
            segment=placed.segment,
            rows={name: row.numpy() for name, row in placed.rows.items()},
            norms=placed.norms(),
            x_cosine=score_matrix(x, x, "cosine"),
            identical=equal_rows(x),
        )


def equal_rows(x: torch.Tensor) -> tuple[tuple[int, ...], ...]:
    """(T, D) -> the groups of two or more row indices whose rows are exactly equal, by first index.

    >>> equal_rows(torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]))
    ((0, 2), (1, 3))
    """
    _, group = torch.unique(x, dim=0, return_inverse=True)  # (T,): one id per distinct row
    groups: dict[int, list[int]] = {}
    for i, g in enumerate(group.tolist()):
        groups.setdefault(g, []).append(i)
    return tuple(sorted(tuple(members) for members in groups.values() if len(members) > 1))
