"""Parameter and memory arithmetic: every expected number is worked by hand from a config."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from embedlab.errors import EmbedlabError, InvalidValueError, UnknownNameError
from embedlab.files import json_safe
from embedlab.layers import (
    AdaptiveInput,
    AdaptiveSoftmax,
    HashedEmbedding,
    HashEmbedding,
    QuotientRemainderEmbedding,
    TokenEmbedding,
)
from embedlab.layers.head import count_parameters
from embedlab.sizing import (
    BYTES_PER_PARAM,
    PRESETS,
    TABLES,
    EmbeddingLayout,
    SizeReport,
    activation_bytes,
    count,
    gpt2_params,
    preset,
)
from embedlab.sizing.memory import available_memory
from embedlab.train.config import RunConfig

# Shares are float divisions of exact ints; their sum can miss 1 by a few ulps.
SHARE_SUM_TOL = 1e-12
# MiB figures are quoted in the lessons to two decimals.
MIB_TOL = 0.005


def text(vocab_size: int, dim: int, **fields: object) -> EmbeddingLayout:
    return EmbeddingLayout(vocab_size=vocab_size, dim=dim, **fields)


# --- the lessons' worked numbers -----------------------------------------------------------


def test_bert_base_three_tables():
    r = count(preset("bert-base"))
    assert r.token_params == 23_440_896  # 30,522 × 768
    assert r.position_params == 393_216  # 512 × 768
    assert r.segment_params == 1_536  # 2 × 768
    assert r.output_params == 0  # the MLM head is tied
    assert r.total_params == 23_835_648
    assert round(r.shares["token"], 3) == 0.983


def test_gpt2_token_table_in_fp16():
    r = count(preset("gpt2"), "fp16")
    assert r.token_params == 38_597_376  # 50,257 × 768
    assert r.table_bytes("token") == 77_194_752  # × 2 bytes


def test_llama2_untied_doubles_the_table():
    r = count(preset("llama-2-7b"))
    assert r.token_params == 131_072_000  # 32,000 × 4,096
    assert r.output_params == 131_072_000
    assert r.total_params == 262_144_000
    tied = count(dataclasses.replace(preset("llama-2-7b"), tied=True))
    assert tied.total_params == 131_072_000


def test_llama3_table():
    r = count(preset("llama-3-8b"))
    assert r.token_params == 525_336_576  # 128,256 × 4,096
    assert r.output_params == 525_336_576
    assert r.total_params == 2 * 525_336_576


def test_tied_learned_positions_100k_vocab():
    layout = text(100_000, 2_048, positions="learned", max_len=4_096)
    r = count(layout, "fp16")
    assert r.token_params == 204_800_000
    assert r.position_params == 8_388_608
    assert r.total_params == 213_188_608
    assert r.bytes == 426_377_216


def test_50k_vocab_fp16_memory():
    r = count(text(50_000, 2_048), "fp16")
    assert r.bytes == 204_800_000
    assert r.mib == pytest.approx(195.31, abs=MIB_TOL)


def test_10k_vocab_fp32_memory():
    r = count(text(10_000, 512))
    assert r.bytes == 20_480_000
    assert r.mib == pytest.approx(19.53, abs=MIB_TOL)


def test_vit_b16_tables():
    r = count(preset("vit-b-16"))
    assert r.patch_params == 16 * 16 * 3 * 768 + 768 == 590_592
    assert r.position_params == 197 * 768 == 151_296  # 196 patches + CLS
    assert r.cls_params == 768
    assert r.token_params == r.output_params == r.segment_params == 0
    assert r.layout.n_patches == 196


def test_vit_b32_tables():
    r = count(preset("vit-b-32"))
    assert r.layout.n_patches == 49  # (224 / 32)² = 7²
    assert r.patch_params == 32 * 32 * 3 * 768 + 768
    assert r.position_params == 50 * 768


def test_gpt2_small_whole_model_is_124m():
    total = gpt2_params(preset("gpt2"), n_layers=12)
    assert total == 39_383_808 + 12 * 7_087_872 + 1_536 == 124_439_808
    assert 7_087_872 == 12 * 768**2 + 13 * 768  # one block
    # Llama 2 7B's token table alone is bigger than all of GPT-2 small
    assert count(preset("llama-2-7b")).token_params == 131_072_000 > total
    assert round(count(preset("gpt2")).token_params / total, 3) == 0.310


@pytest.mark.parametrize(
    ("fields", "n_layers"),
    [
        (dict(n_layer=12), 12),
        (dict(n_embd=1600, n_layer=48, n_head=25), 48),  # GPT-2 XL
        (dict(vocab_size=101, n_positions=16, n_embd=24, n_layer=3, n_head=4), 3),
    ],
)
def test_gpt2_params_equal_transformers(fields, n_layers):
    # Oracle: transformers' own GPT-2 built on the meta device (shapes only, no memory); a tied
    # head is one Parameter, so parameters() counts it once, as gpt2_params does.
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(**fields)
    with torch.device("meta"):
        model = GPT2LMHeadModel(config)
    layout = text(config.vocab_size, config.n_embd, positions="learned", max_len=config.n_positions)
    assert gpt2_params(layout, n_layers) == sum(p.numel() for p in model.parameters())


def test_the_lessons_widths_are_presets():
    # lesson 003: BERT-base 768, BERT-large 1024, GPT-2 768 to 1600, GPT-3 12,288, Llama 2 70B 8,192
    widths = {"bert-base": 768, "bert-large": 1024, "gpt2": 768, "gpt2-xl": 1600, "gpt-3": 12288, "llama-2-70b": 8192}
    assert {name: preset(name).dim for name in widths} == widths


def test_gpt2_xl_and_gpt3_whole_models():
    # GPT-2 XL, 48 blocks of 12·1600² + 13·1600: the "1.5B" of its name
    assert gpt2_params(preset("gpt2-xl"), n_layers=48) == 82_049_600 + 48 * 30_740_800 + 3_200 == 1_557_611_200
    # GPT-3, 96 blocks of width 12,288 (its sparse attention layers hold the same weights): "175B"
    total = gpt2_params(preset("gpt-3"), n_layers=96)
    assert total == 642_723_840 + 96 * 1_812_099_072 + 24_576 == 174_604_259_328
    assert round(count(preset("gpt-3")).total_params / total, 4) == 0.0037  # its tables: 0.37% of it


def test_gpt2_params_bad_arguments():
    with pytest.raises(InvalidValueError, match="n_layers must be >= 0; got -1"):
        gpt2_params(preset("gpt2"), -1)
    with pytest.raises(InvalidValueError, match="needs a text layout; got an image layout"):
        gpt2_params(preset("vit-b-16"), 12)


# --- every preset against its config values ------------------------------------------------

PRESET_TOTALS = {
    "gpt2": 50257 * 768 + 1024 * 768,
    "bert-base": 30522 * 768 + 512 * 768 + 2 * 768,
    "bert-large": 30522 * 1024 + 512 * 1024 + 2 * 1024,  # 31,780,864
    "gpt2-xl": 50257 * 1600 + 1024 * 1600,  # 82,049,600, tied
    "gpt-3": 50257 * 12288 + 2048 * 12288,  # 642,723,840, tied
    "llama-2-70b": 2 * 32000 * 8192,  # 524,288,000, untied
    "t5-base": 32128 * 768,  # relative bias lives in attention
    "llama-2-7b": 2 * 32000 * 4096,  # untied
    "llama-3-8b": 2 * 128256 * 4096,  # untied
    "llama-3.2-1b": 128256 * 2048,  # tied: the same vocabulary as Llama 3 8B
    "llama-3.2-3b": 128256 * 3072,  # tied
    "mistral-7b": 2 * 32000 * 4096,  # untied
    "gemma-2b": 256000 * 2048,  # tied
    "vit-b-16": (3 * 16 * 16 * 768 + 768) + (14 * 14 + 1) * 768 + 768,
    "vit-b-32": (3 * 32 * 32 * 768 + 768) + (7 * 7 + 1) * 768 + 768,
}


def test_every_preset_has_a_hand_total():
    assert set(PRESET_TOTALS) == set(PRESETS)


@pytest.mark.parametrize("name", sorted(PRESET_TOTALS))
def test_preset_total(name):
    assert count(preset(name)).total_params == PRESET_TOTALS[name]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_shares_sum_to_one(name):
    shares = count(preset(name)).shares
    assert set(shares) == set(TABLES)
    assert all(0.0 <= s <= 1.0 for s in shares.values())
    assert math.fsum(shares.values()) == pytest.approx(1.0, abs=SHARE_SUM_TOL)


def test_unknown_preset_lists_the_known_ones():
    with pytest.raises(UnknownNameError, match=r"unknown preset 'nope'; known: bert-base, "):
        preset("nope")
    with pytest.raises(KeyError):  # the built-in type a Python caller would catch
        preset("nope")


# --- tying, positions, dtypes ---------------------------------------------------------------


def test_tied_counts_shared_weights_once():
    tied = count(text(1_000, 64, tied=True))
    untied = count(text(1_000, 64, tied=False))
    assert tied.output_params == 0
    assert untied.output_params == 1_000 * 64
    assert untied.total_params - tied.total_params == 64_000


@pytest.mark.parametrize("kind", ["sinusoidal", "rotary", "relative", "none"])
def test_positions_without_a_table_cost_nothing(kind):
    # max_len is given but only a learned table has rows to count.
    r = count(text(1_000, 64, positions=kind, max_len=512))
    assert r.position_params == 0
    assert r.total_params == 64_000


@pytest.mark.parametrize(
    ("dtype", "expected_bytes"),
    [("fp32", 10_000 * 512 * 4), ("fp16", 10_000 * 512 * 2), ("bf16", 10_000 * 512 * 2), ("int8", 10_000 * 512)],
)
def test_bytes_per_dtype(dtype, expected_bytes):
    r = count(text(10_000, 512), dtype)
    assert r.bytes == expected_bytes
    assert r.bytes_per_param == BYTES_PER_PARAM[dtype]
    assert r.dtype == dtype
    assert sum(r.table_bytes(name) for name in TABLES) == expected_bytes


def test_bad_dtype_names_value_and_choices():
    message = r"dtype must be one of fp32, fp16, bf16, int8; got 'fp64'"
    with pytest.raises(InvalidValueError, match=message):
        count(preset("gpt2"), "fp64")


def test_bad_table_name():
    with pytest.raises(InvalidValueError, match=r"table must be one of .*; got 'tokens'"):
        count(preset("gpt2")).table_bytes("tokens")


# --- activations: the output X (B, T, D), lesson 002's "activations B·T·d" -------------------


@pytest.mark.parametrize(
    ("name", "batch", "seq", "dtype", "expected"),
    [
        ("bert-base", 32, 512, "fp32", 32 * 512 * 768 * 4),  # 50,331,648 B = 48 MiB
        ("gpt2", 8, 1024, "fp16", 8 * 1024 * 768 * 2),  # 12,582,912
        ("llama-2-7b", 1, 100_000, "bf16", 100_000 * 4096 * 2),  # rotary: no max_len bounds T
        ("vit-b-16", 256, None, "fp32", 256 * 197 * 768 * 4),  # T = 14·14 patches + CLS
    ],
)
def test_activation_bytes_are_b_t_d_values(name, batch, seq, dtype, expected):
    assert activation_bytes(preset(name), batch, seq, dtype) == expected


def test_activations_grow_with_b_and_t_and_the_tables_do_not():
    assert activation_bytes(preset("bert-base"), 64, 256) == activation_bytes(preset("bert-base"), 32, 512)
    assert activation_bytes(preset("bert-base"), 32, 512) == 50_331_648 < count(preset("bert-base")).bytes
    with pytest.raises(InvalidValueError, match="dtype must be one of fp32, fp16, bf16, int8; got 'fp64'"):
        activation_bytes(preset("gpt2"), 1, 1, "fp64")


BAD_ACTIVATIONS = [
    ("bert-base", 0, 8, r"batch must be >= 1; got 0"),
    ("bert-base", 2, 0, r"seq must be >= 1; got 0"),
    ("bert-base", 2, 513, r"seq must be at most max_len 512 \(learned position rows\); got 513"),
    ("bert-base", 2, None, r"a text layout needs seq"),
    ("vit-b-16", 2, 197, r"an image layout's T is fixed, N \+ 1 = 197: give no seq; got 197"),
]


@pytest.mark.parametrize(("name", "batch", "seq", "message"), BAD_ACTIVATIONS)
def test_bad_activation_sizes(name, batch, seq, message):
    with pytest.raises(InvalidValueError, match=message):
        activation_bytes(preset(name), batch, seq)


# --- the JSON shape -------------------------------------------------------------------------


def test_the_report_is_plain_json_and_complete():
    d = json.loads(json.dumps(json_safe(count(preset("bert-base"), "bf16"))))
    for key in (
        "token_params",
        "position_params",
        "segment_params",
        "output_params",
        "patch_params",
        "cls_params",
        "total_params",
        "bytes",
        "mib",
        "dtype",
        "shares",
    ):
        assert key in d
    for field in dataclasses.fields(EmbeddingLayout):
        assert field.name in d
    assert d["total_params"] == 23_835_648
    assert d["bytes"] == 23_835_648 * 2
    assert d["dtype"] == "bf16"
    assert d["n_segments"] == 2
    assert d["mib"] == pytest.approx(23_835_648 * 2 / 2**20)


@pytest.mark.parametrize("name", PRESETS)
def test_a_report_holds_its_layout(name):
    report = count(preset(name), "fp16")
    assert report.layout == preset(name) and report.n_patches == preset(name).n_patches


def test_numpy_integers_become_plain_ints():
    np = pytest.importorskip("numpy")
    layout = text(np.int64(10), np.int32(4))
    assert type(layout.vocab_size) is int and type(layout.dim) is int
    assert json.loads(json.dumps(json_safe(count(layout))))["total_params"] == 40


def test_layout_and_report_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        preset("gpt2").dim = 1  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        count(preset("gpt2")).total_params = 0  # type: ignore[misc]


# --- validation: one error naming the value and the allowed range ---------------------------

BAD_LAYOUTS = [
    (dict(vocab_size=10, dim=0), r"dim must be >= 1; got 0"),
    (dict(vocab_size=10, dim=2.5), r"dim must be an integer; got 2\.5"),
    (dict(vocab_size=0, dim=8), r"vocab_size must be >= 1 for a text layout; got 0"),
    (dict(vocab_size=-3, dim=8), r"vocab_size must be >= 0; got -3"),
    (dict(vocab_size="many", dim=8), r"vocab_size must be an integer; got 'many'"),
    (dict(vocab_size=10, dim=8, positions="alibi"), r"positions must be one of .*; got 'alibi'"),
    (dict(vocab_size=10, dim=8, positions="learned"), r"max_len must be >= 1 .*; got 0"),
    (dict(vocab_size=10, dim=8, max_len=-1), r"max_len must be >= 0; got -1"),
    (dict(vocab_size=10, dim=8, n_segments=-2), r"n_segments must be >= 0; got -2"),
    (dict(vocab_size=10, dim=8, tied="yes"), r"tied must be True or False; got 'yes'"),
    (dict(vocab_size=10, dim=8, image_size=224), r"image_size 224 needs patch_size >= 1"),
    (dict(dim=8, image_size=225, patch_size=16), r"multiple of patch_size 16; got 225"),
    (dict(dim=8, image_size=8, patch_size=16), r"image_size must be >= 16; got 8"),
    (dict(dim=8, image_size=32, patch_size=-4), r"patch_size must be >= 0; got -4"),
    (dict(dim=8, image_size=32, patch_size=16, in_channels=0), r"in_channels must be >= 1; got 0"),
    (dict(vocab_size=5, dim=8, image_size=32, patch_size=16), r"vocab_size must be 0 .*; got 5"),
    (dict(dim=8, image_size=32, patch_size=16, n_segments=2), r"n_segments must be 0 .*; got 2"),
]


@pytest.mark.parametrize(("fields", "message"), BAD_LAYOUTS)
def test_bad_layout(fields, message):
    with pytest.raises(InvalidValueError, match=message) as info:
        EmbeddingLayout(**fields)
    assert "\n" not in str(info.value)  # one line, so the CLI prints one line
    assert isinstance(info.value, EmbedlabError) and isinstance(info.value, ValueError)


# --- a property over random text layouts ----------------------------------------------------


@given(
    vocab=st.integers(1, 300_000),
    dim=st.integers(1, 16_384),
    max_len=st.integers(1, 32_768),
    segments=st.integers(0, 4),
    tied=st.booleans(),
    dtype=st.sampled_from(sorted(BYTES_PER_PARAM)),
)
def test_text_total_is_the_sum_of_its_tables(vocab, dim, max_len, segments, tied, dtype):
    layout = text(vocab, dim, positions="learned", max_len=max_len, n_segments=segments, tied=tied)
    r: SizeReport = count(layout, dtype)
    heads = 1 if tied else 2  # token table, plus the output table when untied
    assert r.total_params == (heads * vocab + max_len + segments) * dim
    assert r.bytes == r.total_params * BYTES_PER_PARAM[dtype]
    assert math.fsum(r.shares.values()) == pytest.approx(1.0, abs=SHARE_SUM_TOL)


# --- run configs refuse sizes beyond this machine's memory (embedlab.sizing.memory) ------------------


@pytest.mark.parametrize(
    "settings",
    [
        dict(dim=10**14),
        dict(window=10**14),
        dict(negative=10**14),
        dict(method="lm", dim=10**9),
        dict(method="lm", batch_size=10**9),
        dict(method="lm", context=10**9),
    ],
    ids=["dim", "window", "negative", "lm-dim", "lm-batch_size", "lm-context"],
)
def test_run_config_refuses_sizes_beyond_memory(settings):
    """The check sits in RunConfig, so the lab's training page refuses what the command line does."""
    name, value = next((k, v) for k, v in settings.items() if k != "method")
    with pytest.raises(InvalidValueError, match=f"{name} {value:,}.*needs at least .* available on this machine"):
        RunConfig(corpus="gcide", **settings)


def test_run_config_checks_the_tables_once_the_words_are_known():
    words = 10_000
    dim = 2 * available_memory() // (8 * words)  # the two float32 tables: twice what is available
    config = RunConfig(corpus="gcide", dim=dim, threads=1)  # before the corpus is counted: scratch only
    with pytest.raises(InvalidValueError, match=f"dim {dim:,} on 10,000 words"):
        config.check_memory(words=words)
    config.check_memory(words=10)  # the same width on 10 words fits


# --- huge-vocabulary token tables: each count is its module's parameter count -------------------

VOCAB_TABLES = [
    (dict(hashed_rows=100), "hashed", lambda: HashedEmbedding(1000, 16, rows=100)),
    (dict(hashed_rows=100, hash_count=3), "hash-embedding", lambda: HashEmbedding(1000, 16, rows=100, hash_count=3)),
    (
        dict(hashed_rows=100, hash_count=2, importance_rows=1000),
        "hash-embedding",
        lambda: HashEmbedding(1000, 16, rows=100, hash_count=2, importance_rows=1000),
    ),
    (dict(qr_buckets=32), "quotient-remainder", lambda: QuotientRemainderEmbedding(1000, 16, buckets=32)),
    (
        dict(qr_buckets=7, qr_op="concat"),
        "quotient-remainder",
        lambda: QuotientRemainderEmbedding(1000, 16, 7, "concat"),
    ),
    (dict(adaptive_cutoffs=(200, 600)), "adaptive", lambda: AdaptiveInput(1000, 16, (200, 600))),
    (dict(adaptive_cutoffs=(1, 999), div_value=2.0), "adaptive", lambda: AdaptiveInput(1000, 16, (1, 999), 2.0)),
    ({}, "full", lambda: TokenEmbedding(1000, 16)),
]


@pytest.mark.parametrize(
    ("fields", "kind", "module"), VOCAB_TABLES, ids=lambda x: str(x) if isinstance(x, dict) else ""
)
def test_a_vocab_tables_count_is_its_modules(fields, kind, module):
    report = count(text(1000, 16, **fields))
    assert report.vocab_table == kind
    assert report.token_params == sum(p.numel() for p in module().parameters())
    assert report.output_params == (2 * 16 if kind == "adaptive" else 0)  # tied; adaptive: its 2 cluster rows
    assert report.layout == text(1000, 16, **fields)  # the report gives its layout back
    json.dumps(json_safe(dataclasses.asdict(report)))  # and reads as JSON


@pytest.mark.parametrize("cutoffs", [(200, 600), (1,), (10, 20, 999)])
@pytest.mark.parametrize("tied", [True, False])
def test_an_adaptive_output_is_the_softmaxs(cutoffs, tied):
    """Tied: our AdaptiveSoftmax adds its cluster rows; untied: torch's own adaptive softmax."""
    report = count(text(1000, 64, adaptive_cutoffs=cutoffs, tied=tied))
    emb = AdaptiveInput(1000, 64, cutoffs)
    if tied:
        head = AdaptiveSoftmax(emb)
        assert report.output_params == count_parameters(emb, head) - count_parameters(emb) == len(cutoffs) * 64
    else:
        head = torch.nn.AdaptiveLogSoftmaxWithLoss(64, 1000, list(cutoffs), div_value=4.0)
        assert report.output_params == sum(p.numel() for p in head.parameters())


def test_a_hashed_128k_vocabulary_at_one_tenth_of_the_rows():
    full = count(text(128_000, 1_024))
    hashed = count(text(128_000, 1_024, hashed_rows=12_800))
    assert (hashed.token_rows, hashed.token_params, hashed.bytes) == (12_800, 13_107_200, 52_428_800)
    assert full.token_params == 10 * hashed.token_params
    qr = count(text(128_000, 1_024, qr_buckets=358))  # m ≈ √V: 358 + 358 rows
    assert (qr.token_rows, qr.token_params) == (716, 716 * 1_024)
    k2 = count(text(128_000, 1_024, hashed_rows=12_800, hash_count=2))
    assert (k2.importance_rows, k2.token_params) == (12_800, 12_800 * 1_024 + 12_800 * 2)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (dict(hashed_rows=11), r"hashed_rows must be between 1 and 10; got 11"),
        (dict(hashed_rows=-1), r"hashed_rows must be >= 0; got -1"),
        (dict(hash_count=0, hashed_rows=5), r"hash_count must be >= 1; got 0"),
        (dict(hash_count=2), r"hash_count 2 needs hashed_rows >= 1; got 0"),
        (dict(hashed_rows=5, importance_rows=3), r"importance_rows 3 needs hash_count >= 2"),
        (dict(hashed_rows=5, qr_buckets=3), r"a token table is one kind; got hashed_rows and qr_buckets"),
        (dict(qr_buckets=11), r"qr_buckets must be between 1 and 10; got 11"),
        (dict(qr_buckets=3, qr_op="dot"), r"qr_op must be one of mult, add, concat; got 'dot'"),
        (dict(qr_buckets=3, qr_op="concat", dim=7), r"dim must be even for concat .*; got 7"),
        (dict(adaptive_cutoffs=(5, 3)), r"adaptive cutoffs must increase, each between 1 and 9; got 5,3"),
        (dict(adaptive_cutoffs=(10,)), r"adaptive cutoff must be between 1 and 9; got 10"),
        (dict(adaptive_cutoffs=(5,), div_value=0.0), r"div_value must be >= 1.0; got 0.0"),
    ],
)
def test_bad_vocab_table(fields, message):
    fields = {"vocab_size": 10, "dim": 8, **fields}
    with pytest.raises(InvalidValueError, match=message) as info:
        EmbeddingLayout(**fields)
    assert "\n" not in str(info.value)


def test_an_image_layout_has_no_vocab_table():
    with pytest.raises(InvalidValueError, match=r"hashed_rows needs a text layout; got an image layout"):
        EmbeddingLayout(dim=8, image_size=32, patch_size=16, hashed_rows=4)


def test_concatenating_bert_bases_rows_makes_every_block_nine_times_larger():
    from embedlab.models.lm import pre_norm_blocks
    from embedlab.sizing import block_params, combine_cost

    add, concat = combine_cost(preset("bert-base"), "add"), combine_cost(preset("bert-base"), "concat")
    assert concat.parts == ("token", "position", "segment") and (add.width, concat.width) == (768, 2304)
    assert (add.block_params, concat.block_params) == (7_087_872, 63_730_944)  # 12·W² + 13·W
    assert add.block_ratio == 1.0 and round(concat.block_ratio, 2) == 8.99
    assert concat.head_params == 30522 * 2304
    assert combine_cost(preset("gpt2"), "concat").width == 1536  # token and learned position: 2 × 768
    assert combine_cost(preset("vit-b-16"), "concat").parts == ("patch", "position")
    for width in (8, 24):  # the formula is torch's count of the block TinyLM and the ViT use
        block = pre_norm_blocks(width, n_heads=4, n_layers=1)
        assert sum(p.numel() for p in block.parameters()) == block_params(width)
