# Two commands do all the set-up: `make run` and `make test`.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint venv clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

## make run: set up, check the sample armies, build the demo database, open the dashboard
run: $(STAMP)
	$(BIN)/pmim rules list
	$(BIN)/pmim army validate data/armies/*.yaml
	$(BIN)/pmim demo
	$(BIN)/pmim db info

## make test: set up with the test extras, lint, check the layers, run every test
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/pytest -q

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
