"""The pages the links in emails open: ``/email/move/<game>`` (a one-click move: a GET shows the move
and a button, the button's POST plays it) and ``/email/unsubscribe`` (a GET shows a button; the POST,
also RFC 8058's one-click POST from a mail client, stops every email to the address). Links are signed
over their path and parameters (mail/addresses.py) and built by mail/notify.py.

They are pages, not API endpoints: an email links only to pages, never to ``/api/v1/`` (the same
actions under ``/api/v1/games/{id}/email-move`` and ``/api/v1/email/unsubscribe`` stay for the links
in emails sent before, and for API clients). The unsubscribe link names the address ``address``: a
link that ends in ``email=<the recipient>`` is a spam sign to filters (SpamAssassin's
GB_CUSTOM_HTM_URI).

Each is in the address's own language for its emails (the email that linked here was in it), else
the page's (api/page_i18n.py); its ``<html lang>`` and ``Content-Language`` say which (docs/i18n.md).
"""
from __future__ import annotations

import html

import flask
from flask.views import MethodView

from application import consent, notifications
from application.clock import make_clock
from application.dashboard import dashboard_key_for
from application.notifications import set_preference

from tablepost import i18n

from . import page_i18n
from .extensions import service
from .resources.email import _page, _verified, answers_html


def _said(lang: str, title: str, body: str, status: int = 200) -> flask.Response:
    """A link page in ``lang`` (``<html lang>``, ``Content-Language``)."""
    resp = _page(title, body, status)
    resp.set_data(resp.get_data(as_text=True).replace("<html lang=en>", f"<html lang={lang}>", 1))
    resp.headers["Content-Language"] = lang
    resp.vary.add("Accept-Language")
    resp.vary.add("Cookie")
    return resp


def _language(address: str | None = None) -> i18n.Translator:
    """The language of a link page: the address's own for its emails (the email it came from was in
    it), else the page's (api/page_i18n.py: ``?lang=``, the cookie, ``Accept-Language``)."""
    chosen = notifications.language(service().store.r, address) if address else None
    return i18n.translator(chosen if i18n.supported(chosen) else page_i18n.page_language()[0])


def _button(text: str) -> str:
    return f"<form method=post><button type=submit>{html.escape(text)}</button></form>"


class MovePage(MethodView):
    @answers_html
    def get(self, game_id: str):
        """Shows the move and a button; opening the link plays nothing (mail scanners open links)."""
        p = _verified(flask.request.path)
        move = p.get("move", "")
        tr = _language()
        title = tr._("Play \u201c{move}\u201d?", move=move)
        said = tr._("Your move in game {game}: {move}.", game=html.escape(game_id),
                    move=f"<code>{html.escape(move)}</code>")
        return _said(tr.lang, title, f"<p>{said}</p>" + _button(tr._("Play it")))

    @answers_html
    def post(self, game_id: str):
        p = _verified(flask.request.path)
        service().submit_for_seat(game_id, int(p["seat"]), int(p["version"]), [p["move"]])
        tr = _language()
        said = tr._("{move} is played. You get an email when the decision is yours again.",
                    move=f"<code>{html.escape(p['move'])}</code>")
        return _said(tr.lang, tr._("Played"), f"<p>{said}</p>")


class UnsubscribePage(MethodView):
    @answers_html
    def get(self):
        p = _verified(flask.request.path)
        tr = _language(p["address"])
        said = tr._("No more email to {address} from any game.", address=html.escape(p["address"]))
        return _said(tr.lang, tr._("Unsubscribe?"), f"<p>{said}</p>" + _button(tr._("Unsubscribe")))

    @answers_html
    def post(self):
        p = _verified(flask.request.path)
        tr = _language(p["address"])
        set_preference(service().store.r, p["address"], "none")
        said = tr._("{address} will get no more email from us.", address=html.escape(p["address"]))
        return _said(tr.lang, tr._("Unsubscribed"), f"<p>{said}</p>")


class ConsentPage(MethodView):
    """The invitation's two links (docs/pbem.md, "Email by consent"): accept every email of the
    service's games, or refuse them all. A GET shows the button; only its POST answers (mail
    scanners open links)."""

    @answers_html
    def get(self):
        p = _verified(flask.request.path)
        tr = _language(p["address"])
        address = html.escape(p["address"])
        if p.get("choice") == "accept":
            said = tr._("Emails of the games {address} is entered in: your turns, reminders, results, and "
                        "what the other players write to you.", address=address)
            title, button = tr._("Accept email from Table Post?"), tr._("Accept")
        else:
            said = tr._("No email to {address} from any game, ever, whoever enters the address.",
                        address=address)
            title, button = tr._("Refuse email from Table Post?"), tr._("Refuse")
        return _said(tr.lang, title, f"<p>{said}</p>" + _button(button))

    @answers_html
    def post(self):
        p = _verified(flask.request.path)
        r = service().store.r
        now = make_clock(r)()
        tr = _language(p["address"])
        address = html.escape(p["address"])
        if p.get("choice") == "accept":
            consent.accept(r, p["address"], now)
            base = flask.current_app.config.get("PUBLIC_URL") or ""
            url = f"{base}/me#key={dashboard_key_for(r, p['address'])}"
            dashboard = tr._("your dashboard")
            said = tr._("Thank you: {address} gets the emails of its games from now on. The games waiting on "
                        "you are on {dashboard} (your private link: keep it to yourself).", address=address,
                        dashboard=f'<a href="{html.escape(url)}">{html.escape(dashboard)}</a>')
            return _said(tr.lang, tr._("Accepted"), f"<p>{said}</p>")
        consent.refuse(r, p["address"], now)
        said = tr._("{address} will get no email from us again.", address=address)
        return _said(tr.lang, tr._("Refused"), f"<p>{said}</p>")


def register_email_pages(app: flask.Flask) -> None:
    app.add_url_rule("/email/move/<string:game_id>", view_func=MovePage.as_view("email_move_page"))
    app.add_url_rule("/email/unsubscribe", view_func=UnsubscribePage.as_view("email_unsubscribe_page"))
    app.add_url_rule("/email/consent", view_func=ConsentPage.as_view("email_consent_page"))
