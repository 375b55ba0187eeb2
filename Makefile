# Two commands: `make run` and `make test`. Everything else is a helper.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000
# pytest-xdist workers of `make test`: N spreads the files over N workers, each with its
# own PostgreSQL database (tests/conftest.py); 0 runs the suite in this process (see
# README "Test").
PYTEST_WORKERS ?= 2

NPM    ?= npm
NODE   ?= node

.PHONY: run test install install-dev install-js lint-js test-js migrate lint bench clean \
        messages messages-from-dict

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

install: $(BIN)/python
	$(BIN)/python -m pip install -q -e .

install-dev: $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev]'

migrate: install
	$(BIN)/alembic upgrade head

run: migrate
	HOST=$(HOST) PORT=$(PORT) $(BIN)/rogaine-poker serve

test: install-dev lint-js test-js
	$(BIN)/ruff check app tests benchmarks deploy tools
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

# The front end's dev tools (eslint), pinned in package-lock.json, into ./node_modules;
# installed again only when the lock file changes.
node_modules/.package-lock.json: package.json package-lock.json
	$(NPM) ci --ignore-scripts --no-audit --no-fund

install-js: node_modules/.package-lock.json

lint-js: install-js
	$(NODE) node_modules/eslint/bin/eslint.js --max-warnings 0

test-js:
	$(NODE) --test tests/js/*.test.js

lint: install-dev
	$(BIN)/ruff check app tests benchmarks deploy tools
	$(BIN)/ruff format --check app tests benchmarks deploy tools

# The message catalogues (docs/translating.md): `make messages` extracts the keys from the
# code and templates with Babel into app/locale/messages.pot and updates every .po;
# `make messages-from-dict DICT="file.py ..."` merges (Russian, English) dictionary
# literals into the .po files first (add OVERWRITE=1 to let the dictionary's texts win).
messages: install-dev
	$(BIN)/python -m tools.i18n extract

messages-from-dict: install-dev
	$(BIN)/python -m tools.i18n from-dict $(if $(OVERWRITE),--overwrite) $(DICT)

bench: install-dev
	for f in benchmarks/*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info node_modules
