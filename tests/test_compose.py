"""docker-compose.yml and the Dockerfile, checked without a Docker engine (docs/deploy.md).

The compose file is parsed (PyYAML, with Compose's ``${NAME:-default}`` interpolation resolved to
its defaults) and the Dockerfile is read instruction by instruction. Then:

* every service exists, and the project's five share one image built from the Dockerfile;
* every command names a real entry point: gunicorn's target is loaded by gunicorn itself
  (``api:create_app()``, with the service's environment) and runs api/gunicorn_conf.py's worker
  and access logger, the same configuration as ``tablepost serve``, ``celery -A X`` command lines are parsed
  by Celery's own CLI with X's Celery ``app`` and consume the queues the code sends to, and
  ``python -m M`` runs M's ``main`` with the options given;
* every environment variable a service sets is one the code reads (a scanner over the sources),
  or NAME_FILE for such a NAME, which the image's entrypoint (run here with /bin/sh) turns into
  NAME from a Compose secret file;
* Redis keeps an AOF log on a named volume and has a health check; dependencies wait for health;
  the API's health check passes against a live app and fails when Redis is down;
* no secret is inlined anywhere.
"""
from __future__ import annotations

import ast
import importlib
import json
import os
import re
import shlex
import subprocess
import sys
import warnings
from pathlib import Path
from urllib.parse import urlparse

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
PACKAGES = ("api", "application", "mail", "workers", "seats", "cardinalbot", "engine", "tournaments")

IMAGE = "tiletum-pbem"
# built from the Dockerfile
PROJECT = ("api", "worker", "sweeps", "standin", "hints", "reviews", "beat", "cardinalbot", "mailin")
SERVICES = ("redis", *PROJECT, "mailcatcher")
PROGRAM = {"api": "gunicorn", "worker": "celery worker", "sweeps": "celery worker",
           "standin": "celery worker", "hints": "celery worker", "reviews": "celery worker",
           "beat": "celery beat",
           "cardinalbot": "celery worker", "mailin": "python -m"}

# what each process needs at run time (after the entrypoint has read the secret files), and the
# credentials it must not get (least privilege)
NEEDS = {
    "api": {"REDIS_URL", "TABLEPOST_BOT_TOKEN", "TABLEPOST_AI_TOKEN", "TABLEPOST_MAIL_SECRET",
            "TABLEPOST_PUBLIC_URL",
            "TABLEPOST_SMTP_URL", "TABLEPOST_MAIL_DOMAIN"},
    "worker": {"REDIS_URL", "TABLEPOST_MAIL_SECRET", "TABLEPOST_PUBLIC_URL", "TABLEPOST_SMTP_URL",
               "TABLEPOST_MAIL_DOMAIN"},
    "mailin": {"REDIS_URL", "TABLEPOST_MAIL_SECRET", "TABLEPOST_PUBLIC_URL", "TABLEPOST_SMTP_URL",
               "TABLEPOST_MAIL_DOMAIN"},
    "sweeps": {"REDIS_URL", "TABLEPOST_MAIL_SECRET", "TABLEPOST_PUBLIC_URL", "TABLEPOST_SMTP_URL",
               "TABLEPOST_MAIL_DOMAIN"},   # reminders and the sweeps' emails
    "standin": {"REDIS_URL"},   # the stand-in's turns: the store, no mail (the sweep sends the notices)
    "hints": {"REDIS_URL"},     # the hints: the store, nothing else
    "reviews": {"REDIS_URL"},   # the reviews: the store, nothing else
    "beat": set(),
    "cardinalbot": {"TABLEPOST_API_URL", "TABLEPOST_BOT_TOKEN", "TABLEPOST_AI_TOKEN"},
}
SECRETS = ("TABLEPOST_BOT_TOKEN", "TABLEPOST_AI_TOKEN", "TABLEPOST_MAIL_SECRET")
SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|API_KEY|PRIVATE_KEY|CREDENTIAL", re.I)


# --- reading the files ---------------------------------------------------------------------------

NAME_OP = re.compile(r"(?P<name>[A-Za-z_]\w*)(?:(?P<op>:?[-?+])(?P<arg>.*))?", re.S)


def interpolate(value: str) -> str:
    """Compose's interpolation with no variable set: ``${NAME:-default}`` gives the default, which
    may itself hold ``${OTHER:-default}`` (resolved the same way). A variable without a default is
    an error: the stack must start without a .env file."""
    out, i = [], 0
    while i < len(value):
        if value.startswith("$$", i):
            out.append("$")
            i += 2
        elif value.startswith("${", i):
            depth, j = 1, i + 2
            while depth:
                assert j < len(value), f"unclosed ${{ in docker-compose.yml: {value}"
                if value.startswith("${", j):
                    depth, j = depth + 1, j + 2
                    continue
                depth -= value[j] == "}"
                j += 1
            m = NAME_OP.fullmatch(value[i + 2:j - 1])
            assert m, f"not a Compose interpolation: {value[i:j]}"
            if m.group("op") not in (":-", "-"):
                name = m.group("name")
                raise AssertionError(f"${{{name}}} in docker-compose.yml has no default ({value[i:j]})")
            out.append(interpolate(m.group("arg")))
            i = j
        elif (m := re.match(r"\$([A-Za-z_]\w*)", value[i:])):
            raise AssertionError(f"${m.group(1)} in docker-compose.yml has no default")
        else:
            out.append(value[i])
            i += 1
    return "".join(out)


def test_interpolation_resolves_nested_defaults():
    assert interpolate("${A:-http://localhost:${B:-8000}}/x $$y") == "http://localhost:8000/x $y"
    with pytest.raises(AssertionError):
        interpolate("${A}")
    with pytest.raises(AssertionError):
        interpolate("$A")


def resolve(node):
    if isinstance(node, str):
        return interpolate(node)
    if isinstance(node, list):
        return [resolve(v) for v in node]
    if isinstance(node, dict):
        return {k: resolve(v) for k, v in node.items()}
    return node


@pytest.fixture(scope="module")
def compose_text() -> str:
    return COMPOSE.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def compose(compose_text) -> dict:
    return resolve(yaml.safe_load(compose_text))


@pytest.fixture(scope="module")
def services(compose) -> dict:
    return compose["services"]


def parse_dockerfile(text: str) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """(instruction, arguments) in order, line continuations joined; and the here-documents, by
    the path they are copied to."""
    lines = text.splitlines()
    out, heredocs, i = [], {}, 0
    while i < len(lines):
        line = lines[i].strip()
        i += 1
        if not line or line.startswith("#"):
            continue
        while line.endswith("\\") and i < len(lines):
            line = line[:-1].rstrip() + " " + lines[i].strip()
            i += 1
        m = re.search(r"<<-?(['\"]?)(\w+)\1", line)
        if m:
            body = []
            while lines[i] != m.group(2):
                body.append(lines[i])
                i += 1
            i += 1
            heredocs[line.split()[-1]] = "\n".join(body) + "\n"
        instr, _, args = line.partition(" ")
        out.append((instr.upper(), args.strip()))
    return out, heredocs


@pytest.fixture(scope="module")
def dockerfile():
    return parse_dockerfile(DOCKERFILE.read_text(encoding="utf-8"))


def final_stage(instructions):
    last = max(i for i, (ins, _) in enumerate(instructions) if ins == "FROM")
    return instructions[last:]


def exec_form(args: str) -> list[str]:
    assert args.startswith("["), f"use the exec (JSON) form: {args}"
    return json.loads(args)


def image_cmd(dockerfile) -> list[str]:
    return exec_form([a for ins, a in final_stage(dockerfile[0]) if ins == "CMD"][-1])


def entrypoint(dockerfile) -> tuple[str, str]:
    """The image's entrypoint script: (its path, its text, from the Dockerfile's here-document)."""
    entries = [a for ins, a in final_stage(dockerfile[0]) if ins == "ENTRYPOINT"]
    assert entries, "the image has an ENTRYPOINT (it reads the secret files)"
    argv = exec_form(entries[-1])
    assert len(argv) == 1 and argv[0] in dockerfile[1], \
        f"ENTRYPOINT {argv} is the script copied in the Dockerfile"
    return argv[0], dockerfile[1][argv[0]]


def command(service: dict, dockerfile) -> list[str]:
    cmd = service.get("command")
    if cmd is None:
        return image_cmd(dockerfile)
    return shlex.split(cmd) if isinstance(cmd, str) else [str(c) for c in cmd]


def environment(service: dict) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) if "=" in item else (item, "") for item in env)
    return {k: "" if v is None else str(v).lower() if isinstance(v, bool) else str(v) for k, v in env.items()}


def secret_names(service: dict) -> list[str]:
    return [s if isinstance(s, str) else s["source"] for s in service.get("secrets") or []]


def ports(service: dict) -> list[tuple[str, int]]:
    """(published host port, container port) of each published port."""
    out = []
    for p in service.get("ports") or []:
        if isinstance(p, dict):
            out.append((str(p.get("published", "")), int(p["target"])))
        else:
            parts = str(p).split("/")[0].split(":")
            out.append((parts[-2] if len(parts) > 1 else "", int(parts[-1])))
    return out


# --- the environment variables the code reads -------------------------------------------------------

def _is_os_environ(node) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == "environ"
            and isinstance(node.value, ast.Name) and node.value.id == "os")


def _const(node) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def env_names_read_by_code() -> dict[str, set[str]]:
    """NAME -> files, for ``os.environ.get("NAME")``, ``os.environ["NAME"]`` (read), ``os.getenv("NAME")``
    and ``env.get("NAME")`` (api/settings.py's mapping) in the package sources."""
    names: dict[str, set[str]] = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                name = None
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
                    f = node.func
                    if ((f.attr == "get" and (_is_os_environ(f.value)
                                              or isinstance(f.value, ast.Name) and f.value.id == "env"))
                            or (f.attr == "getenv" and isinstance(f.value, ast.Name) and f.value.id == "os")):
                        name = _const(node.args[0])
                elif (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load)
                      and _is_os_environ(node.value)):
                    name = _const(node.slice)
                if name:
                    names.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    return names


@pytest.fixture(scope="module")
def code_env() -> dict[str, set[str]]:
    return env_names_read_by_code()


def test_the_scanner_finds_the_variables_the_code_reads(code_env):
    for name in ("REDIS_URL", "CELERY_BROKER_URL", "TABLEPOST_BOT_TOKEN", "TABLEPOST_MAIL_SECRET",
                 "TABLEPOST_API_URL", "TABLEPOST_PUBLIC_URL", "TABLEPOST_SMTP_URL", "TABLEPOST_MAIL_DOMAIN",
                 "TABLEPOST_DATA_DIR"):
        assert name in code_env, name
    assert "api/settings.py" in code_env["TABLEPOST_RATE_LIMIT"]  # env.get(...)
    assert "workers/runtime.py" in code_env["REDIS_URL"]         # os.environ[...]
    assert "CONTENT_LENGTH" not in code_env                      # a WSGI environ is not the process's


# --- the running environment: the entrypoint reads the secret files -------------------------------

def run_entrypoint(dockerfile, tmp_path, env: dict[str, str], argv: list[str]) -> subprocess.CompletedProcess:
    path, text = entrypoint(dockerfile)
    script = tmp_path / Path(path).name
    script.write_text(text, encoding="utf-8")
    full = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), **env}
    return subprocess.run(["/bin/sh", str(script), *argv], env=full, capture_output=True, text=True,
                          timeout=60)


def secret_value(name: str) -> str:
    return f"test-{name}-not-a-real-secret"


def effective_env(name: str, services, compose, dockerfile, tmp_path) -> dict[str, str]:
    """The environment the service's process gets: the compose environment, each secret file
    (fake contents here) mounted at /run/secrets/<name>, through the image's entrypoint."""
    service = services[name]
    env = environment(service)
    mounted = {}
    for secret in secret_names(service):
        assert secret in compose.get("secrets", {}), f"{name}: secret {secret} is defined at the top level"
        f = tmp_path / f"secret-{secret}"
        f.write_text(secret_value(secret) + "\n", encoding="utf-8")
        mounted[f"/run/secrets/{secret}"] = str(f)
    for k, v in env.items():
        if k.endswith("_FILE"):
            assert v in mounted, f"{name}: {k}={v} is one of its mounted secrets {sorted(mounted)}"
            env[k] = mounted[v]
    proc = run_entrypoint(dockerfile, tmp_path, env,
                          [sys.executable, "-c", "import json, os; print(json.dumps(dict(os.environ)))"])
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture()
def use_env(monkeypatch):
    """Replace this process's Tiletum/Redis/Celery settings with ``env``."""
    def apply(env: dict[str, str]):
        for k in list(os.environ):
            if k.startswith(("TABLEPOST_", "REDIS_", "CELERY_")):
                monkeypatch.delenv(k)
        for k, v in env.items():
            if k.startswith(("TABLEPOST_", "REDIS_", "CELERY_")):
                monkeypatch.setenv(k, v)
    return apply


# --- services -------------------------------------------------------------------------------------

def test_every_service_exists(compose, services):
    assert "version" not in compose, "the Compose specification has no version key"
    assert set(SERVICES) <= set(services), sorted(set(SERVICES) - set(services))


@pytest.mark.parametrize("name", PROJECT)
def test_the_project_services_share_one_image_built_from_the_dockerfile(name, services):
    s = services[name]
    build = s.get("build")
    context = build if isinstance(build, str) else (build or {}).get("context")
    assert context in (".", "./"), f"{name}: build: ."
    if isinstance(build, dict):
        assert build.get("dockerfile", "Dockerfile") == "Dockerfile"
        assert not build.get("args"), f"{name}: no build args (nothing secret, nothing baked in)"
    assert s.get("image") == IMAGE
    assert "entrypoint" not in s, f"{name}: keeps the image's entrypoint (it reads the secret files)"


def _gunicorn_target(argv: list[str]) -> tuple[object, str]:
    from gunicorn.config import Config
    assert Path(argv[0]).name == "gunicorn", argv
    ns = Config().parser().parse_args(argv[1:])  # gunicorn's own command line
    assert len(ns.args) == 1, ns.args
    return ns, ns.args[0]


def gunicorn_config(argv: list[str], monkeypatch):
    """The settings gunicorn runs with for this command line, config file (``--config``) included,
    read by gunicorn's own command-line application (nothing is started)."""
    from gunicorn.app.wsgiapp import WSGIApplication
    monkeypatch.setattr(sys, "argv", list(argv))
    return WSGIApplication("%(prog)s [OPTIONS] [APP_MODULE]").cfg


def check_served_as_configured(cfg) -> None:
    """The worker and the logger of api/gunicorn_conf.py: gevent with a client timeout, and an
    access log without secrets (docs/deploy.md, "Slow clients")."""
    from gunicorn.workers.ggevent import GeventWorker

    import api.gunicorn_conf
    assert cfg.worker_class is api.gunicorn_conf.GeventWorker and issubclass(cfg.worker_class, GeventWorker)
    assert cfg.logger_class is api.gunicorn_conf.ServiceLogger
    assert cfg.accesslog == "-" and cfg.access_log_format == api.gunicorn_conf.access_log_format


def check_gunicorn(argv, env, use_env, monkeypatch):
    ns, target = _gunicorn_target(argv)
    assert target == "api:create_app()"
    assert ns.bind == ["0.0.0.0:8000"]
    cfg = gunicorn_config(argv, monkeypatch)
    check_served_as_configured(cfg)
    assert cfg.workers >= 2 and cfg.threads >= 2
    use_env(env)
    from gunicorn.util import import_app
    app = import_app(target)  # as gunicorn loads it: imported and the factory called
    assert {r.rule for r in app.url_map.iter_rules()} >= {"/health", "/api/v1/games"}
    return app


def parse_celery(argv: list[str]):
    """``celery -A X <sub> ...`` through Celery's own command line (click), without running it:
    (the Celery app, the subcommand, its parsed options)."""
    from celery import Celery
    from celery.bin.base import CLIContext
    from celery.bin.celery import celery as cli
    assert Path(argv[0]).name == "celery", argv
    ctx = cli.make_context("celery", list(argv[1:]))
    module = importlib.import_module(ctx.params["app"])
    app = getattr(module, "app", None)
    assert isinstance(app, Celery), f"{ctx.params['app']} has a Celery app named app"
    ctx.obj = CLIContext(app=app, no_color=True, workdir=None, quiet=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        rest = [*ctx.protected_args, *ctx.args]
    sub, cmd, rest = cli.resolve_command(ctx, rest)
    return app, sub, cmd.make_context(sub, rest, parent=ctx).params


@pytest.mark.parametrize("name", PROJECT)
def test_every_command_names_a_real_entry_point(name, services, compose, dockerfile, tmp_path, use_env,
                                                monkeypatch):
    argv = command(services[name], dockerfile)
    program = PROGRAM[name]
    if program == "gunicorn":
        env = effective_env(name, services, compose, dockerfile, tmp_path)
        app = check_gunicorn(argv, env, use_env, monkeypatch)
        for var in NEEDS[name] & set(SECRETS):  # the secret files reach the app's configuration
            key = {"TABLEPOST_BOT_TOKEN": "BOT_TOKEN", "TABLEPOST_AI_TOKEN": "AI_TOKEN",
                   "TABLEPOST_MAIL_SECRET": "MAIL_SECRET"}[var]
            assert app.config[key] == env[var]
    elif program.startswith("celery"):
        app, sub, params = parse_celery(argv)
        assert sub == program.split()[1]
        if sub == "worker":
            routed = {r["queue"] for r in (app.conf.task_routes or {}).values()}
            assert len(params["queues"]) == 1, name
            assert params["queues"][0] in {app.conf.task_default_queue, *routed}, \
                f"{name} consumes a queue its app's tasks are sent to"
            assert not params.get("beat"), f"{name}: beat runs once, in the beat service, not with -B"
    else:
        assert argv[:2] == ["python", "-m"], argv
        module = importlib.import_module(argv[2])
        assert callable(getattr(module, "main", None)), f"{argv[2]} has a main()"
        help_text = subprocess.run([sys.executable, "-m", argv[2], "--help"], cwd=ROOT, capture_output=True,
                                   text=True, timeout=60, check=True).stdout
        for opt in (a for a in argv[3:] if a.startswith("--")):
            assert opt in help_text, f"{argv[2]} accepts {opt}"


def test_the_workers_consume_every_queue_the_code_sends_to(services, dockerfile):
    import seats.worker
    import workers.app
    consumed = {}
    for name in PROJECT:
        argv = command(services[name], dockerfile)
        if argv[0] == "celery":
            app, sub, params = parse_celery(argv)
            if sub == "worker":
                consumed.update({q: app.main for q in params["queues"]})
    from application import queues
    assert consumed == {queues.EMAIL: workers.app.app.main, queues.SWEEPS: workers.app.app.main,
                        queues.STAND_IN: workers.app.app.main, queues.HINTS: workers.app.app.main,
                        queues.REVIEWS: workers.app.app.main,
                        queues.SEATS: seats.worker.app.main}
    assert workers.app.app.conf.task_default_queue == queues.EMAIL
    assert seats.worker.app.conf.task_default_queue == queues.SEATS
    route = workers.app.app.amqp.router.route({}, "workers.stand_in_turn")
    assert route["queue"].name == workers.app.AI_QUEUE == queues.STAND_IN
    # everything beat schedules runs on the sweeps queue, nothing else does
    for entry in workers.app.app.conf.beat_schedule.values():
        assert workers.app.app.amqp.router.route({}, entry["task"])["queue"].name == queues.SWEEPS, entry
    assert workers.app.app.amqp.router.route({}, "workers.notify_turn")["queue"].name == queues.EMAIL
    assert workers.app.app.amqp.router.route({}, "workers.hint")["queue"].name == queues.HINTS
    # the reviews on their own queue, never ahead of an email (issue 51)
    assert workers.app.app.amqp.router.route({}, "workers.review_game")["queue"].name == queues.REVIEWS


def test_the_dockerfile_serves_the_api_with_gunicorn(dockerfile, monkeypatch):
    stage = final_stage(dockerfile[0])
    froms = [a for ins, a in dockerfile[0] if ins == "FROM"]
    assert all(re.fullmatch(r"python:3\.11\.\d+-slim-bookworm", f.split()[0]) for f in froms), froms
    assert len({f.split()[0] for f in froms}) == 1, f"the build and the runtime stage share one base: {froms}"
    ns, target = _gunicorn_target(image_cmd(dockerfile))
    assert target == "api:create_app()" and ns.bind == ["0.0.0.0:8000"]
    cfg = gunicorn_config(image_cmd(dockerfile), monkeypatch)
    check_served_as_configured(cfg)
    # `tablepost serve` runs the same gunicorn configuration, bar where and how many
    from api.cli import _gunicorn
    serve = _gunicorn("127.0.0.1", 8000, 2, 32).cfg
    same = ("worker_class", "logger_class", "accesslog", "access_log_format", "graceful_timeout")
    assert {k: serve.settings[k].get() for k in same} == {k: cfg.settings[k].get() for k in same}
    users = [a for ins, a in stage if ins == "USER"]
    assert users and users[-1].split(":")[0] not in ("root", "0"), "the processes do not run as root"
    exposed = {p.split("/")[0] for ins, a in stage if ins == "EXPOSE" for p in a.split()}
    assert {"8000", "8025"} <= exposed
    runs = " ".join(a for ins, a in dockerfile[0] if ins == "RUN")
    assert re.search(r"pip install (\S+ )*\.(\s|$)", runs), "the project is installed with pip install ."
    assert not re.search(r"\[(test|dev)\]|pip install (\S+ )*-e\b", runs), \
        "no test/dev extras, no editable install"


def test_every_environment_variable_is_one_the_code_reads(services, code_env, dockerfile, tmp_path):
    _, script = entrypoint(dockerfile)
    for name in PROJECT:
        for var in environment(services[name]):
            read = var[:-len("_FILE")] if var.endswith("_FILE") else var
            assert read in code_env, \
                f"{name}: {var} is not read by the code (api/, workers/, cardinalbot/, tiletum/)"
            if var.endswith("_FILE"):
                f = tmp_path / "value"
                f.write_text("from-a-file\n", encoding="utf-8")
                proc = run_entrypoint(dockerfile, tmp_path, {var: str(f)},
                                      [sys.executable, "-c", f"import os; print(os.environ['{read}'])"])
                assert proc.returncode == 0 and proc.stdout == "from-a-file\n", \
                    f"{name}: the entrypoint does not turn {var} into {read}: {proc.stderr}"


def test_each_service_gets_what_it_needs_and_no_other_secret(services, compose, dockerfile, tmp_path):
    for name in PROJECT:
        declared = environment(services[name])
        for secret in secret_names(services[name]):
            users = [k[:-len("_FILE")] for k, v in declared.items()
                     if k.endswith("_FILE") and v == f"/run/secrets/{secret}"]
            assert users and set(users) <= NEEDS[name], \
                f"{name} mounts the secret {secret} without needing it"
        env = effective_env(name, services, compose, dockerfile, tmp_path)
        assert "CELERY_BROKER_URL" in env or "REDIS_URL" in env, f"{name} reaches the broker"
        assert NEEDS[name] <= set(env), f"{name} lacks {sorted(NEEDS[name] - set(env))}"
        for var in SECRETS:
            if var in env:
                assert var in NEEDS[name], f"{name} gets {var}, which it does not need"
                assert env[var] in {secret_value(s) for s in secret_names(services[name])}, \
                    f"{name}: {var} comes from a secret file"
        assert not [k for k in env if k.endswith("_FILE") and k[:-5] in env and k.startswith("TABLEPOST_")], \
            "the entrypoint removes the NAME_FILE variables it read"


def test_the_entrypoint_refuses_a_missing_secret_file(dockerfile, tmp_path):
    proc = run_entrypoint(dockerfile, tmp_path, {"TABLEPOST_BOT_TOKEN_FILE": str(tmp_path / "absent")},
                          [sys.executable, "-c", "print('started')"])
    assert proc.returncode != 0 and "started" not in proc.stdout
    (tmp_path / "empty").write_text("", encoding="utf-8")
    proc = run_entrypoint(dockerfile, tmp_path, {"TABLEPOST_MAIL_SECRET_FILE": str(tmp_path / "empty")},
                          [sys.executable, "-c", "print('started')"])
    assert proc.returncode != 0 and "started" not in proc.stdout


def test_the_mail_settings_work_in_the_mail_processes(services, compose, dockerfile, tmp_path, use_env):
    from mail.mailconfig import MailConfig
    from mail.transports import SmtpTransport, transport_from_env
    for name in ("api", "worker", "sweeps", "mailin"):
        use_env(effective_env(name, services, compose, dockerfile, tmp_path))
        cfg = MailConfig.from_env()
        assert cfg.secret == secret_value("mail_secret")
        transport = transport_from_env()
        assert isinstance(transport, SmtpTransport), f"{name} sends by SMTP"
        assert transport.host in services and transport.port == 1025, "the default relay is the mail catcher"


def test_the_urls_point_at_the_services(services, dockerfile):
    api_port = int(_gunicorn_target(command(services["api"], dockerfile))[0].bind[0].rsplit(":", 1)[1])
    for name in PROJECT:
        env = environment(services[name])
        for var in ("REDIS_URL", "CELERY_BROKER_URL"):
            if var in env:
                u = urlparse(env[var])
                assert (u.scheme, u.hostname, u.port) == ("redis", "redis", 6379), f"{name}: {var}"
        if "TABLEPOST_API_URL" in env:
            u = urlparse(env["TABLEPOST_API_URL"])
            assert (u.hostname, u.port) == ("api", api_port), \
                f"{name}: TABLEPOST_API_URL reaches the api service"


# --- Redis, health, dependencies ------------------------------------------------------------------

def test_redis_keeps_an_aof_log_on_a_named_volume_and_has_a_healthcheck(compose, services):
    redis = services["redis"]
    assert re.fullmatch(r"redis:7\.\d+\.\d+", str(redis["image"])), f"Redis 7, pinned: {redis['image']}"
    cmd = redis["command"]
    cmd = shlex.split(cmd) if isinstance(cmd, str) else cmd
    assert cmd[0] == "redis-server" and cmd[cmd.index("--appendonly") + 1] == "yes"
    mounts = [v if isinstance(v, str) else f"{v['source']}:{v['target']}" for v in redis.get("volumes") or []]
    data = [m.split(":")[0] for m in mounts if m.split(":")[1] == "/data"]
    assert data and data[0] in (compose.get("volumes") or {}), "/data is a named volume"
    test = redis["healthcheck"]["test"]
    test = test if isinstance(test, list) else ["CMD-SHELL", test]
    assert "redis-cli" in " ".join(test) and "ping" in " ".join(test)
    assert not redis.get("ports"), "Redis (no password) is not published outside the stack"


def test_dependencies_wait_for_health(services):
    for name, s in services.items():
        deps = s.get("depends_on") or {}
        assert isinstance(deps, dict), f"{name}: depends_on in the long form, with conditions"
        for dep, spec in deps.items():
            assert dep in services
            if spec.get("condition") == "service_healthy":
                assert services[dep].get("healthcheck"), \
                    f"{name} waits for {dep}'s health check, which exists"
    for name in PROJECT:
        assert services[name]["depends_on"]["redis"]["condition"] == "service_healthy", name
    assert services["cardinalbot"]["depends_on"]["api"]["condition"] == "service_healthy"


def _healthcheck_code(services) -> str:
    test = services["api"]["healthcheck"]["test"]
    assert test[0] == "CMD" and test[1] in ("python", "python3") and test[2] == "-c", test
    return test[3]


def test_the_api_healthcheck_hits_health_on_the_served_port(services, dockerfile):
    code = _healthcheck_code(services)
    compile(code, "<healthcheck>", "exec")
    url = urlparse(re.search(r"https?://[^'\"\s]+", code).group(0))
    bind = _gunicorn_target(command(services["api"], dockerfile))[0].bind[0]
    assert url.hostname in ("127.0.0.1", "localhost") and url.port == int(bind.rsplit(":", 1)[1])
    assert url.path == "/health"


def test_the_api_healthcheck_passes_when_healthy_and_fails_when_redis_is_down(services, redis_server):
    from tests.conftest import LiveServer, make_app
    code = _healthcheck_code(services)
    origin = re.search(r"https?://[^/'\"\s]+", code).group(0)

    def check(app) -> int:
        with LiveServer(app) as live:
            return subprocess.run([sys.executable, "-c", code.replace(origin, live.url)],
                                  capture_output=True, timeout=30).returncode

    assert check(make_app(redis_server.url)) == 0
    assert check(make_app("redis://127.0.0.1:1/0")) != 0


def test_beat_runs_once_with_its_schedule_on_a_named_volume(compose, services, dockerfile):
    beat = services["beat"]
    _, sub, params = parse_celery(command(beat, dockerfile))
    assert sub == "beat"
    folder = str(Path(params["schedule"]).parent)
    mounts = [v if isinstance(v, str) else f"{v['source']}:{v['target']}" for v in beat.get("volumes") or []]
    named = compose.get("volumes") or {}
    assert [m for m in mounts if m.split(":")[1] == folder and m.split(":")[0] in named], \
        f"the beat schedule's folder {folder} is a named volume"
    assert int((beat.get("deploy") or {}).get("replicas", 1)) == 1


def test_the_mail_ports(services, dockerfile):
    argv = command(services["mailin"], dockerfile)
    assert argv[argv.index("--host") + 1] == "0.0.0.0"
    port = int(argv[argv.index("--port") + 1])
    assert [host for host, target in ports(services["mailin"]) if target == port], "the listener is published"
    assert "mailpit" in services["mailcatcher"]["image"]
    assert ("8026", 8025) in ports(services["mailcatcher"]), "the mail catcher's web UI on host port 8026"
    published = [host for s in services.values() for host, _ in ports(s) if host]
    assert len(published) == len(set(published)), f"no host port is published twice: {published}"


# --- no secret inlined ----------------------------------------------------------------------------

def _strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for k, v in node.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from _strings(v)


def test_no_secret_is_inlined(compose, compose_text, services, dockerfile):
    for name, s in services.items():
        for var, value in environment(s).items():
            if SECRET_NAME.search(var):
                assert var.endswith("_FILE") and value.startswith("/run/secrets/"), \
                    f"{name}: {var} is given as a file (NAME_FILE=/run/secrets/...), not inline"
        build = s.get("build")
        assert not (isinstance(build, dict) and build.get("args")), f"{name}: no build args"
    for value in _strings(compose):
        if "://" in value:
            assert urlparse(value).password is None, f"a password in {value!r}"
        assert not (re.fullmatch(r"[A-Za-z0-9_\-+/=]{24,}", value) and re.search(r"\d", value)
                    and re.search(r"[A-Za-z]", value) and "/" not in value), f"a token-like value {value!r}"
    for key, spec in (compose.get("secrets") or {}).items():
        assert set(spec) == {"file"} and spec["file"].startswith("./secrets/"), \
            f"secret {key} is a file under ./secrets/ (not inline, not from the environment)"
    local = ROOT / "secrets"
    texts = compose_text + DOCKERFILE.read_text(encoding="utf-8")
    for f in (local.iterdir() if local.is_dir() else []):
        value = f.read_text(encoding="utf-8", errors="replace").strip() if f.is_file() else ""
        assert not value or value not in texts, \
            f"the contents of {f} appear in the compose file or Dockerfile"
    for ins, args in dockerfile[0]:
        if ins in ("ENV", "ARG"):
            for var in re.findall(r"([A-Za-z_]\w*)=", args) or args.split()[:1]:
                assert not SECRET_NAME.search(var) or var.endswith("_FILE"), f"{ins} {var} in the Dockerfile"
    ignored = {line.strip().rstrip("/") for line in DOCKERIGNORE.read_text(encoding="utf-8").splitlines()}
    assert {"secrets", ".env"} <= ignored, "secret files never enter the build context"


def test_the_image_copies_every_package_it_installs():
    """``pip install .`` in the image installs pyproject's packages from the copied sources: a
    package left out of the COPY lines would be missing from the image (the ``ai`` package once was)."""
    import tomllib
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    copied = {line.split()[1] for line in DOCKERFILE.read_text().splitlines()
              if line.startswith("COPY ") and not line.startswith("COPY --")}
    ignored = {line.strip().rstrip("/") for line in DOCKERIGNORE.read_text().splitlines()
               if line.strip() and not line.startswith("#")}
    if "." in copied:   # the whole context: no package may be left out of it
        missing = sorted(p for p in packages if p.split(".")[0] in ignored)
    else:
        missing = sorted(p for p in packages if p.split(".")[0] not in copied)
    assert not missing, f"the Dockerfile does not COPY {missing}"
    assert {"tests", "docs", "bench", "examples"} <= ignored


def test_every_image_is_pinned_to_a_release(compose, dockerfile):
    """No moving tag (``latest``, ``7``, ``3.11-slim``): the stack a test passed with is the one that
    runs. Third-party images name an exact release; the project's image is built here."""
    for name, service in compose["services"].items():
        image = service.get("image")
        if "build" in service:
            continue
        assert image and ":" in image, f"{name}: an image with a tag"
        tag = image.rsplit(":", 1)[1]
        assert tag != "latest" and re.search(r"\d+\.\d+\.\d+", tag), f"{name}: {image} is pinned to a release"
    for ins, args in dockerfile[0]:
        if ins == "FROM":
            assert re.search(r":\S*\d+\.\d+\.\d+", args.split()[0]), f"FROM {args} is pinned to a release"


def test_the_public_url_follows_the_api_port(compose_text):
    """Links in emails must reach the API where Compose publishes it: with API_PORT=8080 and no
    TABLEPOST_PUBLIC_URL, the default is http://localhost:8080."""
    env = {"API_PORT": "8080"}

    def sub(value: str) -> str:
        for name, v in env.items():
            value = re.sub(r"\$\{" + name + r":-[^}]*\}", v, value)
        return interpolate(value)
    mail_env = yaml.safe_load(compose_text)["x-mail-env"]
    assert sub(mail_env["TABLEPOST_PUBLIC_URL"]) == "http://localhost:8080"
    assert interpolate(mail_env["TABLEPOST_PUBLIC_URL"]) == "http://localhost:8000"
