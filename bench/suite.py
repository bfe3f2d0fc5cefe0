"""The test suite's own two goals (issue 32): its wall time on a quiet machine, and that it passes
with other CPU-bound work beside it.

    python bench/suite.py                           # what `make test` runs (ruff, then pytest -n 2), timed
    python bench/suite.py --burners 2               # the same beside two CPU-bound processes
    python bench/suite.py --burners 2 --kernel Prescott -- -m "not slow"   # pytest arguments after --

A burner is a process that spins on arithmetic for as long as the suite runs: two of them on a
2-core machine leave the suite about half of each core, the load a busy shared machine gives it.
`--kernel NAME` sets OPENBLAS_CORETYPE for the run (Prescott, Haswell, SkylakeX ...): the BLAS kernel
that sums float32 dot products in another order, which the suite's tolerances must allow for
(`make test` itself never sets it). Prints the wall time, pytest's summary line, the load average
before and after, and the CPU; --json prints one object instead.

There is no peer: the goals are `make test` <= 8 minutes on a quiet 2-core machine, and a pass
under load (docs/benchmarks.md, "The test suite").
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from machine import burning, cpu_model  # this folder's CPU-bound neighbours

ROOT = Path(__file__).resolve().parent.parent
# the Makefile's pytest arguments, when none are given
MAKE_TEST = ["-n", "2", "--dist", "loadgroup", "--no-loadscope-reorder"]


def run(burners: int, kernel: str | None, pytest_args: list[str]) -> dict:
    """Run ruff and pytest as `make test` does, with `burners` CPU-bound processes beside them."""
    venv = Path(sys.executable).parent
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as the Makefile: the suite's processes share compiled bytecode
    if kernel:
        env["OPENBLAS_CORETYPE"] = kernel
    with burning(burners):
        load_before = os.getloadavg()[0]
        start = time.perf_counter()
        lint = [[str(venv / "ruff"), "check", "src", "tests", "bench", "docs"],
                [str(venv / "ruff"), "format", "--check", "src", "tests", "bench", "docs"]]  # fmt: skip
        for command in lint:
            subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True)
        pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *(pytest_args or MAKE_TEST)]
        done = subprocess.run(pytest,
                              cwd=ROOT, env=env, capture_output=True, text=True)  # fmt: skip
    seconds = time.perf_counter() - start
    summary = next((line for line in reversed(done.stdout.splitlines()) if re.search(r"passed|failed", line)), "")
    return {
        "seconds": round(seconds, 1),
        "returncode": done.returncode,
        "summary": summary.strip("= "),
        "burners": burners,
        "kernel": kernel or "default",
        "pytest_args": pytest_args,
        "load_before": round(load_before, 2),
        "load_after": round(os.getloadavg()[0], 2),
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "failures": [line for line in done.stdout.splitlines() if line.startswith(("FAILED", "ERROR"))],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--burners", type=int, default=0, help="CPU-bound processes beside the suite (default 0)")
    parser.add_argument("--kernel", help="OPENBLAS_CORETYPE for this run (Prescott, Haswell, SkylakeX)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("pytest_args", nargs="*", help="arguments for pytest, after --")
    args = parser.parse_args()
    if args.burners < 0:
        parser.error(f"--burners must be >= 0; got {args.burners}")
    result = run(args.burners, args.kernel, args.pytest_args)
    if args.json:
        print(json.dumps(result))
    else:
        minutes, seconds = divmod(result["seconds"], 60)
        print(f"{int(minutes)} min {seconds:.0f} s, exit {result['returncode']}: {result['summary']}")
        print(f"burners {result['burners']}, kernel {result['kernel']}, load {result['load_before']} -> "
              f"{result['load_after']}, {result['cpu']} ({result['cores']} cores)")  # fmt: skip
        for line in result["failures"]:
            print(line)
    sys.exit(result["returncode"])


if __name__ == "__main__":
    main()
