# Two commands: `make run` and `make test`. Everything else is a helper.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: run test install install-dev migrate lint bench clean

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

test: install-dev
	$(BIN)/ruff check app tests benchmarks deploy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: install-dev
	$(BIN)/ruff check app tests benchmarks deploy
	$(BIN)/ruff format --check app tests benchmarks deploy

bench: install-dev
	for f in benchmarks/*.py; do $(BIN)/python $$f || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache *.egg-info
