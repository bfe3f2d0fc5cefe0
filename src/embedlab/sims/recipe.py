"""Input recipe (lab simulation 3): one piece of a sentence as token + position (+ segment) rows,
their sum and, where the recipe has one, LayerNorm.

"bert" is MiniLM's real input embedding; "gpt2" and "transformer" are fresh layers of the same
size (MiniLM's vocabulary and width, seed 0) fed MiniLM's token ids, so the three compare.

    recipe = Recipe("bert", Pipeline.load("minilm"))
    view = recipe.place("the cat sat on the mat", index=2, position=40)
    view.placement.rows["token"]          # (D,) "cat"'s row: the same at every position
    view.placement.rows["position"]       # (D,) row 40 of the position table
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from embedlab.errors import InvalidValueError, check_choice, check_int
from embedlab.models.pipeline import Pipeline, Placement

RECIPE_NAMES = ("bert", "gpt2", "transformer")
PRETRAINED = "bert"  # the recipe whose layers are MiniLM's trained ones; the others are fresh
MODEL = "minilm"  # the built-in model whose tokenizer (and, for bert, whose layers) every recipe uses
SEED = 0  # fresh recipes: the same layers at every start
MAX_TOKENS = 64  # pieces of a sentence, [CLS] and [SEP] included: a page shows each as a chip


def fresh_pipeline(name: str, seed: int = SEED) -> Pipeline:
    """A fresh (untrained) recipe at MiniLM's V and D, with MiniLM's tokenizer."""
    return Pipeline.fresh(check_choice("recipe", name, RECIPE_NAMES), MODEL, seed=seed)


@dataclass(frozen=True, eq=False)
class RecipeView:
    """Piece `index` of a sentence, placed: the recipe, its config, the sentence's pieces and ids."""

    recipe: str
    config: dict  # the recipe's EmbeddingConfig fields
    pieces: list[str]
    ids: list[int]
    index: int
    placement: Placement  # the piece's addend rows (D,) each, their sum, the output and norms

    def to_dict(self) -> dict:
        """Plain JSON, the placement's fields one level up."""
        return {"recipe": self.recipe, "pretrained": self.recipe == PRETRAINED, "config": self.config,
                "pieces": self.pieces, "ids": self.ids, "index": self.index, **self.placement.to_dict()}  # fmt: skip


@dataclass(frozen=True, eq=False)
class Recipe:
    """A named recipe and the pipeline (tokenizer + InputEmbedding) that runs it."""

    name: str
    pipeline: Pipeline

    def place(self, text: str, index: int, position: int | None = None, segment: int | None = None,
              max_tokens: int = MAX_TOKENS) -> RecipeView:  # fmt: skip
        """Piece `index` of `text` (at most `max_tokens` pieces) at `position` (default: where it
        stands) in `segment` (default: its own) -> every addend's row (D,), the sum and the output."""
        walk = self.pipeline.walk(text)
        max_tokens = check_int("max_tokens", max_tokens, low=1)
        if len(walk.ids) > max_tokens:
            raise InvalidValueError(f"the text is {len(walk.ids)} tokens long; the limit is {max_tokens}")
        placement = self.pipeline.place(walk, index, position, segment)
        return RecipeView(self.name, asdict(self.pipeline.embedding.config), walk.pieces, walk.ids, index, placement)
