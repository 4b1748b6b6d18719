# Two commands take a fresh machine to a result: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test test-slow lint bench clean clean-cache

# PYTHONWARNINGS: setuptools' "Editable installation" notice, a warning pip shows
# even with --quiet.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/catansim run experiments/quickstart.toml

# The suite in parallel (pytest-xdist), a test file per worker so that each file's
# fixtures are built once; one worker per CPU, at most 4 (each compiles the kernels
# on a cold cache: about 0.5 GB apiece). TEST_WORKERS=0 runs it in this process.
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ $$n -gt 4 ] && n=4; echo $$n)

# lint-imports: the layer contracts of pyproject.toml ([tool.importlinter]). The longest
# test files go first and a line says when each file is done (tests/conftest.py); the
# ten slowest tests are listed at the end.
test: $(STAMP)
	$(BIN)/ruff check --quiet catansim tests benchmarks notebooks
	$(BIN)/lint-imports --no-logo
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=10

# The slow tests alone (statistical sweeps; the games counted under Debian's valgrind),
# which `make test` skips: tens of minutes on two cores.
test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder -m slow

bench: $(STAMP)
	$(BIN)/catansim bench

# The kernel cache is ~/.cache/catansim/numba/<engine fingerprint>/ (catansim/core/__init__.py),
# shared by every checkout of this user; catansim prunes folders unused for a week.
CACHE := $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/catansim/numba

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache

clean-cache:
	rm -rf $(CACHE)
