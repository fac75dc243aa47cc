# Dominologist: `make run` serves the house, `make test` runs the whole suite.
# Both set up the virtualenv on a fresh clone; nothing needs installing first but Python 3.11.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test lint format bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.runtime: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.runtime

## make run [DEMO=1] [PORT=8000]: migrate, start web + worker + beat, print the URL.
## Both commands first compile the rules' hot path where a C compiler is found (native/build.py:
## once per change of the engine; pure Python otherwise, the same rules).
run: $(VENV)/.runtime
	$(BIN)/python native/build.py
	$(BIN)/python -m dominoes_site.run $(if $(filter 1 yes true,$(DEMO)),--demo,) $(if $(PORT),--port $(PORT),)

## make test: install what the tests need and run the whole suite.
test: $(VENV)/.dev
	$(BIN)/python native/build.py
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(VENV)/.dev
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy --strict engine

format: $(VENV)/.dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

clean:
	rm -rf var/test-*.sqlite3* .pytest_cache .mypy_cache .ruff_cache build
