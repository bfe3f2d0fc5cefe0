"""The strategy arena: lesson 001's six ways to embed, raced for real on this machine's tasks.

strategies.py  the six strategies (lesson-scale and arena-scale layouts), the tasks, the budgets
flops.py       training FLOPs per step counted from TinyLM's, the ViT's and the CNN's shapes: what a budget buys
text.py        the text strategies: tokenizers, TinyLM at equal compute and context in bytes, bits per byte
tokens.py      text as one id stream: the 256-byte tokenizer, the bytes behind each id
bits.py        bits per byte: held-out loss spread over the bytes of each token, rare and unseen words, unigram
vision.py      the image strategies: a small ViT on Fashion-MNIST at two patch sizes, accuracy
data_scale.py  the small ViT against a small CNN on 1K to 60K training images: does the ViT need more data?
tasks.py       one (strategy, seed) run -> its measured results, task by task; "not applicable"
noise.py       seed noise: 95% Student t intervals, ordering verdicts (Holm-adjusted in a family), tolerance bounds
runner.py      the race: every pair in turn, resumable, results.json and figures in one folder
figures.py     the race's PNG figures: one bar chart per task, the learning curves; the sweep's figure
sweep.py       the budget axis: the text strategies raced at several compute budgets and two widths
anchor.py      the sweep's trend beside Tao et al. 2024's compute-optimal vocabularies (data/scaling.py)
redraw.py      every figure of a race or sweep folder, drawn again from its results.json
claims.py      the claims docs/arena.md makes, re-derived from a recorded race and sweep (nothing trains)
"""
