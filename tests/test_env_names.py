"""The service's own name (issue 52): settings are ``TABLEPOST_*``, the command ``tablepost``. For one
release the old names still work and warn: ``TILETUM_<X>`` is read as ``TABLEPOST_<X>`` in one place
(tablepost/env_names.py, called as each package of the service is imported), the ``tiletum`` command
does what ``tablepost`` does, and the inbound webhook reads the old signature header. Real processes:
the console scripts installed in the venv and a fresh interpreter reading a setting through the app's
own settings."""
from __future__ import annotations

import logging
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mail.addresses import inbound_signature
from tablepost import env_names
from tests.conftest import make_app

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch):
    monkeypatch.setattr(env_names, "_warned", set())


def test_an_old_name_is_copied_to_the_new_one_with_one_warning_per_name(caplog):
    env = {"TILETUM_RATE_LIMIT": "7", "PATH": "/bin", "TILETUM_": "not a setting"}
    with caplog.at_level(logging.WARNING, logger="tablepost.settings"), \
            pytest.warns(DeprecationWarning, match="TILETUM_RATE_LIMIT is deprecated: use TABLEPOST_"):
        assert env_names.migrate_environ(env) == ["TILETUM_RATE_LIMIT"]
    assert env == {"TILETUM_RATE_LIMIT": "7", "TABLEPOST_RATE_LIMIT": "7", "PATH": "/bin",
                   "TILETUM_": "not a setting"}
    assert [r.getMessage() for r in caplog.records] == [
        "TILETUM_RATE_LIMIT is deprecated: use TABLEPOST_RATE_LIMIT"]
    caplog.clear()
    again = {"TILETUM_RATE_LIMIT": "8"}
    env_names.migrate_environ(again)   # the same name in the same process: read, not warned again
    assert again["TABLEPOST_RATE_LIMIT"] == "8" and not caplog.records


def test_the_new_name_wins_and_the_ignored_old_one_is_named(caplog):
    env = {"TILETUM_RATE_LIMIT": "7", "TABLEPOST_RATE_LIMIT": "9"}
    with caplog.at_level(logging.WARNING, logger="tablepost.settings"), \
            pytest.warns(DeprecationWarning, match="TILETUM_RATE_LIMIT is deprecated and ignored"):
        env_names.migrate_environ(env)
    assert env["TABLEPOST_RATE_LIMIT"] == "9"
    assert "TABLEPOST_RATE_LIMIT is set too" in caplog.records[0].getMessage()


def test_the_same_value_both_ways_is_what_a_child_process_inherits_and_is_quiet(caplog, recwarn):
    env = {"TILETUM_MAIL_DOMAIN": "x.org", "TABLEPOST_MAIL_DOMAIN": "x.org"}
    with caplog.at_level(logging.WARNING, logger="tablepost.settings"):
        env_names.migrate_environ(env)
    assert env == {"TILETUM_MAIL_DOMAIN": "x.org", "TABLEPOST_MAIL_DOMAIN": "x.org"}
    assert not caplog.records and not [w for w in recwarn if w.category is DeprecationWarning]


def _clean_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TABLEPOST_", "TILETUM_"))}
    env.update(PYTHONPATH=str(ROOT), **extra)
    return env


@pytest.mark.parametrize("reader, old, value", [
    ("import api.settings as s; print(s.from_env()['RATE_LIMIT'])", "TILETUM_RATE_LIMIT", "7"),
    # the seats worker and the AI import no package of the service but tablepost's
    ("import seats.worker as w; print(int(w.SOFT_TIME_LIMIT))", "TILETUM_TASK_SOFT_TIME_LIMIT", "33"),
    ("import ai.settings as s; print(s.master_seconds())", "TILETUM_AI_MASTER_SECONDS", "4.5"),
])
def test_a_process_reads_a_setting_given_only_by_its_old_name_and_warns(reader, old, value):
    out = subprocess.run([sys.executable, "-c", reader], env=_clean_env(**{old: value}), cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == value, (out.stdout, out.stderr)
    new = "TABLEPOST_" + old.removeprefix("TILETUM_")
    assert out.stderr.count(f"{old} is deprecated: use {new}") == 1, out.stderr


def test_without_old_names_nothing_is_said():
    reader = "import api.settings as s; print(s.from_env()['RATE_LIMIT'])"
    out = subprocess.run([sys.executable, "-c", reader],
                         env=_clean_env(TABLEPOST_RATE_LIMIT="5"), cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "5" and "deprecated" not in out.stderr, out.stderr


def test_the_tiletum_command_is_tablepost_with_a_warning():
    new = subprocess.run([str(BIN / "tablepost"), "--help"], env=_clean_env(), capture_output=True, text=True,
                         timeout=120)
    old = subprocess.run([str(BIN / "tiletum"), "--help"], env=_clean_env(), capture_output=True, text=True,
                         timeout=120)
    assert new.returncode == old.returncode == 0, (new.stderr, old.stderr)
    assert new.stdout.startswith("usage: tablepost ") and "serve" in new.stdout and not new.stderr
    assert old.stdout == new.stdout
    assert old.stderr.strip().splitlines() == [
        "tiletum: this command is now 'tablepost' (the old name goes in the next release)"]


def test_the_inbound_webhook_reads_the_old_signature_header_for_a_release(redis_server, monkeypatch):
    monkeypatch.setenv("TABLEPOST_MAIL_SECRET", "m")
    client = make_app(redis_server.url, INBOUND_SECRET="s3cret", MAIL_SECRET="m").test_client()
    raw = b"From: a@example.org\r\nTo: nobody@example.org\r\n\r\nhi"
    for header in ("X-Tablepost-Signature", "X-Tiletum-Signature"):
        rv = client.post("/api/v1/inbound-email", data=raw, content_type="message/rfc822",
                         headers={header: inbound_signature("s3cret", raw)})
        assert rv.status_code == 200, (header, rv.get_data(as_text=True))
    stale = inbound_signature("s3cret", raw, int(time.time()) - 3600)
    rv = client.post("/api/v1/inbound-email", data=raw, content_type="message/rfc822",
                     headers={"X-Tiletum-Signature": stale})
    assert rv.status_code == 401 and rv.get_json()["code"] == "bad-signature"
    assert rv.headers["WWW-Authenticate"].startswith("Tablepost-Signature ")
