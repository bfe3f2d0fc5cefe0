"""A word's key in any table (vectors/keys.py): its own, else its byte-level piece; the themed words."""

from __future__ import annotations

import numpy as np
import pytest

from embedlab.vectors import Vectors
from embedlab.vectors.keys import resolve_key, themed_keys


def test_words_resolve_to_plain_or_bpe_keys():
    bpe = Vectors(["Ġking", "queen", "Ġqueen"], np.eye(3), name="bpe")
    assert resolve_key(bpe, "king") == "Ġking"
    assert resolve_key(bpe, "queen") == "queen"  # a key of its own wins over the BPE form
    with pytest.raises(KeyError, match="unknown key 'kingg'.*closest"):
        resolve_key(bpe, "kingg")
    assert themed_keys(bpe) == [("king", "Ġking", "people"), ("queen", "queen", "people")]
    accented = Vectors(["ĠcafÃ©"], np.eye(1), name="bytes")  # a byte-level piece: é is two stand-ins
    assert resolve_key(accented, "café") == "ĠcafÃ©"
