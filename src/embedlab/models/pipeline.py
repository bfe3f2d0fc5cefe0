"""A real model's input side, walked step by step: text -> pieces -> ids -> addends -> X.

    pipe = Pipeline.load("minilm")
    walk = pipe.walk("the cat sat on the mat")
    walk.pieces        ['[CLS]', 'the', 'cat', ..., '[SEP]']
    walk.parts.token   (T, D) token rows;  .position, .segment, .total, .output likewise
    walk.norms()       {'token': [...], 'position': [...], ...}: one L2 norm per token
    pipe.place(walk, 2, position=40)   'cat' moved to position 40: its addends, each (D,)
    pipe.walk("the cat sat on the mat", include=("token", "segment"))
                       no position rows in the sum: both "the" get the same row of X

    Pipeline.fresh("gpt2")             MiniLM's tokenizer with a newly initialised gpt2 recipe, and
                                       gpt2's special tokens: none, so the pieces are the text's own
    SPECIALS["bert"]                   Specials(start=('[CLS]',), end=('[SEP]',))

The norms show the lessons' point about magnitudes: which addend dominates the sum.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import torch
from tokenizers import Tokenizer
from tokenizers.processors import TemplateProcessing

from embedlab.data.models import read_config, resolve_model
from embedlab.errors import InvalidValueError, check_int
from embedlab.layers.recipes import ADDEND_NAMES, EmbeddingParts, InputEmbedding
from embedlab.models.pretrained import bert_config, load_input_embedding, load_tokenizer

ADDENDS = (*ADDEND_NAMES, "total", "output")


@dataclass(frozen=True)
class Specials:
    """The special tokens a recipe's tokenizer adds around a plain text: `start` before its pieces,
    `end` after them. A pair of texts is start A end B end (BERT's layout, B in segment 1)."""

    start: tuple[str, ...] = ()  # e.g. ("[CLS]",): BERT classifies from this piece's last state
    end: tuple[str, ...] = ()  # e.g. ("[SEP]",): BERT closes each sentence with it

    @classmethod
    def of(cls, tokenizer: Tokenizer) -> Specials:
        """What `tokenizer` adds around a one-word text, read from its special-tokens mask."""
        enc = tokenizer.encode("a")
        first, last = enc.special_tokens_mask.index(0), len(enc.ids) - enc.special_tokens_mask[::-1].index(0)
        return cls(tuple(enc.tokens[:first]), tuple(enc.tokens[last:]))

    def processor(self, tokenizer: Tokenizer, where: str) -> TemplateProcessing:
        """The post-processor that adds these tokens, with their ids in `tokenizer`'s vocabulary
        (`where`, e.g. "recipe 'llama' on minilm", names the pair in the error when one is missing)."""
        ids = {}
        for token in dict.fromkeys(self.start + self.end):
            ids[token] = tokenizer.token_to_id(token)
            if ids[token] is None:
                raise InvalidValueError(f"{where}: the recipe adds {token!r}, which the tokenizer's vocabulary lacks")
        start, end = list(self.start), list(self.end)
        return TemplateProcessing(
            single=[*start, "$A", *end],
            pair=[*start, "$A", *end, "$B:1", *(f"{t}:1" for t in end)],
            special_tokens=list(ids.items()),
        )


# What each recipe's family adds to a plain text (models/pretrained.py loads a real model's own).
SPECIALS: dict[str, Specials] = {
    "bert": Specials(("[CLS]",), ("[SEP]",)),
    # GPT-2's tokenizer adds nothing: <|endoftext|> separates documents in its training stream only.
    "gpt2": Specials(),
    # The original paper's encoder reads the source pieces as they are; it names no marker.
    "transformer": Specials(),
    "llama": Specials(("<s>",)),  # a beginning-of-sequence token, no end: generation goes on
    "gemma": Specials(("<bos>",)),
    "t5": Specials((), ("</s>",)),  # the end-of-sequence token only
}


@dataclass
class Walk:
    """One text through the input embedding; tensors are (T, D), the batch dimension dropped."""

    text: str
    pair: str | None
    pieces: list[str]
    ids: list[int]
    segment_ids: list[int]
    special: list[bool]  # per piece: added by the recipe (Specials), not cut from the text
    parts: EmbeddingParts
    include: tuple[str, ...]  # the addends in the sum (and so in X), in the recipe's order

    def rows(self) -> dict[str, torch.Tensor]:
        """Addend name -> (T, D) rows, for the addends the model has (positions broadcast)."""
        out = {}
        for name in ADDENDS:
            value = getattr(self.parts, name)  # (1, T, D), or (T, D) for default positions
            if value is not None:
                out[name] = value[0] if value.dim() == 3 else value
        return out

    def norms(self) -> dict[str, list[float]]:
        """Addend name -> the L2 norm of each token's row, (T,) as a list."""
        return {name: rows.norm(dim=-1).tolist() for name, rows in self.rows().items()}

    def to_dict(self) -> dict:
        """Everything, JSON-ready: pieces, ids, segment ids, every row and its norms."""
        return {
            "text": self.text,
            "pair": self.pair,
            "pieces": self.pieces,
            "ids": self.ids,
            "segment_ids": self.segment_ids,
            "special": self.special,
            "positions": list(range(len(self.ids))),
            "include": list(self.include),
            "norms": self.norms(),
            "rows": {name: rows.tolist() for name, rows in self.rows().items()},
        }


@dataclass
class Placement:
    """One token of a walk, looked up at a position the caller picks: each addend's row (D,)."""

    piece: str
    id: int
    position: int
    segment: int | None  # None: the recipe has no segment table
    rows: dict[str, torch.Tensor]  # addend name -> (D,); "output" only where a LayerNorm follows the sum

    def norms(self) -> dict[str, float]:
        """Addend name -> the L2 norm of its row."""
        return {name: row.norm().item() for name, row in self.rows.items()}


class Pipeline:
    """A tokenizer and the InputEmbedding of the same model; `specials` what the tokenizer adds."""

    def __init__(self, tokenizer: Tokenizer, embedding: InputEmbedding) -> None:
        # subtle: saved tokenizers often pad to a fixed length and truncate silently; a walk
        # shows the real pieces and rejects an over-long text instead.
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self.tokenizer = tokenizer
        self.embedding = embedding
        self.specials = Specials.of(tokenizer)

    @classmethod
    def load(cls, name_or_path: str | Path) -> Pipeline:
        """A built-in model name ("minilm") or a HuggingFace-format folder."""
        folder = resolve_model(name_or_path)
        return cls(load_tokenizer(folder), load_input_embedding(folder))

    @classmethod
    def fresh(cls, recipe: str, model: str | Path = "minilm", seed: int = 0) -> Pipeline:
        """`model`'s tokenizer with a newly initialised `recipe` at the model's V and D (eval mode),
        adding the recipe's special tokens (SPECIALS), not the model's.

        The same ids then go through a trained table and an untrained one of the same size.
        """
        folder = resolve_model(model)
        config = bert_config(read_config(folder))
        # subtle: the layers draw from torch's global generator; forking it keeps the seed's draws
        # reproducible without disturbing the caller's random state.
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(check_int("seed", seed, low=0))
            embedding = InputEmbedding.from_recipe(recipe, config.vocab_size, config.dim)
        tokenizer = load_tokenizer(folder)
        # the recipe's own markers: a gpt2 walk through BERT's tokenizer has no [CLS] or [SEP]
        tokenizer.post_processor = SPECIALS[recipe].processor(tokenizer, f"recipe {recipe!r} on {model}")
        return cls(tokenizer, embedding.eval())

    @torch.no_grad()
    def walk(self, text: str, pair: str | None = None, include: Collection[str] | None = None) -> Walk:
        """Tokenize `text` (and `pair` as sentence B) and run the input embedding on it, summing the
        addends named in `include` (default: all the recipe has; see InputEmbedding.addends)."""
        if not isinstance(text, str) or not text.strip():
            raise InvalidValueError("text must be a non-empty string", param="text")
        enc = self.tokenizer.encode(text, pair) if pair is not None else self.tokenizer.encode(text)
        max_len = self.embedding.config.max_len
        if len(enc.ids) > max_len:
            raise InvalidValueError(f"the text is {len(enc.ids)} tokens long; this model takes at most {max_len}")
        ids = torch.tensor([enc.ids])  # (1, T)
        segments = torch.tensor([enc.type_ids]) if self.embedding.segment is not None else None
        include = self.embedding.check_include(include)  # the names, in order, for the walk to keep
        parts = self.embedding.addends(ids, segments, include=include)
        special = [bool(m) for m in enc.special_tokens_mask]
        return Walk(text, pair, list(enc.tokens), list(enc.ids), list(enc.type_ids), special, parts, include)

    @torch.no_grad()
    def place(self, walk: Walk, index: int, position: int | None = None, segment: int | None = None) -> Placement:
        """Token `index` of `walk` looked up at `position` (default: where it stands) in `segment`
        (default: its own; recipes without a segment table take none), summing the walk's addends.

        The token row stays the same wherever the token goes; the position row and the sum move.
        """
        c = self.embedding.config
        index = check_int("index", index, low=0, high=len(walk.ids) - 1)
        position = index if position is None else check_int("position", position, low=0, high=c.max_len - 1)
        if self.embedding.segment is None:
            if segment is not None:
                raise InvalidValueError(f"segment {segment} given, but this recipe has no segment table")
        else:
            default = walk.segment_ids[index]
            segment = default if segment is None else check_int("segment", segment, low=0, high=c.n_segments - 1)
        ids = torch.tensor([[walk.ids[index]]])  # (1, 1)
        segments = None if segment is None else torch.tensor([[segment]])
        parts = self.embedding.addends(ids, segments, torch.tensor([position]), include=walk.include)
        names = [n for n in ADDENDS if getattr(parts, n) is not None and (n != "output" or c.layer_norm)]
        rows = {n: getattr(parts, n).reshape(c.dim) for n in names}  # (1, 1, D) or (1, D) -> (D,)
        return Placement(walk.pieces[index], walk.ids[index], position, segment, rows)
