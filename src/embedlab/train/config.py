"""RunConfig: every setting of a training run, as `embedlab train` takes them and run.json keeps them.

    RunConfig(corpus="gcide", method="sgns")               # word2vec defaults: dim 100, lr 0.025, 5 epochs
    RunConfig(corpus="enwiki-sample", method="lm")         # a small transformer: dim 128, lr 3e-3, 1 epoch
    RunConfig.resolve(saved, given)                        # a resumed run: the saved settings, checked

A setting left as None takes its method's default, so one config serves both families and the
folder records the values actually used.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from embedlab.errors import InvalidValueError, check_choice, check_float, check_int

METHODS = ("sgns", "cbow", "lm")
DEVICES = ("cpu", "cuda")

# What None means, per family. word2vec's are gensim's; the LM's suit a 2-layer model on a CPU.
_DEFAULTS = {
    "word2vec": {"dim": 100, "lr": 0.025, "epochs": 5},
    "lm": {"dim": 128, "lr": 3e-3, "epochs": 1},
}


@dataclass
class RunConfig:
    corpus: str  # a built-in corpus name or a text file
    method: str = "sgns"  # sgns | cbow (word2vec) | lm (a causal transformer over BPE pieces)
    dim: int | None = None  # D, the embedding width
    epochs: int | None = None  # passes over the corpus
    lr: float | None = None  # word2vec: starting rate, decaying linearly; lm: AdamW's peak rate
    seed: int = 1
    threads: int = 2  # CPU threads (word2vec's Hogwild threads; torch's intra-op threads for lm)
    device: str = "cpu"  # word2vec on cuda uses the batched torch engine
    # word2vec
    window: int = 5
    negative: int = 5
    min_count: int = 5
    sample: float = 1e-3
    # lm
    vocab_size: int = 4000  # BPE pieces, 256 bytes included
    context: int = 64  # pieces per training window
    layers: int = 2
    heads: int = 4
    tied: bool = True
    batch_size: int = 32

    def __post_init__(self) -> None:
        check_choice("method", self.method, METHODS)
        for name, value in _DEFAULTS[self.family].items():
            if getattr(self, name) is None:
                setattr(self, name, value)
        check_int("dim", self.dim, low=1)
        check_int("epochs", self.epochs, low=1)
        check_float("lr", self.lr, low=0.0)
        if self.lr == 0.0:
            raise InvalidValueError("lr must be > 0; got 0.0")
        check_int("seed", self.seed, low=0)
        check_int("threads", self.threads, low=1, high=1024)
        check_choice("device", self.device.split(":")[0], DEVICES)
        check_int("window", self.window, low=1)
        check_int("negative", self.negative, low=1)
        check_int("min_count", self.min_count, low=1)
        check_float("sample", self.sample, low=0.0, high=1.0)
        check_int("vocab_size", self.vocab_size, low=257, high=1_000_000)
        check_int("context", self.context, low=1)
        check_int("layers", self.layers, low=0)
        check_int("heads", self.heads, low=1)
        check_int("batch_size", self.batch_size, low=1)
        if self.family == "lm" and self.dim % self.heads:
            raise InvalidValueError(f"dim must be a multiple of heads ({self.heads}) for lm; got {self.dim}")

    @property
    def family(self) -> str:
        """ "word2vec" or "lm"."""
        return "lm" if self.method == "lm" else "word2vec"

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> RunConfig:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def differences(self, given: dict) -> list[str]:
        """Settings in `given` (None = not given) that differ from this config: 'dim 50 (run has 100)'."""
        mine = self.to_dict()
        return [f"{name} {value} (run has {mine[name]})" for name, value in given.items()
                if value is not None and name in mine and value != mine[name]]  # fmt: skip
