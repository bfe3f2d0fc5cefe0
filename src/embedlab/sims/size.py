"""Table size (lab simulation 2): a layout's parameters and memory, counted by embedlab.sizing.

    presets()["bert-base"]             the layout of a real model (an EmbeddingLayout)
    table_size(dim=768, vocab_size=30522, positions="learned", max_len=512, n_segments=2).total_params
                                       23835648, what count(preset("bert-base")) says
    table_size(dim=768, positions="learned", image_size=224, patch_size=16).n_patches    196
    activations(layout(768, 30522, "learned", max_len=512, n_segments=2), batch=32, seq=512).bytes
                                       50331648, the output X (B, T, D) beside the tables' 95342592
    token_stored(layout(384, 30522), dsub=2).quantized.bytes
                                       6253440: the token table product-quantized, beside its 46881792 in fp32

The page reads a preset's whole layout from presets() and sends it back field by field, so what
it shows for a preset is what sizing counts for it. Its heat map of a served table's block is the
lookup page's (sims.lookup.table_slice and neighbourhood_slice).
"""

from __future__ import annotations

from dataclasses import dataclass

from embedlab.errors import InvalidValueError, check_int
from embedlab.sims.limits import MAX_TOKEN
from embedlab.sizing import (
    BYTES_PER_PARAM,
    POSITION_KINDS,
    PRESETS,
    EmbeddingLayout,
    SizeReport,
    StoredBytes,
    activation_bytes,
    count,
    stored_bytes,
    token_matrix,
)
from embedlab.sizing.stored import DSUB

MAX_VOCAB = 10_000_000  # V
MAX_DIM = 65_536  # D
MAX_LEN = 1_000_000  # rows of a learned position table
MAX_SEGMENTS = 16
MAX_IMAGE = 8_192  # H = W in pixels, and the largest patch side
MAX_CHANNELS = 16
MAX_SLICE_ROWS = 256  # rows of a heat map
MAX_SLICE_DIMS = 512  # columns of a heat map
MAX_BATCH = 65_536  # B of the activations
MAX_SEQ = MAX_LEN  # T of a text's activations (learned positions also stop at max_len)
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
    "batch": [1, MAX_BATCH],
    "seq": [1, MAX_SEQ],
    "dsub": [1, MAX_DIM],  # product quantization's columns a code byte (at most D, the layout's width)
    "rows": [1, MAX_SLICE_ROWS],
    "dims": [1, MAX_SLICE_DIMS],
    "token": MAX_TOKEN,
}


def presets() -> dict[str, EmbeddingLayout]:
    """Every model preset's layout, by name (sizing.PRESETS)."""
    return dict(PRESETS)


@dataclass(frozen=True)
class Activations:
    """The output X (B, T, D) of one forward pass through a layout's tables, beside the tables:
    activations grow with B and T, the parameters do not (lesson 002: "params V·d; activations B·T·d")."""

    batch: int  # B, sequences (or images) in one forward pass
    seq: int  # T: a text's tokens per sequence; an image's N + 1 (its patches and CLS), fixed by the layout
    dim: int  # D
    dtype: str  # one of BYTES_PER_PARAM, the tables' too
    values: int  # B·T·D
    bytes: int  # values · bytes per value (sizing.activation_bytes)
    param_bytes: int  # the tables' bytes in the same dtype (SizeReport.bytes), for the comparison


def layout(
    dim: int,
    vocab_size: int = 0,
    positions: str = "none",
    max_len: int = 0,
    n_segments: int = 0,
    tied: bool = True,
    image_size: int = 0,
    patch_size: int = 0,
    in_channels: int = 3,
) -> EmbeddingLayout:
    """One layout, field by field as EmbeddingLayout takes them. The layout checks itself (a text
    layout needs V >= 1, an image one a P that divides H); a field over its HIGHS bound is refused,
    naming it."""
    made = EmbeddingLayout(
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
        check_int(name, getattr(made, name), high=high)
    return made


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
    """One layout (see `layout`) counted in `dtype`: every table's parameters, bytes and MiB.

    >>> table_size(768, 50257, "learned", max_len=1024, tied=False, dtype="fp16").bytes
    155962368
    """
    made = layout(dim, vocab_size, positions, max_len, n_segments, tied, image_size, patch_size, in_channels)
    return count(made, dtype)


def activations(made: EmbeddingLayout, batch: int, seq: int | None = None, dtype: str = "fp32") -> Activations:
    """The bytes of X, (B, T, D) values in `dtype`, beside the tables' bytes. A text layout needs
    `seq` (at most max_len with learned positions); an image's T is N + 1, so it takes none.

    >>> activations(layout(768, patch_size=16, image_size=224, positions="learned"), batch=8).seq
    197
    """
    batch = check_int("batch", batch, low=1, high=MAX_BATCH)
    if seq is not None:
        check_int("seq", seq, low=1, high=MAX_SEQ)
    nbytes = activation_bytes(made, batch, seq, dtype)  # checks T against the layout, and the dtype
    T = made.n_patches + 1 if made.is_image else seq
    values = batch * T * made.dim
    return Activations(batch, T, made.dim, dtype, values, nbytes, count(made, dtype).bytes)


def token_stored(made: EmbeddingLayout, dsub: int = DSUB, qnorm: bool = False) -> StoredBytes:
    """A text layout's (V, D) token table stored as fp32, fp16, int8 and product-quantized in
    sub-vectors of `dsub` columns (sizing.stored); an image layout has no token table to store.

    >>> token_stored(layout(768, 30522), dsub=4).quantized.codes   # 30,522 rows × 192 code bytes
    5860224
    """
    matrix = token_matrix(made)
    if matrix is None:
        raise InvalidValueError("an image layout has no token table to store: product quantization sizes a (V, D) one")
    return stored_bytes(*matrix, dsub, qnorm)
