# Paperscope: `make run` starts everything on the embedded default, `make test` runs the tests.
# Both set themselves up (virtual environment, pinned install, migrations) on first use.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | cksum | cut -d' ' -f1)

.PHONY: run test test-fast lint format extension clean

$(STAMP): pyproject.toml constraints.txt
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e ".[dev]"
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

run: $(STAMP)
	DEBUG=1 $(BIN)/python manage.py paperscope_run

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# The suite without the tests that start browsers, servers or workers: a quick check while editing.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not slow" $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	cd extension && { test -d node_modules || npm ci --no-audit --no-fund; } && npm run lint:js

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# The browser extension: unit tests, web-ext lint, then the Chrome and Firefox packages in
# extension/dist/. Needs Node 20 and npm.
extension:
	cd extension && npm ci --no-audit --no-fund
	cd extension && npm test
	cd extension && npm run lint
	cd extension && npm run package

clean:
	rm -rf $(VENV) var
