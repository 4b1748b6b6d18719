# Two commands take a fresh machine to a result: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/catansim run experiments/quickstart.toml

test: $(STAMP)
	$(BIN)/ruff check catansim tests benchmarks
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/catansim bench

clean:
	rm -rf $(VENV) .numba_cache .pytest_cache
