"""Loading a real BERT-family folder: equal to transformers' BertModel.embeddings, and its layers'
query and key projections equal to BertModel's own."""

from __future__ import annotations

import json
import shutil

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import save_file

from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError
from embedlab.models.pretrained import load_input_embedding, load_tokenizer
from embedlab.tokenizer.fast import FastTokenizer

MATCH = 1e-5  # the bar for max abs difference against transformers


def _batch(tokenizer):
    """Two pairs of different lengths, padded: real pieces, both segment ids, [PAD] rows."""
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    encs = tokenizer.encode_batch([("the cat sat on the mat", "a dog barked"), ("embeddings are tables", "yes")])
    ids = torch.tensor([e.ids for e in encs])
    segments = torch.tensor([e.type_ids for e in encs])
    return ids, segments


def test_minilm_equals_transformers_bert_embeddings(minilm_dir, bert_oracle):
    emb = load_input_embedding(minilm_dir)
    ids, segments = _batch(load_tokenizer(minilm_dir))
    assert (ids == 0).any() and (segments == 1).any() and (segments == 0).any()
    with torch.no_grad():
        ours = emb(ids, segments)
        theirs = bert_oracle.embeddings(input_ids=ids, token_type_ids=segments)
    assert ours.shape == theirs.shape == (*ids.shape, 384)
    assert (ours - theirs).abs().max().item() <= MATCH


def test_minilm_config_and_tables(minilm_dir, bert_oracle):
    emb = load_input_embedding(minilm_dir)
    c = emb.config
    assert (c.vocab_size, c.dim, c.max_len, c.n_segments, c.padding_idx) == (30522, 384, 512, 2, 0)
    assert not emb.training  # loaded for inference, like from_pretrained
    hf = bert_oracle.embeddings
    assert torch.equal(emb.token.weight, hf.word_embeddings.weight)
    assert torch.equal(emb.position.weight, hf.position_embeddings.weight)
    assert torch.equal(emb.segment.weight, hf.token_type_embeddings.weight)
    assert emb.norm.eps == hf.LayerNorm.eps


def test_task_model_prefix_is_found(minilm_dir, tmp_path):
    # BertForMaskedLM and friends store the same tensors under "bert."
    with safe_open(minilm_dir / "model.safetensors", framework="pt") as f:
        tensors = {f"bert.{k}": f.get_tensor(k) for k in f.keys() if k.startswith("embeddings.")}
    save_file(tensors, tmp_path / "model.safetensors")
    shutil.copy(minilm_dir / "config.json", tmp_path / "config.json")
    ids = torch.tensor([[101, 1996, 4937, 102]])
    torch.testing.assert_close(load_input_embedding(tmp_path)(ids), load_input_embedding(minilm_dir)(ids))


def _folder(tmp_path, minilm_dir, **config_changes):
    config = json.loads((minilm_dir / "config.json").read_text())
    config.update(config_changes)
    (tmp_path / "config.json").write_text(json.dumps(config))
    return tmp_path


def test_bad_folders(tmp_path, minilm_dir):
    with pytest.raises(MissingDataError, match="no config.json in"):
        load_input_embedding(tmp_path)
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(FileFormatError, match="config.json: not a readable model config .*not valid JSON"):
        load_input_embedding(tmp_path)
    _folder(tmp_path, minilm_dir, model_type="gpt2")
    with pytest.raises(InvalidValueError, match="model_type 'gpt2' is not supported; supported: bert"):
        load_input_embedding(tmp_path)
    _folder(tmp_path, minilm_dir, position_embedding_type="relative_key")
    with pytest.raises(InvalidValueError, match="position_embedding_type 'relative_key' is not supported"):
        load_input_embedding(tmp_path)
    _folder(tmp_path, minilm_dir)
    with pytest.raises(MissingDataError, match="no model.safetensors in .* never pickles"):
        load_input_embedding(tmp_path)


def test_weights_that_disagree_with_the_config(tmp_path, minilm_dir):
    _folder(tmp_path, minilm_dir, hidden_size=128)
    (tmp_path / "model.safetensors").symlink_to(minilm_dir / "model.safetensors")
    shapes = r"embeddings.word_embeddings.weight has shape \(30522, 384\), config.json implies \(30522, 128\)"
    with pytest.raises(InvalidValueError, match=shapes):
        load_input_embedding(tmp_path)


def test_checkpoint_without_embeddings(tmp_path, minilm_dir):
    _folder(tmp_path, minilm_dir)
    save_file({"encoder.weight": torch.zeros(2, 2)}, tmp_path / "model.safetensors")
    with pytest.raises(InvalidValueError, match="not a BERT-family checkpoint"):
        load_input_embedding(tmp_path)


def test_tokenizer_loading(tmp_path, minilm_dir):
    tok = load_tokenizer(minilm_dir)
    assert tok.encode("the cat").tokens[:3] == ["[CLS]", "the", "cat"]
    assert tok.get_vocab() == FastTokenizer.load(minilm_dir).tokenizer.get_vocab()  # one reader of the file
    with pytest.raises(MissingDataError, match="no tokenizer.json"):
        load_tokenizer(tmp_path)
    (tmp_path / "tokenizer.json").write_text('{"version": "1.0", "model": 7}')
    with pytest.raises(FileFormatError, match="tokenizer.json: not a readable tokenizer file"):
        load_tokenizer(tmp_path)
