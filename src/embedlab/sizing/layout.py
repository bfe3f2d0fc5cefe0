"""An embedding part's layout (EmbeddingLayout), its checks, and its exact count (`count`, SizeReport);
see embedlab.sizing for the tables and the kinds of token table."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from embedlab.errors import InvalidValueError, check_choice, check_float, check_int

# How a model tells positions apart. Only "learned" is a table of parameters; the others are
# computed ("sinusoidal"), applied to q and k inside attention ("rotary"), kept as a small bias
# inside attention ("relative", T5), or absent.
POSITION_KINDS = ("learned", "sinusoidal", "rotary", "relative", "none")

# Bytes per stored parameter. subtle: int8 counts the 8-bit weights only; the per-channel or
# per-group scales (and zero points) that quantised tables also store are not included.
BYTES_PER_PARAM = {"fp32": 4, "fp16": 2, "bf16": 2, "int8": 1}

# The tables of a report, in the order they are listed and summed.
TABLES = ("token", "position", "segment", "output", "patch", "cls")

# How a token table stores its V rows: one row each, or fewer numbers (layers/hashed.py,
# layers/adaptive.py, layers/factorized.py).
VOCAB_TABLES = ("full", "hashed", "hash-embedding", "quotient-remainder", "adaptive", "factorized")
# How a quotient-remainder table combines an id's two rows; "mult" is Shi et al. 2020's default.
QR_OPS = ("mult", "add", "concat")
# How the input rows become X: added (every recipe), or concatenated (width k·D; layers.recipes.COMBINES)
COMBINES = ("add", "concat")


def qr_shapes(vocab_size: int, dim: int, buckets: int, op: str) -> tuple[tuple[int, int], tuple[int, int]]:
    """The quotient and remainder tables of V ids over m buckets: ((ceil(V/m), w), (m, w)), w = D,
    or D/2 for "concat" (the two halves then make one D-wide row).

    >>> qr_shapes(10, 4, 3, "mult"), qr_shapes(10, 4, 3, "concat")
    (((4, 4), (3, 4)), ((4, 2), (3, 2)))
    """
    check_int("qr_buckets", buckets, low=1, high=vocab_size)
    check_choice("qr_op", op, QR_OPS)
    if op == "concat" and dim % 2:
        raise InvalidValueError(f"dim must be even for concat (two D/2-wide halves); got {dim}")
    width = dim // 2 if op == "concat" else dim
    return (-(-vocab_size // buckets), width), (buckets, width)


def adaptive_bands(vocab_size: int, dim: int, cutoffs: tuple[int, ...], div_value: float) -> list[tuple[int, int]]:
    """(rows, width) of each frequency band of adaptive input (Baevski & Auli 2019): ids below
    cutoffs[0] are D wide, the next band D // div, then D // div², … (torch's
    AdaptiveLogSoftmaxWithLoss rounds the widths the same way, so the two tie).

    >>> adaptive_bands(100, 64, (20, 60), 4.0)
    [(20, 64), (40, 16), (40, 4)]
    """
    if not cutoffs:
        raise InvalidValueError(f"adaptive cutoffs must hold at least one id between 1 and {vocab_size - 1}; got none")
    for c in cutoffs:
        check_int("adaptive cutoff", c, low=1, high=vocab_size - 1)
    if any(b <= a for a, b in zip(cutoffs, cutoffs[1:], strict=False)):
        raise InvalidValueError(
            f"adaptive cutoffs must increase, each between 1 and {vocab_size - 1}; got {','.join(map(str, cutoffs))}"
        )
    check_float("div_value", div_value, low=1.0)
    edges = (0, *cutoffs, vocab_size)
    bands = [(edges[i + 1] - edges[i], int(dim // (div_value**i))) for i in range(len(edges) - 1)]
    for i, (_, width) in enumerate(bands):
        if width < 1:
            raise InvalidValueError(
                f"band {i} would be {dim} // {div_value:g}^{i} = 0 wide: dim must be >= {div_value**i:g}, "
                f"or use fewer cutoffs or a smaller div_value; got dim {dim}"
            )
    return bands


@dataclass(frozen=True, kw_only=True)
class EmbeddingLayout:
    """The shape of a model's embedding part: enough to count it, no weights.

    A text layout has `vocab_size >= 1` and `patch_size == 0`; an image (ViT) layout has
    `patch_size >= 1`, `image_size` a multiple of it and no vocabulary.

    >>> EmbeddingLayout(vocab_size=30522, dim=768, positions="learned", max_len=512).n_patches
    0
    >>> EmbeddingLayout(dim=768, image_size=224, patch_size=16, positions="learned").n_patches
    196
    """

    vocab_size: int = 0  # V; rows of the token table (0 for an image layout)
    dim: int  # D; the width every table shares, so their rows can be added
    positions: str = "none"  # one of POSITION_KINDS; "none" so a bare (V, D) table is valid
    max_len: int = 0  # rows of a learned text position table; read only when "learned"
    n_segments: int = 0  # rows of the segment table; 0 means no segment table (BERT: 2)
    tied: bool = True  # output head reuses the token table; ignored for images (no head)
    image_size: int = 0  # H = W of a square image, in pixels (0 for text)
    patch_size: int = 0  # P, side of a square patch; > 0 makes this an image layout
    in_channels: int = 3  # C, image channels (RGB)
    # A huge vocabulary's smaller token table (at most one kind; all unset: a full (V, D) table)
    hashed_rows: int = 0  # B: rows the V ids are hashed into
    hash_count: int = 1  # k: 1, the hashing trick; >= 2, hash embeddings (k rows mixed by importance weights)
    importance_rows: int = 0  # K, rows of hash embeddings' (K, k) importance table; 0: as many as hashed_rows
    qr_buckets: int = 0  # m: quotient-remainder over m remainders (ceil(V/m) quotients)
    qr_op: str = "mult"  # one of QR_OPS
    adaptive_cutoffs: tuple[int, ...] = ()  # first id of each band after the first (adaptive input)
    div_value: float = 4.0  # adaptive input: each band D / div_value narrower than the one before
    factor_dim: int = 0  # E: ALBERT's factorised table, V × E mapped up to D by an E × D matrix (1..D)

    def __post_init__(self) -> None:
        lows = {
            "vocab_size": 0,
            "dim": 1,
            "max_len": 0,
            "n_segments": 0,
            "image_size": 0,
            "patch_size": 0,
            "in_channels": 1,
        }
        for name, low in lows.items():
            # Store plain ints (a NumPy integer would pass but break json.dumps later).
            object.__setattr__(self, name, check_int(name, getattr(self, name), low=low))
        check_choice("positions", self.positions, POSITION_KINDS)
        if not isinstance(self.tied, bool):
            raise InvalidValueError(f"tied must be True or False; got {self.tied!r}")
        if self.is_image:
            self._check_image()
        else:
            self._check_text()
        self._check_vocab_table()

    def _check_vocab_table(self) -> None:
        """A smaller token table: at most one kind, of a text layout, with sizes in range."""
        for name in ("hashed_rows", "importance_rows", "qr_buckets", "factor_dim"):
            object.__setattr__(self, name, check_int(name, getattr(self, name), low=0))
        object.__setattr__(self, "hash_count", check_int("hash_count", self.hash_count, low=1))
        cutoffs = tuple(check_int("adaptive cutoff", c, low=1) for c in self.adaptive_cutoffs)
        object.__setattr__(self, "adaptive_cutoffs", cutoffs)
        object.__setattr__(self, "div_value", check_float("div_value", self.div_value, low=1.0))
        check_choice("qr_op", self.qr_op, QR_OPS)
        given = {"hashed_rows": self.hashed_rows, "qr_buckets": self.qr_buckets, "adaptive_cutoffs": cutoffs,
                 "factor_dim": self.factor_dim}  # fmt: skip
        kinds = [name for name, value in given.items() if value]
        if len(kinds) > 1:
            raise InvalidValueError(f"a token table is one kind; got {' and '.join(kinds)}")
        if kinds and self.is_image:
            raise InvalidValueError(
                f"{kinds[0]} needs a text layout; got an image layout (patch_size {self.patch_size})"
            )
        if self.hash_count > 1 and not self.hashed_rows:
            raise InvalidValueError(f"hash_count {self.hash_count} needs hashed_rows >= 1; got 0")
        if self.importance_rows and self.hash_count == 1:
            raise InvalidValueError(
                f"importance_rows {self.importance_rows} needs hash_count >= 2 (hash embeddings); got 1"
            )
        if self.hashed_rows:
            check_int("hashed_rows", self.hashed_rows, low=1, high=self.vocab_size)
            if self.hash_count > 1 and not self.importance_rows:
                object.__setattr__(self, "importance_rows", self.hashed_rows)
        if self.qr_buckets:
            qr_shapes(self.vocab_size, self.dim, self.qr_buckets, self.qr_op)
        if self.adaptive_cutoffs:
            adaptive_bands(self.vocab_size, self.dim, self.adaptive_cutoffs, self.div_value)
        if self.factor_dim:  # E = D is allowed: a full table times a square map, V·D + D² numbers
            check_int("factor_dim", self.factor_dim, low=1, high=self.dim)

    @property
    def vocab_table(self) -> str:
        """How the token table stores its rows: one of VOCAB_TABLES."""
        if self.hashed_rows:
            return "hashed" if self.hash_count == 1 else "hash-embedding"
        if self.qr_buckets:
            return "quotient-remainder"
        if self.factor_dim:
            return "factorized"
        return "adaptive" if self.adaptive_cutoffs else "full"

    def _check_text(self) -> None:
        if self.vocab_size < 1:
            raise InvalidValueError(
                f"vocab_size must be >= 1 for a text layout; got {self.vocab_size}", param="vocab_size"
            )
        if self.image_size:
            raise InvalidValueError(f"image_size {self.image_size} needs patch_size >= 1 (an image layout); got 0")
        if self.positions == "learned" and self.max_len < 1:
            raise InvalidValueError(f"max_len must be >= 1 for learned positions; got {self.max_len}")

    def _check_image(self) -> None:
        check_int("image_size", self.image_size, low=self.patch_size)
        if self.image_size % self.patch_size:
            raise InvalidValueError(
                f"image_size must be a multiple of patch_size {self.patch_size}; got {self.image_size}"
            )
        # An image layout has no vocabulary and no sentences; a value here is a mix-up.
        for name in ("vocab_size", "n_segments"):
            value = getattr(self, name)
            if value:
                raise InvalidValueError(
                    f"{name} must be 0 for an image layout (patch_size {self.patch_size}); got {value}"
                )

    @property
    def is_image(self) -> bool:
        """True for a ViT layout (patches instead of a vocabulary)."""
        return self.patch_size > 0

    @property
    def n_patches(self) -> int:
        """N = (H / P)²: 224 px with 16 px patches -> 14·14 = 196; 0 for text."""
        return (self.image_size // self.patch_size) ** 2 if self.is_image else 0

    def to_dict(self) -> dict[str, object]:
        """The fields as a JSON-ready dict."""
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class SizeReport:
    """Parameters and bytes of each table of one layout, stored in one dtype: the layout's own
    fields first (a report reads whole, as `embedlab size --json` and the lab print it), then N,
    every table's count, the total, bytes, MiB and each table's share.

    Every count is an exact int; `total_params` is their sum, `bytes` is
    `total_params * bytes_per_param`.
    """

    vocab_size: int  # V (0 for an image layout)
    dim: int  # D
    positions: str  # one of POSITION_KINDS
    max_len: int  # rows of a learned text position table
    n_segments: int  # rows of the segment table
    tied: bool  # the output head reuses the token table
    image_size: int  # H = W in pixels (0 for text)
    patch_size: int  # P (0 for text)
    in_channels: int  # C
    hashed_rows: int  # B, rows a hashed token table keeps (0: not hashed)
    hash_count: int  # k, hash functions per id (1: the hashing trick)
    importance_rows: int  # K, rows of hash embeddings' importance table
    qr_buckets: int  # m, remainders of a quotient-remainder table (0: not one)
    qr_op: str  # one of QR_OPS
    adaptive_cutoffs: tuple[int, ...]  # first id of each adaptive band after the first (empty: not adaptive)
    div_value: float  # adaptive: how much narrower each band is than the one before
    factor_dim: int  # E, the width of a factorised table (0: not one)
    n_patches: int  # N = (H / P)², 0 for text
    vocab_table: str  # one of VOCAB_TABLES: how the token table stores its V rows
    token_rows: int  # rows the token table stores: V full, adaptive or factorised, B hashed, ceil(V/m) + m QR
    token_params: int  # V·D for a full table; fewer for the kinds of VOCAB_TABLES (V·E + E·D factorised)
    position_params: int  # max_len·D (text, learned), (N + 1)·D (ViT, learned), else 0
    segment_params: int  # n_segments·D
    output_params: int  # V·D when untied; 0 when tied (a shared weight counts once), but a tied
    # adaptive softmax's cluster rows; untied adaptive: torch's AdaptiveLogSoftmaxWithLoss over the same bands
    patch_params: int  # C·P·P·D weight + D bias (ViT)
    cls_params: int  # D (ViT)
    total_params: int  # the sum of the six tables
    dtype: str  # one of BYTES_PER_PARAM
    bytes_per_param: int
    bytes: int  # total_params · bytes_per_param
    mib: float  # bytes / 1024²: V 10,000 × D 512 in fp32 -> 20,480,000 B ≈ 19.53
    shares: dict[str, float]  # table -> its fraction of total_params, in TABLES order; they sum to 1

    @property
    def layout(self) -> EmbeddingLayout:
        """The layout that was counted."""
        return EmbeddingLayout(**{f.name: getattr(self, f.name) for f in dataclasses.fields(EmbeddingLayout)})

    @property
    def params(self) -> dict[str, int]:
        """Table name -> parameters, in TABLES order (absent tables map to 0)."""
        return {name: getattr(self, f"{name}_params") for name in TABLES}

    def table_bytes(self, name: str) -> int:
        """Bytes of one table in this report's dtype: GPT-2 token table in fp16 -> 77,194,752."""
        check_choice("table", name, TABLES)
        return self.params[name] * self.bytes_per_param


def count(layout: EmbeddingLayout, dtype: str = "fp32") -> SizeReport:
    """Count the learned parameters of `layout`'s embedding part and their bytes in `dtype`.

        What counts as zero, and why:
          - sinusoidal positions are computed from a formula, rotary positions rotate q and k
            inside attention, "none" has no positions: no learned table, 0 parameters;
          - relative positions (T5) are a small learned bias of shape (buckets, heads) that lives
            in the first attention layer, not in the embedding part: 0 here;
          - a tied output head is the token table itself, so its V·D counts once, under token
            (a tied adaptive softmax shares the bands and projections; only its cluster rows count).

    A hashed token table (the hashing trick) of a 128,000-id vocabulary at 1/10 of the rows and
    D 1,024 keeps 12,800·1,024 = 13,107,200 parameters, 52,428,800 bytes in fp32:

        >>> count(EmbeddingLayout(vocab_size=128_000, dim=1_024, hashed_rows=12_800)).bytes
        52428800

        V 50,000, D 2,048, no positions, fp16 -> 102,400,000 params, 204,800,000 bytes ≈ 195.3 MiB:

        >>> count(EmbeddingLayout(vocab_size=50_000, dim=2_048), "fp16").bytes
        204800000
    """
    check_choice("dtype", dtype, tuple(BYTES_PER_PARAM))
    D = layout.dim
    if layout.is_image:
        C, P, N = layout.in_channels, layout.patch_size, layout.n_patches
        patch = C * P * P * D + D  # Conv2d(C, D, kernel=P, stride=P): weight and bias
        cls = D
        rows = N + 1  # the CLS token gets a position too
    else:
        patch = cls = 0
        rows = layout.max_len
    position = rows * D if layout.positions == "learned" else 0
    token_rows, token, output = _token_table(layout)
    counts = {
        "token": token,
        "position": position,
        "segment": layout.n_segments * D,
        "output": output,
        "patch": patch,
        "cls": cls,
    }
    total = sum(counts.values())
    # Invariant, not an input check: a valid layout always has a token or patch table.
    assert total > 0
    width = BYTES_PER_PARAM[dtype]
    return SizeReport(
        **dataclasses.asdict(layout),
        n_patches=layout.n_patches,
        vocab_table=layout.vocab_table,
        token_rows=token_rows,
        **{f"{name}_params": n for name, n in counts.items()},
        total_params=total,
        dtype=dtype,
        bytes_per_param=width,
        bytes=total * width,
        mib=total * width / 1024**2,
        shares={name: n / total for name, n in counts.items()},  # BERT-base: token 23,440,896 / 23,835,648 ≈ 0.983
    )


def _token_table(layout: EmbeddingLayout) -> tuple[int, int, int]:
    """(rows, parameters) of the token table and the output head's parameters: what sum(p.numel())
    of the matching embedlab.layers modules (and torch's adaptive softmax, untied) says."""
    V, D, kind = layout.vocab_size, layout.dim, layout.vocab_table
    output = 0 if (layout.tied or layout.is_image) else V * D  # an untied head is a full (V, D) table
    if kind == "hashed":
        return layout.hashed_rows, layout.hashed_rows * D, output
    if kind == "hash-embedding":  # (B, D) component rows and the (K, k) importance weights
        B, K, k = layout.hashed_rows, layout.importance_rows, layout.hash_count
        return B, B * D + K * k, output
    if kind == "quotient-remainder":
        (q, w), (m, _) = qr_shapes(V, D, layout.qr_buckets, layout.qr_op)
        return q + m, (q + m) * w, output
    if kind == "adaptive":
        bands = adaptive_bands(V, D, layout.adaptive_cutoffs, layout.div_value)
        tables = sum(rows * width for rows, width in bands)
        projections = sum(width * D for _, width in bands[1:])  # band 0 is D wide already
        clusters = (len(bands) - 1) * D  # the head's row for each tail band
        # untied: torch's AdaptiveLogSoftmaxWithLoss, a head (c0 + clusters, D) and each tail's own two matrices
        output = clusters if layout.tied else tables + projections + clusters
        return V, tables + projections, output
    if kind == "factorized":  # the (V, E) table and the (D, E) map; a tied head reads both, adding nothing
        E = layout.factor_dim
        return V, V * E + E * D, output
    return V, V * D, output
