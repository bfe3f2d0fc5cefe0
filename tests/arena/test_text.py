"""The arena's text side: the split and its rare words, the tokenizers, bits per byte worked by hand,
the training batches and steps (as they were before the step moved to models/lm.py), and short real
training runs on enwiki-sample whose figures must make sense."""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import replace
from itertools import islice

import numpy as np
import pytest
import torch
from torch import nn

from embedlab.arena.bits import rare_byte_mask, score, token_bits, unigram_bits, word_spans
from embedlab.arena.flops import lm_step_flops
from embedlab.arena.strategies import STRATEGIES, Budget, strategy
from embedlab.arena.text import (
    LR,
    build_model,
    byte_windows,
    context_tokens,
    learning_rate,
    prepare_text,
    run_text,
    tokenizer_for,
    training_batches,
)
from embedlab.arena.tokens import ByteTokenizer, FrequencyOrder, encode_lines, token_lengths
from embedlab.data.corpora import open_corpus
from embedlab.errors import InvalidValueError
from embedlab.layers.head import count_parameters
from embedlab.models.lm import adamw, train_step
from embedlab.sizing import count
from embedlab.tokenizer.bytes import piece_bytes
from embedlab.tokenizer.vocab import count_words

# A tiny race: a second or two of training, a body of one layer, a sliver of enwiki-sample.
BUDGET = Budget("test", "enwiki-sample", train_bytes=150_000, eval_bytes=6_000, text_flops=2e10, image_flops=1e9,
                text_seconds=2.0, image_seconds=1.0, image_train=10, image_test=10, seeds=(0,), context_bytes=32,
                n_layers=1, n_heads=2, batch_size=16)  # fmt: skip
UNIFORM_TOL = 0.1  # bits per byte: an untrained table (N(0, 0.02²) rows) scores all 256 bytes nearly alike
UNIFORM_SHARE = 0.02  # the same for a BPE: within 2% of log2(V) bits per token
TEXT_STRATEGIES = [s for s in STRATEGIES.values() if s.kind == "text"]
# Recorded from the arena's code before its training step, schedule and window batches moved to
# models/lm.py (the new code gives them bit for bit here): 12 batches of a 3,000-token stream, and
# the losses of 8 steps on them and of the model after them.
BEFORE_THE_MOVE_SUMS = [68385, 69406, 67622, 70508, 67972, 66706, 69243, 69074, 68091, 69315, 70006, 68412]
BEFORE_THE_MOVE_LOSSES = [
    5.571264743804932,
    5.556735515594482,
    5.562155246734619,
    5.570459365844727,
    5.551451683044434,
    5.553594589233398,
    5.540964126586914,
    5.539162635803223,
    5.5353217124938965,
]
# float32 sums may differ in their last bits between CPUs; a rate 1% higher moves these losses by 4e-5
# of themselves, a rate without its warm-up by 6e-3
RECORDED_TOL = 2e-6


def _bytes(lines: list[str]) -> int:
    return sum(len(line.encode("utf-8")) + 1 for line in lines)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return tmp_path_factory.mktemp("arena-text")


@pytest.fixture(scope="module")
def data(folder):
    return prepare_text(BUDGET, folder)


# ----- the split ------------------------------------------------------------------------------


def test_every_tenth_line_is_held_out_and_each_part_is_cut_to_whole_lines(data):
    lines = list(islice(open_corpus("enwiki-sample"), 3000))
    held = [line for i, line in enumerate(lines) if i % 10 == 9]
    train = [line for i, line in enumerate(lines) if i % 10 != 9]
    n_train, n_held = len(data.train_lines), len(data.held_out)
    assert data.train_lines == train[:n_train] and data.held_out == held[:n_held]
    assert data.train_bytes == _bytes(data.train_lines) <= BUDGET.train_bytes < _bytes(train[: n_train + 1])
    assert data.held_out_bytes == _bytes(data.held_out) <= BUDGET.eval_bytes < _bytes(held[: n_held + 1])


def test_rare_words_are_seen_1_to_10_times_in_training_and_unseen_words_apart(data):
    counts = count_words(data.train_lines)
    held_words = {word for line in data.held_out for _, _, word in word_spans(line)}
    assert data.rare_words == {word for word in held_words if 1 <= counts[word] <= 10}  # RARE_BAND
    assert data.unseen_words == {word for word in held_words if counts[word] == 0} != set()
    assert "the" in held_words and "the" not in data.rare_words | data.unseen_words
    # rarer than the old band (below 100, unseen included), which held most of a small corpus's text
    rare_share = rare_byte_mask(data.held_out, data.rare_words).mean()
    below_100 = rare_byte_mask(data.held_out, {word for word in held_words if counts[word] < 100}).mean()
    assert 0.05 < rare_share < below_100 - 0.2, (rare_share, below_100)


def test_the_split_is_read_back_from_its_file(data, folder):
    assert len(list(folder.glob("text-enwiki-sample-150000-6000-v*.json"))) == 1
    assert prepare_text(BUDGET, folder) == data


# ----- tokenizers -----------------------------------------------------------------------------


def test_bytes_tokenizer_is_utf8_itself_and_round_trips_any_text():
    tokenizer, text = ByteTokenizer(), "naïve café ✓ 𝄞\n"
    ids = tokenizer.encode(text)
    assert ids == list(text.encode("utf-8")) and tokenizer.decode(ids) == text
    assert b"".join(piece_bytes(tokenizer.piece(i)) for i in ids) == text.encode("utf-8")
    assert token_lengths(tokenizer).tolist() == [1] * 256
    with pytest.raises(InvalidValueError, match="256"):
        tokenizer.decode([65, 256])


def test_bpe_is_trained_once_and_reloads_with_identical_ids(data, folder):
    small = strategy("small-v-tied")
    first = tokenizer_for(small, data, folder)
    path = folder / f"bpe-{small.arena.vocab_size}-{data.digest}.json"
    written = path.stat().st_mtime_ns
    again = tokenizer_for(small, data, folder)
    assert path.stat().st_mtime_ns == written  # loaded, not retrained
    assert first.vocab_size == again.vocab_size == small.arena.vocab_size
    for text in [*data.held_out[:5], "naïve café ✓ 𝄞"]:  # held-out text and characters it never saw
        ids = first.encode(text)
        assert again.encode(text) == ids and first.decode(ids) == text
        assert b"".join(piece_bytes(first.piece(i)) for i in ids) == text.encode("utf-8")


def test_an_image_strategy_has_no_tokenizer(data, folder):
    with pytest.raises(InvalidValueError, match="patch-16"):
        tokenizer_for(strategy("patch-16"), data, folder)


# ----- bits per byte by hand ------------------------------------------------------------------


class FixedBigram(nn.Module):
    """Logits fixed in advance: position t scores the next token by row ids[t] of `table`."""

    def __init__(self, table: torch.Tensor) -> None:
        super().__init__()
        self.table = nn.Parameter(table, requires_grad=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.table[ids]  # (B, T, V)


def test_token_bits_score_every_token_but_the_first_once_across_windows():
    g = torch.Generator().manual_seed(0)
    table = torch.randn(5, 5, generator=g)
    ids = torch.randint(0, 5, (23,), generator=g).numpy()  # context 4: five full windows and a tail of two
    expected = [-math.log2(torch.softmax(table[ids[i - 1]], 0)[ids[i]].item()) for i in range(1, 23)]
    np.testing.assert_allclose(token_bits(FixedBigram(table), ids, context=4), expected, rtol=1e-5)


def test_uniform_logits_cost_log2_v_bits_a_token_spread_over_its_bytes():
    ids, lengths = np.array([0, 1, 2, 1, 3]), np.array([2, 1, 3, 1, 4])  # 5 tokens of a 4-token vocabulary
    bits = token_bits(FixedBigram(torch.zeros(4, 4)), ids, context=3)
    np.testing.assert_allclose(bits, [2.0] * 4)  # log2(4)
    result = score(bits, lengths[ids])
    assert result.bytes == 1 + 3 + 1 + 1  # the first token's 2 bytes are not scored
    assert result.bits_per_byte == pytest.approx(8.0 / 6)


def test_word_spans_are_utf8_byte_offsets_of_lowercased_words():
    line = "Naïve CAFÉ, don't ✓ x_y"
    spans = word_spans(line)
    assert spans == [(0, 6, "naïve"), (7, 12, "café"), (14, 19, "don't"), (24, 25, "x"), (26, 27, "y")]
    raw = line.encode("utf-8")
    assert all(raw[a:b].decode().lower() == word for a, b, word in spans)


def test_rare_bits_are_each_tokens_bits_split_evenly_over_its_bytes_with_the_leading_space():
    # "the zyx cat\n" as the pieces "the", " zy", "x c", "at", "\n"; the first is not predicted
    lengths, bits = np.array([3, 3, 3, 2, 1]), np.array([6.0, 9.0, 4.0, 1.0])
    mask = rare_byte_mask(["the zyx cat"], {"zyx"})
    assert np.flatnonzero(mask).tolist() == [3, 4, 5, 6]  # " zyx": the word and the space before it
    result = score(bits, lengths, mask)
    assert result.bits == 20.0 and result.bytes == 9 and result.bits_per_byte == pytest.approx(20 / 9)
    # " zy" costs 6 bits, 2 on each of its bytes (all three: 6); "x c" costs 9, 3 on each (x: 3)
    assert (result.rare_bits, result.rare_bytes) == (9.0, 4) and result.rare_bits_per_byte == pytest.approx(9 / 4)
    # the same word as bytes: its space is a token of its own, and counted as well
    as_bytes = score(np.ones(11), np.ones(12, dtype=np.int64), mask)
    assert as_bytes.rare_bytes == 4
    unscored = score(bits, lengths, rare_byte_mask(["the zyx cat"], {"the"}))  # "the" is the unpredicted token
    assert unscored.rare_bytes == 0 and math.isnan(unscored.rare_bits_per_byte)
    # unseen words are scored apart, by their own mask
    apart = score(bits, lengths, mask, rare_byte_mask(["the zyx cat"], {"cat"}))
    # " cat": " c" of "x c" at 3 bits a byte, "at" at 2: 10 bits over 4 bytes
    assert (apart.rare_bits, apart.unseen_bits, apart.unseen_bytes) == (9.0, 10.0, 4)
    assert apart.unseen_bits_per_byte == 2.5


def test_the_unigram_baseline_is_add_one_smoothed_token_frequencies():
    train, held = np.array([0, 0, 0, 1, 2, 0]), np.array([3, 0, 1, 3])  # V = 4: token 3 never seen
    p = {i: (c + 1) / (6 + 4) for i, c in Counter(train.tolist()).items()} | {3: 1 / 10}
    np.testing.assert_allclose(unigram_bits(train, held, 4), [-math.log2(p[i]) for i in (0, 1, 3)])


def test_score_refuses_lengths_that_do_not_match_the_tokens():
    with pytest.raises(InvalidValueError, match="one length per token, 3; got 2"):
        score(np.array([1.0, 2.0]), np.array([1, 1]))


# ----- the model and real runs ----------------------------------------------------------------


def test_training_batches_are_whole_windows_each_epoch_at_its_own_offset():
    ids = np.arange(3000)  # a stream whose ids are their positions: a row shows where it starts
    T, B = 32, 16
    batches = list(islice(training_batches(ids, T, B, torch.Generator().manual_seed(0)), 15))
    for batch in batches:
        assert batch.dtype == torch.int64 and batch.shape == (B, T + 1)
        assert (batch - batch[:, :1] == torch.arange(T + 1)).all()  # each row a window of the stream
    for epoch in range(3):  # at most 93 windows an epoch: five batches of 16
        starts = torch.cat([b[:, 0] for b in batches[5 * epoch : 5 * epoch + 5]])
        assert len(set(starts.tolist())) == 5 * B and len(set((starts % T).tolist())) == 1  # distinct, one offset
    assert len({int(b[0, 0]) % T for b in batches[::5]}) > 1  # the offset moves between epochs


def test_the_arena_trains_as_it_did_before_its_step_moved():
    ids = np.random.default_rng(0).integers(0, 256, 3000)
    batches = list(islice(training_batches(ids, 32, 16, torch.Generator().manual_seed(0)), 12))
    assert [int(b.sum()) for b in batches] == BEFORE_THE_MOVE_SUMS
    torch.manual_seed(0)
    model = build_model(strategy("bytes"), BUDGET, 32)
    optimizer = adamw(model, LR)
    # run_text's steps, with the share of training time spent k / 8 at step k
    losses = [train_step(model, optimizer, b, learning_rate(k, k / 8)).item() for k, b in enumerate(batches[:8])]
    with torch.no_grad():
        losses.append(model.loss(batches[8]).item())
    np.testing.assert_allclose(losses, BEFORE_THE_MOVE_LOSSES, rtol=RECORDED_TOL)


@pytest.mark.parametrize("text_strategy", TEXT_STRATEGIES, ids=lambda s: s.name)
def test_the_embedding_counted_on_the_module_is_what_sizing_says(text_strategy):
    model = build_model(text_strategy, BUDGET, 32)
    if text_strategy.arena.vocab_table == "full":
        assert (model.head.weight is model.token_table) == text_strategy.arena.tied  # a tied head is its table
    report = count(text_strategy.arena)
    embedding = count_parameters(model.embed.token, model.head)
    assert embedding == text_strategy.arena_params == report.token_params + report.output_params


def test_a_bytes_run_starts_uniform_learns_and_measures_its_cost(data):
    calls = []
    run = run_text(strategy("bytes"), BUDGET, 0, data, ByteTokenizer(), on_progress=lambda *a: calls.append(a))
    curve = np.array(run.curve)
    assert abs(curve[0, 1] - 8.0) < UNIFORM_TOL  # untrained: 8 bits for each byte
    assert run.bits_per_byte < 6.5 and curve[-1, 1] < curve[0, 1] - 1.0  # trained: well below uniform
    assert len(curve) == BUDGET.curve_points + 1 and (np.diff(curve[:, 0]) > 0).all()
    # the budget buys whole steps: as many as fit, counted from the shapes
    assert run.context_tokens == BUDGET.context_bytes == 32 and run.clock == "flops"
    assert run.flops_per_step == lm_step_flops(build_model(strategy("bytes"), BUDGET, 32).config, BUDGET.batch_size)
    assert run.steps == int(BUDGET.text_flops // run.flops_per_step) and curve[-1, 0] == run.train_flops
    assert run.train_flops == run.steps * run.flops_per_step <= BUDGET.text_flops < run.train_flops + run.flops_per_step
    assert run.train_tokens == run.steps * BUDGET.batch_size * 32 == run.train_bytes_seen
    assert calls[0] == (0.0, curve[0, 1]) and calls[-1] == (1.0, curve[-1, 1])
    assert len(calls) == run.steps + 1 and all(a[0] <= b[0] for a, b in zip(calls, calls[1:], strict=False))
    sizes = np.array([len(line.encode("utf-8")) for line in data.held_out])  # one token a byte
    assert run.tokens_per_input == pytest.approx(sizes.mean()) and run.attention_scores_per_input == (sizes**2).mean()
    assert run.eval_bytes == data.held_out_bytes - 1  # all held-out bytes but the first token's
    assert run.rare_bytes == rare_byte_mask(data.held_out, data.rare_words)[1:].sum() > 0
    assert run.unseen_bytes == rare_byte_mask(data.held_out, data.unseen_words)[1:].sum() > 0
    # baselines on the same tokens: the untrained model (the curve's first point: the same text here,
    # held out < CURVE_BYTES) and the unigram model, whose bits a byte the test counts again
    assert run.untrained_bits_per_byte == pytest.approx(curve[0, 1], abs=1e-12)
    ids = encode_lines(ByteTokenizer(), data.held_out)
    counts = Counter(encode_lines(ByteTokenizer(), data.train_lines).tolist())
    n = sum(counts.values())
    unigram = sum(-math.log2((counts[i] + 1) / (n + 256)) for i in ids[1:].tolist()) / (len(ids) - 1)
    assert run.unigram_bits_per_byte == pytest.approx(unigram, rel=1e-12)
    assert run.bits_per_byte < run.unigram_bits_per_byte < run.untrained_bits_per_byte  # 8 bits: uniform
    assert run.unseen_bits_per_byte > run.rare_bits_per_byte > 0
    assert run.params_embedding == 256 * 64 == strategy("bytes").arena_params and run.vocab_size == 256
    assert run.latency_ms > 0 and run.bytes_per_second == run.tokens_per_second > 0 and run.train_seconds > 0
    json.dumps(run.to_dict(), allow_nan=False)


def test_a_bpe_run_starts_at_log2_v_per_token_and_learns(data, folder):
    small = strategy("small-v-tied")
    tokenizer = tokenizer_for(small, data, folder)
    run = run_text(small, BUDGET, 0, data, tokenizer)
    ids = encode_lines(tokenizer, data.held_out)  # the curve's text: the whole held-out part (< CURVE_BYTES)
    uniform = math.log2(small.arena.vocab_size) * (len(ids) - 1) / token_lengths(tokenizer)[ids][1:].sum()
    assert run.curve[0][1] == pytest.approx(uniform, rel=UNIFORM_SHARE)
    assert run.bits_per_byte < run.curve[0][1] - 0.2
    assert run.bits_per_byte == pytest.approx(run.curve[-1][1], abs=1e-9)  # one model, one text: one figure
    assert run.train_bytes_seen > run.train_tokens  # a BPE token stands for more than one byte
    assert run.tokens_per_input == pytest.approx(np.mean([len(tokenizer.encode(line)) for line in data.held_out]))
    assert run.untrained_bits_per_byte == pytest.approx(run.curve[0][1], abs=1e-12)
    # the same 32 bytes of context, in this tokenizer's tokens
    train_ids = encode_lines(tokenizer, data.train_lines)
    assert run.context_tokens == round(32 * len(train_ids) / data.train_bytes) < 32


def test_the_context_is_the_same_bytes_for_every_tokenizer():
    assert [context_tokens(256, 8_000_000, n) for n in (8_000_000, 3_000_000, 2_500_000)] == [256, 96, 80]
    # the text "aéb\n" in windows of 2 bytes: "a" and half of "é", the other half and "b"; halves dropped
    assert byte_windows(["aéb"], 2, count=3) == ["a", "b"]
    assert byte_windows(["the cat", "sat"], 4) == ["the ", "cat\n", "sat\n"]


def test_a_bpe_short_of_its_size_keeps_the_strategys_table(data, folder):
    large = strategy("large-v-untied")
    tokenizer = tokenizer_for(large, data, folder)
    assert tokenizer.vocab_size < large.arena.vocab_size  # 150 kB of text holds fewer than 32,000 merges
    run = run_text(large, replace(BUDGET, text_flops=4e9), 0, data, tokenizer)
    assert (run.vocab_size, run.tokenizer_vocab_size) == (large.arena.vocab_size, tokenizer.vocab_size)
    assert run.params_embedding == 2 * 32_000 * 64 == large.arena_params


def test_the_factorised_table_buys_more_steps_and_learns(data, folder):
    factorized, full = strategy("large-v-factorized"), strategy("large-v-tied")
    tokenizer = tokenizer_for(factorized, data, folder)  # large V's own 32K BPE
    short = replace(BUDGET, text_flops=4e9, curve_points=1)  # one curve point after training: its cost is the head's
    run = run_text(factorized, short, 0, data, tokenizer)
    assert run.params_embedding == 32_000 * 16 + 16 * 64 == factorized.arena_params  # the head adds nothing
    assert run.curve[-1][1] < run.curve[0][1]  # it learned
    # its tied head scores 16-wide rows: a step costs less than the tied full table's, so it buys more
    config = build_model(full, short, run.context_tokens).config
    assert run.flops_per_step < lm_step_flops(config, short.batch_size)
    assert run.steps == int(short.text_flops // run.flops_per_step)


def test_the_seed_fixes_the_run_and_the_wall_clock_is_an_option(data):
    short = replace(BUDGET, text_flops=2e9)
    first, same, other = (run_text(strategy("bytes"), short, seed, data, ByteTokenizer()) for seed in (0, 0, 1))
    assert first.curve == same.curve and first.bits_per_byte == same.bits_per_byte
    assert first.curve[0][1] != other.curve[0][1]
    wall = run_text(strategy("bytes"), replace(BUDGET, clock="wall", text_seconds=0.2), 0, data, ByteTokenizer())
    assert wall.clock == "wall" and wall.train_seconds >= 0.2 and wall.train_flops == wall.steps * wall.flops_per_step


def test_a_budget_that_buys_no_step_is_refused(data):
    with pytest.raises(InvalidValueError, match="a budget of 1e\\+06 FLOPs buys no step of"):
        run_text(strategy("bytes"), replace(BUDGET, text_flops=1e6), 0, data, ByteTokenizer())


def test_too_little_training_text_for_one_batch_is_refused(data):
    with pytest.raises(InvalidValueError, match="too few for one batch of 100000 windows of 32"):
        run_text(strategy("bytes"), replace(BUDGET, batch_size=100_000, text_flops=1e20), 0, data, ByteTokenizer())


# ----- the huge-vocabulary tables ------------------------------------------------------------


def test_bpe_ids_are_not_frequency_sorted_so_adaptive_input_renumbers_them(data, folder):
    tokenizer = tokenizer_for(strategy("large-v-adaptive"), data, folder)
    train_ids = encode_lines(tokenizer, data.train_lines)
    counts = np.bincount(train_ids, minlength=tokenizer.vocab_size)
    assert (np.diff(counts) > 0).any()  # the BPE numbers bytes, then merges in the order it made them
    order = FrequencyOrder(tokenizer, train_ids)
    renumbered = order.from_inner[train_ids]
    assert (np.diff(np.bincount(renumbered, minlength=order.vocab_size)) <= 0).all()  # id 0 the most frequent
    assert (order.from_inner[order.to_inner] == np.arange(order.vocab_size)).all()  # a permutation
    for text in [*data.held_out[:5], "naïve café ✓ 𝄞"]:  # round trips, and each id keeps its bytes
        ids = order.encode(text)
        assert ids == order.from_inner[tokenizer.encode(text)].tolist() and order.decode(ids) == text
        assert b"".join(piece_bytes(order.piece(i)) for i in ids) == text.encode("utf-8")
    assert (
        encode_lines(order, data.held_out[:3]).tolist()
        == order.from_inner[encode_lines(tokenizer, data.held_out[:3])].tolist()
    )
    assert (token_lengths(order) == token_lengths(tokenizer)[order.to_inner]).all()


@pytest.mark.slow
@pytest.mark.parametrize("name", ["large-v-adaptive", "large-v-hashed", "large-v-qr"])
def test_a_huge_vocabulary_run_learns_with_its_smaller_table(data, folder, name):
    huge = strategy(name)
    tokenizer = tokenizer_for(huge, data, folder)
    run = run_text(huge, replace(BUDGET, text_flops=4e9), 0, data, tokenizer)
    assert run.params_embedding == huge.arena_params < strategy("large-v-untied").arena_params
    assert run.bits_per_byte < run.untrained_bits_per_byte and np.isfinite(run.rare_bits_per_byte)
    assert run.flops_per_step == lm_step_flops(build_model(huge, BUDGET, run.context_tokens).config, 16)
    # unigram bits do not depend on how the ids are numbered: the same as large V's tokens
    if name == "large-v-adaptive":
        full = run_text(strategy("large-v-untied"), replace(BUDGET, text_flops=4e9), 0, data, tokenizer)
        assert run.unigram_bits_per_byte == pytest.approx(full.unigram_bits_per_byte, rel=1e-12)
