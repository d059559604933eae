"""Email that reaches the inbox, and says things a player can read anywhere: every kind of email the
service sends, built by the real service on the project's Redis (the game's turn email for each game,
a reminder, the results, the stand-in's notice, the new seat and dashboard links, the daily digest,
the lobby's confirmation and cancellation, the tournament welcome, the answers to a reply: played
and refused), is

- scored under 2.0 by SpamAssassin's local rules (``spamassassin -L -t``, no network tests; skipped
  with the reason where it is not installed: .ci/run installs Debian's);
- free of ``/api/v1/`` links (links open pages) and of hidden text;
- right about the game's name (no "The The Pillars of the Earth", "a The ...", no "Tiletum" in
  another game's email).
"""
from __future__ import annotations

import email
import email.policy
import re
import shutil
import subprocess

import pytest

import games
from application.dashboard import remember_address
from application.players import player_id
from application.tournament_service import TournamentService
from application import links
from mail.addresses import reply_address
from mail.mailconfig import MailConfig
from mail.notify import Notifier
from mail.outbox import Outbox
from mail.tournament_mail import welcome
from tests.conftest import INBOUND_SECRET, make_app, post_inbound

DOMAIN = "pbem.example.org"
SPAM_LINE = 2.0
GONE = ("END_FUTURE_EMAILS", "HTML_IMAGE_ONLY_")   # rules no email of ours may hit (docs/pbem.md)


class Collect:
    """What the outbox hands the SMTP server, as bytes (the transport is not what is tested here)."""

    def __init__(self):
        self.raw: list[bytes] = []

    def send_raw(self, from_addr, to_addrs, data: bytes) -> None:
        self.raw.append(data)

    def send(self, msg) -> None:
        self.raw.append(bytes(msg))


def _new(transport: Collect, key: str, before: int) -> bytes:
    assert len(transport.raw) > before, f"no {key} email was sent"
    return transport.raw[-1]


@pytest.fixture(scope="module")
def every_kind(redis_server, tmp_path_factory):
    """{kind: the email's bytes as it leaves the service}. Its addresses are its own (a tag): pytest
    builds a module's fixture again when a worker comes back to the module after another one, on
    the same Redis, where an address told once (or unsubscribed) is told nothing again."""
    import uuid
    tag = uuid.uuid4().hex[:6]

    def addr(who: str) -> str:
        return f"{who}.{tag}@players.test"
    import os
    data_dir = tmp_path_factory.mktemp("sink")
    old = {k: os.environ.get(k) for k in ("TABLEPOST_MAIL_SECRET", "TABLEPOST_MAIL_DOMAIN",
                                          "TABLEPOST_SMTP_URL",
                                          "TABLEPOST_DATA_DIR", "TABLEPOST_PUBLIC_URL", "TABLEPOST_MAIL_FROM",
                                          "TABLEPOST_DKIM_KEY_FILE")}
    os.environ.update(TABLEPOST_MAIL_SECRET="spam-secret", TABLEPOST_MAIL_DOMAIN=DOMAIN,
                      TABLEPOST_DATA_DIR=str(data_dir),
                      TABLEPOST_PUBLIC_URL=f"https://{DOMAIN}")
    os.environ.pop("TABLEPOST_SMTP_URL", None)
    os.environ.pop("TABLEPOST_DKIM_KEY_FILE", None)   # scored unsigned: a signature would hide some rules
    sent_tasks: list = []
    try:
        app = make_app(redis_server.url, MAIL_SECRET="spam-secret", INBOUND_SECRET=INBOUND_SECRET,
                       SEND_TASK=lambda name, args, queue=None: sent_tasks.append((name, list(args))))
        c = app.test_client()
        svc = app.extensions["tablepost.service"]
        r = svc.store.r
        t = Collect()
        n = Notifier(svc, Outbox(r, t), MailConfig(secret="spam-secret", domain=DOMAIN,
                                                   from_addr=f"Board games by mail <noreply@{DOMAIN}>",
                                                   public_url=f"https://{DOMAIN}"))
        out: dict[str, bytes] = {}
        gids = {}
        for name in games.NAMES:
            g = svc.create_game([{"name": "Ada", "email": addr(f"ada.{name}")},
                                 {"name": "Bob", "email": addr(f"bob.{name}")}],
                                {"seed": f"spam-{name}", "time_control": {"days_per_move": 3}}, game=name)
            gid = gids[name] = g["id"]
            k = len(t.raw)
            n.notify(gid, 1)
            out[f"turn-{name}"] = _new(t, "turn", k)
            meta, state = svc.load(gid)
            k = len(t.raw)
            n._results(gid, meta, state)   # the results email's words (the game need not be over for them)
            out[f"results-{name}"] = _new(t, "results", k)
        # an address that has not accepted our email: its invitation (the game's first email), and
        # its results, naming no one (docs/pbem.md, "Email by consent")
        nc = Notifier(svc, Outbox(r, t), MailConfig(secret="spam-secret", domain=DOMAIN,
                                                    from_addr=f"Board games by mail <noreply@{DOMAIN}>",
                                                    public_url=f"https://{DOMAIN}", new_address_daily=3))
        for name in games.NAMES:
            g = svc.create_game([{"name": "Ann", "email": addr(f"ann.{name}")},
                                 {"name": "Ben", "email": addr(f"ben.{name}")}],
                                {"seed": f"spam-new-{name}", "time_control": {"days_per_move": 3}}, game=name)
            k = len(t.raw)
            nc.notify(g["id"], 1)
            out[f"invitation-{name}"] = _new(t, "invitation", k)
            meta, state = svc.load(g["id"])
            k = len(t.raw)
            nc._results(g["id"], meta, state)
            out[f"results-pending-{name}"] = _new(t, "results to a new address", k)
        gid = gids["tiletum"]
        k = len(t.raw)
        n.remind(gid, 0, 1, 2)
        out["reminder"] = _new(t, "reminder", k)
        k = len(t.raw)
        n.stand_in_notice(gid, 0, 1, "turn")
        out["stand-in"] = _new(t, "stand-in", k)
        k = len(t.raw)
        n.send_seat_link(gid, 0, links.current_generation(r, f"{gid}:0"))
        out["new-seat-link"] = _new(t, "new seat link", k)
        remember_address(r, addr("ada.tiletum"))
        pid = player_id(r, addr("ada.tiletum"))
        k = len(t.raw)
        n.send_dashboard_link(pid, links.current_generation(r, "me:" + pid))
        out["new-dashboard-link"] = _new(t, "new dashboard link", k)
        # the digest: a reader of the daily digest
        from application.notifications import set_preference
        set_preference(r, addr("dee"), "digest")
        g = svc.create_game([{"name": "Dee", "email": addr("dee")}, {"name": "Bob"}],
                            {"seed": "spam-digest"}, game="tiletum")
        n.notify(g["id"], 1)
        k = len(t.raw)
        n.send_digests("2026-11-27")
        out["digest"] = _new(t, "digest", k)
        # the lobby: a join to confirm, then the creator cancels
        rv = c.post("/api/v1/games", json={"game": "carcassonne", "seats": [
            {"name": "Host", "email": addr("host")}, {"kind": "open"}, {"kind": "open"}]})
        assert rv.status_code == 201, rv.json
        lobby_id, creator = rv.json["id"], rv.json.get("creator_token")
        rv = c.post(f"/api/v1/lobby/{lobby_id}/join", json={"name": "Joe", "email": addr("joe")})
        assert rv.status_code == 202, rv.json
        name, args = next((nm, a) for nm, a in sent_tasks if nm == "workers.send_lobby_join")
        k = len(t.raw)
        n.send_lobby_join(*args)
        out["lobby-join"] = _new(t, "lobby join", k)
        # Joe opens his link (a cancellation is told only to players who confirmed their seat)
        import email as _email
        import re as _re
        joined = _email.message_from_bytes(out["lobby-join"])
        text = "".join(part.get_payload(decode=True).decode() for part in joined.walk()
                       if part.get_content_type() == "text/plain")
        app.extensions["tablepost.lobby"].confirm(_re.search(r"#join=([^\s]+)", text).group(1))
        if creator:
            c.delete(f"/api/v1/lobby/{lobby_id}", headers={"Authorization": f"Bearer {creator}"})
        else:
            app.extensions["tablepost.lobby"].cancel(lobby_id)
        from application.lobby import Lobby
        from application.dashboard import Dashboard
        k = len(t.raw)
        Lobby(svc, Dashboard(svc)).tell_cancelled(lobby_id, n.lobby_cancelled)
        out["lobby-cancelled"] = _new(t, "lobby cancellation", k)
        # a tournament's welcome
        ts = TournamentService(svc, send=lambda *a: None)
        tid = ts.create({"name": "Autumn cup", "format": "round_robin", "table_size": 2,
                         "entries": [{"name": "Ann", "email": addr("ann")},
                                     {"name": "Ben", "email": addr("ben")}]})["id"]
        k = len(t.raw)
        welcome(n, tid)
        out["tournament"] = _new(t, "tournament", k)
        # the answers to replies (the inbound pipeline's own outbox, the local sink)
        sink = data_dir / "mail"
        before = set(sink.glob("*.eml")) if sink.exists() else set()
        _, state = svc.load(gid)
        move = next(m for m, _ in games.TILETUM.legal_moves(state) if m.startswith("take"))
        to = reply_address("spam-secret", DOMAIN, gid, 0, 1)

        def reply(body: str) -> bytes:
            nonlocal before
            raw = email.message.EmailMessage()
            raw["From"], raw["To"], raw["Subject"] = addr("ada.tiletum"), to, "Re: your turn"
            raw["Message-ID"] = email.utils.make_msgid(domain="players.test")
            raw.set_content(body)
            post_inbound(c, bytes(raw))
            new = sorted(set(sink.glob("*.eml")) - before)
            assert new, "no answer"
            before |= set(new)
            return new[-1].read_bytes()
        out["error-answer"] = reply("Hi,\n\nplease play something nice for me\n")
        out["played-answer"] = reply(f"Hello,\n\n{move}\n\nThanks\nAda")
        return out
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


KINDS = ["turn-tiletum", "turn-carcassonne", "turn-pillars", "results-tiletum", "results-carcassonne",
         "results-pillars", "reminder", "stand-in", "new-seat-link", "new-dashboard-link", "digest",
         "lobby-join",
         "lobby-cancelled", "tournament", "error-answer", "played-answer",
         "invitation-tiletum", "invitation-carcassonne", "invitation-pillars", "results-pending-tiletum",
         "results-pending-carcassonne", "results-pending-pillars"]


def _scores(raws: list[bytes], tmp_path) -> list[tuple[float, str]]:
    """SpamAssassin's score and report of each email, in one run over an mbox of them all (its
    start-up, loading the rules, is most of its time)."""
    import mailbox
    box = mailbox.mbox(tmp_path / "all.mbox")
    for raw in raws:
        box.add(raw)
    box.flush()
    run = subprocess.run(["spamassassin", "-L", "-t", "--mbox", str(tmp_path / "all.mbox")],
                         capture_output=True, timeout=600)
    # the reports come in an order of SpamAssassin's: each is found by its email's Message-ID
    by_id = {}
    for one in re.split(r"^From \S+ +\w{3} \w{3} .*$", run.stdout.decode("utf-8", "replace"), flags=re.M)[1:]:
        mid = re.search(r"^Message-ID: *(<[^>]+>)", one, re.M | re.I)
        score = re.search(r"^X-Spam-Status: \w+, score=(-?[\d.]+)", one, re.M)
        assert mid and score, one[:2000]
        by_id[mid.group(1)] = (float(score.group(1)), one.split("Content analysis details:", 1)[-1])
    ids = [re.search(rb"^Message-ID: *(<[^>]+>)", raw, re.M | re.I).group(1).decode() for raw in raws]
    assert len(set(ids)) == len(raws) and set(ids) == set(by_id), run.stderr.decode()[-2000:]
    return [by_id[i] for i in ids]


@pytest.mark.skipif(shutil.which("spamassassin") is None,
                    reason="SpamAssassin is not installed (Debian: apt-get install spamassassin; "
                           ".ci/run does)")
@pytest.mark.long(40)
def test_every_kind_of_email_scores_under_the_spam_line(every_kind, tmp_path):
    assert sorted(every_kind) == sorted(KINDS)
    scores = dict(zip(KINDS, _scores([every_kind[k] for k in KINDS], tmp_path)))
    high = {k: v for k, v in scores.items() if v[0] >= SPAM_LINE}
    assert not high, "\n\n".join(f"{k}: {s}\n{d}" for k, (s, d) in high.items())
    # the rules docs/pbem.md says our emails no longer hit, under the line or not ("Stop these
    # emails" in the results and the lobby's cancellation kept END_FUTURE_EMAILS, 1.0, after it
    # was taken out of the others)
    hits = {k: rule for k, (_, d) in scores.items() for rule in GONE if rule in d}
    assert not hits, hits
    print("SpamAssassin scores: " + ", ".join(f"{k} {v[0]}" for k, v in scores.items()))


def _text(raw: bytes) -> str:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    parts = [str(p.get_content()) for p in msg.walk() if p.get_content_maintype() == "text"]
    return "\n".join(parts + [f"{k}: {v}" for k, v in msg.items()])


@pytest.mark.parametrize("kind", KINDS)
def test_no_email_links_to_the_api_nor_hides_text(every_kind, kind):
    text = _text(every_kind[kind])
    assert "/api/v1/" not in text, f"{kind} links to an API address"
    assert "display:none" not in text.replace(" ", "") and "opacity:0" not in text.replace(" ", "")
    for url in re.findall(r"https://[^\s\"'<>]+", text):
        assert url.startswith(f"https://{DOMAIN}/"), url
        path = url.split(DOMAIN, 1)[1].split("?", 1)[0].split("#", 1)[0]
        pages = r"/(play/[\w-]+|play/lobby|me|tournaments/[\w-]+|email/(unsubscribe|consent|move/[\w-]+))"
        assert re.fullmatch(pages, path), f"{kind}: {url} is not one of the pages"


@pytest.mark.parametrize("kind", KINDS)
def test_the_game_is_named_right(every_kind, kind):
    text = _text(every_kind[kind])
    assert not re.search(r"\b(the|a|an) The\b", text, re.I), f"{kind}: an article before the game's own"
    if kind.endswith(("carcassonne", "pillars")):
        assert "Tiletum" not in text, f"{kind}: a Tiletum word in another game's email"


def test_the_links_in_an_email_open_pages(every_kind, redis_server):
    """The unsubscribe and one-click move pages answer a browser with a page, and the unsubscribe
    page's POST (RFC 8058's one click) stops the emails to the address."""
    from application.notifications import preference
    app = make_app(redis_server.url, MAIL_SECRET="spam-secret")
    c = app.test_client()
    msg = email.message_from_bytes(every_kind["turn-pillars"], policy=email.policy.default)
    url = str(msg["List-Unsubscribe"]).strip("<>")
    path = url.split(DOMAIN, 1)[1]
    page = c.get(path, headers={"Accept": "text/html"})
    assert page.status_code == 200 and "<form method=post>" in page.get_data(as_text=True)
    to = str(msg["To"])
    assert to.startswith("ada.pillars.")
    assert preference(app.extensions["tablepost.service"].store.r, to) != "none"
    assert c.post(path).status_code == 200
    assert preference(app.extensions["tablepost.service"].store.r, to) == "none"
    forged = path.replace("ada.pillars", "bob.pillars")
    assert c.post(forged, headers={"Accept": "text/html"}).status_code == 403


def test_a_one_click_move_page_plays_once_and_refuses_a_forged_link(redis_server):
    """``/email/move/<id>``: a GET shows the move and plays nothing; the POST plays it; a link with
    a changed move is refused; the same link again is refused (the game moved on)."""
    from types import SimpleNamespace
    import tiletum
    app = make_app(redis_server.url, MAIL_SECRET="spam-secret")
    c = app.test_client()
    svc = app.extensions["tablepost.service"]
    gid = svc.create_game([{"name": "Ada", "email": "ada@x.test"}, {"name": "Bob"}],
                          {"seed": "one-click"}, game="tiletum")["id"]
    _, state = svc.load(gid)
    move = next(m for m in tiletum.legal_moves(state) if m.startswith("take"))
    cfg = MailConfig(secret="spam-secret", domain=DOMAIN, from_addr="x@" + DOMAIN, public_url=f"https://{DOMAIN}")
    link = Notifier.move_url(SimpleNamespace(cfg=cfg), gid, 0, 1, move)
    path = link.split(DOMAIN, 1)[1]
    assert path.startswith(f"/email/move/{gid}?")
    page = c.get(path, headers={"Accept": "text/html"})
    assert page.status_code == 200 and move in page.get_data(as_text=True)
    assert svc.load(gid)[1].version == 1, "opening the link plays nothing"
    other = next(m for m in tiletum.legal_moves(state) if m.startswith("take") and m != move)
    forged = path.replace("move=" + move.replace(" ", "+"), "move=" + other.replace(" ", "+"))
    assert forged != path and c.post(forged, headers={"Accept": "text/html"}).status_code == 403
    assert c.post(path, headers={"Accept": "text/html"}).status_code == 200
    assert svc.load(gid)[1].version == 2
    again = c.post(path, headers={"Accept": "text/html"})
    assert again.status_code == 409 and "<h1>" in again.get_data(as_text=True)


def test_no_game_id_makes_a_subject_look_like_an_obfuscated_word():
    """SpamAssassin's SUBJ_BRKN_WORDNUMS (1.0 unsigned) fires on a subject with a "broken word" (a
    space, 1-3 lower-case letters, an upper-case letter, 2 lower-case letters) and letters around
    digits; the subject of every email of a game carries its id, and a mixed-case id hit it now and
    then (a results email scored 2.0 in a full run). The rules' own patterns (72_active.cf), over
    many new ids in the subject as it is written."""
    from application.ids import new_game_id
    from mail.compose import thread_subject
    broken = re.compile(r"\s(?!i[PTM][aoh][bcdou]|e[MP]a[is])[a-z]{1,3}[A-Z][a-z]{2}")
    numbers = re.compile(r"[a-z]{3,}\d+[a-z]{2,}", re.I)
    hits = [s for s in (thread_subject("Tiletum", ["Ada", "Bob"], 0, new_game_id()) for _ in range(5000))
            if broken.search(s) and numbers.search(s)]
    assert not hits, hits[:3]
    # and the old ids' shape did hit it: the test would have found it
    assert broken.search(thread_subject("Tiletum", ["Ada", "Bob"], 0, "abCdef3ghij9"))
