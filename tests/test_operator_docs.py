"""The player and operator documentation says what the code does (docs/deploy.md, docs/pbem.md, the
README, the pages, deploy/):

* no doc, page or email aimed at players or operators points to "issue N" (the project's tracker
  is no part of the product; docs/notes/, the development diaries, may);
* every environment variable the code reads is a row of a configuration table, with its default,
  in docs/deploy.md or docs/pbem.md, and every row of their "Configuration" tables is one the
  code reads;
* every option of the ``tablepost`` command is in api/cli.py's docstring and in docs/deploy.md;
* deploy/ (systemd units, the Procfile, the example environment) runs the processes ``tablepost
  serve`` runs, with the same apps and queues, and sets only variables the code reads.
"""
from __future__ import annotations

import argparse
import ast
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("rules_common", "engine", "carcassonne", "games", "tournaments", "application", "mail", "api",
            "workers", "seats", "cardinalbot", "ai")
ISSUE = re.compile(r"\bissues?\s*#?\d+", re.I)
NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
PREFIXED = re.compile(r"(?:TABLEPOST|CARDINALBOT)_[A-Z0-9_]+")
ROW = re.compile(r"^\|\s*`([A-Z][A-Z0-9_]+)`\s*\|\s*([^|]*?)\s*\|", re.M)


# --- "issue N" ----------------------------------------------------------------------------------

def player_and_operator_texts() -> dict[str, str]:
    """path -> text of everything a player or an operator reads: the README, docs/ (not notes/),
    deploy/, the compose file and the Dockerfile, the pages and scripts the site serves, and the
    strings the email channel writes (not its docstrings)."""
    paths = [ROOT / "README.md", ROOT / "docker-compose.yml", ROOT / "Dockerfile"]
    paths += sorted(p for p in (ROOT / "docs").rglob("*") if p.is_file() and "notes" not in p.parts)
    paths += sorted(p for p in (ROOT / "deploy").rglob("*") if p.is_file())
    paths += sorted(p for p in (ROOT / "api" / "static").rglob("*") if p.suffix in (".html", ".js", ".css"))
    texts = {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in paths}
    for path in sorted((ROOT / "mail").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                      and n.body and isinstance(n.body[0], ast.Expr)
                      and isinstance(n.body[0].value, ast.Constant)}
        strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                   and id(n) not in docstrings]
        texts[str(path.relative_to(ROOT)) + " (strings)"] = "\n".join(strings)
    return texts


def test_no_player_or_operator_doc_points_to_an_issue():
    texts = player_and_operator_texts()
    assert {"docs/deploy.md", "api/static/home.html", "mail/compose.py (strings)"} <= set(texts)
    assert not any(path.startswith("docs/notes") for path in texts)
    found = {path: ISSUE.findall(text) for path, text in texts.items() if ISSUE.search(text)}
    assert not found, f"say what the thing is instead of its issue number: {found}"


def test_the_issue_check_can_fail():
    assert ISSUE.search("Since issue 28 the turn email carries the board")
    assert ISSUE.search("(Issue #16)") and ISSUE.search("issues 15")
    assert not ISSUE.search("no known issue with 2 players")


# --- environment variables ------------------------------------------------------------------------

def env_names_read_by_code() -> dict[str, set[str]]:
    """NAME -> files, for every environment variable the packages read: the first argument of an
    ``environ``/``env`` ``.get``/``[...]``/``.setdefault``, of ``os.getenv`` and of any helper
    whose name says env (``_env_float``), and every string that is a whole ``TABLEPOST_*`` or
    ``CARDINALBOT_*`` name."""
    names: dict[str, set[str]] = {}

    def add(name, path):
        if isinstance(name, str) and NAME.fullmatch(name):
            names.setdefault(name, set()).add(str(path.relative_to(ROOT)))

    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    if PREFIXED.fullmatch(node.value):
                        add(node.value, path)
                elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
                    f = node.func
                    fname = (f.attr if isinstance(f, ast.Attribute) else
                             f.id if isinstance(f, ast.Name) else "")
                    owner = f.value if isinstance(f, ast.Attribute) else None
                    # os.environ, or api/settings.py's mapping `env` (a WSGI `environ` is not the process's)
                    process_env = _is_os_environ(owner) or isinstance(owner, ast.Name) and owner.id == "env"
                    if ((fname in ("get", "setdefault", "pop") and process_env) or fname == "getenv"
                            or (isinstance(f, ast.Name) and "env" in fname.lower())):
                        add(node.args[0].value, path)
                elif isinstance(node, ast.Subscript) and _is_os_environ(node.value) \
                        and isinstance(node.slice, ast.Constant):
                    add(node.slice.value, path)
    return names


def _is_os_environ(node) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ"
            and isinstance(node.value, ast.Name) and node.value.id == "os")


@pytest.fixture(scope="module")
def code_env() -> dict[str, set[str]]:
    return env_names_read_by_code()


def doc_rows(*docs: str, section: str | None = None) -> dict[str, str]:
    """variable -> its default cell, from the tables of the docs (or of one section of each)."""
    rows = {}
    for doc in docs:
        text = (ROOT / doc).read_text(encoding="utf-8")
        if section is not None:
            m = re.search(rf"^## {re.escape(section)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
            assert m, f"{doc} has a section {section!r}"
            text = m.group(1)
        for name, default in ROW.findall(text):
            rows.setdefault(name, default)
    return rows


def test_the_scanner_finds_the_variables_the_code_reads(code_env):
    for name, where in (("REDIS_URL", "workers/runtime.py"), ("CELERY_BROKER_URL", "seats/worker.py"),
                        ("TABLEPOST_RATE_LIMIT", "api/settings.py"),
                        ("TABLEPOST_AI_MASTER_SECONDS", "ai/settings.py"),
                        ("TABLEPOST_MAIL_LEASE_SECONDS", "mail/outbox.py"),
                        ("TABLEPOST_TEST_CLOCK", "application/clock.py"),
                        ("CARDINALBOT_STRICT", "cardinalbot/policy.py"), ("TABLEPOST_DATA_DIR",
                                                                          "api/cli.py")):
        assert where in code_env.get(name, ()), (name, where)
    assert "CONTENT_LENGTH" not in code_env and "HTTP_TRANSFER_ENCODING" not in code_env  # a WSGI environ


def test_every_variable_the_code_reads_is_in_a_configuration_table_with_its_default(code_env):
    rows = doc_rows("docs/deploy.md", "docs/pbem.md")
    missing = sorted(set(code_env) - set(rows))
    assert not missing, f"not in a table of docs/deploy.md or docs/pbem.md: {missing}"
    assert not [name for name in code_env if not rows[name]], "every row gives a default"


def test_every_configuration_row_is_a_variable_the_code_reads(code_env):
    rows = doc_rows("docs/deploy.md", "docs/pbem.md", section="Configuration")
    assert "REDIS_URL" in rows and "TABLEPOST_SMTP_URL" in rows
    assert not sorted(set(rows) - set(code_env)), "a documented variable that nothing reads"


def test_the_mail_configuration_names_every_smtp_scheme():
    rows = doc_rows("docs/pbem.md", section="Configuration")
    text = (ROOT / "docs" / "pbem.md").read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `TABLEPOST_SMTP_URL`"))
    assert rows["TABLEPOST_SMTP_URL"]
    for scheme in ("smtp://", "smtp+starttls://", "smtps://"):
        assert scheme in row, scheme


# --- the tablepost command ------------------------------------------------------------------------

class _Parsed(Exception):
    pass


def tablepost_options(monkeypatch) -> dict[str, list[str]]:
    """subcommand -> its long options, from api/cli.py's own argparse parser."""
    from api import cli

    def caught(self, *args, **kwargs):
        raise _Parsed(self)
    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", caught)
    with pytest.raises(_Parsed) as parsed:
        cli.main([])
    parser = parsed.value.args[0]
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    return {name: [o for act in sp._actions for o in act.option_strings
                   if o.startswith("--") and o != "--help"]
            for name, sp in subs.items()}


def test_every_tablepost_option_is_in_the_docstring_and_the_docs(monkeypatch):
    from api import cli
    options = tablepost_options(monkeypatch)
    assert {"serve", "openapi", "archive", "index-dashboards"} <= set(options)
    assert "--mailin-port" in options["serve"] and "--dry-run" in options["archive"]
    deploy = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    for sub, opts in options.items():
        assert f"tablepost {sub}" in cli.__doc__ and f"tablepost {sub}" in deploy, sub
        for opt in opts:
            assert re.search(rf"{re.escape(opt)}\b", cli.__doc__), f"api/cli.py's doc: tablepost {sub} {opt}"
            assert re.search(rf"`{re.escape(opt)}\b", deploy), f"docs/deploy.md: tablepost {sub} {opt}"


# --- deploy/ ---------------------------------------------------------------------------------------

def unit_commands() -> dict[str, list[str]]:
    """unit or Procfile entry -> its command line (systemd's %% unescaped, line continuations joined)."""
    out = {}
    for unit in sorted((ROOT / "deploy" / "systemd").glob("*.service")):
        text = re.sub(r"\\\n\s*", " ", unit.read_text(encoding="utf-8"))
        starts = re.findall(r"^ExecStart=(.+)$", text, re.M)
        assert len(starts) == 1, unit.name
        out[unit.name] = shlex.split(starts[0].replace("%%", "%"))
    for line in (ROOT / "deploy" / "Procfile").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, _, cmd = line.partition(":")
            cmd = cmd.split("&&")[-1].strip()
            out[f"Procfile {name}"] = shlex.split(cmd.removeprefix("exec "))
    return out


def _program(argv: list[str]) -> list[str]:
    argv = [Path(argv[0]).name, *argv[1:]]
    return argv[2:] if argv[0].startswith("python") and argv[1] == "-m" else argv


def test_deploy_runs_the_processes_of_tablepost_serve():
    from api.cli import WORKER_QUIET, worker_command
    serve_workers = set()
    source = (ROOT / "api" / "cli.py").read_text(encoding="utf-8")
    for app, queue in re.findall(r'worker_command\(py, "([\w.]+)", "([\w-]+)"', source):
        argv = worker_command("py", app, queue, 1)
        assert argv[argv.index("--pool") + 1] == "prefork"
        serve_workers.add((argv[argv.index("-A") + 1], argv[argv.index("-Q") + 1]))
    assert serve_workers == {("workers.app", "email"), ("workers.app", "sweeps"), ("workers.app", "stand-in"),
                             ("workers.app", "hints"), ("workers.app", "reviews"),
                             ("seats.worker", "seats")}
    commands = unit_commands()
    for where in ("systemd", "Procfile"):
        mine = {k: _program(v) for k, v in commands.items()
                if k.startswith("Procfile") == (where == "Procfile")}
        workers = [(a[a.index("-A") + 1], a[a.index("-Q") + 1], a[a.index("--pool") + 1])
                   for a in mine.values() if a[0] == "celery" and "worker" in a]
        assert sorted(workers) == sorted((app, q, "prefork") for app, q in serve_workers), (where, workers)
        for a in mine.values():   # as quiet as serve's: no mingle wait at start, no event chatter
            if a[0] == "celery" and "worker" in a:
                assert set(WORKER_QUIET) <= set(a), (where, a)
        beats = [a for a in mine.values() if a[0] == "celery" and "beat" in a]
        assert len(beats) == 1 and beats[0][beats[0].index("-A") + 1] == "workers.app", where
        assert "--schedule" in beats[0], where
        assert sum(a[0] == "workers.mailin_main" for a in mine.values()) == 1, where
        apis = [a for a in mine.values() if a[0] == "gunicorn"]
        assert len(apis) == 1 and apis[0][-1] == "api:create_app()", where
        assert apis[0][apis[0].index("--config") + 1] == "python:api.gunicorn_conf", where
    target = (ROOT / "deploy" / "systemd" / "tablepost.target").read_text(encoding="utf-8")
    wanted = set(re.search(r"^Wants=(.+)$", target, re.M).group(1).split())
    assert wanted == {k for k in commands if k.endswith(".service")}


def test_the_example_environment_sets_only_variables_the_code_reads(code_env):
    text = (ROOT / "deploy" / "systemd" / "tiletum.env.example").read_text(encoding="utf-8")
    names = re.findall(r"^#?([A-Z][A-Z0-9_]+)=", text, re.M)
    assert "REDIS_URL" in names and "TABLEPOST_MAIL_SECRET" in names
    assert not sorted(set(names) - set(code_env))
    for unit in (ROOT / "deploy" / "systemd").glob("*.service"):
        assert "EnvironmentFile=/etc/tiletum/tiletum.env" in unit.read_text(encoding="utf-8"), unit.name
