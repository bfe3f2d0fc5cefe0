"""The arena's text strategies: one corpus, each strategy's tokenizer, the same TinyLM body trained
on the same compute from the same bytes of context, and what it costs and scores on held-out text.

    data = prepare_text(BUDGETS["quick"], folder)           # training and held-out lines, rare words
    tokenizer = tokenizer_for(strategy("bpe-32k"), data, folder)
    run = run_text(strategy("bpe-32k"), BUDGETS["quick"], seed=0, data=data, tokenizer=tokenizer)
    run.bits_per_byte, run.curve, run.tokens_per_input, run.latency_ms

Strategies differ only in their embedding: the tokenizer (256 raw bytes, or a byte-level BPE of
the strategy's size trained on the training part), the rows of the token table and whether the
head is tied. Body, optimiser, schedule, batch, training FLOPs and context in bytes are the budget's, for every one.
Scores are in bits per byte (bits.py) so that tokenizations compare.

Files in `folder` (each written atomically, and read back instead of being made again):
    text-CORPUS-TRAIN-EVAL-vN.json    the lines of both parts and the rare words (reading the corpus
                                      takes seconds; this takes a tenth of one)
    bpe-V-DIGEST.json                 the BPE tokenizer of size V trained on the training part whose
                                      SHA-256 starts with DIGEST: a resumed race never retrains it
"""

from __future__ import annotations

import hashlib
import json
import statistics
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from embedlab.arena.bits import RARE_BAND, Bits, rare_byte_mask, score, token_bits, unigram_bits, word_spans
from embedlab.arena.flops import budget_meter, lm_step_flops
from embedlab.arena.strategies import Budget, Strategy
from embedlab.arena.tokens import ByteTokenizer, FrequencyOrder, encode_lines, token_lengths
from embedlab.data.corpora import open_corpus, split_lines
from embedlab.errors import InvalidValueError, check_int
from embedlab.files import atomic_write_text, json_safe
from embedlab.layers.head import count_parameters
from embedlab.models.lm import LMConfig, TinyLM, adamw, train_step, warmup_cosine, window_batch
from embedlab.models.tables import table_config
from embedlab.tokenizer.fast import FastTokenizer
from embedlab.tokenizer.vocab import SubwordTokenizer, count_words
from embedlab.train.config import LM_FLOOR

CACHE_VERSION = 2  # 2: rare words seen 1-10 times, unseen words apart
LR = 3e-3  # AdamW's peak, as the lm training method's default: trains this size well
WARMUP_STEPS = 20  # a short linear warm-up; the rest of the schedule follows the budget spent
CURVE_BYTES = 16_384  # the curve scores the first held-out lines up to this many bytes: cheap, same text for all
LATENCY_INPUTS = 25  # held-out byte windows, one forward pass each, timed for the median latency


@dataclass(frozen=True)
class TextData:
    """A corpus cut into a training part and a held-out part (whole lines), with its rare words."""

    corpus: str
    train_lines: list[str]
    held_out: list[str]  # line i of the corpus when i % 10 == 9 (data.corpora.split_lines)
    train_bytes: int  # UTF-8 bytes of the training lines, each with its "\n"
    held_out_bytes: int  # the same for the held-out lines
    rare_words: frozenset[str]  # held-out words (bits.word_spans) seen bits.RARE_BAND times in the training part
    unseen_words: frozenset[str]  # held-out words the training part never holds
    digest: str  # the first 12 hex digits of the training text's SHA-256: names the files made from it


def prepare_text(budget: Budget, folder: Path) -> TextData:
    """The budget's corpus split by line (every 10th held out), each part cut to its byte budget.

    A held-out word is rare when the training part holds it RARE_BAND (1 to 10) times, unseen when
    it holds it 0 times (bits.py says why).
    """
    corpus = open_corpus(budget.corpus)
    train_bytes = check_int("train_bytes", budget.train_bytes, low=1)
    eval_bytes = check_int("eval_bytes", budget.eval_bytes, low=1)
    path = Path(folder) / f"text-{corpus.name}-{train_bytes}-{eval_bytes}-v{CACHE_VERSION}.json"
    stat = corpus.path.stat()
    source = [str(corpus.path), stat.st_size, stat.st_mtime_ns]  # a changed corpus file is read again
    try:
        stored = json.loads(path.read_text(encoding="utf-8"))
        if stored["source"] == source:
            rare, unseen = frozenset(stored["rare"]), frozenset(stored["unseen"])
            return _text_data(corpus.name, stored["train"], stored["held_out"], rare, unseen)
    except (OSError, ValueError, KeyError, TypeError):
        pass  # missing or unreadable: make it again
    train, held = split_lines(corpus)
    train, held = _cut(train, train_bytes), _cut(held, eval_bytes)
    if not train or not held:
        raise InvalidValueError(
            f"corpus {corpus.name!r} gives no whole line within train_bytes {train_bytes} and eval_bytes {eval_bytes}"
        )
    counts = count_words(train)
    held_words = {w for line in held for _, _, w in word_spans(line)}
    low, high = RARE_BAND
    rare = frozenset(w for w in held_words if low <= counts.get(w, 0) <= high)
    unseen = frozenset(w for w in held_words if w not in counts)
    path.parent.mkdir(parents=True, exist_ok=True)
    stored = {"source": source, "train": train, "held_out": held, "rare": sorted(rare), "unseen": sorted(unseen)}
    atomic_write_text(path, json.dumps(stored))
    return _text_data(corpus.name, train, held, rare, unseen)


def _text_data(
    corpus: str, train: list[str], held: list[str], rare: frozenset[str], unseen: frozenset[str]
) -> TextData:
    text = "".join(f"{line}\n" for line in train).encode("utf-8")
    digest = hashlib.sha256(text).hexdigest()[:12]
    return TextData(corpus, train, held, len(text), _size(held), rare, unseen, digest)


def _size(lines: list[str]) -> int:
    """UTF-8 bytes of the lines, each with its "\\n"."""
    return sum(len(line.encode("utf-8")) + 1 for line in lines)


def _cut(lines: list[str], limit: int) -> list[str]:
    """The first lines whose bytes (each with its "\\n") add up to at most `limit`."""
    kept, total = [], 0
    for line in lines:
        total += len(line.encode("utf-8")) + 1
        if total > limit:
            break
        kept.append(line)
    return kept


def tokenizer_for(strategy: Strategy, data: TextData, folder: Path) -> SubwordTokenizer:
    """The strategy's tokenizer: ByteTokenizer, or a byte-level BPE of strategy.arena.vocab_size
    trained on data's training part (HuggingFace tokenizers), saved in `folder` and loaded from there
    when present. Either encodes any text and decodes it back exactly."""
    _check_text(strategy)
    if strategy.tokenizer == "bytes":
        return ByteTokenizer()
    size = strategy.arena.vocab_size
    path = Path(folder) / f"bpe-{size}-{data.digest}.json"
    if path.is_file():
        return FastTokenizer.load(path)
    tokenizer = FastTokenizer.train(data.train_lines, vocab_size=size)
    path.parent.mkdir(parents=True, exist_ok=True)
    tokenizer.save(path)
    return tokenizer


@dataclass(frozen=True)
class TextRun:
    """One text strategy's measured run: scores on held-out text, cost, and its setting."""

    strategy: str
    budget: str
    corpus: str
    seed: int
    device: str
    bits_per_byte: float  # held-out, all of budget.eval_bytes (bits.py: how bytes are counted)
    rare_bits_per_byte: (
        float  # on the bytes of held-out words seen 1-10 times in training, with their spaces (NaN: none)
    )
    unseen_bits_per_byte: float  # the same for held-out words never seen in training
    untrained_bits_per_byte: float  # the three figures for the model before its first step: a baseline
    untrained_rare_bits_per_byte: float
    untrained_unseen_bits_per_byte: float
    unigram_bits_per_byte: float  # the three for a unigram model over the same tokens (bits.unigram_bits)
    unigram_rare_bits_per_byte: float
    unigram_unseen_bits_per_byte: float
    rare_bytes: int
    unseen_bytes: int
    eval_bytes: int  # bytes scored: the held-out part's, less its first token's
    curve: list[list[float]]  # [training FLOPs spent, bits per byte on the first CURVE_BYTES held out]
    clock: str  # what the budget counted: "flops" or "wall"
    train_flops: int  # steps × flops_per_step (arena/flops.py)
    flops_per_step: int
    train_seconds: float  # training steps only: curve evaluations are not counted
    steps: int
    context_bytes: int  # the budget's context in bytes, the same for every strategy
    context_tokens: int  # that context in this tokenizer's tokens: the model's T
    train_tokens: int  # tokens predicted in training (steps × batch × context_tokens)
    train_bytes_seen: int  # the bytes those tokens stand for
    tokens_per_second: float
    bytes_per_second: float
    tokens_per_input: float  # mean tokens of a held-out line (the "input")
    attention_scores_per_input: float  # mean T² of a held-out line, its full T (no window cap)
    latency_ms: float  # median forward pass, batch 1, over the same held-out byte windows for every strategy
    params_embedding: int  # token table + untied head, counted on the module
    params_total: int
    vocab_size: int  # rows of the token table: the strategy's V
    tokenizer_vocab_size: int  # tokens the tokenizer has (BPE may reach fewer than V on a small corpus)

    def to_dict(self) -> dict:
        return json_safe(asdict(self))


def context_tokens(context_bytes: int, train_bytes: int, train_tokens: int) -> int:
    """A context of `context_bytes` in a tokenizer's tokens: context_bytes over the mean bytes per
    token of the training part (train_bytes / train_tokens), rounded, at least 1. So every
    tokenization predicts from about the same text: bytes read 256 tokens where a BPE averaging
    3.2 bytes a token reads 80.

    >>> context_tokens(256, 1_000, 1_000), context_tokens(256, 3_200, 1_000), context_tokens(2, 10, 1)
    (256, 80, 1)
    """
    check_int("context_bytes", context_bytes, low=1)
    return max(1, round(context_bytes * check_int("train_tokens", train_tokens, low=1) / train_bytes))


def build_model(strategy: Strategy, budget: Budget, context: int, device: str = "cpu") -> TinyLM:
    """The TinyLM every text strategy trains: the budget's body (budget.text_dim wide), the strategy's
    table (V ids, full or of a huge vocabulary's kinds, tied or not), `context` tokens of positions,
    drawn from torch's global random state.

    >>> from embedlab.arena.strategies import BUDGETS, strategy
    >>> model = build_model(strategy("bpe-32k"), BUDGETS["quick"], 80)
    >>> model.head.weight is model.token_table, count_parameters(model.embed.token, model.head)
    (True, 512000)
    """
    layout = strategy.arena
    config = LMConfig(
        layout.vocab_size,
        budget.text_dim,
        budget.n_layers,
        budget.n_heads,
        context,
        layout.tied,
        table=table_config(layout),
    )
    return TinyLM(config, device=device)


def learning_rate(step: int, progress: float) -> float:
    """AdamW's rate at `step`, `progress` (0..1) of the budget spent: a linear warm-up over
    WARMUP_STEPS, then a cosine from LR down to LM_FLOOR·LR as the budget runs out (models.lm's schedule).

    >>> [round(learning_rate(step, progress), 6) for step, progress in ((0, 0.0), (100, 0.5), (100, 1.0))]
    [0.00015, 0.00165, 0.0003]
    """
    return warmup_cosine(step, WARMUP_STEPS, progress, LR, LM_FLOOR * LR)


def run_text(
    strategy: Strategy,
    budget: Budget,
    seed: int,
    data: TextData,
    tokenizer: SubwordTokenizer,
    device: str = "cpu",
    on_progress: Callable[[float, float | None], None] | None = None,
) -> TextRun:
    """Train TinyLM on the budget (budget.text_flops of compute, or text_seconds with clock "wall"),
    then score and time it.

    The table has strategy.arena.vocab_size rows, so the embedding costs what sizing says; a BPE
    that reached fewer tokens leaves its last rows unused as inputs (softmax learns to rule them
    out). An adaptive table's tokenizer is renumbered by frequency in the training part first
    (tokens.FrequencyOrder), so that its bands hold the frequent and the rare ids; no score depends
    on how ids are numbered. on_progress(share of the budget spent, latest curve bits per byte) is
    called before the first step and after every step. With the flops clock the run is deterministic: the same seed
    gives the same steps, batches and scores (to float round-off on another CPU).
    """
    _check_text(strategy)
    seed = check_int("seed", seed, low=0)
    rows, B = strategy.arena.vocab_size, budget.batch_size
    if tokenizer.vocab_size > rows:
        raise InvalidValueError(f"the tokenizer has {tokenizer.vocab_size} tokens; the table only {rows} rows")
    train_ids = encode_lines(tokenizer, data.train_lines)
    if strategy.arena.vocab_table == "adaptive":  # its bands are id ranges: ids must be frequency-sorted
        tokenizer = FrequencyOrder(tokenizer, train_ids)
        train_ids = tokenizer.from_inner[train_ids]
    lengths = token_lengths(tokenizer)  # (V_tok,)
    T = context_tokens(budget.context_bytes, data.train_bytes, len(train_ids))
    curve_lines = _cut(data.held_out, CURVE_BYTES) or data.held_out[:1]
    curve_ids, held_ids = encode_lines(tokenizer, curve_lines), encode_lines(tokenizer, data.held_out)

    torch.manual_seed(seed)
    model = build_model(strategy, budget, T, device)
    optimizer = adamw(model, LR)
    step_flops = lm_step_flops(model.config, B)
    spent = budget_meter(budget.clock, budget.text_flops, budget.text_seconds, step_flops)

    def curve_bpb() -> float:
        bpb = score(token_bits(model, curve_ids, T), lengths[curve_ids]).bits_per_byte
        model.train()
        return bpb

    masks = rare_byte_mask(data.held_out, data.rare_words), rare_byte_mask(data.held_out, data.unseen_words)
    untrained = score(token_bits(model, held_ids, T), lengths[held_ids], *masks)
    unigram = score(unigram_bits(train_ids, held_ids, tokenizer.vocab_size), lengths[held_ids], *masks)
    curve = [[0, curve_bpb()]]
    if on_progress is not None:
        on_progress(0.0, curve[-1][1])
    batches = training_batches(train_ids, T, B, torch.Generator().manual_seed(seed))
    lengths_t = torch.as_tensor(lengths)
    elapsed, steps, bytes_seen = 0.0, 0, 0
    while (done := spent(steps, elapsed)) < 1:
        start = time.perf_counter()
        batch = next(batches)  # (B, T + 1)
        train_step(model, optimizer, batch.to(device), learning_rate(steps, done))
        _sync(device)
        elapsed += time.perf_counter() - start
        steps += 1
        bytes_seen += int(lengths_t[batch[:, 1:]].sum())
        done = spent(steps, elapsed)
        # a point each time another tenth of the budget is spent (the last: the final model), one at most a step
        if done >= len(curve) / budget.curve_points or done >= 1:
            curve.append([steps * step_flops, curve_bpb()])
        if on_progress is not None:
            on_progress(min(done, 1.0), curve[-1][1])

    held = score(token_bits(model, held_ids, T), lengths[held_ids], *masks)
    inputs = tokenizer.encode_batch(data.held_out)  # lines without their "\n": one input each
    sizes = np.array([len(ids) for ids in inputs], dtype=np.float64)
    latency_inputs = [ids[:T] for ids in tokenizer.encode_batch(byte_windows(data.held_out, budget.context_bytes))]
    return TextRun(
        strategy.name, budget.name, data.corpus, seed, str(device), *_figures(held), *_figures(untrained),
        *_figures(unigram), held.rare_bytes, held.unseen_bytes, held.bytes, curve, budget.clock, steps * step_flops,
        step_flops, elapsed, steps, budget.context_bytes, T, steps * B * T, bytes_seen,
        steps * B * T / elapsed, bytes_seen / elapsed,
        float(sizes.mean()), float((sizes**2).mean()), _latency_ms(model, latency_inputs, device),
        count_parameters(model.embed.token, model.head), model.parameter_count(), rows, tokenizer.vocab_size,
    )  # fmt: skip


def _figures(bits: Bits) -> tuple[float, float, float]:
    """All held-out text, rare words, unseen words: bits per byte."""
    return bits.bits_per_byte, bits.rare_bits_per_byte, bits.unseen_bits_per_byte


def byte_windows(lines: list[str], size: int, count: int = LATENCY_INPUTS) -> list[str]:
    """The first `count` windows of `size` bytes of the text "line\\n"... , each cut back to whole
    characters: the same texts for every tokenizer (latency is timed on them).

    >>> byte_windows(["ab", "çd"], 3, 2)
    ['ab\\n', 'çd']
    """
    raw = "".join(f"{line}\n" for line in lines).encode("utf-8")
    return [
        raw[k * size : (k + 1) * size].decode("utf-8", errors="ignore") for k in range(min(count, len(raw) // size))
    ]


def _check_text(strategy: Strategy) -> None:
    if strategy.kind != "text":
        raise InvalidValueError(f"strategy {strategy.name!r} reads images; the text side takes text strategies only")


def training_batches(
    ids: np.ndarray, context: int, batch_size: int, generator: torch.Generator
) -> Iterator[torch.Tensor]:
    """(N,) token ids -> endless (B, T + 1) int64 training batches, drawn with `generator`.

    Each epoch starts its windows (models.lm.windows) at a random offset below T, so window edges
    move between epochs, and visits them in a random order; the windows past its last full batch
    sit that epoch out."""
    if (len(ids) - context) // context < batch_size:
        raise InvalidValueError(
            f"the training part is {len(ids)} tokens: too few for one batch of {batch_size} windows of {context}"
        )
    while True:
        offset = int(torch.randint(context, (1,), generator=generator))
        m = (len(ids) - offset - 1) // context  # windows in ids[offset:]
        order = torch.randperm(m, generator=generator)
        for k in range(m // batch_size):
            yield window_batch(ids, offset + order[k * batch_size : (k + 1) * batch_size] * context, context)


@torch.no_grad()
def _latency_ms(model: TinyLM, inputs: list[list[int]], device: str) -> float:
    """Median milliseconds of one forward pass, batch 1, over `inputs` (each at most the model's
    context), after 3 passes to warm up."""
    model.eval()
    inputs = [ids for ids in inputs if ids]
    times = []
    for k, ids in enumerate([*inputs[:3], *inputs]):
        x = torch.tensor([ids], device=device)
        start = time.perf_counter()
        model(x)
        _sync(device)
        if k >= 3:
            times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def _sync(device: str) -> None:
    """Wait for the GPU's queued work, so the clock measures it."""
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize(device)
