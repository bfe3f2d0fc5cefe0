"""`python -m embedlab ...` runs the `embedlab` command; torchrun launches training this way.

python -m embedlab --help
torchrun --nproc_per_node=2 -m embedlab train gcide --out runs/gcide-2p
"""

from embedlab.cli import main

if __name__ == "__main__":
    main()
