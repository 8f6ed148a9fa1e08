# Two commands for a new user: `make run` (install and start the lab) and `make test`
# (install and run the tests). Each builds its own virtual environment in .venv, and first
# installs the system packages it lacks when it may (root or password-less sudo).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: run test lint verify bench check-system clean

run: check-system $(VENV)/.installed
	$(BIN)/lab

# The suite on every core, then the sound-device timing tests alone (scripts/run-tests.sh);
# PYTEST_ARGS go to pytest, PYTEST_WORKERS=N sets the workers (default: auto; 0: one process).
test: check-system $(VENV)/.installed-test
	QT_QPA_PLATFORM=offscreen PYTHON=$(BIN)/python bash scripts/run-tests.sh $(PYTEST_ARGS)

# ruff over the tree and mypy over what is typed clean ([tool.ruff], [tool.mypy] in pyproject).
lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/mypy

verify: $(VENV)/.installed
	$(BIN)/lab verify

bench: $(VENV)/.installed
	@for f in bench/bench_*.py; do QT_QPA_PLATFORM=offscreen $(BIN)/python $$f; done

check-system:
	@PYTHON=$(PYTHON) bash scripts/check-system.sh

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed
	$(BIN)/python -m pip install -q -e '.[test,cluster]'
	touch $@

clean:
	rm -rf $(VENV)
