"""The full encoder against transformers' BertModel on MiniLM's real weights."""

from __future__ import annotations

import json
import shutil

import pytest
import torch
import torch.nn.functional as F
from safetensors import safe_open
from safetensors.torch import save_file

from embedlab.errors import InvalidValueError, MissingDataError
from embedlab.models.encoder import Encoder, EncoderConfig

TEXTS = [
    "he sat on the river bank and watched the water",
    "she paid the cheque into the bank",
    "it rained",
]


@pytest.fixture(scope="module")
def encoder():
    return Encoder.load("minilm")


@pytest.fixture(scope="module")
def eager_oracle(minilm_dir):
    """BertModel with the eager attention, the implementation that returns its probabilities."""
    from transformers import BertModel

    return BertModel.from_pretrained(str(minilm_dir), attn_implementation="eager").eval()


@pytest.fixture(scope="module")
def both(encoder, eager_oracle):
    batch, ours = encoder.encode(TEXTS)
    with torch.no_grad():
        theirs = eager_oracle(
            input_ids=batch.ids,
            attention_mask=batch.mask.long(),
            token_type_ids=batch.segment_ids,
            output_hidden_states=True,
            output_attentions=True,
        )
    return batch, ours, theirs


def test_the_batch_is_padded(both):
    batch, _, _ = both
    lengths = batch.mask.sum(1).tolist()
    assert lengths == [len(p) for p in batch.pieces] and len(set(lengths)) == 3  # three lengths: real padding
    assert batch.ids.shape == (3, max(lengths)) and (batch.ids[~batch.mask] == 0).all()
    assert batch.pieces[1] == ["[CLS]", "she", "paid", "the", "che", "##que", "into", "the", "bank", "[SEP]"]


def test_every_layers_states_equal_bert_on_real_tokens(both):
    batch, ours, theirs = both
    assert len(ours.hidden_states) == len(theirs.hidden_states) == 7
    for layer, (a, b) in enumerate(zip(ours.hidden_states, theirs.hidden_states, strict=True)):
        gap = (a - b)[batch.mask].abs().max().item()
        assert gap < 1e-5, f"layer {layer}: {gap}"


def test_every_layers_attention_equals_bert_on_real_tokens(both):
    batch, ours, theirs = both
    real = batch.mask[:, None, :, None] & batch.mask[:, None, None, :]  # (B, 1, T, T) real query and key
    for layer, (a, b) in enumerate(zip(ours.attentions, theirs.attentions, strict=True)):
        assert a.shape == b.shape == (3, 12, *batch.ids.shape[1:], batch.ids.shape[1])
        gap = (a - b).abs().masked_select(real.expand_as(a)).max().item()
        assert gap < 1e-5, f"layer {layer}: {gap}"
        # padded keys get no weight at all, and each real query's row is a distribution
        assert (a.masked_select(~batch.mask[:, None, None, :].expand_as(a)) == 0).all()
        torch.testing.assert_close(a.sum(-1), torch.ones(a.shape[:-1]))


def test_sentence_embedding_is_mean_pooled_and_normalised(both):
    batch, ours, theirs = both
    last, weights = theirs.last_hidden_state, batch.mask.unsqueeze(-1).float()
    expected = F.normalize((last * weights).sum(1) / weights.sum(1), dim=-1)
    got = ours.sentence_embedding()
    assert got.shape == (3, 384)
    assert (got - expected).abs().max().item() < 1e-5
    torch.testing.assert_close(got.norm(dim=-1), torch.ones(3))


def test_padding_changes_nothing_for_real_tokens(encoder, both):
    batch, ours, _ = both
    alone_batch, alone = encoder.encode([TEXTS[2]])  # the shortest text: most padding in the batch
    n = alone_batch.ids.shape[1]
    for a, b in zip(ours.hidden_states, alone.hidden_states, strict=True):
        torch.testing.assert_close(a[2, :n], b[0], atol=1e-5, rtol=0)


def test_the_static_row_becomes_contextual(both):
    # "bank" enters both sentences as the same token row and leaves as two different vectors
    batch, ours, _ = both
    at = [pieces.index("bank") for pieces in batch.pieces[:2]]
    cosines = [F.cosine_similarity(h[0, at[0]], h[1, at[1]], dim=0).item() for h in ours.hidden_states]
    assert cosines[0] > 0.95  # layer 0: same token row, different position rows only
    assert cosines[-1] < 0.85 and cosines[-1] < cosines[0] - 0.1


def test_config_and_errors(encoder, minilm_dir, tmp_path):
    c = encoder.config
    assert (c.dim, c.n_layers, c.n_heads, c.ffn_dim) == (384, 6, 12, 1536)
    with pytest.raises(InvalidValueError, match="dim 384 is not divisible by n_heads 5"):
        EncoderConfig(dim=384, n_layers=1, n_heads=5, ffn_dim=8)
    with pytest.raises(InvalidValueError, match="text 1 must be a non-empty string"):
        encoder.tokenize(["fine", "  "])
    with pytest.raises(InvalidValueError, match="texts must be a non-empty list"):
        encoder.tokenize([])
    with pytest.raises(InvalidValueError, match="text 0 is 601 tokens long; this model takes at most 512"):
        encoder.tokenize(["word " * 599])
    config = json.loads((minilm_dir / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, "hidden_act": "relu"}))
    with pytest.raises(InvalidValueError, match="hidden_act 'relu' is not supported; supported: gelu"):
        Encoder.load(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps({**config, "num_hidden_layers": 7}))
    (tmp_path / "model.safetensors").symlink_to(minilm_dir / "model.safetensors")
    shutil.copy(minilm_dir / "tokenizer.json", tmp_path / "tokenizer.json")
    with pytest.raises(InvalidValueError, match=r"has no tensor 'encoder.layer.6.attention.self.query.weight'"):
        Encoder.load(tmp_path)


@pytest.mark.parametrize("layer", [0, 5])
def test_layer_weights_are_bert_models_own(encoder, bert_oracle, layer):
    ours, hf = encoder.layers[layer], bert_oracle.encoder.layer[layer]
    pairs = [
        (ours.attention.query, hf.attention.self.query), (ours.attention.key, hf.attention.self.key),
        (ours.attention.value, hf.attention.self.value), (ours.attention.dense, hf.attention.output.dense),
        (ours.attention_norm, hf.attention.output.LayerNorm), (ours.ffn_in, hf.intermediate.dense),
        (ours.ffn_out, hf.output.dense), (ours.ffn_norm, hf.output.LayerNorm),
    ]  # fmt: skip
    for a, b in pairs:
        assert torch.equal(a.weight, b.weight) and torch.equal(a.bias, b.bias)


def test_folders_that_lack_layers(minilm_dir, tmp_path):
    config = json.loads((minilm_dir / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps({**config, "num_attention_heads": 5}))
    with pytest.raises(InvalidValueError, match="dim 384 is not divisible by n_heads 5"):
        Encoder.load(tmp_path)
    (tmp_path / "config.json").write_text(json.dumps(config))
    shutil.copy(minilm_dir / "tokenizer.json", tmp_path / "tokenizer.json")
    with pytest.raises(MissingDataError, match="no model.safetensors"):
        Encoder.load(tmp_path)
    with safe_open(minilm_dir / "model.safetensors", framework="pt") as f:
        embeddings_only = {k: f.get_tensor(k) for k in f.keys() if k.startswith("embeddings.")}
    save_file(embeddings_only, tmp_path / "model.safetensors")
    with pytest.raises(InvalidValueError, match="no tensor 'encoder.layer.0.attention.self.query.weight'"):
        Encoder.load(tmp_path)
