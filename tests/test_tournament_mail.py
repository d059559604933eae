"""The tournament welcome email over real SMTP on loopback: every player the organizer entered
by email gets their private tournament link once, and the link's entry token opens their games
over the API."""
from __future__ import annotations

from urllib.parse import unquote

from application.game_service import GameService
from application.store import EventStore
from application.tournament_service import TournamentService
from tests.test_pbem_e2e import Mailboxes
from mail.mailconfig import MailConfig
from mail.notify import Notifier
from mail.outbox import Outbox
from mail.transports import SmtpTransport
from mail.tournament_mail import welcome


def test_listed_players_get_their_private_link_once(redis_client, redis_server):
    from conftest import make_app
    box = Mailboxes()
    box.controller.start()
    try:
        games = GameService(EventStore(redis_client))
        notifier = Notifier(games, Outbox(redis_client, SmtpTransport(f"smtp://127.0.0.1:{box.port}")),
                            MailConfig(secret="s", domain="pbem.test", from_addr="t@pbem.test",
                                       public_url="http://pbem.test"))
        sent = []
        ts = TournamentService(games, send=lambda name, args, q: sent.append((name, args)))
        out = ts.create({"name": "Mailed", "format": "round_robin", "table_size": 2, "invite": True,
                         "entries": [{"name": "Ann", "email": "ann@mail.test"},
                                     {"name": "Bob", "email": "bob@mail.test"}]})
        tid = out["id"]
        assert sent == [("workers.tournament_welcome", [tid])], "one task, carrying the id only"
        ts.enter(tid, None, {"name": "Cy", "email": "cy@mail.test", "invite": out["invite_code"]})
        assert welcome(notifier, tid) == 2, "the listed players, not the one who entered by invitation"
        assert welcome(notifier, tid) == 0, "once"
        box.wait_for(2)
        to = sorted(str(m["To"]) for m in box.messages)
        assert to == ["ann@mail.test", "bob@mail.test"]
        body = next(m for m in box.messages if str(m["To"]) == "ann@mail.test").get_content()
        link = next(w for w in body.split() if "#entry=" in w)
        token = unquote(link.split("#entry=", 1)[1])
        assert link.startswith(f"http://pbem.test/tournaments/{tid}#entry=")
        app = make_app(redis_server.url)
        rv = app.test_client().get(f"/api/v1/tournaments/{tid}/my-games",
                                   headers={"Authorization": f"Bearer {token}"})
        assert rv.status_code == 200 and rv.get_json()["withdrawn"] is False
        assert "ann@mail.test" not in app.test_client().get(f"/api/v1/tournaments/{tid}").get_data(
            as_text=True), \
            "emails are never shown"
    finally:
        box.controller.stop()


def test_a_stored_name_with_line_breaks_still_gets_its_welcome_email(redis_client, monkeypatch):
    """The API refuses control characters in names (issue 13); a name stored before that, with
    CRLF in it, must not kill the welcome task (an email header cannot hold a line break)."""
    box = Mailboxes()
    box.controller.start()
    try:
        games = GameService(EventStore(redis_client))
        notifier = Notifier(games, Outbox(redis_client, SmtpTransport(f"smtp://127.0.0.1:{box.port}")),
                            MailConfig(secret="s", domain="pbem.test", from_addr="t@pbem.test",
                                       public_url="http://pbem.test"))
        ts = TournamentService(games)
        name = "Cup\r\nBcc: victim@mail.test\x00\u2028x"
        # stored before names were checked (the API refuses both the breaks and the address now)
        monkeypatch.setattr("application.tournament_service.check_name", lambda *a, **k: None)
        tid = ts.create({"name": name, "format": "round_robin", "table_size": 2,
                         "entries": [{"name": "Ann\r\nX", "email": "ann-crlf@mail.test"},
                                     {"name": "Bob", "email": "bob-crlf@mail.test"}]})["id"]
        assert welcome(notifier, tid) == 2
        box.wait_for(2)
        msg = next(m for m in box.messages if str(m["To"]) == "ann-crlf@mail.test")
        # one line, and the address written in the old name is no link
        assert str(msg["Subject"]) == "Tiletum tournament: you are entered in Cup Bcc: [a link was removed] x"
        assert msg["Bcc"] is None
    finally:
        box.controller.stop()


def test_a_pending_address_s_welcome_is_its_invitation_and_carries_nothing_the_organizer_wrote(
        redis_client):
    """With consent on (the service's default), the welcome to an address that has not accepted our
    email is not held (it would leave the player entered and unaware): it goes, as the invitation,
    without the tournament's name or the name typed with the address, with accept and refuse; an
    address that accepted gets the named welcome."""
    from application.dashboard import mark_verified
    from mail.mailconfig import DEFAULT_BUDGET_NEEDED, DEFAULT_BUDGET_OTHERS
    box = Mailboxes()
    box.controller.start()
    try:
        games = GameService(EventStore(redis_client))
        notifier = Notifier(games, Outbox(redis_client, SmtpTransport(f"smtp://127.0.0.1:{box.port}")),
                            MailConfig(secret="s", domain="pbem.test", from_addr="t@pbem.test",
                                       public_url="http://pbem.test", budget_needed=DEFAULT_BUDGET_NEEDED,
                                       budget_others=DEFAULT_BUDGET_OTHERS, new_address_daily=3))
        assert notifier.gate.budget.pending_daily is not None, "consent is on in this test"
        mark_verified(redis_client, "old@mail.test")
        tid = TournamentService(games).create({
            "name": "Spring Cup of Mallory", "format": "round_robin", "table_size": 2,
            "entries": [{"name": "Mallory says hi", "email": "new@mail.test"},
                        {"name": "Old Hand", "email": "old@mail.test"}]})["id"]
        assert welcome(notifier, tid) == 2
        box.wait_for(2)
        new = next(m for m in box.messages if str(m["To"]) == "new@mail.test")
        body = new.get_content()
        assert str(new["Subject"]) == "Tiletum tournament: you were entered"
        for typed in ("Spring", "Mallory", "Old Hand"):
            assert typed not in body and typed not in str(new["Subject"]), typed
        assert "/email/consent" in body and "choice=accept" in body and "choice=refuse" in body
        assert f"/tournaments/{tid}#entry=" in body
        old = next(m for m in box.messages if str(m["To"]) == "old@mail.test")
        assert "Spring Cup" in str(old["Subject"]) and "Hello Old Hand" in old.get_content()
        assert "choice=refuse" not in old.get_content()
    finally:
        box.controller.stop()


def test_an_entry_s_language_is_its_welcome_s_and_its_games_seats(redis_client):
    """``language`` on an entry (docs/i18n.md): the welcome speaks it, the games of the tournament
    keep it on the entrant's seat, and a language the service lacks is refused with nothing entered."""
    import pytest as _pytest
    from application.errors import ServiceError
    box = Mailboxes()
    box.controller.start()
    try:
        games = GameService(EventStore(redis_client))
        notifier = Notifier(games, Outbox(redis_client, SmtpTransport(f"smtp://127.0.0.1:{box.port}")),
                            MailConfig(secret="s", domain="pbem.test", from_addr="t@pbem.test",
                                       public_url="http://pbem.test"))
        ts = TournamentService(games)
        with _pytest.raises(ServiceError) as refused:
            ts.create({"name": "Cup", "format": "round_robin", "table_size": 2,
                       "entries": [{"name": "Ann", "email": "ann-pl@mail.test", "language": "pl"},
                                   {"name": "Bob", "email": "bob-pl@mail.test"}]})
        assert refused.value.code == "bad-language"
        out = ts.create({"name": "Coupe", "format": "round_robin", "table_size": 2,
                         "entries": [{"name": "Ann", "email": "ann-fr@mail.test", "language": "fr"},
                                     {"name": "Bob", "email": "bob-en@mail.test"}]})
        tid = out["id"]
        assert welcome(notifier, tid) == 2
        box.wait_for(2)
        lang = {str(m["To"]): m["Content-Language"] for m in box.messages}
        assert lang == {"ann-fr@mail.test": "fr", "bob-en@mail.test": "en"}
        ts.start(tid, out["organizer_token"])
        [table] = ts.load(tid).rounds[0].tables
        meta = games.meta(table.game)
        seats = {s["email"]: s for s in meta["seats"]}
        assert seats["ann-fr@mail.test"]["language"] == "fr" and "language" not in seats["bob-en@mail.test"]
    finally:
        box.controller.stop()
