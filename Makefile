# The two commands of the README. Both create the virtual environment themselves.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# The project's main job. For now: the engine plays a complete seeded 4-player game.
run: $(STAMP)
	$(BIN)/tiletum-engine random-game --players 4 --seed 1 --games 1

# The test suite. pytest exits 5 when it collected no test, which fails this target.
test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) build *.egg-info
