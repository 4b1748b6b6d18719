# Two commands take a fresh machine to a result: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench clean clean-cache

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/catansim run experiments/quickstart.toml

test: $(STAMP)
	$(BIN)/ruff check catansim tests benchmarks notebooks
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/catansim bench

# The kernel cache is ~/.cache/catansim/numba/<engine fingerprint>/ (catansim/core/__init__.py),
# shared by every checkout of this user; catansim prunes folders unused for a week.
CACHE := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/catansim/numba

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache

clean-cache:
	rm -rf $(CACHE)
