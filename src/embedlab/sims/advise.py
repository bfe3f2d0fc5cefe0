"""Advise (a lab page): lesson 001's decision chart walked by embedlab.advise, the inputs as the page
sends them (sizes as text, "125M" and "300MiB", the way the CLI takes them).

    advice("text", params="125M").recipe.vocab_size                  # 32000
    advice("image", detail="detail", memory="300MiB", batch=256).recipe.patch_size   # 16: patch 8 does not fit
"""

from __future__ import annotations

from embedlab.advise import DETAILS, MODALITIES, POSITIONS, Advice, advise, parse_bytes, parse_count
from embedlab.advise.chart import MAX_IMAGE, MAX_SEQ
from embedlab.sizing import BYTES_PER_PARAM

MAX_LANGUAGES = 10_000
MAX_BATCH = 1_000_000
MAX_DIM = 65_536
MAX_TEXT = 32  # characters of a size typed as text ("1.5B", "300MiB")
LIMITS = {
    "modalities": list(MODALITIES),
    "positions": list(POSITIONS),
    "details": list(DETAILS),
    "dtypes": list(BYTES_PER_PARAM),
    "languages": [1, MAX_LANGUAGES],
    "seq_len": [1, MAX_SEQ],
    "image_size": [1, MAX_IMAGE],
    "batch": [1, MAX_BATCH],
    "dim": [0, MAX_DIM],
    "text": MAX_TEXT,
}


def advice(
    modality: str = "text",
    languages: int = 1,
    params: str = "125M",
    seq_len: int = 1024,
    positions: str = "rotary",
    image_size: int = 224,
    detail: str = "standard",
    memory: str = "",
    batch: int = 1,
    dtype: str = "fp32",
    dim: int = 0,
) -> Advice:
    """The chart's answer; `params` a count ("125M", "7B"), `memory` a size ("300MiB"; "" none)."""
    return advise(
        modality,
        languages=languages,
        params=parse_count(params),
        seq_len=seq_len,
        positions=positions,
        image_size=image_size,
        detail=detail,
        memory_budget=parse_bytes(memory) if memory.strip() else 0,
        batch=batch,
        dtype=dtype,
        dim=dim,
    )
