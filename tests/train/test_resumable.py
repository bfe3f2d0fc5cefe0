"""Rows kept chunk by chunk: made once, read back, made again when damaged; and the key of a model's
weights. The distillation's use of them is checked against the encoder run directly."""

from __future__ import annotations

import numpy as np
import torch

from embedlab.files import cache_dir
from embedlab.models.encoder import Encoder
from embedlab.train.distill import token_outputs
from embedlab.train.distill_vocabulary import Vocabulary
from embedlab.train.resumable import kept_rows, model_key


def test_rows_are_made_once_kept_and_made_again_when_damaged(tmp_path):
    calls = []

    def make(start, stop):
        calls.append((start, stop))
        return np.arange(start, stop, dtype=np.float64)[:, None] * np.ones((1, 3))

    seen = []
    first = kept_rows(tmp_path, 10, 3, make, chunk=4, progress=seen.append)
    assert calls == [(0, 4), (4, 8), (8, 10)] and seen == [4, 4, 2]
    assert first.dtype == np.float32 and (first[:, 0] == np.arange(10)).all()
    calls.clear()
    np.testing.assert_array_equal(kept_rows(tmp_path, 10, 3, make, chunk=4), first)
    assert calls == []  # every chunk read back
    (tmp_path / "000001.npy").write_bytes(b"\x93NUMPY cut")  # a chunk cut short
    np.save(tmp_path / "000002.npy", np.full((2, 3), np.nan, dtype=np.float32))  # one not finite
    np.testing.assert_array_equal(kept_rows(tmp_path, 10, 3, make, chunk=4), first)
    assert calls == [(4, 8), (8, 10)]
    calls.clear()
    kept_rows(None, 10, 3, make, chunk=4)  # no folder: nothing kept, everything made
    assert calls == [(0, 4), (4, 8), (8, 10)] and sorted(p.name for p in tmp_path.iterdir())[-1] == "000002.npy"


def test_a_models_key_follows_every_weight():
    layer = torch.nn.Linear(3, 2)
    key = model_key(layer)
    assert len(key) == 16 and model_key(layer) == key
    with torch.no_grad():
        layer.bias[1] += 1e-6
    assert model_key(layer) != key


def test_the_distillations_token_outputs_are_kept_in_the_cache(distilled_folder):
    encoder = Encoder.load("minilm")
    kept = Vocabulary.of(encoder.tokenizer).kept
    folder = cache_dir() / "distill" / f"outputs-{model_key(encoder)}-mean-{len(kept)}"  # the fixture's distill
    assert sorted(p.name for p in folder.iterdir()) == [f"{i:06d}.npy" for i in range(8)]  # 29,528 / 4,096
    last = np.load(folder / "000007.npy")
    assert last.shape == (len(kept) - 7 * 4096, 384)
    # another batching of the same sequences: float32 rounding of the same sums
    np.testing.assert_allclose(last[-5:], token_outputs(encoder, kept[-5:], "mean"), atol=1e-5)
