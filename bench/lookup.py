"""Lookup benchmarks: embedlab against torch, measured in one run, reported as median ratios.

    python bench/lookup.py                  # the issue's shape: ids (8, 1024), V = 50257, D = 768
    python bench/lookup.py --reps 30 --device cuda

Two comparisons:
  1. TokenEmbedding forward+backward vs torch nn.Embedding forward+backward (same device).
     The difference is embedlab's id validation (one reduction over the ids) and nothing else.
  2. embedlab.scratch (NumPy) backward vs torch CPU autograd backward of the same lookup:
     both produce the dense (V, D) gradient dE = Hᵀ G. Goal: scratch within 2x of torch.

Ids are drawn two ways: uniform over V (few repeats) and Zipf-like (s = 1.1, as word
frequencies are), where frequent ids repeat hundreds of times in one batch.

Ratios are embedlab time / torch time: below 1 means embedlab is faster.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F

from embedlab.layers.token import TokenEmbedding
from embedlab.scratch import Embedding


def paired_medians(
    ours: Callable[[], object], theirs: Callable[[], object], reps: int, sync: Callable[[], None]
) -> dict:
    """Median wall times of two functions run alternately (so machine drift hits both alike)."""
    times: dict[str, list[float]] = {"embedlab_s": [], "torch_s": []}
    for _ in range(2):  # warm-up
        ours(), theirs()
    sync()
    for _ in range(reps):
        for key, fn in (("embedlab_s", ours), ("torch_s", theirs)):
            start = time.perf_counter()
            fn()
            sync()
            times[key].append(time.perf_counter() - start)
    result = {key: statistics.median(values) for key, values in times.items()}
    result["ratio"] = result["embedlab_s"] / result["torch_s"]
    return result


def bench_modules(ids: torch.Tensor, V: int, D: int, reps: int, device: str) -> dict:
    """TokenEmbedding vs nn.Embedding, forward+backward with the same weights and gradient."""
    ours = TokenEmbedding(V, D, device=device)
    theirs = torch.nn.Embedding(V, D, device=device)
    theirs.weight.data.copy_(ours.weight.data)
    grad = torch.randn(*ids.shape, D, device=device)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)

    def step(module: torch.nn.Module) -> Callable[[], None]:
        def run() -> None:
            module.weight.grad = None
            module(ids).backward(grad)

        return run

    return paired_medians(step(ours), step(theirs), reps, sync)


def bench_scratch(ids: np.ndarray, V: int, D: int, reps: int) -> dict:
    """scratch.Embedding.backward vs torch CPU autograd backward of F.embedding."""
    emb = Embedding(V, D)
    grad = np.random.default_rng(1).standard_normal((*ids.shape, D)).astype(np.float32)
    weight = torch.tensor(emb.weight, requires_grad=True)
    ids_t, grad_t = torch.from_numpy(ids), torch.from_numpy(grad)

    out = F.embedding(ids_t, weight)  # the graph is built once; only backward is timed

    def torch_backward() -> None:
        weight.grad = None
        out.backward(grad_t, retain_graph=True)

    def torch_forward() -> None:
        F.embedding(ids_t, weight.detach())

    # the same numbers, checked once before timing
    torch_backward()
    assert np.allclose(emb.backward(ids, grad), weight.grad.numpy(), atol=1e-4)
    noop = lambda: None  # noqa: E731
    return {
        "backward": paired_medians(lambda: emb.backward(ids, grad), torch_backward, reps, noop),
        "forward": paired_medians(lambda: emb.forward(ids), torch_forward, reps, noop),
    }


def draw_ids(dist: str, vocab: int, shape: tuple[int, int]) -> np.ndarray:
    """Ids uniform over [0, V), or Zipf-distributed (id k has weight 1 / (k + 1)^1.1)."""
    rng = np.random.default_rng(0)
    if dist == "uniform":
        return rng.integers(0, vocab, shape)
    weights = 1.0 / np.arange(1, vocab + 1) ** 1.1
    return rng.choice(vocab, size=shape, p=weights / weights.sum())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--seq", type=int, default=1024)
    parser.add_argument("--vocab", type=int, default=50257)
    parser.add_argument("--dim", type=int, default=768)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()

    result = {
        "shape": {"ids": [args.batch, args.seq], "vocab": args.vocab, "dim": args.dim},
        "device": args.device,
        "torch": torch.__version__,
        "numpy": np.__version__,
        "threads": torch.get_num_threads(),
        "machine": platform.processor() or platform.machine(),
        "reps": args.reps,
        "results": {},
    }
    rows = []
    for dist in ("uniform", "zipf"):
        ids_np = draw_ids(dist, args.vocab, (args.batch, args.seq))
        ids = torch.from_numpy(ids_np).to(args.device)
        r = {"unique_ids": int(np.unique(ids_np).size)}
        r["token_embedding_fwd_bwd"] = bench_modules(ids, args.vocab, args.dim, args.reps, args.device)
        rows.append((f"TokenEmbedding fwd+bwd vs nn.Embedding [{dist}]", r["token_embedding_fwd_bwd"]))
        if args.device == "cpu":
            r["scratch"] = bench_scratch(ids_np, args.vocab, args.dim, args.reps)
            rows.append((f"scratch backward vs torch autograd [{dist}]", r["scratch"]["backward"]))
            rows.append((f"scratch forward vs torch F.embedding [{dist}]", r["scratch"]["forward"]))
        result["results"][dist] = r
    if args.json:
        print(json.dumps(result))
        return
    print(
        f"ids {args.batch}x{args.seq}, V={args.vocab}, D={args.dim}, {args.device}, "
        f"torch {torch.__version__} ({result['threads']} threads), median of {args.reps}"
    )
    print(f"{'comparison':52s} {'embedlab ms':>12s} {'torch ms':>10s} {'ratio':>7s}")
    for name, r in rows:
        print(f"{name:52s} {r['embedlab_s'] * 1e3:12.2f} {r['torch_s'] * 1e3:10.2f} {r['ratio']:7.2f}")


if __name__ == "__main__":
    main()
