# Two commands do the whole set-up on a fresh machine: `make demo` and `make test`.
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# torch first and pinned: this version is a local CPU build here; any other pulls CUDA wheels.
TORCH  := torch==2.13.0
export HF_HUB_OFFLINE := 1
# Debian packages the built-in data needs, installed when missing (root, or sudo otherwise).
GCIDE  := /usr/share/dictd/gcide.dict.dz
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test clean

$(PY):
	python3 -m venv $(VENV)

$(VENV)/.demo-installed: pyproject.toml | $(PY)
	$(PIP) install -q $(TORCH)
	$(PIP) install -q -e '.[data]'
	touch $@

$(VENV)/.test-installed: pyproject.toml | $(PY)
	$(PIP) install -q $(TORCH)
	$(PIP) install -q -e '.[test]'
	touch $@

demo: $(VENV)/.demo-installed
	$(VENV)/bin/embedlab embed "the cat sat on the mat"

test: $(VENV)/.test-installed $(GCIDE)
	$(PY) -m pytest

$(GCIDE):
	$(SUDO) apt-get update -qq
	$(SUDO) apt-get install -y -qq dict-gcide

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .hypothesis
