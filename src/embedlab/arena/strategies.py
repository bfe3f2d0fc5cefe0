"""The six embedding strategies of lesson 001's arena (chapter 8) and lesson 002's huge-vocabulary
tables, as data, and the race's budgets.

Each strategy carries two layouts (embedlab.sizing.EmbeddingLayout): the lesson's, at the scale of
real models, and the arena's, the one this machine actually trains. The arena keeps the lesson's
proportions, not its sizes:

    strategy         lesson: V or patch, d      arena: V or patch, d     body
    small-v-tied     8,000 × 768, tied          2,000 × 64, tied         TinyLM (text)
    large-v-untied   128,000 × 4,096, untied    32,000 × 64, untied      TinyLM
    bpe-32k          32,000 × 768, tied         8,000 × 64, tied         TinyLM
    bytes            256 × 768, tied            256 × 64, tied           TinyLM
    large-v-adaptive 128,000 × 4,096 adaptive   32,000 × 64 adaptive     TinyLM (bands at 8K, 32K / 2K, 8K, div 4)
    large-v-hashed   128,000 ids in 12,000 rows 32,000 ids in 3,000 rows TinyLM (hash embeddings, k 2; untied head)
    large-v-qr       128,000 ids, m 358, tied   32,000 ids, m 179, tied  TinyLM (quotient-remainder, "mult")
    large-v-factorized 128,000 × 1,024 → 4,096  32,000 × 16 → 64, tied   TinyLM (ALBERT's factorised table)
    large-v-tied     128,000 × 4,096, tied      32,000 × 64, tied        TinyLM (the tied tables' control)
    patch-16         16-px patches of 224 px    2-px patches of 28 px    small ViT (images)
    patch-32         32-px patches of 224 px    4-px patches of 28 px    small ViT

The vocabularies keep the lesson's 8K : 32K : 128K as 2K : 8K : 32K (1 : 4 : 16), BPE trained on
the race's own training text. Every text strategy trains the same TinyLM body at the same width,
so the one thing that differs is the embedding: the lesson's d = 4,096 for "large V" belongs to a
bigger body, and widening ours would measure the body, not the table. The patch sizes keep the
lesson's token counts: 2-px patches of a 28-px Fashion-MNIST image are 196 tokens, as 16-px
patches of a 224-px image are, and 4-px patches are 49, as 32-px ones are. "Character-level" is
byte-level here: 256 rows, the lesson's own count.

Lesson 002's answer to a huge vocabulary ("smaller d, adaptive or hashed embeddings") races on
large V's own tokenizer (the same 32K BPE) and body, so each differs from large-v-untied by its
table only:
    - large-v-adaptive: adaptive input (Baevski & Auli 2019) over the BPE's ids renumbered by
      training-part frequency (arena.tokens.FrequencyOrder): the 2,000 most frequent tokens get
      64-wide rows, the next 6,000 16-wide, the other 24,000 4-wide, tied to an adaptive softmax
      over the same bands. 1 : 4 : 16 of the vocabulary, as the lesson's 8K : 32K : 128K.
    - large-v-hashed: hash embeddings (Svenstrup et al. 2017), 32,000 ids into 3,000 shared rows,
      k = 2 rows and 2 importance weights each: the input table holds 198,000 numbers, 10.3×
      fewer than large V's 2,048,000. The head stays an untied full (V, D) table (models/tables.py
      says why the hashing trick cannot tie), so the whole embedding is 1.8× smaller, not 10×.
    - large-v-qr: quotient-remainder rows (Shi et al. 2020), id i = Q[i // 179] * R[i % 179]: 179 +
      179 rows, and a head tied to those composed rows (unique for every id): 22,912 numbers for the
      whole embedding, 179× fewer than large V's 4,096,000.
    - large-v-factorized: ALBERT's factorised embedding (Lan et al. 2020), a 32,000 × 16 table whose
      rows one 16 × 64 matrix maps up to the body's width, and a head tied to both (layers/factorized.py):
      513,024 numbers against the tied full table's 2,048,000, 4.0× fewer. E = D/4 at both scales;
      ALBERT's own E/H runs from 128/768 (base) to 128/4,096 (xxlarge).
    - large-v-tied: the plain 32,000 × 64 table that the factorised one and quotient-remainder replace,
      tied as they are, so that their gap to it is the table's, not tying's (large-v-untied differs
      from them in both).
The last two race after the recorded full race (docs/arena.md), at the quick budget over three seeds
(docs/results/factorized.json); they are left out of the quick race the lab runs, which keeps its length.
"""

from __future__ import annotations

from dataclasses import dataclass

from embedlab.arena.flops import CLOCKS
from embedlab.errors import check_choice, check_int, unknown_name
from embedlab.sizing import EmbeddingLayout, count

KINDS = ("text", "image")
TASKS = ("lm", "rare", "image", "cost")  # language modelling, rare words, image classification, cost
TASK_KINDS = {"lm": ("text",), "rare": ("text",), "image": ("image",), "cost": KINDS}

ARENA_DIM = 64  # the width of every arena body (text and image)
IMAGE_SIZE = 28  # Fashion-MNIST
LESSON_IMAGE_SIZE = 224  # ViT-B


@dataclass(frozen=True)
class Strategy:
    """One way to embed: its lesson-scale and arena-scale layouts and what the lesson claims for it.

    `lesson_tokens` is the lesson's tokens per input ("~40"), kept as the lesson wrote it; the
    race measures the real figure.
    """

    name: str
    label: str
    kind: str  # "text" | "image"
    lesson: EmbeddingLayout
    arena: EmbeddingLayout
    lesson_tokens: str
    tokenizer: str | None = None  # text: "bytes" or "bpe"

    def __post_init__(self) -> None:
        check_choice("kind", self.kind, KINDS)

    def applies_to(self, task: str) -> bool:
        """Whether the strategy can do `task` at all (patches read no text, bytes see no image)."""
        return self.kind in TASK_KINDS[check_choice("task", task, TASKS)]

    @property
    def lesson_params(self) -> int:
        """Embedding parameters at the lesson's scale: the token table (twice when untied), or the
        patch projection with its bias (ViT's CLS token and positions left out, as the lesson does)."""
        report = count(self.lesson)
        return report.patch_params if self.kind == "image" else report.token_params + report.output_params

    @property
    def arena_params(self) -> int:
        """The same count at the arena's scale."""
        report = count(self.arena)
        return report.patch_params if self.kind == "image" else report.token_params + report.output_params

    def to_dict(self) -> dict:
        """JSON-ready; an image strategy's params also come without the projection's bias (D fewer)."""
        lesson = {**self.lesson.to_dict(), "params": self.lesson_params, "tokens_per_input": self.lesson_tokens}
        arena = {**self.arena.to_dict(), "params": self.arena_params}
        if self.kind == "image":
            lesson["params_without_bias"] = self.lesson_params - self.lesson.dim
            arena["params_without_bias"] = self.arena_params - self.arena.dim
        return {"name": self.name, "label": self.label, "kind": self.kind, "tokenizer": self.tokenizer,
                "lesson": lesson, "arena": arena}  # fmt: skip


def _text(vocab_size: int, dim: int, tied: bool) -> EmbeddingLayout:
    return EmbeddingLayout(vocab_size=vocab_size, dim=dim, tied=tied)


def _huge(vocab_size: int, dim: int, tied: bool, **table: object) -> EmbeddingLayout:
    """A huge vocabulary's smaller table: sizing's hashed_rows, qr_buckets or adaptive_cutoffs fields."""
    return EmbeddingLayout(vocab_size=vocab_size, dim=dim, tied=tied, **table)


def _image(image_size: int, patch_size: int, dim: int, channels: int) -> EmbeddingLayout:
    return EmbeddingLayout(dim=dim, image_size=image_size, patch_size=patch_size, in_channels=channels)


STRATEGIES: dict[str, Strategy] = {s.name: s for s in (
    Strategy("small-v-tied", "small V + tied", "text", _text(8_000, 768, True), _text(2_000, ARENA_DIM, True),
             "~40", "bpe"),
    Strategy("large-v-untied", "large V + untied", "text", _text(128_000, 4_096, False),
             _text(32_000, ARENA_DIM, False), "~15", "bpe"),
    Strategy("bpe-32k", "subword BPE", "text", _text(32_000, 768, True), _text(8_000, ARENA_DIM, True), "~25", "bpe"),
    Strategy("bytes", "character-level", "text", _text(256, 768, True), _text(256, ARENA_DIM, True), "~120",
             "bytes"),
    Strategy("large-v-adaptive", "large V + adaptive input", "text",
             _huge(128_000, 4_096, True, adaptive_cutoffs=(8_000, 32_000), div_value=4.0),
             _huge(32_000, ARENA_DIM, True, adaptive_cutoffs=(2_000, 8_000), div_value=4.0), "~15", "bpe"),
    Strategy("large-v-hashed", "large V hashed", "text", _huge(128_000, 4_096, False, hashed_rows=12_000, hash_count=2),
             _huge(32_000, ARENA_DIM, False, hashed_rows=3_000, hash_count=2), "~15", "bpe"),
    Strategy("large-v-qr", "large V quotient-remainder", "text", _huge(128_000, 4_096, True, qr_buckets=358),
             _huge(32_000, ARENA_DIM, True, qr_buckets=179), "~15", "bpe"),
    Strategy("large-v-factorized", "large V factorised (ALBERT)", "text",
             _huge(128_000, 4_096, True, factor_dim=1_024), _huge(32_000, ARENA_DIM, True, factor_dim=ARENA_DIM // 4),
             "~15", "bpe"),
    Strategy("large-v-tied", "large V + tied", "text", _text(128_000, 4_096, True), _text(32_000, ARENA_DIM, True),
             "~15", "bpe"),
    Strategy("patch-16", "patch 16 (ViT)", "image", _image(LESSON_IMAGE_SIZE, 16, 768, 3),
             _image(IMAGE_SIZE, 2, ARENA_DIM, 1), "196"),
    Strategy("patch-32", "patch 32 (ViT)", "image", _image(LESSON_IMAGE_SIZE, 32, 768, 3),
             _image(IMAGE_SIZE, 4, ARENA_DIM, 1), "49"),
)}  # fmt: skip


def strategy(name: str) -> Strategy:
    """The strategy registered as `name`."""
    if name not in STRATEGIES:
        raise unknown_name("strategy", name, STRATEGIES)
    return STRATEGIES[name]


@dataclass(frozen=True)
class Budget:
    """How much of everything one race spends; `seeds` repeat each run.

    With clock "flops" (the default) every text strategy gets the same training compute,
    `text_flops`, counted from the model's shapes (arena/flops.py), and every image strategy
    `image_flops`: a run trains for the whole steps its budget buys, so the same seed gives the
    same run on any load, and the same numbers on the same machine. With clock "wall" each trains
    for `text_seconds` / `image_seconds` of this machine's time instead (a busy machine buys fewer
    steps). Either way a run reports its FLOPs, steps and seconds.

    Every text strategy predicts from the same `context_bytes` of text: its context in tokens is
    that many bytes in its tokens, context_bytes / (mean bytes per token of the training part),
    rounded (arena.text.context_tokens).
    """

    name: str
    corpus: str  # the built-in corpus the text strategies learn from
    train_bytes: int  # of the corpus's training part (the held-out part is every 10th line)
    eval_bytes: int  # of the held-out part, for bits per byte
    text_flops: float  # training FLOPs per text strategy and seed (clock "flops")
    image_flops: float  # the same per image strategy and seed
    text_seconds: float  # training time per text strategy and seed (clock "wall")
    image_seconds: float
    image_train: int  # training images used (of 60,000)
    image_test: int  # test images scored (of 10,000)
    seeds: tuple[int, ...]
    context_bytes: int = 256  # bytes of text every text strategy predicts from
    n_layers: int = 2
    n_heads: int = 4
    text_dim: int = ARENA_DIM  # TinyLM's width D for every text strategy (the budget sweep widens it)
    batch_size: int = 32  # windows of context_bytes: about the same text per step for every tokenizer
    clock: str = "flops"  # "flops" | "wall"
    curve_points: int = 10  # learning-curve points after the untrained one, evenly spaced over the budget
    strategies: tuple[str, ...] = ()  # raced when a race names none; () for every one in STRATEGIES

    def __post_init__(self) -> None:
        check_choice("clock", self.clock, CLOCKS)
        check_int("curve_points", self.curve_points, low=1)


# The FLOPs keep the wall-clock race's run lengths on the 2-core development machine. Its full race
# (an idle machine) did 40-55 GFLOP/s by arena/flops.py's count for text and 52-61 for images, so
# 8e12 is about 180 s a text run and 6.5e12 about 120 s an image run; the quick race's 5e11 and 8e11
# are its 12 and 15 s. Each run reports its seconds beside its FLOPs.
QUICK_TEXT_FLOPS, QUICK_IMAGE_FLOPS = 5e11, 8e11
# The quick race (the lab's button, ≤ 3 minutes) leaves quotient-remainder out: its tied head builds
# all 32,000 rows from the two small tables at every step, which on this CPU takes ~2.5× the wall time
# of large V's step for the same FLOPs. It leaves out the factorised table and its tied control too,
# to keep its length (they were raced on their own: docs/arena.md). The full race and `--strategies`
# still race all three.
QUICK_LEFT_OUT = ("large-v-qr", "large-v-factorized", "large-v-tied")
QUICK_STRATEGIES = tuple(name for name in STRATEGIES if name not in QUICK_LEFT_OUT)
FULL_TEXT_FLOPS, FULL_IMAGE_FLOPS = 8e12, 6.5e12
BUDGETS: dict[str, Budget] = {
    "quick": Budget("quick", "enwiki-sample", 600_000, 60_000, text_flops=QUICK_TEXT_FLOPS,
                    image_flops=QUICK_IMAGE_FLOPS, text_seconds=12.0, image_seconds=15.0, image_train=10_000,
                    image_test=2_000, seeds=(0,), strategies=QUICK_STRATEGIES),
    "full": Budget("full", "gcide", 8_000_000, 400_000, text_flops=FULL_TEXT_FLOPS, image_flops=FULL_IMAGE_FLOPS,
                   text_seconds=180.0, image_seconds=120.0, image_train=60_000, image_test=10_000, seeds=(0, 1, 2)),
}  # fmt: skip
