"""The pages the links in emails open: ``/email/move/<game>`` (a one-click move: a GET shows the move
and a button, the button's POST plays it) and ``/email/unsubscribe`` (a GET shows a button; the POST,
also RFC 8058's one-click POST from a mail client, stops every email to the address). Links are signed
over their path and parameters (mail/addresses.py) and built by mail/notify.py.

They are pages, not API endpoints: an email links only to pages, never to ``/api/v1/`` (the same
actions under ``/api/v1/games/{id}/email-move`` and ``/api/v1/email/unsubscribe`` stay for the links
in emails sent before, and for API clients). The unsubscribe link names the address ``address``: a
link that ends in ``email=<the recipient>`` is a spam sign to filters (SpamAssassin's
GB_CUSTOM_HTM_URI).
"""
from __future__ import annotations

import html

import flask
from flask.views import MethodView

from application import consent
from application.clock import make_clock
from application.dashboard import dashboard_key_for
from application.notifications import set_preference

from .extensions import service
from .resources.email import _page, _verified, answers_html


class MovePage(MethodView):
    @answers_html
    def get(self, game_id: str):
        """Shows the move and a button; opening the link plays nothing (mail scanners open links)."""
        p = _verified(flask.request.path)
        move = p.get("move", "")
        return _page(f"Play \u201c{move}\u201d?",
                     f"<p>Your move in game {html.escape(game_id)}: <code>{html.escape(move)}</code>.</p>"
                     f"<form method=post><button type=submit>Play it</button></form>")

    @answers_html
    def post(self, game_id: str):
        p = _verified(flask.request.path)
        service().submit_for_seat(game_id, int(p["seat"]), int(p["version"]), [p["move"]])
        return _page("Played", f"<p><code>{html.escape(p['move'])}</code> is played. You get an email "
                               "when the decision is yours again.</p>")


class UnsubscribePage(MethodView):
    @answers_html
    def get(self):
        p = _verified(flask.request.path)
        return _page("Unsubscribe?", f"<p>No more email to {html.escape(p['address'])} from any game.</p>"
                                     "<form method=post><button type=submit>Unsubscribe</button></form>")

    @answers_html
    def post(self):
        p = _verified(flask.request.path)
        set_preference(service().store.r, p["address"], "none")
        return _page("Unsubscribed", f"<p>{html.escape(p['address'])} will get no more email from us.</p>")


class ConsentPage(MethodView):
    """The invitation's two links (docs/pbem.md, "Email by consent"): accept every email of the
    service's games, or refuse them all. A GET shows the button; only its POST answers (mail
    scanners open links)."""

    @answers_html
    def get(self):
        p = _verified(flask.request.path)
        if p.get("choice") == "accept":
            return _page("Accept email from Table Post?",
                         f"<p>Emails of the games {html.escape(p['address'])} is entered in: your turns, "
                         "reminders, results, and what the other players write to you.</p>"
                         "<form method=post><button type=submit>Accept</button></form>")
        return _page("Refuse email from Table Post?",
                     f"<p>No email to {html.escape(p['address'])} from any game, ever, whoever enters "
                     "the address.</p><form method=post><button type=submit>Refuse</button></form>")

    @answers_html
    def post(self):
        p = _verified(flask.request.path)
        r = service().store.r
        now = make_clock(r)()
        if p.get("choice") == "accept":
            consent.accept(r, p["address"], now)
            base = flask.current_app.config.get("PUBLIC_URL") or ""
            url = f"{base}/me#key={dashboard_key_for(r, p['address'])}"
            return _page("Accepted", f"<p>Thank you: {html.escape(p['address'])} gets the emails of its "
                                     "games "
                                     "from now on. The games waiting on you are on "
                                     f'<a href="{html.escape(url)}">your dashboard</a> (your private link: '
                                     "keep it to yourself).</p>")
        consent.refuse(r, p["address"], now)
        return _page("Refused", f"<p>{html.escape(p['address'])} will get no email from us again.</p>")


def register_email_pages(app: flask.Flask) -> None:
    app.add_url_rule("/email/move/<string:game_id>", view_func=MovePage.as_view("email_move_page"))
    app.add_url_rule("/email/unsubscribe", view_func=UnsubscribePage.as_view("email_unsubscribe_page"))
    app.add_url_rule("/email/consent", view_func=ConsentPage.as_view("email_consent_page"))
