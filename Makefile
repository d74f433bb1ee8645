# Two commands do all the set-up: `make run` and `make test`.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The dashboard listens on this machine only; DASH_ADDRESS=0.0.0.0 exposes it (no login: see README).
DASH_ADDRESS ?= localhost

.PHONY: run test lint venv clean dashboard

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[test,distributed]'
	touch $(STAMP)

venv: $(STAMP)

## make run: set up, check the sample armies, build the demo database, open the dashboard
run: $(STAMP)
	$(BIN)/pmim rules list
	$(BIN)/pmim army validate data/armies/*.yaml
	$(BIN)/pmim demo
	$(BIN)/pmim db info
	$(BIN)/streamlit run app/streamlit_app.py --server.headless true --browser.gatherUsageStats false --server.address $(DASH_ADDRESS)

## make test: set up with the test extras, lint, check the layers and the types, run every test
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/mypy
	scripts/ensure-chromium.sh
	$(BIN)/pytest -q

## make dashboard: open the dashboard on the database ($$PMIM_DB or data/pmim.duckdb) at http://localhost:8501
dashboard: $(STAMP)
	$(BIN)/streamlit run app/streamlit_app.py --server.headless true --browser.gatherUsageStats false --server.address $(DASH_ADDRESS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
