# The two commands of the README. Both create the virtual environment themselves.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench openapi clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# The project's main job: the service, on an embedded Redis started by the project (data in ./var).
run: $(STAMP)
	$(BIN)/tiletum serve

# The test suite. pytest exits 5 when it collected no test, which fails this target.
test: $(STAMP)
	$(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/python bench/engine.py

openapi: $(STAMP)
	$(BIN)/tiletum openapi --output openapi/openapi.json

clean:
	rm -rf $(VENV) build *.egg-info
