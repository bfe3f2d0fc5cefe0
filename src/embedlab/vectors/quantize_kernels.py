"""product quantization's k-means loops, compiled with numba (quantize.py calls these).

    train_subspaces(x, centroids, seeds, errors, npoints)   k-means in every sub-space, in parallel
    encode(x, cts, codes)                                    each row's nearest centroid in each sub-space

All randomness is splitmix64 on a uint64 state per sub-space seeded by the caller, so results are a
pure function of the seeds whatever the number of threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

EPS = 1e-7  # how far apart the two halves of a split cluster start (fastText's eps_)
# Reassociation lets LLVM vectorise the distance loops; NaN and inf keep their meaning (train/kernels.py).
FASTMATH = {"reassoc", "contract", "nsz", "arcp"}


@njit(inline="always")
def _next(state):
    """splitmix64's next draw from a 1-element uint64 state -> uint64."""
    state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(inline="always")
def _uniform(state):
    """A float64 in [0, 1) from the top 53 bits of a draw."""
    return float(_next(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(inline="always")
def _below(state, n):
    """An integer in [0, n) (n far below 2**32: the bias of the modulo is under 1e-9 there)."""
    return np.int64(_next(state) % np.uint64(n))


@njit(fastmath=FASTMATH, inline="always")
def _nearest(x, ct, dist):
    """x (d,), ct (d, 256) centroids column-major, dist (256,) scratch -> (the nearest centroid's
    index, its squared distance); the first of equals wins, as fastText's assign_centroid."""
    k = ct.shape[1]
    for j in range(k):
        dist[j] = 0.0
    for t in range(ct.shape[0]):
        xt = x[t]
        for j in range(k):
            diff = xt - ct[t, j]
            dist[j] += diff * diff
    best, low = 0, dist[0]
    for j in range(1, k):
        if dist[j] < low:
            best, low = j, dist[j]
    return best, low


@njit(cache=True)
def _mstep(x, codes, centroids, state):
    """Each centroid the mean of its points (x (n, d), codes (n,), centroids (256, d) updated); each
    empty cluster takes half of a populated one as fastText's MStep: cluster m is chosen, walking
    from 0, with probability (size_m - 1) / (n - 256) at each step, and the two start ±EPS apart."""
    n, d = x.shape
    k = centroids.shape[0]
    sums = np.zeros((k, d))
    sizes = np.zeros(k, np.int64)
    for i in range(n):
        c = codes[i]
        sizes[c] += 1
        for t in range(d):
            sums[c, t] += x[i, t]
    for c in range(k):
        if sizes[c]:
            for t in range(d):
                centroids[c, t] = sums[c, t] / sizes[c]
    for c in range(k):
        if sizes[c] == 0:
            m = 0
            while _uniform(state) * (n - k) >= sizes[m] - 1:
                m = (m + 1) % k
            for t in range(d):
                sign = (t % 2) * 2 - 1  # subtle: fastText's sign, -1 on even columns
                centroids[c, t] = centroids[m, t] + sign * EPS
                centroids[m, t] -= sign * EPS
            sizes[c] = sizes[m] // 2
            sizes[m] -= sizes[c]


@njit(cache=True, parallel=True)
def train_subspaces(x, centroids, seeds, errors, npoints):
    """k-means for each of the S sub-spaces at once: x (M, D), centroids (S, 256, d) filled,
    seeds (S,) uint64, errors (S, niter) filled, each on `npoints` rows of x drawn without
    replacement (all of them, in a random order, when npoints == M)."""
    S, k, d = centroids.shape
    M = x.shape[0]
    for s in prange(S):
        state = np.array([seeds[s]], np.uint64)
        perm = np.arange(M)
        for i in range(npoints):  # a partial Fisher-Yates shuffle: its first npoints rows are the sample
            j = i + _below(state, M - i)
            perm[i], perm[j] = perm[j], perm[i]
        xs = np.empty((npoints, d), np.float32)
        for i in range(npoints):
            for t in range(d):
                xs[i, t] = x[perm[i], s * d + t]
        cs = centroids[s]
        for c in range(k):  # the first k sample points: a random permutation's first k
            cs[c] = xs[c]
        codes = np.empty(npoints, np.int64)
        dist = np.empty(k, np.float32)
        ct = np.empty((d, k), np.float32)
        for it in range(errors.shape[1]):
            ct[:] = cs.T
            total = 0.0
            for i in range(npoints):
                c, err = _nearest(xs[i], ct, dist)
                codes[i] = c
                total += err
            errors[s, it] = total
            _mstep(xs, codes, cs, state)


@njit(cache=True, parallel=True)
def encode(x, cts, codes):
    """x (M, D), cts (S, d, 256) each sub-space's centroids column-major -> codes (M, S) filled."""
    S, d, k = cts.shape
    for i in prange(x.shape[0]):
        dist = np.empty(k, np.float32)
        for s in range(S):
            codes[i, s] = _nearest(x[i, s * d : (s + 1) * d], cts[s], dist)[0]
