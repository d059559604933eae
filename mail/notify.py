"""Turn emails: who to tell what after a save (docs/pbem.md).

``Notifier.notify(game_id, version)`` re-reads the game. If a human seat with an email address
became the actor at ``version`` and the game is still there, that seat gets its turn email, once
(key ``turn:<game>:<seat>:<version>``). When the game is over every player gets the results,
once. Players who chose "none" get nothing; "digest" players are collected for the daily digest.

``Notifier`` is the one object callers hold (a thin facade): each kind of email is a class of its
own module over what they all share (mail/notify_base.py ``Mailer``): turn emails
(mail/turn_emails.py), links (mail/link_emails.py), lobby emails (mail/lobby_emails.py), the daily
digest (mail/digest_emails.py) and the results (mail/results_emails.py).
"""
from __future__ import annotations

from .digest_emails import DigestEmails
from .link_emails import LinkEmails
from .lobby_emails import LobbyEmails
from .results_emails import ResultsEmails
from .turn_emails import TurnEmails


class Notifier(TurnEmails, LinkEmails, LobbyEmails, DigestEmails, ResultsEmails):
    """Every kind of email the service sends, over one service, outbox and mail configuration."""
