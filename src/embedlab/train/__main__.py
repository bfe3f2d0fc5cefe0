"""`python -m embedlab.train CORPUS --out DIR ...`: `embedlab train`, in the form torchrun launches.

    torchrun --nproc_per_node=2 -m embedlab.train gcide --out runs/gcide-2p
"""

import sys

from embedlab.cli import main

if __name__ == "__main__":
    main(["train", *sys.argv[1:]])
