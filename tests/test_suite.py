"""The suite's own contract with pytest-xdist: `make test` runs `-n 2 --dist loadgroup`, and the tests
of one group (those sharing a race, or one module's) must run on one worker, or each worker makes the
group's shared fixtures again (tests/conftest.py)."""

from __future__ import annotations

RACES = {"small_race", "tiny_sweep"}  # the session fixtures whose tests form the group "races"
SHARED = {"umap"}  # groups tests name themselves: tests of several modules that share a process's cost
SERVERS = {"minilm_lab_url": "minilm-lab"}  # session fixtures whose tests form a group (a lab process)


def test_every_test_runs_in_its_group(request):
    # xdist marks a grouped test by a suffix on its nodeid ("...::test_x@races") for its scheduler to
    # read; pytest 9.2 no longer lets it change a nodeid (pytest-xdist#1386), and groups split silently
    grouped = request.config.getoption("loadgroup", default=False)
    for item in request.session.items:
        (mark,) = list(item.iter_markers("xdist_group"))
        names = set(getattr(item, "fixturenames", ()))
        racing, server = bool(RACES & names), next((SERVERS[f] for f in names & SERVERS.keys()), None)
        module = item.path.relative_to(request.config.rootpath).as_posix()
        own = "races" if racing else server or module
        assert mark.args[0] == own or (not racing and not server and mark.args[0] in SHARED)
        assert item.nodeid.endswith(f"@{mark.args[0]}") == grouped, f"{item.nodeid}: --dist loadgroup lost it"
