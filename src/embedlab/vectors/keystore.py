"""Every key of a table of any size, on disk, mapped: no Python object per key until one is asked for.

    store = KeyStore.write(folder, chunks)   # chunks: lists of keys in row order (a million at a time, say)
    store = KeyStore.open(folder)            # maps the three files read-only: nothing parsed
    store.key(7), store.keys([3, 9]), len(store)
    store.find("king")                       # -> its row, or None: a binary search on the sorted hashes
    store.search("ing", limit=100)           # Hits(count over EVERY key, the first rows, seconds)
    store.search(r"^k.*g$", regex=True)      # a regular expression, as regex.search finds it in each key

The files (V keys):

    keys.bin       every key as UTF-8, each followed by b"\\n" (a key holding "\\n" is refused)
    keys.idx       (V+1,) int64 .npy: key i is blob[idx[i] : idx[i+1] - 1]
    keys.hash.npy  (V, 2) uint64 .npy: (FNV-1a 64 of the key's bytes, row), sorted: a key -> its row

A JSON list of ten million keys costs seconds to parse and about 1 GB of Python strings; these cost
their bytes (keys.bin), 8 bytes a key (keys.idx) and 16 (keys.hash.npy), and opening them costs nothing.

Writing streams: the memory is one chunk's keys plus 24 bytes a key (offsets and hashes), and the
final sort of the hashes. Each file is written atomically, keys.hash.npy last: a store whose
hashes are there is complete.

Search by substring compares bytes (no key is decoded); by regular expression (the `regex` package,
MULTILINE, under a time budget) it decodes the blob a few megabytes of whole keys at a time, so a
ten-million-key blob never becomes one string. Its answer equals, for every pattern,
[i for i, k in enumerate(keys) if regex.search(pattern, k, regex.MULTILINE)]: the keys are searched
joined, and a match that holds the "\\n" between keys has each key it touches searched on its own;
a pattern whose answer in the joined keys could differ (lookarounds, \\A \\Z \\G \\K \\X, atomic
groups, possessive quantifiers, ... see _CONTEXT) is run key by key instead, about 1 us a key (a
million keys take about a second). Ten million keys of a fastText .bin (149 MB) take 0.15-0.35 s
for a plain pattern (^hist, ing$, q[^u]), 0.1-0.7 s for a substring, on a busy 2-core machine.
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import regex

from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError, check_float, check_int, plain
from embedlab.files import atomic_writer

BLOB, INDEX, HASHES = "keys.bin", "keys.idx", "keys.hash.npy"
MAX_PATTERN = 1_000  # characters of a search pattern
SEARCH_BYTES = 4 << 20  # blob bytes searched at a time (whole keys): a few MB decoded, never the whole blob
FNV_OFFSET, FNV_PRIME = np.uint64(14695981039346656037), np.uint64(1099511628211)  # FNV-1a 64's constants
# a key this short is searched without regex's timeout, which costs 3 us a call (4x the search): on so
# few characters even a pattern that backtracks exponentially is done in milliseconds
SHORT_KEY = 12
ENCODING = ("utf-8", "surrogatepass")  # a lone surrogate (JSON may hold "\ud800") round-trips
# What a pattern may hold that makes its answer in the joined blob differ from its answer key by key:
# assertions that see past the match (lookarounds, \A \Z \G, \K's reset start), and what commits to
# a path that in the blob could run on into the next key (atomic groups, possessive quantifiers,
# backtracking verbs, \X's grapheme clusters), reversed search, the WORD flag's line breaks, MULTILINE
# turned off, VERBOSE (whose spaces could hide the rest) and fuzzy matching. A pattern holding one is
# run on each key alone.
_CONTEXT = regex.compile(
    r"""\(\?(?:[=!>]|<[=!])         # lookahead, lookbehind, atomic group
      | \\[AZzGKX]                 # \A \Z \z \G \K, and \X (a "\r" ending a key joins its "\n")
      | [*+?}]\+                   # possessive quantifiers
      | \(\*                        # backtracking verbs: (*PRUNE), (*SKIP), (*FAIL) ...
      | \(\?[a-zA-Z0-9-]*[rwx][a-zA-Z0-9-]*[:)]  # REVERSE; WORD ("\r\n" one line break); VERBOSE ("* +")
      | \(\?[a-zA-Z0-9]*-[a-zA-Z0-9]*m  # MULTILINE turned off: ^ and $ at the chunk's ends only
      | \{[^}]*[eids][^}]*\}       # a fuzzy constraint: {e<=1}, {i<=2,d<=1}, {2i+1s<=3} ...
    """,
    regex.VERBOSE,
)


@dataclass(frozen=True)
class Hits:
    """What a search found."""

    count: int  # keys that match, among every key
    rows: np.ndarray  # (<= limit,) int64: the first matching rows, ascending
    seconds: float  # the search's wall time


def fnv1a64(blob: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """(n,) uint64 FNV-1a 64 of each blob[starts[i] : starts[i] + lengths[i]], vectorised: the keys are
    taken longest first, so the keys still being hashed at byte p are a prefix; the work is the bytes'.

    >>> int(fnv1a64(np.frombuffer(b"a", np.uint8), np.array([0]), np.array([1]))[0]) == 0xAF63DC4C8601EC8C
    True
    """
    order = np.argsort(-lengths, kind="stable")
    starts, lengths = starts[order].astype(np.int64), lengths[order]
    ends = np.searchsorted(-lengths, -np.arange(int(lengths.max(initial=0))), side="left")  # keys longer than p
    h = np.full(len(order), FNV_OFFSET, dtype=np.uint64)
    for p, n in enumerate(ends.tolist()):
        h[:n] ^= blob[starts[:n] + p]
        h[:n] *= FNV_PRIME  # uint64 arrays wrap, as C's
    hashes = np.empty_like(h)
    hashes[order] = h
    return hashes


def fnv1a64_one(data: bytes) -> int:
    """FNV-1a 64 of one key's bytes, as fnv1a64 hashes each: for one short key a loop beats its set-up.

    >>> fnv1a64_one(b"a") == 0xAF63DC4C8601EC8C
    True
    """
    h, prime = int(FNV_OFFSET), int(FNV_PRIME)
    for byte in data:
        h = ((h ^ byte) * prime) & 0xFFFFFFFFFFFFFFFF
    return h


class KeyStore:
    """A table's V keys, mapped from `folder` (KeyStore.open) or written there (KeyStore.write)."""

    def __init__(self, folder: Path, blob: np.ndarray, offsets: np.ndarray, hashes: np.ndarray) -> None:
        self.folder = folder
        self.blob = blob  # (B,) uint8 read-only memmap: every key's UTF-8 bytes and its "\n"
        self.offsets = offsets  # (V+1,) int64: where each key starts (and the blob's end)
        self.hashes = hashes  # (V, 2) uint64: (hash, row) sorted
        self._hash_column = np.asarray(hashes)[:, 0]  # (V,) a plain view: a memmap's item access is slow Python
        self._bytes_seen: np.ndarray | None = None  # (256,) a sample's byte counts, made by the first search

    # ---- writing and opening -------------------------------------------------------------------

    @classmethod
    def write(cls, folder: str | Path, chunks: Iterable[Sequence[str]]) -> KeyStore:
        """Write the keys of `chunks` (row order) to `folder` (made if missing): keys.bin, keys.idx and
        keys.hash.npy, each atomically (the hashes last) -> the store, opened. A key holding "\\n" is
        refused, naming its row, before any file is replaced."""
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        starts, hashes, at, row = [np.zeros(1, np.int64)], [], 0, 0
        with atomic_writer(folder / BLOB, "wb") as f:
            for chunk in chunks:
                encoded = [key.encode(*ENCODING) for key in chunk]
                data = b"\n".join(encoded) + b"\n" if encoded else b""
                if data.count(b"\n") != len(encoded):
                    bad = next(i for i, key in enumerate(encoded) if b"\n" in key)
                    raise InvalidValueError(
                        f"key {chunk[bad]!r} of row {row + bad:,} holds a line break; a map's keys cannot"
                    )
                lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(encoded))
                ends = np.cumsum(lengths + 1)  # (n,) each key's end, its "\n" included, within `data`
                hashes.append(fnv1a64(np.frombuffer(data, np.uint8), ends - lengths - 1, lengths))
                starts.append(at + ends)
                f.write(data)
                at, row = at + len(data), row + len(encoded)
        with atomic_writer(folder / INDEX, "wb") as f:
            np.save(f, np.concatenate(starts), allow_pickle=False)
        hashed = np.concatenate(hashes) if hashes else np.zeros(0, np.uint64)
        del hashes, starts
        order = np.argsort(hashed, kind="stable")  # (V,) equal hashes keep row order
        table = np.empty((len(order), 2), dtype=np.uint64)  # (V, 2) (hash, row)
        table[:, 0], table[:, 1] = hashed[order], order
        with atomic_writer(folder / HASHES, "wb") as f:
            np.save(f, table, allow_pickle=False)
        return cls.open(folder)

    @classmethod
    def open(cls, folder: str | Path) -> KeyStore:
        """The store in `folder`, its three files mapped read-only; MissingDataError if it is not
        complete, FileFormatError if its files disagree with each other."""
        folder = Path(folder)
        for name in (BLOB, INDEX, HASHES):
            if not (folder / name).is_file():
                raise MissingDataError(f"{folder} holds no complete key store: {name} is missing; write it again")
        size = (folder / BLOB).stat().st_size
        # subtle: numpy cannot map an empty file; a table of no keys has an empty blob
        blob = np.memmap(folder / BLOB, np.uint8, mode="r") if size else np.zeros(0, np.uint8)
        try:  # mapped, never read whole (240 MB at ten million keys); numpy checks each header's size
            offsets = np.load(folder / INDEX, mmap_mode="r", allow_pickle=False)
            hashes = np.load(folder / HASHES, mmap_mode="r", allow_pickle=False)
        except ValueError as err:  # a damaged header, or a file shorter than its header says
            raise FileFormatError(f"{folder}: a key store's arrays cannot be read ({err}); write it again") from None
        V = len(offsets) - 1
        if offsets.dtype != np.int64 or V < 0 or int(offsets[-1]) != size or hashes.shape != (V, 2):
            raise FileFormatError(
                f"{folder}: a key store's files disagree: {INDEX} {offsets.dtype} {offsets.shape} ends at "
                f"{int(offsets[-1]) if len(offsets) else None}, {BLOB} holds {size:,} bytes, {HASHES} has shape "
                f"{hashes.shape}; write it again"
            )
        return cls(folder, blob, offsets, hashes)

    # ---- keys by row, rows by key --------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __repr__(self) -> str:
        return f"KeyStore({str(self.folder)!r}, {len(self):,} keys)"

    def key(self, row: int) -> str:
        """The key of `row` (0..V-1)."""
        row = check_int("row", row, low=0, high=len(self) - 1)
        return self.keys([row])[0]

    def keys(self, rows: Sequence[int] | np.ndarray) -> list[str]:
        """(n,) rows -> their n keys; a row outside 0..V-1 is refused, naming it."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        bad = rows[(rows < 0) | (rows >= len(self))]
        if len(bad):
            raise InvalidValueError(f"row {int(bad[0])} is out of range: the table has {len(self):,} rows")
        starts, ends = self.offsets[rows].tolist(), (self.offsets[rows + 1] - 1).tolist()
        return [self.blob[a:b].tobytes().decode(*ENCODING) for a, b in zip(starts, ends, strict=True)]

    def find(self, key: str) -> int | None:
        """The row of `key`, or None: a binary search for its hash, each row found there confirmed by
        its bytes (two keys of one hash are told apart)."""
        data = key.encode(*ENCODING)
        h = fnv1a64_one(data)
        column = self._hash_column
        i = bisect.bisect_left(column, h)
        while i < len(column) and int(column[i]) == h:
            row = int(self.hashes[i, 1])
            a, b = int(self.offsets[row]), int(self.offsets[row + 1]) - 1
            if self.blob[a:b].tobytes() == data:
                return row
            i += 1
        return None

    def __contains__(self, key: object) -> bool:
        """Whether `key` is one of the keys (so vectors.keys' word_key can look words up here)."""
        return isinstance(key, str) and self.find(key) is not None

    # ---- search --------------------------------------------------------------------------------

    def search(self, pattern: str, *, regex: bool = False, limit: int = 10_000, budget_s: float = 0.5) -> Hits:
        """Every row whose key holds `pattern` (a substring; or with regex=True a regular expression,
        MULTILINE: ^ and $ at each key's ends) -> Hits(count over every key, the first `limit` rows).

        A pattern over MAX_PATTERN characters, a regular expression that does not compile, and one
        still running after `budget_s` seconds raise InvalidValueError saying which.
        """
        start = time.perf_counter()
        if not isinstance(pattern, str):
            raise InvalidValueError(f"pattern must be a string; got {type(pattern).__name__}")
        if len(pattern) > MAX_PATTERN:
            raise InvalidValueError(f"pattern must be at most {MAX_PATTERN:,} characters; got {len(pattern):,}")
        limit = check_int("limit", limit, low=0)
        budget_s = check_float("budget_s", budget_s, low=0)
        if regex:
            rows = self._regex_rows(_compile(pattern), start + budget_s, budget_s, keywise=_looks_outside(pattern))
        else:
            rows = self._substring_rows(pattern.encode(*ENCODING))
        return Hits(len(rows), rows[:limit].copy(), time.perf_counter() - start)  # a copy: not all hits kept

    def _chunks(self) -> Iterable[tuple[int, int]]:
        """(first, stop) row ranges of about SEARCH_BYTES each, whole keys, covering every row."""
        first, V = 0, len(self)
        while first < V:
            stop = int(np.searchsorted(self.offsets, self.offsets[first] + SEARCH_BYTES, side="right")) - 1
            stop = min(max(stop, first + 1), V)
            yield first, stop
            first = stop

    def _substring_rows(self, needle: bytes) -> np.ndarray:
        """(n,) int64 every row whose key's bytes hold `needle`, NumPy over each chunk (no key decoded):
        the candidates are where its rarest byte is, narrowed by its other bytes, rarest first (a pass
        over the chunk per byte while they are many, then candidate by candidate)."""
        if b"\n" in needle:
            return np.zeros(0, np.int64)  # no key holds a line break
        if not needle:
            return np.arange(len(self), dtype=np.int64)
        pattern, m = np.frombuffer(needle, np.uint8), len(needle)
        order = np.argsort(self._byte_counts()[pattern], kind="stable")  # (m,) the needle's bytes, rarest first
        anchor, found = int(order[0]), []
        for first, stop in self._chunks():
            a = int(self.offsets[first])
            data = self.blob[a : int(self.offsets[stop])]
            n = len(data) - m + 1  # where the needle could start
            if n <= 0:
                continue
            hits, rest = data[anchor : anchor + n] == pattern[anchor], order[1:].tolist()  # (n,) bool
            while rest and np.count_nonzero(hits) > n // 64:  # dense: a pass over the chunk per byte
                j = rest.pop(0)
                hits &= data[j : j + n] == pattern[j]
            starts = self.offsets[first : stop + 1] - a  # (n+1,) the chunk's keys; a match never crosses a "\n"
            if rest or np.count_nonzero(hits) < len(starts) // 8:
                at = np.flatnonzero(hits)  # (c,) few: each candidate checked byte by byte, its key looked up
                for j in rest:
                    at = at[data[at + j] == pattern[j]]
                found.append(np.unique(np.searchsorted(starts, at, side="right") - 1) + first)
            else:  # many matches: ask each key whether it holds one
                marks = np.zeros(len(data), dtype=bool)
                marks[:n] = hits
                found.append(np.flatnonzero(np.logical_or.reduceat(marks, starts[:-1])) + first)
        return np.concatenate(found) if found else np.zeros(0, np.int64)

    def _byte_counts(self) -> np.ndarray:
        """(256,) how often each byte value occurs in a sample of the blob (every 64th byte), kept."""
        if self._bytes_seen is None:
            self._bytes_seen = np.bincount(self.blob[::64], minlength=256)
        return self._bytes_seen

    def _regex_rows(self, compiled: regex.Pattern, deadline: float, budget_s: float, keywise: bool) -> np.ndarray:
        """(n,) int64 every row whose key `compiled` finds a match in, chunk by chunk under `deadline`."""
        found = []
        for first, stop in self._chunks():
            a = int(self.offsets[first])
            text = self.blob[a : int(self.offsets[stop])].tobytes().decode(*ENCODING)
            starts = self.offsets[first : stop + 1] - a  # (n+1,) byte offsets of the chunk's keys
            if len(text) != starts[-1]:  # not ASCII: a character's index is its bytes' minus continuation bytes
                lead = (self.blob[a : int(self.offsets[stop])] & 0xC0) != 0x80
                starts = np.concatenate([[0], np.cumsum(lead)])[starts]
            finder = _each_key if keywise else _joined
            try:
                rows = finder(compiled, text, starts, deadline)
            except TimeoutError:
                rows = None
            if rows is None:
                raise InvalidValueError(
                    f"the pattern ran past {budget_s:g} s over {len(self):,} keys; make it more specific"
                ) from None
            found.append(np.asarray(rows, dtype=np.int64) + first)
        return np.concatenate(found) if found else np.zeros(0, np.int64)


def _compile(pattern: str) -> regex.Pattern:
    try:
        return regex.compile(pattern, regex.MULTILINE)
    except regex.error as err:
        raise InvalidValueError(f"the regular expression {plain(pattern, 80)!r} does not compile: {err}") from None


def _looks_outside(pattern: str) -> bool:
    """Whether `pattern` may hold anything of _CONTEXT, whose answer in the joined keys could differ
    from the key-by-key one. Read from the text, so it errs towards True (an escaped "\\(?=" counts
    too), which costs time, never a wrong answer.

    >>> _looks_outside(r"^k.*g$"), _looks_outside(r"(?<=a)b"), _looks_outside(r"a++"), _looks_outside(r"(?ir)x")
    (False, True, True, True)
    """
    return _CONTEXT.search(pattern) is not None


def _joined(compiled: regex.Pattern, text: str, starts: np.ndarray, deadline: float) -> list[int] | None:
    """The matching rows of a chunk (keys joined, each ending in "\\n", starting at `starts` (n+1,)),
    found in the joined text: a match inside one key is that key's; one that holds a "\\n" has each
    key it touches searched alone. After a key matches, the search goes on at the next key."""
    rows, pos, end, n = [], 0, len(text), len(starts) - 1
    while pos < end:
        left = deadline - time.perf_counter()
        if left <= 0:
            return None
        m = compiled.search(text, pos, timeout=left)
        if m is None:
            break
        s, e = m.span()
        row = int(np.searchsorted(starts, s, side="right")) - 1
        if row >= n:  # an empty match after the last "\n": no key is there
            break
        if "\n" not in text[s:e]:
            rows.append(row)
            last = row
        else:  # subtle: the match leans on the separator; each key it spans answers for itself
            last = min(int(np.searchsorted(starts, max(e - 1, s), side="right")) - 1, n - 1)
            rows += [r for r in range(row, last + 1) if _alone(compiled, text, starts, r, deadline)]
        pos = int(starts[last + 1])
    return rows


def _each_key(compiled: regex.Pattern, text: str, starts: np.ndarray, deadline: float) -> list[int] | None:
    """The matching rows of a chunk, each key searched alone (for patterns that look outside a match)."""
    rows, search = [], compiled.search
    for r, key in enumerate(text.split("\n")[:-1]):  # the text ends in "\n": the last piece is no key
        if r % 1024 == 0 and time.perf_counter() > deadline:
            return None
        if (search(key) if len(key) <= SHORT_KEY else search(key, timeout=_left(deadline))) is not None:
            rows.append(r)
    return rows


def _alone(compiled: regex.Pattern, text: str, starts: np.ndarray, r: int, deadline: float) -> bool:
    """Whether key r of the chunk matches, searched as a string of its own (as the oracle searches it)."""
    key = text[int(starts[r]) : int(starts[r + 1]) - 1]
    found = compiled.search(key) if len(key) <= SHORT_KEY else compiled.search(key, timeout=_left(deadline))
    return found is not None


def _left(deadline: float) -> float:
    """Seconds left before `deadline`, a moment at least (the callers check the deadline itself)."""
    return max(deadline - time.perf_counter(), 1e-3)
