"""`embedlab arena` on the command line: the tables a person reads, and bad input as one line."""

from __future__ import annotations


def test_tables_of_a_race(run_cli, small_race, tmp_path):
    import io
    import shutil

    from rich.console import Console

    from embedlab.arena.runner import Race
    from embedlab.cli.arena import results_table, scale_table

    folder, summary = small_race
    console = Console(file=io.StringIO(), width=80, record=True)  # a terminal of 80 columns
    console.print(scale_table(Race.resume(folder)))
    console.print(results_table(summary))
    out = console.export_text()
    assert "The tiny race: the lesson's scale and the arena's" in out
    assert "128,000×4,096   1,048,576,000" in out and "32,000×64   4,096,000" in out  # at 80 columns, whole
    assert "Measured (tiny race, seeds 0)" in out and "n/a" in out
    # the race's figures drawn again from its folder by the command, nothing trained
    shutil.copytree(folder, tmp_path / "race")
    for png in (tmp_path / "race").glob("*.png"):
        png.unlink()
    status, out, err = run_cli("arena", "--figures", "--out", str(tmp_path / "race"))
    assert status == 0, err
    assert sorted(p.name for p in (tmp_path / "race").glob("*.png")) == sorted(p.name for p in folder.glob("*.png"))


def test_bad_input_is_one_line_and_exit_2(run_cli, tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "notes.txt").write_text("mine")
    for args, message in [
        (("arena", "--quick", "--out", str(tmp_path / "full")), "exists and holds no race"),
        (("arena", "--quick", "--out", str(tmp_path / "a"), "--tasks", "lm,speed"), "task must be one of"),
        (("arena", "--quick", "--out", str(tmp_path / "b"), "--strategies", "bpe"), "unknown strategy 'bpe'"),
        (("arena", "--quick", "--out", str(tmp_path / "c"), "--device", "tpu"), "device must be one of cpu, cuda"),
        (("arena", "--quick"), "Missing option '--out'"),
        (("arena", "--quick", "--out", str(tmp_path / "d"), "--clock", "steps"), "clock must be one of flops, wall"),
        (("arena", "--sweep", "--out", str(tmp_path / "e"), "--tasks", "lm"), "--tasks lm does not apply to --sweep"),
        (
            ("arena", "--sweep", "--out", str(tmp_path / "f"), "--clock", "wall"),
            "--clock wall does not apply to --sweep",
        ),
    ]:
        status, out, err = run_cli(*args)
        assert status == 2, args
        assert out == "" and message in err, (args, err)
        assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "e").exists() and not (tmp_path / "f").exists()  # refused before a folder is made


def test_a_sweeps_tables_and_figures_from_its_folder(run_cli, tiny_sweep, tmp_path):
    import shutil

    folder, _, summary = tiny_sweep
    copy = tmp_path / "sweep"
    shutil.copytree(folder, copy)
    (copy / "sweep.png").unlink()
    status, out, err = run_cli("arena", "--figures", "--out", str(copy))
    assert status == 0, err
    assert out == f"17 figures drawn again in {copy}\n" and (copy / "sweep.png").is_file()
    status, out, err = run_cli("arena", "--sweep", "--out", str(copy))  # the full sweep, in the tiny one's folder
    assert status == 2 and "holds a tiny sweep on cpu" in err and err.count("\n") == 1
    status, out, err = run_cli("arena", "--figures", "--out", str(tmp_path / "nothing"))
    assert status == 2 and "holds no arena race or sweep" in err


def test_a_sweeps_table_marks_the_lowest_figure_at_each_budget(tiny_sweep):
    from rich.console import Console

    from embedlab.cli.arena import anchor_text, sweep_tables

    _, _, summary = tiny_sweep
    console = Console(width=80, record=True, color_system=None)
    tables = sweep_tables(summary)
    assert len(tables) == 2
    console.print(tables[1])
    text = console.export_text()
    assert "Held-out bits per byte at d = 64" in text and "32,000" in text
    for point in (p for p in summary["points"] if p["width"] == 64):
        for row in point["strategies"]:
            assert f"{row['bits_per_byte']:.3f}" in text
    # the winner's cell, and only it, is bold in each budget's column
    cells = [c for column in tables[1].columns[2:] for c in column._cells]
    assert sum(c.startswith("[bold]") for c in cells) == 2
    assert "the optimum between N ≈ 7e+08 (their measurements) and 9.7e+08 (the law)" in anchor_text(summary["anchor"])
