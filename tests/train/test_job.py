"""The Job registry and RunConfig: every method has a job, every setting one default, and a config
knows which settings its caller named."""

from __future__ import annotations

import pytest

from embedlab.train.config import METHODS, RunConfig
from embedlab.train.job import JOBS, Job


def test_every_method_has_a_job_with_the_protocols_methods():
    assert set(JOBS) == set(METHODS)
    methods = [name for name in vars(Job) if not name.startswith("_") and callable(getattr(Job, name))]
    assert "steps" in methods and "create" in methods and "word_rows" in methods
    for method, job in JOBS.items():
        missing = [name for name in methods if not callable(getattr(job, name, None))]
        assert not missing, (method, missing)
        assert isinstance(job.unit, str) and isinstance(job.setup_file, str)


@pytest.mark.parametrize("method, dim, lr, epochs", [("sgns", 100, 0.025, 5), ("cbow", 100, 0.025, 5),
                                                     ("lm", 128, 3e-3, 1)])  # fmt: skip
def test_defaults_follow_the_method(method, dim, lr, epochs):
    config = RunConfig(corpus="gcide", method=method)
    assert (config.dim, config.lr, config.epochs) == (dim, lr, epochs)
    assert config.given == ("corpus", "method")


def test_given_settings_are_compared_with_a_saved_run():
    saved = RunConfig.from_dict(RunConfig(corpus="gcide", dim=20, window=3).to_dict())
    assert RunConfig(corpus="gcide").differences(saved) == []  # nothing named but the corpus: the run's own
    asked = RunConfig(corpus="gcide", dim=50, window=3, negative=5)
    assert asked.given == ("corpus", "dim", "window", "negative")
    assert asked.differences(saved) == ["dim 50 (run has 20)"]  # negative 5 is the saved run's default too
    assert "given" not in saved.to_dict() and RunConfig.from_dict(saved.to_dict()) == saved


def test_each_family_ends_its_schedule_at_its_own_floor():
    assert RunConfig(corpus="gcide").min_lr == 1e-4
    assert RunConfig(corpus="gcide", lr=1e-5).min_lr == 1e-5  # never above the starting rate
    assert RunConfig(corpus="gcide", method="lm", lr=1e-3).min_lr == pytest.approx(1e-4)
