"""Table size (lab simulation 2): a layout's parameters and memory, counted by embedlab.sizing.

    presets()["bert-base"]             the layout of a real model (an EmbeddingLayout)
    table_size(dim=768, vocab_size=30522, positions="learned", max_len=512, n_segments=2).total_params
                                       23835648, what count(preset("bert-base")) says
    table_size(dim=768, positions="learned", image_size=224, patch_size=16).n_patches    196

The page reads a preset's whole layout from presets() and sends it back field by field, so what
it shows for a preset is what sizing counts for it. Its heat map of a served table's block is the
lookup page's (sims.lookup.table_slice and neighbourhood_slice).
"""

from __future__ import annotations

from embedlab.errors import check_int
from embedlab.sims.limits import MAX_TOKEN
from embedlab.sizing import BYTES_PER_PARAM, POSITION_KINDS, PRESETS, EmbeddingLayout, SizeReport, count

MAX_VOCAB = 10_000_000  # V
MAX_DIM = 65_536  # D
MAX_LEN = 1_000_000  # rows of a learned position table
MAX_SEGMENTS = 16
MAX_IMAGE = 8_192  # H = W in pixels, and the largest patch side
MAX_CHANNELS = 16
MAX_SLICE_ROWS = 256  # rows of a heat map
MAX_SLICE_DIMS = 512  # columns of a heat map
# layout field -> the largest value the page may ask for (counting is arithmetic: these only keep inputs sane)
HIGHS = {
    "vocab_size": MAX_VOCAB,
    "dim": MAX_DIM,
    "max_len": MAX_LEN,
    "n_segments": MAX_SEGMENTS,
    "image_size": MAX_IMAGE,
    "patch_size": MAX_IMAGE,
    "in_channels": MAX_CHANNELS,
}
# The page's controls. A text layout's V starts at 1; an image layout sends V 0 (and text sends P 0).
LIMITS = {
    "vocab_size": [1, MAX_VOCAB],
    "dim": [1, MAX_DIM],
    "max_len": [0, MAX_LEN],
    "n_segments": [0, MAX_SEGMENTS],
    "image_size": [1, MAX_IMAGE],
    "patch_size": [1, MAX_IMAGE],
    "in_channels": [1, MAX_CHANNELS],
    "dtypes": list(BYTES_PER_PARAM),
    "positions": list(POSITION_KINDS),
    "rows": [1, MAX_SLICE_ROWS],
    "dims": [1, MAX_SLICE_DIMS],
    "token": MAX_TOKEN,
}


def presets() -> dict[str, EmbeddingLayout]:
    """Every model preset's layout, by name (sizing.PRESETS)."""
    return dict(PRESETS)


def table_size(
    dim: int,
    vocab_size: int = 0,
    positions: str = "none",
    max_len: int = 0,
    n_segments: int = 0,
    tied: bool = True,
    image_size: int = 0,
    patch_size: int = 0,
    in_channels: int = 3,
    dtype: str = "fp32",
) -> SizeReport:
    """One layout, field by field as EmbeddingLayout takes them, counted in `dtype`: every table's
    parameters, bytes and MiB. The layout checks itself (a text layout needs V >= 1, an image one a
    P that divides H); a field over its HIGHS bound is refused, naming it.

    >>> table_size(768, 50257, "learned", max_len=1024, tied=False, dtype="fp16").bytes
    155962368
    """
    layout = EmbeddingLayout(
        vocab_size=vocab_size,
        dim=dim,
        positions=positions,
        max_len=max_len,
        n_segments=n_segments,
        tied=tied,
        image_size=image_size,
        patch_size=patch_size,
        in_channels=in_channels,
    )
    for name, high in HIGHS.items():
        check_int(name, getattr(layout, name), high=high)
    return count(layout, dtype)
