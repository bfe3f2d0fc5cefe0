"""Product quantization as fastText's `quantize` does it: each row cut into sub-vectors of dsub
columns, each sub-vector replaced by the byte naming the nearest of 256 centroids learned for its
sub-space by k-means; optionally each row's L2 norm kept apart, as a byte of a 1-D quantizer.

    quantize(matrix, dsub=2, qnorm=False, seed=1234)  (M, D) float32 -> QuantizedMatrix
    q.rows(ids)                       (n,) ids -> (n, D) float32, decoded as fastText's QuantMatrix::addRowToVector
    q.decode()                        -> (M, D) float32, every row
    q.shape, q.nbytes                 (M, D); bytes of codes, codebooks and norm codes
    kmeans(points, seed=1234)         (n, d) -> (256, d) centroids, (NITER,) error of each iteration
    ProductQuantizer(dim, dsub, centroids)   the codebooks: nsubq sub-spaces, the last lastdsub wide

Shapes: M rows, D their width, d a sub-space's width (dsub, or lastdsub for the last one).

fastText's details, kept: 256 centroids a sub-space (a code is one byte); k-means trained on at most
65,536 rows (MAX_POINTS), a fresh random sample for each sub-space when there are more; initial
centroids the first 256 points of a random permutation; 25 iterations of assign-then-average; a
cluster left empty is refilled by splitting a populated one, chosen with probability growing with
its size, into two copies moved ±EPS (1e-7) apart. With qnorm, rows are divided by their norms (a zero row
stays zero) before their codes are learned, and the norms get a 1-D quantizer of their own.
Departures: the random stream is ours (numpy's seeding, not std::minstd_rand seeded 1234), so codes
differ from the tool's while their error is alike (tests/vectors/test_quantize.py); centroid sums
are taken in float64; sub-spaces train in parallel (they are independent), each from its own seed.
A width D that dsub does not divide is refused here (fastText makes the last sub-space narrower:
such files are read, ProductQuantizer holds them), as is a matrix of fewer than 256 rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from embedlab.errors import InvalidValueError, check_int, describe

KSUB = 256  # centroids per sub-space: a code is one byte (fastText's nbits 8)
NITER = 25  # k-means iterations (fastText's niter_)
MAX_POINTS = 256 * KSUB  # k-means trains on at most 256 points per centroid (fastText's max_points_)
SEED = 1234  # fastText's seed_ (its stream is std::minstd_rand's; ours is numpy's: see the module docstring)


@dataclass(frozen=True, eq=False)  # eq=False: comparing arrays elementwise has no single truth value
class ProductQuantizer:
    """The codebooks of `dim` columns cut into sub-spaces of `dsub`: nsubq sub-spaces, the last one
    lastdsub wide (dsub, or what is left when dsub does not divide dim), as fastText's ProductQuantizer.

    >>> pq = ProductQuantizer(5, 2, np.zeros(256 * 5, np.float32))
    >>> pq.nsubq, pq.lastdsub, pq.subspace(2).shape
    (3, 1, (256, 1))
    """

    dim: int
    dsub: int
    centroids: np.ndarray  # (256 * dim,) float32: sub-space m's (256, d) centroids at 256 * dsub * m, in turn

    def __post_init__(self) -> None:
        check_int("dim", self.dim, low=1)
        check_int("dsub", self.dsub, low=1)
        c = self.centroids
        if not isinstance(c, np.ndarray) or c.dtype != np.float32 or c.shape != (KSUB * self.dim,):
            raise InvalidValueError(
                f"centroids must be a float32 array of shape ({KSUB * self.dim},); got {describe(c)}"
            )

    @property
    def nsubq(self) -> int:
        return -(-self.dim // self.dsub)

    @property
    def lastdsub(self) -> int:
        return self.dim - (self.nsubq - 1) * self.dsub

    def subspace(self, m: int) -> np.ndarray:
        """(256, d) sub-space m's centroids (a view), d = dsub, or lastdsub for the last."""
        d = self.lastdsub if m == self.nsubq - 1 else self.dsub
        start = KSUB * self.dsub * m
        return self.centroids[start : start + KSUB * d].reshape(KSUB, d)

    def decode(self, codes: np.ndarray) -> np.ndarray:
        """(n, nsubq) uint8 codes -> (n, dim) float32, each sub-vector its code's centroid."""
        out = np.empty((len(codes), self.dim), np.float32)
        for m in range(self.nsubq):
            out[:, m * self.dsub : m * self.dsub + self.subspace(m).shape[1]] = self.subspace(m)[codes[:, m]]
        return out


@dataclass(frozen=True, eq=False)
class QuantizedMatrix:
    """An (M, D) matrix as fastText's QuantMatrix holds it: each row's codes in `pq`'s sub-spaces,
    and with qnorm each row's norm as a code of `norm_pq` (a 1-D quantizer). Row i decodes to
    norm_i * (the centroids its codes name), norm_i 1 without qnorm."""

    codes: np.ndarray  # (M, nsubq) uint8
    pq: ProductQuantizer
    norm_codes: np.ndarray | None = None  # (M,) uint8 with qnorm, else None
    norm_pq: ProductQuantizer | None = None  # dim 1, dsub 1 with qnorm, else None

    def __post_init__(self) -> None:
        codes, pq = self.codes, self.pq
        if (
            not isinstance(codes, np.ndarray)
            or codes.dtype != np.uint8
            or codes.ndim != 2
            or codes.shape[1] != pq.nsubq
        ):
            raise InvalidValueError(f"codes must be a uint8 array of shape (M, {pq.nsubq}); got {describe(codes)}")
        if (self.norm_codes is None) != (self.norm_pq is None):
            raise InvalidValueError("norm_codes and norm_pq go together: both (qnorm) or neither")
        if self.norm_pq is not None:
            norms = self.norm_codes
            if not isinstance(norms, np.ndarray) or norms.dtype != np.uint8 or norms.shape != (len(codes),):
                raise InvalidValueError(
                    f"norm_codes must be a uint8 array of shape ({len(codes)},); got {describe(norms)}"
                )
            if (self.norm_pq.dim, self.norm_pq.dsub) != (1, 1):
                raise InvalidValueError(
                    f"norm_pq must have dim 1 and dsub 1; got {self.norm_pq.dim} and {self.norm_pq.dsub}"
                )

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.codes), self.pq.dim

    def __len__(self) -> int:
        return len(self.codes)

    @property
    def qnorm(self) -> bool:
        return self.norm_pq is not None

    @property
    def nbytes(self) -> int:
        """Bytes of the codes, the codebooks and the norm codes (and their codebook)."""
        norms = 0 if self.norm_pq is None else self.norm_codes.nbytes + self.norm_pq.centroids.nbytes
        return self.codes.nbytes + self.pq.centroids.nbytes + norms

    def rows(self, ids: np.ndarray) -> np.ndarray:
        """(n,) row ids -> (n, D) float32, as fastText's addRowToVector adds them to a zero vector
        (the norm's centroid times each code's centroid, in float32)."""
        ids = np.asarray(ids)
        out = self.pq.decode(self.codes[ids])  # (n, D)
        if self.norm_pq is not None:
            out *= self.norm_pq.centroids[self.norm_codes[ids]][:, None]
        return out

    def decode(self) -> np.ndarray:
        """(M, D) float32: every row decoded."""
        return self.rows(np.arange(len(self)))


# ----- training ------------------------------------------------------------------------------------


def quantize(matrix: np.ndarray, dsub: int = 2, qnorm: bool = False, seed: int = SEED) -> QuantizedMatrix:
    """(M, D) float32 (M >= 256, D a multiple of dsub) -> QuantizedMatrix of D // dsub sub-spaces.

    >>> x = np.random.default_rng(0).normal(size=(300, 4)).astype(np.float32)
    >>> q = quantize(x, dsub=2)
    >>> q.shape, q.codes.shape, q.nbytes   # 300 * 2 code bytes, 256 * 4 float32 centroids
    ((300, 4), (300, 2), 4696)
    """
    dsub = check_int("dsub", dsub, low=1)
    seed = check_int("seed", seed, low=0)
    matrix = np.asarray(matrix)
    if matrix.ndim != 2 or not np.issubdtype(matrix.dtype, np.floating):
        raise InvalidValueError(f"matrix must be a 2-D float array (M, D); got {describe(matrix)} {matrix.shape}")
    M, D = matrix.shape
    if M < KSUB:
        raise InvalidValueError(
            f"matrix too small for quantization: it has {M} rows, and each sub-space's {KSUB} centroids need at "
            f"least {KSUB}"
        )
    if D % dsub:
        raise InvalidValueError(f"dsub {dsub} must divide the matrix's width {D} (each sub-vector is dsub columns)")
    x = np.ascontiguousarray(matrix, dtype=np.float32)
    if not np.isfinite(x).all():
        raise InvalidValueError(f"matrix holds NaN or ±inf (first at row {int(np.argmin(np.isfinite(x).all(1)))})")
    seeds = np.random.SeedSequence(seed).generate_state(D // dsub + 1, np.uint64)  # (nsubq + 1,): one a sub-space
    norm_pq = norm_codes = None
    if qnorm:
        norms = np.sqrt(np.einsum("ij,ij->i", x, x, dtype=np.float64)).astype(np.float32)  # (M,)
        x = np.divide(x, norms[:, None], out=x.copy(), where=norms[:, None] != 0)  # a zero row stays zero
        norm_pq, norm_codes = _train(norms[:, None], 1, seeds[-1:])
        norm_codes = norm_codes[:, 0]
    pq, codes = _train(x, dsub, seeds[:-1])
    return QuantizedMatrix(codes, pq, norm_codes, norm_pq)


def _train(x: np.ndarray, dsub: int, seeds: np.ndarray) -> tuple[ProductQuantizer, np.ndarray]:
    """(M, D) float32 -> (its ProductQuantizer, (M, D // dsub) uint8 codes)."""
    M, D = x.shape
    nsubq = D // dsub
    centroids = np.empty((nsubq, KSUB, dsub), np.float32)
    from embedlab.vectors.quantize_kernels import encode, train_subspaces  # numba, imported only here

    train_subspaces(x, centroids, seeds, np.empty((nsubq, NITER)), min(M, MAX_POINTS))
    codes = np.empty((M, nsubq), np.uint8)
    encode(x, np.ascontiguousarray(centroids.transpose(0, 2, 1)), codes)
    return ProductQuantizer(D, dsub, centroids.reshape(-1)), codes


def kmeans(points: np.ndarray, seed: int = SEED, niter: int = NITER) -> tuple[np.ndarray, np.ndarray]:
    """(n, d) points, n >= 256 -> (256, d) float32 centroids, (niter,) float64 errors: the sum of
    squared distances to the nearest centroid when each iteration assigns (it never grows, but for
    the ±EPS of a split). All n points are used: quantize samples MAX_POINTS of them first."""
    x = np.ascontiguousarray(points, dtype=np.float32)
    if x.ndim != 2 or len(x) < KSUB:
        raise InvalidValueError(f"points must be (n, d) with n >= {KSUB}; got shape {x.shape}")
    niter = check_int("niter", niter, low=1)
    centroids = np.empty((1, KSUB, x.shape[1]), np.float32)
    errors = np.empty((1, niter))
    from embedlab.vectors.quantize_kernels import train_subspaces

    train_subspaces(x, centroids, np.random.SeedSequence(seed).generate_state(1, np.uint64), errors, len(x))
    return centroids[0], errors[0]
