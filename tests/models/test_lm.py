"""The tied-embedding language model: tying is one Parameter, causality holds, the shared training
step, schedule and window batches do what they say, and a short real training run on enwiki-sample
beats the unigram baseline."""

from __future__ import annotations

import math
from itertools import islice

import numpy as np
import pytest
import torch

from embedlab.data.corpora import open_corpus
from embedlab.errors import InvalidValueError
from embedlab.models.lm import (
    CLIP_NORM,
    LMConfig,
    TinyLM,
    adamw,
    evaluate,
    train_step,
    warmup_cosine,
    window_batch,
    windows,
)
from embedlab.tokenizer.fast import FastTokenizer

V, D = 50, 16
RATE_TOL = 1e-12  # a rate is a few double operations from its hand-worked value


def test_tied_head_is_the_token_table_and_untied_adds_v_times_d():
    tied = TinyLM(LMConfig(V, dim=D, n_layers=1, n_heads=2, context=8, tied=True))
    untied = TinyLM(LMConfig(V, dim=D, n_layers=1, n_heads=2, context=8, tied=False))
    assert tied.head.weight is tied.token_table and tied.head.tied
    assert untied.head.weight is not untied.token_table and not untied.head.tied
    assert untied.parameter_count() - tied.parameter_count() == V * D


def test_tied_table_gets_gradient_from_both_ends():
    torch.manual_seed(0)
    model = TinyLM(LMConfig(V, dim=D, n_layers=1, n_heads=2, context=8, tied=True))
    batch = torch.randint(0, V, (3, 9))
    model.loss(batch).backward()
    grad = model.token_table.grad
    # rows never read as input still get gradient through the output scores
    unseen = sorted(set(range(V)) - set(batch[:, :-1].flatten().tolist()))
    assert unseen and grad[unseen].abs().sum() > 0


def test_causal_future_pieces_do_not_change_earlier_logits():
    torch.manual_seed(0)
    model = TinyLM(LMConfig(V, dim=D, n_layers=2, n_heads=2, context=8, tied=True)).eval()
    ids = torch.randint(0, V, (1, 8))
    changed = ids.clone()
    changed[0, 5:] = (changed[0, 5:] + 1) % V
    torch.testing.assert_close(model(ids)[:, :5], model(changed)[:, :5])
    assert not torch.allclose(model(ids)[:, 5:], model(changed)[:, 5:])


def test_windows_cover_each_piece_once():
    w = windows(np.arange(11), 4)
    assert w.tolist() == [[0, 1, 2, 3, 4], [4, 5, 6, 7, 8]]
    with pytest.raises(InvalidValueError, match="need at least 5 pieces"):
        windows(np.arange(3), 4)


def test_window_batch_reads_the_windows_asked_for_from_a_memory_map(tmp_path):
    ids = np.arange(100, dtype=np.int32)
    ids.tofile(tmp_path / "ids.bin")
    mapped = np.memmap(tmp_path / "ids.bin", dtype=np.int32, mode="r")  # how the lm job holds its corpus
    batch = window_batch(mapped, np.array([8, 0, 16]), 8)
    assert batch.dtype == torch.int64 and batch.shape == (3, 9)
    assert batch.tolist() == windows(ids, 8)[[1, 0, 2]].tolist()  # windows 1, 0 and 2 of the stream
    assert window_batch(ids, torch.tensor([3]), 2).tolist() == [[3, 4, 5]]  # any start, given as a tensor too


def test_warmup_cosine_rises_to_its_peak_then_falls_to_its_floor():
    peak, floor = 3e-3, 3e-4
    assert warmup_cosine(0, 20, 0.0, peak, floor) == pytest.approx(1.5e-4, rel=RATE_TOL)  # 1/20 of the peak
    assert warmup_cosine(19, 20, 0.0, peak, floor) == pytest.approx(3e-3, rel=RATE_TOL)  # the warm-up's end: the peak
    assert warmup_cosine(9, 20, 0.5, peak, floor) == pytest.approx(0.5 * 1.65e-3, rel=RATE_TOL)  # warm-up × cosine
    # a quarter of the way: floor + (peak - floor) · (1 + cos(π/4)) / 2, cos(π/4) = √2/2
    quarter = 3e-4 + 2.7e-3 * (1 + math.sqrt(2) / 2) / 2
    assert warmup_cosine(100, 20, 0.25, peak, floor) == pytest.approx(quarter, rel=RATE_TOL)
    assert warmup_cosine(100, 20, 0.5, peak, floor) == pytest.approx(1.65e-3, rel=RATE_TOL)  # (peak + floor) / 2
    assert warmup_cosine(100, 20, 1.0, peak, floor) == pytest.approx(3e-4, rel=RATE_TOL)  # the end: the floor
    assert warmup_cosine(100, 20, 1.5, peak, floor) == pytest.approx(3e-4, rel=RATE_TOL)  # held there past the end


def test_one_train_step_lowers_the_loss_on_a_fixed_batch():
    torch.manual_seed(0)
    model = TinyLM(LMConfig(V, dim=D, n_layers=1, n_heads=2, context=8, tied=True))
    batch = torch.randint(0, V, (4, 9))
    before = model.loss(batch).item()
    optimizer = adamw(model, lr=1.0)
    loss = train_step(model, optimizer, batch, lr=1e-2)
    assert loss.item() == before and not loss.requires_grad  # the loss the step was taken on
    assert optimizer.param_groups[0]["lr"] == 1e-2  # the rate given, not the optimiser's first one
    assert model.loss(batch).item() < before - 0.05


def test_train_step_clips_the_gradient_to_clip_norm():
    torch.manual_seed(0)
    model = TinyLM(LMConfig(V, dim=64, n_layers=2, n_heads=2, context=8, tied=True))
    batch = torch.randint(0, V, (4, 9))
    model.loss(batch).backward()
    raw = torch.nn.utils.get_total_norm([p.grad for p in model.parameters()])
    assert raw > 2 * CLIP_NORM  # so that the clip has work to do
    train_step(model, adamw(model, lr=1e-3), batch, lr=1e-3)  # starts from zero gradients
    clipped = torch.nn.utils.get_total_norm([p.grad for p in model.parameters()])  # what the step used
    assert clipped == pytest.approx(CLIP_NORM, rel=1e-5)  # float32 sums of squares


def test_bad_configs():
    with pytest.raises(InvalidValueError, match="multiple of n_heads"):
        LMConfig(V, dim=10, n_layers=1, n_heads=4, context=8, tied=True)
    with pytest.raises(InvalidValueError, match="vocab_size must be >= 2"):
        LMConfig(1, dim=8, n_layers=1, n_heads=2, context=8, tied=True)
    model = TinyLM(LMConfig(V, dim=D, n_layers=2, n_heads=2, context=4, tied=True))
    with pytest.raises(InvalidValueError, match="context"):
        model(torch.zeros(1, 5, dtype=torch.int64))


def test_short_training_on_a_real_corpus_beats_the_unigram_baseline():
    torch.manual_seed(0)
    lines = list(islice(iter(open_corpus("enwiki-sample")), 400))
    tokenizer = FastTokenizer.train(lines, vocab_size=400)
    ids = np.array([i for line in lines for i in tokenizer.encode(line)])
    split = int(0.9 * len(ids))
    train, valid = windows(ids[:split], 32), windows(ids[split:], 32)
    counts = np.bincount(ids[:split], minlength=400) + 1  # add-one: the baseline to beat
    p = counts / counts.sum()
    unigram = -float(np.mean(np.log(p[valid[:, 1:].flatten().numpy()])))

    model = TinyLM(LMConfig(400, dim=64, n_layers=2, n_heads=4, context=32, tied=True))
    start, _ = evaluate(model, valid)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for _ in range(2):  # two passes over the training windows, batches of 16
        for batch in train[torch.randperm(len(train))].split(16):
            optimizer.zero_grad()
            model.loss(batch).backward()
            optimizer.step()
    loss, perplexity = evaluate(model, valid)
    assert start > math.log(400) - 0.5  # an untrained model is close to uniform
    assert loss < unigram - 0.2, (loss, unigram)  # context helps beyond piece frequencies
    assert perplexity == pytest.approx(math.exp(loss))
