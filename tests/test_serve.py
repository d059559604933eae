"""`tiletum serve`: one command starts Redis (AOF on, files under --data-dir), the API under
gunicorn and the workers; stopping it stops Redis; a restart on the same data dir finds every
game again."""
from __future__ import annotations

import time

import requests

from api.redis_server import free_port
from tests.servers import Serve


def api_only(data, port) -> Serve:
    return Serve(data, "--workers", "1", "--no-workers", port=port)


def test_serve_runs_the_api_on_its_own_redis_and_keeps_games_across_restarts(tmp_path):
    port = free_port()
    first = api_only(tmp_path, port).start()
    url = first.url
    try:
        assert requests.get(url + "/api/docs", timeout=5).status_code == 200
        game = requests.post(url + "/api/v1/games", json={"seats": [{"name": "A"}, {"name": "B"}]},
                             timeout=5).json()
        gid, token = game["id"], game["seats"][0]["token"]
        auth = {"Authorization": f"Bearer {token}"}
        move = requests.get(f"{url}/api/v1/games/{gid}/legal-moves", headers=auth,
                            timeout=5).json()["moves"][0]["move"]
        rv = requests.post(f"{url}/api/v1/games/{gid}/moves", headers=auth, timeout=5,
                           json={"expected_version": 1, "moves": [move]})
        assert rv.status_code == 200 and rv.json()["version"] == 2
        events_before = requests.get(f"{url}/api/v1/games/{gid}/events", timeout=5).json()["events"]
    finally:
        output = first.stop()
    assert "API docs: http://127.0.0.1:" in output and "/api/docs" in output
    assert "Redis stopped" in output
    assert (tmp_path / "redis" / "appendonly.aof").exists()
    # the embedded Redis is gone with the service
    import redis
    port_line = [line for line in output.splitlines() if "(Redis redis://" in line][0]
    redis_url = port_line.split("(Redis ")[1].rstrip(")")
    try:
        redis.Redis.from_url(redis_url, socket_connect_timeout=1).ping()
        alive = True
    except redis.ConnectionError:
        alive = False
    assert not alive, "stopping tiletum serve stops its Redis"

    again = api_only(tmp_path, port).start()
    try:
        after = requests.get(f"{url}/api/v1/games/{gid}/events", timeout=5).json()["events"]
        assert after == events_before, "every move survives a restart of the whole service"
        assert requests.get(f"{url}/api/v1/games/{gid}", timeout=5).json()["version"] == 2
    finally:
        again.stop()


def test_serve_plays_by_email_out_of_the_box(tmp_path):
    """With no mail settings, tiletum serve writes turn emails to its local sink and takes
    replies on its own SMTP listener (--mailin-port)."""
    import email
    import email.policy
    import smtplib
    from email.message import EmailMessage

    mailin = free_port()
    server = Serve(tmp_path, "--workers", "1", "--mailin-port", str(mailin),
                   drop_env=("REDIS_URL", "TILETUM_SMTP_URL", "TILETUM_MAIL_SECRET", "TILETUM_DATA_DIR",
                             "TILETUM_PUBLIC_URL")).start()
    url = server.url
    try:
        g = requests.post(url + "/api/v1/games", json={"seats": [{"name": "Ada", "email": "ada@home.test"},
                                                                 {"name": "Bob", "email": "bob@home.test"}]},
                          timeout=5).json()
        sink = tmp_path / "mail"
        deadline = time.monotonic() + 30
        while not (sink.exists() and list(sink.glob("*.eml"))):
            assert time.monotonic() < deadline, "no turn email in the local sink:\n" + server.output()[-3000:]
            time.sleep(0.2)
        turn = email.message_from_bytes(sorted(sink.glob("*.eml"))[0].read_bytes(),
                                        policy=email.policy.default)
        assert turn["To"] == "ada@home.test" and g["id"] in turn["Subject"]
        move = next(line.split()[0] + " " + line.split()[1] for line in
                    turn.get_body(("plain",)).get_content().splitlines() if line.startswith("  take "))
        reply = EmailMessage()
        reply["From"], reply["To"], reply["Subject"] = "ada@home.test", turn["Reply-To"], "Re: turn"
        reply["Message-ID"] = email.utils.make_msgid(domain="home.test")
        reply.set_content(move)
        deadline = time.monotonic() + 20
        while True:  # the listener may still be starting
            try:
                with smtplib.SMTP("127.0.0.1", mailin, timeout=5) as s:
                    s.send_message(reply)
                break
            except OSError:
                assert time.monotonic() < deadline, "the email listener is not up"
                time.sleep(0.3)
        deadline = time.monotonic() + 20
        while requests.get(f"{url}/api/v1/games/{g['id']}", timeout=5).json()["version"] < 2:
            assert time.monotonic() < deadline, "the reply was not played:\n" + server.output()[-3000:]
            time.sleep(0.2)
        assert "[mail sink] to ada@home.test" in server.output(), "the sink prints what it writes"
    finally:
        server.stop()
