"""Training embedding tables on real corpora.

    from embedlab.train import RunConfig, train
    result = train(RunConfig(corpus="enwiki-sample", method="sgns"), "runs/wiki")   # `embedlab train`

run.py          the run: output folder, atomic checkpoints, resume, snapshots, metrics
config.py       RunConfig: every setting, with each method's defaults
w2v_job.py      word2vec as a resumable job (one step = one chunk of words)
lm_job.py       the transformer LM as a resumable job (one step = one AdamW step)
distributed.py  torch.distributed ranks: sharded lines, summed table updates
checkpoint.py   save_checkpoint / load_checkpoint
corpus.py       the word tokenizer, WordVocab (counts, subsampling, noise table), streaming id Chunks
sgns.py         word2vec kernels: skip-gram and CBOW with negative sampling, numba Hogwild; train_epochs
batched.py      the same algorithms as batched torch operations, for GPUs
"""

from embedlab.train.config import RunConfig
from embedlab.train.corpus import Chunk, ChunkCache, WordVocab, encode, words
from embedlab.train.run import Progress, RunResult, train
from embedlab.train.sgns import TrainState, TrainStats, Word2VecConfig, init_tables, train_chunk, train_epochs

__all__ = [
    "Chunk",
    "ChunkCache",
    "Progress",
    "RunConfig",
    "RunResult",
    "TrainState",
    "TrainStats",
    "Word2VecConfig",
    "WordVocab",
    "encode",
    "init_tables",
    "train",
    "train_chunk",
    "train_epochs",
    "words",
]
