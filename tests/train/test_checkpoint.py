"""Checkpoints: arrays and meta read back exactly; a damaged, foreign or missing file is one clear
error naming it (and how to get past it), never torch's many-line message."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from embedlab.errors import FileFormatError, MissingDataError
from embedlab.train.checkpoint import load_checkpoint, save_checkpoint
from embedlab.vectors.io.run import DAMAGED_RUN


def _saved(tmp_path):
    arrays = {"w_in": np.arange(6, dtype=np.float32).reshape(2, 3), "rng": np.array([2**63 + 5], dtype=np.uint64)}
    return save_checkpoint(tmp_path / "checkpoint.pt", arrays, {"epoch": 1, "step": np.int64(7)}), arrays


def test_arrays_and_meta_read_back_exactly(tmp_path):
    path, arrays = _saved(tmp_path)
    got, meta = load_checkpoint(path)
    for name, array in arrays.items():
        assert got[name].dtype == array.dtype
        np.testing.assert_array_equal(got[name], array)
    assert meta == {"epoch": 1, "step": 7} and type(meta["step"]) is int


def test_a_checkpoint_cut_short_names_the_file_and_the_way_out(tmp_path):
    path, _ = _saved(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(FileFormatError) as info:
        load_checkpoint(path)
    assert str(info.value) == (
        f"{path}: expected an embedlab checkpoint of format 1 (a torch zip file), but it is cut short or damaged; "
        f"{DAMAGED_RUN}"
    )


def test_a_file_that_is_no_checkpoint(tmp_path):
    path = tmp_path / "checkpoint.pt"
    with pytest.raises(MissingDataError, match="no checkpoint at"):
        load_checkpoint(path)
    path.write_text("epoch 3\n")
    with pytest.raises(FileFormatError, match=r"checkpoint.pt: expected an embedlab checkpoint .*; found text$"):
        load_checkpoint(path)
    torch.save({"weight": torch.zeros(2)}, path)  # a torch file, not ours
    with pytest.raises(FileFormatError, match="checkpoint.pt: expected an embedlab checkpoint .*; found another torch"):
        load_checkpoint(path)
