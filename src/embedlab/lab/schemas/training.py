"""Requests and answers of the pages that train: training, subwords, the strategy arena."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from embedlab.lab.schemas.base import Answer, Matrix, Vector

# ---- training --------------------------------------------------------------------------------------

DIMS = (2, 8, 32, 100, 300)  # the page's choices; any width in 2..MAX_DIM is accepted
MAX_DIM = 300
MAX_EPOCHS = 10
MIN_WORDS, MAX_WORDS = 1_000, 5_000_000  # the word limit: ~45 s at the 116k words/s of one thread
MAX_NAME = 100  # characters of a corpus or token name


class StartRequest(BaseModel):
    """A run to start: every field bounded (unknown fields, such as threads, are refused)."""

    model_config = ConfigDict(extra="forbid")
    corpus: str = Field("enwiki-sample", min_length=1, max_length=MAX_NAME, description="a built-in corpus name")
    method: Literal["sgns", "cbow"] = "sgns"
    dim: int = Field(8, ge=2, le=MAX_DIM, description=f"row width D, 2..{MAX_DIM}")
    epochs: int = Field(3, ge=1, le=MAX_EPOCHS, description=f"passes over the corpus, 1..{MAX_EPOCHS}")
    max_words: int = Field(MAX_WORDS, ge=MIN_WORDS, le=MAX_WORDS, description="stop after this many words")


class TrainingOptions(Answer):
    corpora: list[str]  # the built-in corpora installed here
    methods: list[str]
    dims: list[int]
    defaults: StartRequest


class FrameAnswer(Answer):
    index: int
    done: int  # words trained when it was taken
    coordinates: Matrix  # (W, 2)
    variance: Vector  # share of the variance on each axis


class TrainingState(Answer):
    run: int
    status: str
    message: str
    config: dict[str, Any] | None  # the RunConfig's settings
    max_words: int | None
    progress: dict[str, Any] | None  # train.run.Progress; loss None before the first scored word
    tokens: list[str]
    themes: list[str]
    frame_count: int
    frames: list[FrameAnswer]


class WatchedRowAnswer(Answer):
    token: str
    frame: int
    done: int
    row: Vector  # (D,)
    norm: float


# ---- subwords --------------------------------------------------------------------------------------


class VocabularyState(Answer):
    size: int  # asked for
    trained: bool
    # how it was made, once trained:
    corpus: str | None = None
    vocab_size: int | None = None
    lines: int | None = None
    held_out: int | None = None
    train_seconds: float | None = None
    count_seconds: float | None = None


class CorpusVocabularies(Answer):
    name: str
    available: bool
    missing: str | None  # why it cannot be read here
    vocabularies: list[VocabularyState]


class VocabulariesAnswer(Answer):
    sizes: list[int]
    default: str
    corpora: list[CorpusVocabularies]


class PieceAnswer(Answer):
    piece: str
    text: str
    id: int
    count: int
    band: str


class SplitView(Answer):
    size: int
    vocab_size: int
    pieces: list[PieceAnswer]


class SplitAnswer(Answer):
    corpus: str
    text: str
    leading_space: bool
    vocabularies: list[SplitView]


class RungAnswer(Answer):
    size: int
    vocab_size: int
    pieces_per_word: float
    pieces_per_rare_word: float
    pieces_per_other_word: float
    paragraph_tokens: int
    rare_piece_share: float
    spelled_back: bool
    params: int
    mib_fp32: float
    mib_fp16: float
    word_rows: int
    word_oov_running: float
    word_oov_distinct: float
    word_paragraph_unknown: int


class LeftOutAnswer(Answer):
    size: int
    reason: str


class SubwordTableAnswer(Answer):
    corpus: str
    held_out_every: int
    train_lines: int
    held_out_lines: int
    held_out_words: int
    distinct_words: int
    rare_band: str
    rare_below: int
    rare_words: int
    rare_share: float
    paragraph: str
    paragraph_words: int
    dim: int
    rungs: list[RungAnswer]
    left_out: list[LeftOutAnswer]


# ---- strategy arena ---------------------------------------------------------------------------------


class ArenaEvent(Answer):
    strategy: str
    seed: int
    stage: str  # preparing | training | finished | resumed
    elapsed: float  # training seconds so far
    seconds: float  # of the budget
    value: float | None  # the latest curve point (bits per byte or accuracy)


class ArenaState(Answer):
    status: str  # idle | running | finished | failed (the race this server started)
    message: str  # why it failed
    progress: list[ArenaEvent]  # one per (strategy, seed) of the running race
    source: str | None  # "full" or "quick": which race `race` is; None before any
    race: dict[str, Any] | None  # the race's summary, as results.json holds it (see embedlab.arena.runner)
