"""The same tokenizer interface on HuggingFace `tokenizers` (Rust): for real corpora and files.

    fast = FastTokenizer.train(open_corpus("gcide"), vocab_size=8000)   # byte-level BPE
    fast = FastTokenizer.load("minilm")                                  # any tokenizer.json
    fast.encode("the cat"), fast.decode(ids), fast.piece(i), fast.save(path)
    fast.counts = piece_counts(fast, lines)                              # saved beside it
    load_tokenizer("bpe.json")        # either kind: a BPE.save file, or anything FastTokenizer.load takes

This module is the one place a tokenizer file is read: models.pretrained.load_tokenizer hands out
a model folder's raw `tokenizers.Tokenizer` as `FastTokenizer.load(folder).tokenizer`.

Training is the library's BpeTrainer over the full 256-symbol byte alphabet, the chunks cut by
GPT-2's regex (split="gpt2") or by runs of space (split="whitespace"): the configuration
`BPE(mode="byte", split=split, tie="hf")` reproduces merge for merge (see the tests). The other
reference options have no counterpart here: the library breaks ties only its own way, trains
each line apart (no split "none"), and a character alphabet would drop unseen characters.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

from embedlab.data.models import MODELS, resolve_model
from embedlab.errors import FileFormatError, InvalidValueError, MissingDataError, check_choice, check_int, plain
from embedlab.files import atomic_write_text, check_path
from embedlab.files.reading import file_exists, read_json
from embedlab.tokenizer.bpe import BPE, FORMAT, RECOVER
from embedlab.tokenizer.pretokenize import SPLIT_PATTERNS

_RECOUNT = "remove it (the tokenizer then loads without counts), or count the pieces again"


class FastTokenizer:
    """A HuggingFace `tokenizers.Tokenizer` behind embedlab's tokenizer interface.

    encode() returns the model's own pieces only: no [CLS]/[SEP] templates and no padding, so
    the ids line up with the text (the walk in `embedlab embed` adds the template).
    """

    def __init__(self, tokenizer: Tokenizer, counts: list[int] | None = None) -> None:
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self.tokenizer = tokenizer
        self.counts: list[int] = counts or []  # id -> occurrences in a corpus (vocab.piece_counts)

    @classmethod
    def train(
        cls,
        text_or_corpus: str | Iterable[str],
        vocab_size: int,
        special_tokens: Iterable[str] = (),
        min_frequency: int = 0,
        split: str = "gpt2",
    ) -> FastTokenizer:
        """Byte-level BPE trained by the library: vocab_size counts specials + 256 bytes + merges.

        `split` is "gpt2" or "whitespace", as for the reference BPE (pretokenize.SPLIT_PATTERNS).
        """
        check_choice("split", split, tuple(SPLIT_PATTERNS))
        special_tokens = list(special_tokens)
        floor = len(special_tokens) + 256
        check_int("vocab_size", vocab_size, low=1)
        if vocab_size < floor:
            raise InvalidValueError(
                f"vocab_size {vocab_size} is below the alphabet size {floor} "
                f"({len(special_tokens)} specials + 256 bytes)",
                param="vocab_size",
            )
        tokenizer = Tokenizer(models.BPE())
        if split == "gpt2":  # ByteLevel's own regex is GPT-2's
            tokenizer.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
        else:  # cut by the same pattern as the reference BPE, then map bytes to their stand-ins
            cut = pre_tokenizers.Split(Regex(SPLIT_PATTERNS[split]), behavior="isolated")
            byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
            tokenizer.pre_tokenizer = pre_tokenizers.Sequence([cut, byte_level])
        tokenizer.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(
            vocab_size=vocab_size,
            min_frequency=check_int("min_frequency", min_frequency, low=0),
            special_tokens=special_tokens,
            initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
            show_progress=False,
        )
        lines = [text_or_corpus] if isinstance(text_or_corpus, str) else text_or_corpus
        tokenizer.train_from_iterator(lines, trainer)
        return cls(tokenizer)

    @classmethod
    def load(cls, name_or_path: str | Path) -> FastTokenizer:
        """A tokenizer.json file, a model folder holding one, or a built-in model name ("minilm")."""
        path = Path(name_or_path)
        if str(name_or_path) in MODELS or path.is_dir():
            folder = resolve_model(name_or_path)
            path = folder / "tokenizer.json"
            if not file_exists(path, "a tokenizer file"):
                raise MissingDataError(f"no tokenizer.json in the folder {folder}")
        elif not file_exists(check_path(name_or_path, "a tokenizer path"), "a tokenizer file"):
            raise MissingDataError(
                f"tokenizer {str(name_or_path)!r} is neither a built-in name ({', '.join(MODELS)}) nor a file"
            )
        try:
            tokenizer = Tokenizer.from_file(str(path))
        except Exception as err:  # the Rust library raises a bare Exception on a corrupt file
            read_json(path, "tokenizer file", RECOVER)  # a file that is not JSON at all (cut short, binary): said so
            raise FileFormatError(
                f"{path}: not a readable tokenizer file (HuggingFace tokenizers says: {plain(err)}); {RECOVER}"
            ) from None
        counts = []
        sidecar = _counts_path(path)
        if file_exists(sidecar, "a piece counts file"):
            counts = read_json(sidecar, "piece counts file", _RECOUNT, expect=list)
            size = tokenizer.get_vocab_size(with_added_tokens=True)
            if len(counts) != size or not all(type(c) is int and c >= 0 for c in counts):
                raise FileFormatError(
                    f"{sidecar}: not a readable piece counts file (expected {size} integers >= 0, one per piece; "
                    f"found {len(counts)} values); {_RECOUNT}"
                )
        return cls(tokenizer, counts)

    def encode(self, text: str) -> list[int]:
        """str -> ids, without special-token templates."""
        return self.tokenizer.encode(text, add_special_tokens=False).ids

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        """Many texts -> their ids, encoded in parallel by the library (all cores)."""
        return [enc.ids for enc in self.tokenizer.encode_batch(texts, add_special_tokens=False)]

    def decode(self, ids: Iterable[int]) -> str:
        ids = list(ids)
        for i in ids:
            if not isinstance(i, int) or not 0 <= i < self.vocab_size:
                raise InvalidValueError(f"token id {i!r} is out of range: vocab_size is {self.vocab_size}")
        return self.tokenizer.decode(ids, skip_special_tokens=False)

    def piece(self, token_id: int) -> str:
        """The token's string as the vocabulary stores it (byte-level: GPT-2's stand-ins)."""
        piece = self.tokenizer.id_to_token(token_id)
        if piece is None:
            raise InvalidValueError(f"token id {token_id!r} is out of range: vocab_size is {self.vocab_size}")
        return piece

    @property
    def vocab_size(self) -> int:
        return self.tokenizer.get_vocab_size(with_added_tokens=True)

    def merges(self) -> list[tuple[str, str]]:
        """The learned merges in order (BPE models only)."""
        model = json.loads(self.tokenizer.to_str())["model"]
        if model.get("type") != "BPE":
            raise InvalidValueError(f"a {model.get('type')} tokenizer has no merges")
        return [tuple(m.split(" ", 1)) if isinstance(m, str) else tuple(m) for m in model["merges"]]

    def save(self, path: str | Path, replace: bool = True) -> Path:
        """Write tokenizer.json atomically, and the piece counts beside it (NAME.counts.json).
        replace False: each file must be new at the moment it is created, else OutputExistsError
        (files.atomic_writer): of two writers of one new path, the tokenizer file decides which wins."""
        path = Path(path)
        atomic_write_text(path, self.tokenizer.to_str(), replace=replace)
        if self.counts:
            atomic_write_text(_counts_path(path), json.dumps(self.counts), replace=replace)
        return path


def load_tokenizer(name_or_path: str | Path) -> BPE | FastTokenizer:
    """A reference BPE file (BPE.save) or anything FastTokenizer.load takes, by the file's format."""
    path = Path(name_or_path)
    check_path(name_or_path, "a tokenizer path")
    if not path.is_dir() and file_exists(path, "a tokenizer file") and _is_reference_file(path):
        return BPE.load(path)
    return FastTokenizer.load(name_or_path)


def _is_reference_file(path: Path) -> bool:
    """Whether the file opens as BPE.save writes: {"format": "embedlab-bpe", ...}."""
    try:
        with path.open("rb") as f:
            head = f.read(64)
    except OSError:
        return False
    return f'"format": "{FORMAT}"'.encode() in head or f'"format":"{FORMAT}"'.encode() in head


def _counts_path(path: Path) -> Path:
    """tokenizer.json -> tokenizer.counts.json"""
    return path.with_name(path.stem + ".counts.json")
