"""Tao et al. 2024's table (data/scaling.py): the shipped figures are `derive` of their exp_data.csv,
checked on rows of that file, and the optimum they give grows with the model as the paper says."""

from __future__ import annotations

import csv
import hashlib
import io
import math

import numpy as np
import pytest

from embedlab.data.scaling import SHIPPED, derive, optimal_vocabularies, tao_table

# Rows of exp_data.csv (github.com/sail-sg/scaling-with-vocab, commit b88f6ce), unchanged: the 33M
# non-vocabulary model with vocabularies 4,096, 8,192 and 32,768, each vocabulary's 5 points nearest
# F* = 2.543035392e17 FLOPs (the last point of 4,096, the smallest last point of all ten vocabularies).
EXCERPT = """\
vocab_size,embed_dim,num_characters,Non_vocab_parameters,FLOPs,Lossu
4096.0,512.0,2893128653.633219,33222784.0,2.0344283136e+17,-3.849217653274536
4096.0,512.0,3073949194.485295,33222784.0,2.1615800832e+17,-3.8648250102996826
4096.0,512.0,3254769735.337371,33222784.0,2.2887318528e+17,-3.8869221210479736
4096.0,512.0,3435590276.1894474,33222784.0,2.4158836224e+17,-3.926177978515625
4096.0,512.0,3616410817.0415235,33222784.0,2.543035392e+17,-3.940192699432373
8192.0,512.0,3210640450.366067,33222784.0,2.1552242688e+17,-3.8511691093444824
8192.0,512.0,3411305478.513946,33222784.0,2.2899257856e+17,-3.876185894012447
8192.0,512.0,3611970506.661825,33222784.0,2.4246273024e+17,-3.906224012374878
8192.0,512.0,3812635534.8097043,33222784.0,2.5593288192e+17,-3.9381601810455322
8192.0,512.0,4013300562.9575834,33222784.0,2.694030336e+17,-3.936743974685669
32768.0,512.0,2859379956.6727877,33222784.0,2.16e+17,-3.5683724880218506
32768.0,512.0,3097661619.728853,33222784.0,2.34e+17,-3.6438095569610596
32768.0,512.0,3335943282.7849193,33222784.0,2.52e+17,-3.703045606613159
32768.0,512.0,3574224945.840985,33222784.0,2.7e+17,-3.722569704055786
32768.0,512.0,3812506608.8970504,33222784.0,2.88e+17,-3.783585548400879
"""
CSV_ROUNDING = 5e-7  # the shipped Lossu has 6 decimals


def test_the_shipped_file_is_the_one_its_readme_names():
    digest = hashlib.sha256(SHIPPED.read_bytes()).hexdigest()
    assert f"{digest}  tao2024-vocab.csv" in SHIPPED.with_name("README.md").read_text()


def test_derive_on_their_rows_gives_the_shipped_figures():
    rows = list(csv.DictReader(io.StringIO(EXCERPT)))
    derived = derive(rows, levels=(1.0,))
    assert [(r.vocab_size, r.flops) for r in derived] == [
        (4096, 2.543035392e17),
        (8192, 2.543035392e17),
        (32768, 2.543035392e17),
    ]
    shipped = {(r.non_vocab_params, r.share, r.vocab_size): r for r in tao_table()}
    for r in derived:
        # the oracle: numpy's least-squares line through the same 5 points, in log FLOPs
        points = [(float(x["FLOPs"]), float(x["Lossu"])) for x in rows if float(x["vocab_size"]) == r.vocab_size]
        slope, intercept = np.polyfit([math.log(f) for f, _ in points], [loss for _, loss in points], 1)
        assert r.lossu == pytest.approx(slope * math.log(r.flops) + intercept, abs=1e-12)
        row = shipped[33222784, 1.0, r.vocab_size]
        assert row.embed_dim == 512 and row.flops == pytest.approx(r.flops, rel=1e-6)
        assert abs(row.lossu - r.lossu) <= CSV_ROUNDING


def test_the_table_has_every_size_level_and_vocabulary():
    rows = tao_table()
    sizes = sorted({r.non_vocab_params for r in rows})
    assert sizes == [33222784, 84834176, 150834176, 316445568, 631668352, 1129891136]
    assert sorted({r.vocab_size for r in rows}) == [4096, 6144, 8192, 10240, 16384, 24576, 32768, 48128, 64512, 96256]
    assert len(rows) == 6 * 4 * 10


def test_the_optimum_grows_with_the_model_and_with_compute():
    best = optimal_vocabularies(tao_table())
    top = [r.vocab_size for r in best if r.share == 1.0]
    # the paper's claim, from its data: ~4-8K at 33M non-vocabulary parameters, ~24-32K at 0.3-1.1B
    assert top[0] <= 8192 and top[-1] >= 24576 and top == sorted(top)
    for size in {r.non_vocab_params for r in best}:  # at each size, more compute never wants fewer
        levels = [r.vocab_size for r in best if r.non_vocab_params == size]
        assert levels == sorted(levels), size
