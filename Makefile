# Two commands do all the set-up: `make run` and `make test`.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# `make run` needs only the package itself (no test or cluster extras): a quicker first install.
RUN_STAMP := $(VENV)/.installed-run
# The dashboard listens on this machine only; DASH_ADDRESS=0.0.0.0 exposes it (no login: see README).
DASH_ADDRESS ?= localhost
DASH_PORT ?= 8501
STREAMLIT = $(BIN)/streamlit run app/streamlit_app.py --server.headless true --browser.gatherUsageStats false \
	--server.address $(DASH_ADDRESS) --server.port $(DASH_PORT)
# make test runs the tests in this many processes (pytest-xdist), by default twice the CPUs (at most
# CPUs + 4): many tests wait (on a browser, a server, a subprocess, the disk) and another worker
# uses the CPU meanwhile. TEST_WORKERS=1 runs them in one.
NPROC := $(shell nproc 2>/dev/null || echo 2)
TEST_WORKERS ?= $(shell n=$(NPROC); echo $$(( n * 2 < n + 4 ? n * 2 : n + 4 )))

.PHONY: run test test-busy lint venv clean dashboard

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# scripts/venv-install.sh installs with uv where it can (about 12 s for the test extras on 2 cores),
# with pip otherwise. The installed packages are then byte-compiled once, in parallel: left to the
# tests, dozens of processes started at once compiled the same libraries before the first .pyc landed.
$(STAMP): pyproject.toml | $(BIN)/python
	scripts/venv-install.sh $(VENV) -e '.[test,distributed]'
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib > /dev/null || true
	touch $(STAMP) $(RUN_STAMP)

$(RUN_STAMP): pyproject.toml | $(BIN)/python
	@echo "make run [1/4] set-up: installing pmim-analytics into $(VENV) (under a minute, the first time only)"
	scripts/venv-install.sh $(VENV) -e .
	touch $(RUN_STAMP)

venv: $(STAMP)

## make run: set up, check the sample armies, build the demo's quick core, open the dashboard while the
## rest of the demo builds in the background (`pmim demo --status`); a second run reuses all of it
run: $(RUN_STAMP)
	@echo "make run [1/4] set-up: $(VENV) is ready"
	@echo "make run [2/4] checks: the sample armies in data/armies"
	$(BIN)/pmim army validate data/armies/*.yaml
	@echo "make run [3/4] core demo: tactician games under v3, the logged games and a bot ladder"
	$(BIN)/pmim demo --core --background
	@echo "make run [4/4] dashboard: http://$(DASH_ADDRESS):$(DASH_PORT) (Ctrl-C stops it; the demo keeps building)"
	$(STREAMLIT)

## make test: set up with the test extras, lint, check the layers and the types, run every test
# The tests start hundreds of Python processes. Where PYTHONDONTWRITEBYTECODE is set (as on the
# shared machine) Python keeps nothing it compiles, so each of them compiled streamlit, polars,
# plotly and the rest anew: the packages are compiled at install, the project's own files here, and
# make test lifts that setting so what is left (pytest's rewritten test modules) is kept too (in
# __pycache__ folders, ignored by git). mypy runs beside the tests (scripts/test-with-types.sh).
test: export PYTHONDONTWRITEBYTECODE :=
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	scripts/ensure-chromium.sh
	$(BIN)/python -m compileall -q -j 0 pmim_analytics app tests scripts bench > /dev/null
	scripts/test-with-types.sh $(BIN)/mypy \
		$(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder --durations=15

## make test-busy: make test with two CPU-bound processes running beside it (a busy machine)
test-busy: $(STAMP)
	scripts/test-under-load.sh $(MAKE) test

## make dashboard: open the dashboard on the database ($$PMIM_DB or data/pmim.duckdb) at http://localhost:8501
dashboard: $(RUN_STAMP)
	$(STREAMLIT)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
