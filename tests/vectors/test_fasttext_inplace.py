"""A .bin filled in place equals the one write_fasttext writes of the same model; a block that raises, or
rows holding NaN, leave nothing at the path."""

from __future__ import annotations

import numpy as np
import pytest

from embedlab.errors import InvalidValueError
from embedlab.vectors.io.fasttext import read_fasttext, write_fasttext
from embedlab.vectors.io.fasttext_inplace import fasttext_in_place
from embedlab.vectors.io.fasttext_model import FastTextModel


@pytest.fixture
def model():
    rng = np.random.default_rng(0)
    return FastTextModel.from_arrays(
        ["</s>", "cat", "dog"], rng.normal(size=(3, 4)), rng.normal(size=(7, 4)), [5, 3, 2], rng.normal(size=(3, 4))
    )


def fill(model: FastTextModel, path, poison: bool = False):
    with fasttext_in_place(path) as place:
        w_in, w_out = place(model.args, model.words, model.counts, model.entry_types, model.ntokens,
                            model.input.shape, model.output.shape)  # fmt: skip
        w_in[:] = model.input
        w_out[:] = model.output
        if poison:
            w_in[8, 1] = np.nan
    return w_in


def test_filled_in_place_is_byte_for_byte_what_write_fasttext_writes(model, tmp_path):
    rows = fill(model, tmp_path / "a.bin")
    write_fasttext(model, tmp_path / "b.bin")
    assert (tmp_path / "a.bin").read_bytes() == (tmp_path / "b.bin").read_bytes()
    assert np.array_equal(read_fasttext(tmp_path / "a.bin").input, model.input)
    assert np.array_equal(rows, model.input)  # the arrays stay readable after the block, at the final name


def test_nothing_is_left_when_the_block_raises_or_a_row_is_not_finite(model, tmp_path):
    with pytest.raises(KeyError), fasttext_in_place(tmp_path / "a.bin"):
        raise KeyError("stop")
    with pytest.raises(InvalidValueError, match="n-gram bucket rows"):
        fill(model, tmp_path / "a.bin", poison=True)
    assert list(tmp_path.iterdir()) == []
