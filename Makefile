# The two commands of the README. Both create the virtual environment themselves.
# They install the exact versions pinned in requirements/*.txt (no resolving, no backtracking);
# `make lock` refreshes the pins from pyproject.toml. The installer is uv (pinned, from PyPI into
# the environment by pip): it fetches and compiles in parallel, 12 s here where pip took 25.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
UV := uv==0.13.9

.PHONY: run test soak bench openapi lock clean messages

# The gettext catalogs of the languages (docs/i18n.md): the platform's and each game's own words
# (<engine>/translations, domain the engine's name), each .po compiled to its .mo (git-ignored), by
# the environment's step and again whenever a .po is newer than its .mo.
GAME_WORDS := carcassonne pillars tiletum
CATALOGS := $(wildcard tablepost/translations/*.po) $(foreach g,$(GAME_WORDS),$(wildcard $(g)/translations/*.po))
COMPILED := $(CATALOGS:.po=.mo)

# Python keeps compiled bytecode (__pycache__, git-ignored) even where the environment says not to
# (PYTHONDONTWRITEBYTECODE, set on some CI images): every test worker and every process the tests
# start would compile the project again (about a third of a worker's start-up).
unexport PYTHONDONTWRITEBYTECODE

# (The platform's distribution was named tiletum-pbem before issue 52: an environment that still has
# it would register every game twice, which games/registry.py refuses, so it goes first.)
$(STAMP): pyproject.toml requirements/test.txt
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet $(UV)
	$(BIN)/uv pip install --quiet --python $(BIN)/python --compile-bytecode --no-deps -r requirements/test.txt
	$(BIN)/uv pip uninstall --quiet --python $(BIN)/python tiletum-pbem 2>/dev/null || true
	rm -rf tiletum_pbem.egg-info
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e .
	$(BIN)/pip check
	for po in $(CATALOGS); do $(BIN)/pybabel compile --statistics -i $$po -o $${po%.po}.mo || exit 1; done
	touch $(STAMP)

$(COMPILED): %.mo: %.po $(STAMP)
	$(BIN)/pybabel compile --statistics --input-file $< --output-file $@

# The catalogs again from the code (docs/i18n.md, "Changing a message"): extract the template, merge it
# into each language's .po (new messages untranslated, changed ones fuzzy: tests/test_i18n.py fails
# until they are translated)
# a problem's detail (docs/i18n.md, "The API's language"): the detail argument of application/errors.py's
# refusals and of api/problems.py's ApiError, and tablepost.i18n.said's message
DETAIL_KEYWORDS = -k said -k invalid:2 -k forbidden:2 -k missing:2 -k refused:2 -k limited:2 -k failed:2 \
	-k unauthorized:1 -k not_found:1 -k ApiError:3
messages: $(STAMP)
	$(BIN)/pybabel extract -F babel.cfg -k _ -k ngettext:1,2 -k N_ $(DETAIL_KEYWORDS) --no-location --sort-output \
	    --project "Table Post" --copyright-holder "Table Post" -o tablepost/translations/messages.pot .
	for po in tablepost/translations/*.po; do lang=$$(basename $$po .po); $(BIN)/pybabel update --width 100 \
	    --ignore-obsolete -i tablepost/translations/messages.pot -o $$po -l $$lang || exit 1; done
	# each game's own words: its engine, its adapter and the defaults of the game interface (games/base.py)
	for g in $(GAME_WORDS); do \
	    $(BIN)/pybabel extract -F $$g/translations/babel.cfg -k _ -k ngettext:1,2 -k N_ -k NC_:1c,2 -k NP_:1,2 -k Reason \
	        -k pgettext:1c,2 --no-location --sort-output --width 100 --project $$g --copyright-holder "Table Post" \
	        -o $$g/translations/$$g.pot . || exit 1; \
	    for po in $$g/translations/*.po; do lang=$$(basename $$po .po); $(BIN)/pybabel update --width 100 \
	        --ignore-obsolete -D $$g -i $$g/translations/$$g.pot -o $$po -l $$lang || exit 1; done; done

# The project's main job: the service, on an embedded Redis started by the project (data in ./var).
# `make run PORT=8080` (and HOST=0.0.0.0) serves elsewhere than 127.0.0.1:8000; the email listener
# follows (PORT + 25) unless MAILIN_PORT says otherwise. The console shows what starts and stops,
# warnings and errors (the rest in var/log/<part>.log); VERBOSE=1 shows everything.
run: $(STAMP) $(COMPILED)
	$(BIN)/tablepost serve$(if $(PORT), --port $(PORT))$(if $(HOST), --host $(HOST))$(if $(MAILIN_PORT), --mailin-port $(MAILIN_PORT))$(if $(VERBOSE), --verbose)

# The test suite, in PYTEST_WORKERS processes (pytest-xdist; each has its own Redis and servers:
# tests/conftest.py). Many tests wait on real servers and processes, so more workers than cores pay
# off: 5 run the suite in about 4 min 45 s on a 2-core machine with the run CPU-bound (4 took as
# long, a core idle 8% of the time). PYTEST_WORKERS=0 runs it in one process. pytest exits 5 when
# it collected no test, which fails this target.
PYTEST_WORKERS ?= 5
test: $(STAMP) $(COMPILED)
	$(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist worksteal

# The soak tests (marker soak): more random games on seeds the suite does not play, about a minute
# on 2 cores. CI runs them after `make test`; `make test` keeps what guards every promise of the
# README. They only compute (no servers to wait on), so one worker per core: SOAK_WORKERS.
# `make soak TABLEPOST_SOAK_SCALE=10` plays ten times as many games (tests/soak.py).
# It also runs every script in bench/ with its QUICK_ARGS (tests/test_bench.py): a broken benchmark fails CI.
SOAK_WORKERS ?= 2
soak: $(STAMP)
	$(BIN)/python -m pytest -q -n $(SOAK_WORKERS) --dist worksteal -m soak

bench: $(STAMP)
	$(BIN)/python bench/tiletum.py

openapi: $(STAMP)
	$(BIN)/tablepost openapi --output openapi/openapi.json

# Pin every dependency again from pyproject.toml (the newest releases that fit): runtime.txt for
# the image, test.txt (runtime plus the test extra, runtime's pins kept) for `make run` and `make test`.
lock:
	$(PY) -m venv .lock-venv
	.lock-venv/bin/pip install --quiet $(UV)
	.lock-venv/bin/uv pip compile pyproject.toml --python-version 3.11 --no-header --quiet \
	    --upgrade -o requirements/runtime.txt
	.lock-venv/bin/uv pip compile pyproject.toml --extra test --python-version 3.11 --no-header --quiet \
	    --upgrade -c requirements/runtime.txt -o requirements/test.txt
	rm -rf .lock-venv
	@echo "requirements/*.txt refreshed: run make test, then commit them"

clean:
	rm -rf $(VENV) build *.egg-info
