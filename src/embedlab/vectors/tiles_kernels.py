"""The tile overlay's loops over every row, compiled with numba (tiles_overlay.py calls these).

    box_histograms(coords, x0, y0, scale, z, grid, halo, codes, hist)   rows counted per tile box cell
    box_regions(coords, x0, y0, scale, z, grid, codes, regions, out)    each row's region at one depth
    count_terms(blob, idx) / hash_terms(blob, idx, offsets, out)        the terms of every key, hashed
    term_span(blob, start, end, h)                                      where in one key a hashed term is
    group_rows(where, R)                                                rows grouped by region (counting sort)
    best_terms(starts, rows, offsets, terms, idf, rank, ...)            each region's highest-scoring term
    link_segments(a, b, n_edges)                                        marching squares' pieces as lines
    components(mask)                                                    4-connected regions of a grid

A map cell is found the same way everywhere: fx = floor((x - x0) * scale), clipped to the map, where
scale = grid * 2**z / side; the tile is fx // grid and the cell inside it fx % grid (likewise y). A
tile is known by its code tx * 2**z + ty, looked up in the sorted codes of the tiles at depth z.

A key's terms are its runs of letters (ASCII letters, and every byte >= 0x80 so that any script is
kept whole), ASCII-lower-cased, of at least MIN_LETTERS characters; word-piece markers ("Ġ" C4 A0,
"▁" E2 96 81, and "#") and everything else separate them. Terms are told apart by their 64-bit
FNV-1a hash (at 10 million distinct terms two share a hash with probability ~3e-6).
"""

from __future__ import annotations

import numpy as np
from numba import njit

MIN_LETTERS = 2  # a term has at least this many characters: single letters name nothing
FNV64_OFFSET, FNV64_PRIME = np.uint64(14695981039346656037), np.uint64(1099511628211)


@njit(inline="always")
def _cell(value, origin, scale, n):
    """The map cell 0..n-1 of one coordinate (the far edge belongs to the last cell)."""
    f = np.int64(np.floor((np.float64(value) - origin) * scale))
    return min(max(f, 0), n - 1)


@njit(inline="always")
def _find(codes, code):
    """The index of `code` in the sorted `codes`, or -1."""
    i = np.searchsorted(codes, code)
    return i if i < codes.shape[0] and codes[i] == code else -1


@njit(cache=True)
def box_histograms(coords, x0, y0, scale, z, grid, halo, codes, hist):
    """Add each row of coords (V, 2) to hist (T, grid + 2 halo, grid + 2 halo) of every depth-z tile
    (codes (T,) sorted) whose box, widened by `halo` cells on each side, holds it: a row near a
    tile's edge also counts in its neighbour's margin, so smoothing and contours match across tiles."""
    side, n = np.int64(1) << z, grid << z
    for i in range(coords.shape[0]):
        fx, fy = _cell(coords[i, 0], x0, scale, n), _cell(coords[i, 1], y0, scale, n)
        tx, ty, lx, ly = fx // grid, fy // grid, fx % grid, fy % grid
        for dx in range(-1, 2):
            ex = lx + halo - dx * grid
            if ex < 0 or ex >= grid + 2 * halo or tx + dx < 0 or tx + dx >= side:
                continue
            for dy in range(-1, 2):
                ey = ly + halo - dy * grid
                if ey < 0 or ey >= grid + 2 * halo or ty + dy < 0 or ty + dy >= side:
                    continue
                t = _find(codes, (tx + dx) * side + ty + dy)
                if t >= 0:
                    hist[t, ex, ey] += 1


@njit(cache=True)
def box_regions(coords, x0, y0, scale, z, grid, codes, regions, out):
    """out (V,) int32: the region regions[t, cell x, cell y] (T, grid, grid) of each row's cell in its
    depth-z tile, or -1 (no tile there, or a cell in no region)."""
    side, n = np.int64(1) << z, grid << z
    for i in range(coords.shape[0]):
        fx, fy = _cell(coords[i, 0], x0, scale, n), _cell(coords[i, 1], y0, scale, n)
        t = _find(codes, (fx // grid) * side + fy // grid)
        out[i] = -1 if t < 0 else regions[t, fx % grid, fy % grid]


@njit(inline="always")
def _separator(blob, i, end):
    """Bytes of a word-piece marker starting at i ("Ġ" 2, "▁" 3), or 0."""
    if blob[i] == 0xC4 and i + 1 < end and blob[i + 1] == 0xA0:
        return 2
    if blob[i] == 0xE2 and i + 2 < end and blob[i + 1] == 0x96 and blob[i + 2] == 0x81:
        return 3
    return 0


@njit(inline="always")
def _letter(b):
    return (65 <= b <= 90) or (97 <= b <= 122) or b >= 0x80


@njit(inline="always")
def _next_term(blob, i, end):
    """The next term at or after i, before end -> (its hash, its first byte, the byte after it, where
    the scan goes on); hash 0 = none."""
    while i < end:
        marker = _separator(blob, i, end)
        if marker or not _letter(blob[i]):
            i += max(marker, 1)
            continue
        h, chars, first = FNV64_OFFSET, 0, i
        while i < end and _letter(blob[i]) and _separator(blob, i, end) == 0:
            b = blob[i]
            chars += (b & 0xC0) != 0x80  # a UTF-8 continuation byte is not a new character
            h = (h ^ np.uint64(b + 32 if 65 <= b <= 90 else b)) * FNV64_PRIME
            i += 1
        if chars >= MIN_LETTERS:
            return h, first, i
    return np.uint64(0), end, end


@njit(cache=True)
def count_terms(blob, idx):
    """(V,) int64: how many terms (with repeats) key k = blob[idx[k] : idx[k+1] - 1] has; -1 where
    idx is not increasing or runs past the blob (the caller names the row)."""
    V = idx.shape[0] - 1
    out = np.zeros(V, dtype=np.int64)
    for k in range(V):
        i, end = idx[k], idx[k + 1] - 1  # the key's "\n" is not part of it
        if end < i or idx[k + 1] > blob.shape[0]:
            out[k] = -1
            continue
        while True:
            h, _, i = _next_term(blob, i, end)
            if h == 0:
                break
            out[k] += 1
    return out


@njit(cache=True)
def hash_terms(blob, idx, offsets, out):
    """out[offsets[k] : offsets[k+1]]: the distinct term hashes of key k (a term twice in one key
    once), the rest of its span 0. offsets (V+1,) from count_terms."""
    for k in range(idx.shape[0] - 1):
        i, end, at = idx[k], idx[k + 1] - 1, offsets[k]
        while True:
            h, _, i = _next_term(blob, i, end)
            if h == 0:
                break
            seen = False
            for j in range(offsets[k], at):
                seen |= out[j] == h
            if not seen:
                out[at] = h
                at += 1
        for j in range(at, offsets[k + 1]):
            out[j] = 0


@njit(cache=True)
def best_terms(starts, rows, offsets, terms, idf, rank, count, best):
    """For each region r, its rows rows[starts[r] : starts[r+1]] -> (term, row, representative):
    the term t of largest (rows of the region whose key has t) * idf[t], a tie going to the term
    whose best row has the lower rank; that row; and the region's row of lowest rank. term -1: no
    row of the region has a term. terms (offsets[-1],) int32 term ids (-1 none); count and best
    (terms,) scratch, zero and -1 on entry and on return."""
    R = starts.shape[0] - 1
    term_out = np.full(R, -1, dtype=np.int64)
    row_out = np.full(R, -1, dtype=np.int64)
    rep_out = np.full(R, -1, dtype=np.int64)
    touched = np.empty(count.shape[0], dtype=np.int64)  # a region's distinct terms
    for r in range(R):
        n_touched, rep = 0, -1
        for p in range(starts[r], starts[r + 1]):
            row = rows[p]
            if rep < 0 or rank[row] < rank[rep]:
                rep = row
            for q in range(offsets[row], offsets[row + 1]):
                t = terms[q]
                if t < 0:
                    continue
                if count[t] == 0:
                    touched[n_touched] = t
                    n_touched += 1
                count[t] += 1
                if best[t] < 0 or rank[row] < rank[best[t]]:
                    best[t] = row
        top, top_score = -1, -1.0
        for j in range(n_touched):
            t = touched[j]
            score = count[t] * idf[t]
            # subtle: equal scores compare within rounding, so a word table's ties reach the rank rule
            close = abs(score - top_score) <= 1e-9 * max(score, top_score)
            if top < 0 or (score > top_score and not close) or (close and rank[best[t]] < rank[best[top]]):
                top, top_score = t, score
        if top >= 0:
            term_out[r], row_out[r] = top, best[top]
        rep_out[r] = rep
        for j in range(n_touched):
            count[touched[j]], best[touched[j]] = 0, -1
    return term_out, row_out, rep_out


@njit(cache=True)
def link_segments(a, b, n_edges):
    """Segments (S,) between grid edges a[s] - b[s] (each edge in at most two) -> (edges, starts):
    lines as runs of edge ids, line i being edges[starts[i] : starts[i+1]]; a closed loop ends on the
    edge it began with. Open lines (ending at the grid's border) are walked from an end."""
    S = a.shape[0]
    first, second = np.full(n_edges, -1, np.int64), np.full(n_edges, -1, np.int64)
    for s in range(S):
        for e in (a[s], b[s]):
            if first[e] < 0:
                first[e] = s
            else:
                second[e] = s
    used = np.zeros(S, dtype=np.bool_)
    edges, starts = np.empty(2 * S + 1, np.int64), np.empty(S + 1, np.int64)
    n, lines = 0, 0
    for sweep in range(2):  # open lines first (from an edge only one segment touches), then loops
        for s0 in range(S):
            if used[s0]:
                continue
            if sweep == 0 and second[a[s0]] >= 0 and second[b[s0]] >= 0:
                continue
            e = a[s0] if sweep == 1 or second[a[s0]] < 0 else b[s0]
            starts[lines] = n
            lines += 1
            edges[n] = e
            n += 1
            s = s0
            while s >= 0 and not used[s]:
                used[s] = True
                e = b[s] if a[s] == e else a[s]
                edges[n] = e
                n += 1
                s = second[e] if first[e] == s else first[e]
    starts[lines] = n
    return edges[:n], starts[: lines + 1]


@njit(cache=True)
def components(mask):
    """(X, Y) bool -> (X, Y) int32: each True cell's 4-connected component 0, 1, ..., False cells -1."""
    X, Y = mask.shape
    label = np.full((X, Y), -1, dtype=np.int32)
    stack = np.empty(X * Y, dtype=np.int64)
    n = 0
    for start in range(X * Y):
        if not mask[start // Y, start % Y] or label[start // Y, start % Y] >= 0:
            continue
        label[start // Y, start % Y] = n
        stack[0], top = start, 1
        while top:
            top -= 1
            i, j = stack[top] // Y, stack[top] % Y
            for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                u, v = i + di, j + dj
                if 0 <= u < X and 0 <= v < Y and mask[u, v] and label[u, v] < 0:
                    label[u, v] = n
                    stack[top] = u * Y + v
                    top += 1
        n += 1
    return label


@njit(cache=True)
def term_span(blob, start, end, h):
    """Where in blob[start:end] (one key) the term with hash h lies -> (i, j); (0, 0) if nowhere."""
    i = start
    while True:
        term, first, i = _next_term(blob, i, end)
        if term == 0 or term == h:
            return (first, i) if term == h else (0, 0)


@njit(cache=True)
def group_rows(where, R):
    """where (V,) each row's region 0..R-1 or -1 -> (starts (R+1,), rows): region r's rows, ascending,
    are rows[starts[r] : starts[r+1]] (a counting sort: two passes, where argsort would take n log n)."""
    starts = np.zeros(R + 1, dtype=np.int64)
    for i in range(where.shape[0]):
        if where[i] >= 0:
            starts[where[i] + 1] += 1
    for r in range(R):
        starts[r + 1] += starts[r]
    rows, at = np.empty(starts[R], dtype=np.int64), starts[:R].copy()
    for i in range(where.shape[0]):
        if where[i] >= 0:
            rows[at[where[i]]] = i
            at[where[i]] += 1
    return starts, rows
