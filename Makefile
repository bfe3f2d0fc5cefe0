# Two commands do the whole set-up on a fresh machine: `make demo` and `make test`.
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
# torch first and pinned: this version is a local CPU build here; any other pulls CUDA wheels.
TORCH  := torch==2.13.0
export HF_HUB_OFFLINE := 1
# Debian packages the built-in data needs, installed when missing (root, or sudo otherwise).
GCIDE  := /usr/share/dictd/gcide.dict.dz
FASHION := /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz
CHROMIUM := /usr/bin/chromium
FASTTEXT := /usr/bin/fasttext
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test clean

$(PY):
	python3 -m venv $(VENV)

$(VENV)/.demo-installed: pyproject.toml | $(PY)
	$(PIP) install -q $(TORCH)
	$(PIP) install -q -e '.[data,lab]'
	touch $@

$(VENV)/.test-installed: pyproject.toml | $(PY)
	$(PIP) install -q $(TORCH)
	$(PIP) install -q -e '.[test]'
	touch $@

# The demo's training run: skip-gram on gensim's Wikipedia sample, 15 passes (~20 s on 2 cores).
DEMO_RUN := runs/enwiki-sgns
# And a subword table for the Subwords page's unseen words: fastText's model on the same sample, 5 passes,
# 100,000 buckets (fastText's 2,000,000 would dwarf the sample's n-grams), its bucket update counts kept.
SUBWORD_RUN := runs/enwiki-subwords
EMBEDLAB := $(VENV)/bin/embedlab

# $(call train,FOLDER,OPTIONS): train enwiki-sample into FOLDER, resume it if a run there was cut short,
# or leave it if it is trained already.
define train
	@if [ -f $(1)/metrics.json ]; then echo "$(1) is trained already (remove it to train again)"; \
	elif [ -f $(1)/checkpoint.pt ]; then $(EMBEDLAB) train enwiki-sample --out $(1) --resume; \
	else rm -rf $(1) && $(EMBEDLAB) train enwiki-sample --out $(1) $(2); fi
endef

demo: $(VENV)/.demo-installed $(FASHION)
	$(EMBEDLAB) embed "the cat sat on the mat"
	$(call train,$(DEMO_RUN),--epochs 15)
	$(call train,$(SUBWORD_RUN),--subwords --buckets 100000 --epochs 5 --no-evaluate)
	$(EMBEDLAB) evaluate $(DEMO_RUN)
	$(EMBEDLAB) neighbors $(DEMO_RUN) january -k 5
	$(EMBEDLAB) neighbors $(DEMO_RUN) two -k 5
	$(EMBEDLAB) neighbors $(DEMO_RUN) france -k 5
	$(EMBEDLAB) analogy $(DEMO_RUN) "father - man + woman" -k 3
	@echo "Serving the lab on MiniLM, $(DEMO_RUN) and $(SUBWORD_RUN): open http://127.0.0.1:8000 (Ctrl-C stops it)"
	$(EMBEDLAB) lab --vectors minilm --vectors $(DEMO_RUN) --vectors $(SUBWORD_RUN)

# Lint and formatting first: a `# fmt: skip` in the tree is a decision, not an accident. Two pytest-xdist
# workers (the suite waits on browsers and servers as much as it computes); loadgroup keeps the tests of
# the session's races on one worker, and --no-loadscope-reorder keeps tests/conftest.py's order (the
# races first). `pytest -m "not slow"` is the inner loop. The suite writes bytecode whatever the shell
# says: with PYTHONDONTWRITEBYTECODE set, each worker, lab and CLI process compiles the project again
# and pytest rewrites the asserts of all ~300 test modules again (collection 34 s -> 17 s a worker).
test: $(VENV)/.test-installed $(GCIDE) $(FASHION) $(CHROMIUM) $(FASTTEXT)
	$(VENV)/bin/ruff check src tests bench docs
	$(VENV)/bin/ruff format --check src tests bench docs
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -n 2 --dist loadgroup --no-loadscope-reorder

$(GCIDE):
	$(SUDO) apt-get update -qq
	$(SUDO) apt-get install -y -qq dict-gcide

# The arena's image task: Fashion-MNIST's IDX files (data/fashion.py).
$(FASHION):
	$(SUDO) apt-get update -qq
	$(SUDO) apt-get install -y -qq dataset-fashion-mnist

# The lab's browser tests drive Debian's chromium through Playwright (which cannot download one here).
$(CHROMIUM):
	$(SUDO) apt-get update -qq
	$(SUDO) apt-get install -y -qq chromium

# fastText 0.9.2, the peer and oracle of subword tables: its .bin files and print-word-vectors.
$(FASTTEXT):
	$(SUDO) apt-get update -qq
	$(SUDO) apt-get install -y -qq fasttext

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache .hypothesis runs
