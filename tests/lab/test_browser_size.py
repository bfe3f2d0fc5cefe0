"""Table size in Debian's chromium against a real `embedlab lab` process: every preset shows what
embedlab.sizing counts for it (the ViT presets and BERT's segment table included), and numbers are
printed with thousands separators by the pages' one helper (dom.js's num and memory)."""

from __future__ import annotations

from embedlab.sizing import PRESETS, activation_bytes, count


def _total(page) -> str:
    return page.inner_text("#size-total")


def _shows(report) -> str:
    return f"{report.total_params:,} parameters = {report.bytes:,} bytes"


def test_every_preset_shows_sizings_count(open_sim):
    page = open_sim("size")
    first = next(iter(PRESETS))
    assert page.input_value("#size-preset") == first and _shows(count(PRESETS[first])) in _total(page)
    for name, layout in [*list(PRESETS.items())[1:], (first, PRESETS[first])]:  # each one changes the figure
        before = _total(page)
        page.select_option("#size-preset", name)
        page.wait_for_function("t => document.querySelector('#size-total').innerText !== t", arg=before)
        assert _shows(count(layout)) in _total(page), name
        image_shown = page.is_visible("#size-image-controls")
        assert image_shown == layout.is_image and page.is_visible("#size-text") != image_shown, name
        if layout.is_image:
            assert f"N = {layout.n_patches}" in page.inner_text("#size-result"), name


def test_bert_base_counts_its_segment_table(open_sim):
    page = open_sim("size")
    page.select_option("#size-preset", "bert-base")
    page.wait_for_function("() => document.querySelector('#size-total').innerText.startsWith('23,835,648 parameters')")
    assert "segment" in page.inner_text("#size-result")  # the 2 × 768 rows the page once left out
    page.fill("#size-segments", "0")
    page.dispatch_event("#size-segments", "input")
    page.wait_for_function("() => document.querySelector('#size-total').innerText.startsWith('23,834,112 ')")
    assert page.input_value("#size-preset") == ""  # edited: no longer the preset's layout


def test_memory_reads_in_gib_with_separators(open_sim):
    page = open_sim("size")
    before = _total(page)
    page.select_option("#size-preset", "llama-3-8b")
    page.wait_for_function("t => document.querySelector('#size-total').innerText !== t", arg=before)
    report = count(PRESETS["llama-3-8b"])
    assert _total(page) == f"{report.total_params:,} parameters = {report.bytes:,} bytes = 3.91 GiB in fp32"


def test_the_number_helper(open_sim):
    page = open_sim("size")
    shown = page.evaluate("""async () => {
      const { num, memory } = await import("/static/js/dom.js");
      return [num(23835648), num(4008, 2), num(-0.12345, 3), num(null), num(NaN, 2), memory(95342592),
              memory(4202692608), memory(1023 * 1024 ** 2)];
    }""")
    assert shown == ["23,835,648", "4,008.00", "-0.123", "–", "–", "90.93 MiB", "3.91 GiB", "1,023.00 MiB"]


def _acts(page) -> str:
    return page.inner_text("#size-acts-total")


def _wait_acts(page, before: str) -> str:
    page.wait_for_function("t => document.querySelector('#size-acts-total')?.innerText !== t", arg=before)
    return _acts(page)


def test_activations_beside_the_tables(open_sim):
    page = open_sim("size")
    page.select_option("#size-preset", "bert-base")
    page.wait_for_function("() => document.querySelector('#size-total').innerText.startsWith('23,835,648 parameters')")
    nbytes = activation_bytes(PRESETS["bert-base"], 32, 512)  # 50,331,648: about half the tables' 90.93 MiB
    shown = (
        f"X: 32 × 512 × 768 = 12,582,912 values = {nbytes:,} bytes = 48.00 MiB in fp32 = 0.53× the tables' 90.93 MiB"
    )
    # subtle: gpt2's X (the page's first preset) is 32 × 512 × 768 too; only the tables' bytes tell them apart
    page.wait_for_function("t => document.querySelector('#size-acts-total')?.innerText === t", arg=shown)
    page.fill("#size-batch", "16")
    page.dispatch_event("#size-batch", "input")  # B halves X; the tables stay
    assert _wait_acts(page, shown).startswith("X: 16 × 512 × 768 = 6,291,456 values = 25,165,824 bytes = 24.00 MiB")
    # an image's T is N + 1, fixed: shown in the disabled box; the text's T comes back after
    before = _acts(page)
    page.select_option("#size-preset", "vit-b-16")
    shown = _wait_acts(page, before)
    vit = PRESETS["vit-b-16"]
    assert shown.startswith(f"X: 16 × {vit.n_patches + 1} × 768 = ") and f"{activation_bytes(vit, 16):,} bytes" in shown
    assert page.is_disabled("#size-seq") and page.input_value("#size-seq") == "197"
    before = _acts(page)
    page.select_option("#size-preset", "bert-base")
    assert _wait_acts(page, before).startswith("X: 16 × 512 × 768") and page.is_enabled("#size-seq")


def test_the_token_table_stored_as_codes(open_sim):
    from embedlab.sizing import stored_bytes

    page = open_sim("size")
    page.select_option("#size-preset", "bert-base")
    want = stored_bytes(30522, 768, 4, True).quantized.bytes
    page.fill("#size-dsub", "4")
    page.dispatch_event("#size-dsub", "input")
    page.check("#size-qnorm")
    page.dispatch_event("#size-qnorm", "input")
    page.wait_for_function(
        "w => document.querySelector('#size-stored-note')?.innerText.endsWith(w)", arg=f"= {want:,} bytes"
    )
    shown = page.inner_text("#size-stored")
    assert "product-quantized, dsub 4, qnorm" in shown and f"{30522 * 768 * 4:,}" in shown
    page.select_option("#size-kind", "image")
    assert not page.is_visible("#size-stored-section")  # an image layout has no token table
