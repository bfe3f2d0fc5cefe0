"""Training embedding tables on real corpora.

    from embedlab.train import RunConfig, train
    result = train(RunConfig(corpus="enwiki-sample", method="sgns"), "runs/wiki")   # `embedlab train`

config.py       RunConfig: every setting of a run and its default, written once
job.py          the Job protocol (what a method gives the run loop) and JOBS, the methods by name
run.py          the run: output folder, atomic checkpoints, resume, snapshots, metrics
init_table.py   a run's table started from another (init_from), rows matched by key, and the report
checkpoint.py   save_checkpoint / load_checkpoint (torch.save, read back without code)
distributed.py  torch.distributed ranks: sharded lines, summed table updates
corpus.py       the word tokenizer, WordVocab (counts, subsampling, noise table), streaming id Chunks
scan.py         an ASCII text file counted and encoded in one compiled pass (word2vec's fast way in)
tables.py       word2vec's state (the two tables, LCG streams, counters) and what it reads from the vocabulary
word2vec.py     sgns and cbow as a job: one chunk of words per step, on either engine
kernels.py      word2vec's numba kernels (skip-gram by windows, CBOW, negative sampling, Hogwild threads)
subword_kernels.py  the same with fastText's input: a word's row and its n-gram bucket rows, averaged
subwords.py     subword runs: each word's input rows (hashed once), bucket counts, subwords.safetensors
batched.py      the same algorithms as batched torch steps, for GPUs
lm_job.py       the lm method as a job: a BPE tokenizer, then TinyLM (embedlab.models.lm) by AdamW steps
distill.py      an encoder made static: each token through it alone, PCA, SIF weights (Model2Vec's method)
distill_vocabulary.py  the static model's vocabulary: the teacher's less [unusedN], plus whole corpus words
static_fit.py   a static table fitted to its teacher's sentence vectors (distill --train; tokenlearn's step)
resumable.py    rows that take minutes, kept on disk chunk by chunk: a run cut short resumes
supervised.py   fastText's classifier trained (`classify train`): its flags and defaults, checkpoints, resume
supervised_kernels.py  its update as numba kernels: softmax, ns, hs and ova steps, Hogwild threads
"""

from embedlab import lazy_exports

_EXPORTS = {
    "RunConfig": "config",
    "Chunk": "corpus",
    "ChunkCache": "corpus",
    "WordVocab": "corpus",
    "encode": "corpus",
    "words": "corpus",
    "JOBS": "job",
    "Job": "job",
    "Progress": "run",
    "RunResult": "run",
    "train": "run",
    "TrainState": "tables",
    "init_tables": "tables",
    "Word2VecJob": "word2vec",
}
__getattr__ = lazy_exports(__name__, _EXPORTS)  # torch loads with the first of these, not with the package
__all__ = sorted(_EXPORTS)
