"""Mail settings from the environment (documented in docs/pbem.md and the README)."""
from __future__ import annotations

import os
from dataclasses import dataclass

from application.notifications import delay_minutes_default

from .consent import Budget, windows
from .sender_auth import POLICIES, REFUSE

# the display name of the default From: the service's, not one game's (it sends every game's email)
DEFAULT_SENDER_NAME = "Board games by mail"


@dataclass
class MailConfig:
    """The mail settings. The service builds them from the environment (``from_env``), where the
    grace of a live seat's turn email and the limit on emailing strangers are on by default; one
    built by hand (a test of one layer) has them off unless it says otherwise."""
    secret: str
    domain: str
    from_addr: str
    public_url: str
    authserv_id: str | None = None   # TABLEPOST_MAIL_AUTHSERV_ID: require this server's SPF/DKIM/DMARC pass
    unauthenticated: str = REFUSE    # TABLEPOST_MAIL_UNAUTHENTICATED: without an authserv-id, whether a reply
                                     # counts (accept: the embedded listener of `tablepost serve`)
    inbound_secret: str | None = None  # TABLEPOST_INBOUND_SECRET: signs the inbound webhook's requests
    pictures: bool = True            # TABLEPOST_MAIL_PICTURES=0: turn emails without the inline board PNG
    live_delay: float = 0.0          # TABLEPOST_MAIL_LIVE_DELAY_MINUTES (seconds here): a live seat's turn
                                     # email waits so long, unless the player chose otherwise (0: at once)
    new_address_daily: int | None = None  # TABLEPOST_MAIL_NEW_ADDRESS_DAILY: emails a day to an address that
                                          # has not accepted ours (None: consent is not asked)
    new_address_per_game: int = 5         # TABLEPOST_MAIL_NEW_ADDRESS_PER_GAME: of a game, before it accepts
    invitations: int = 5                  # TABLEPOST_MAIL_INVITATIONS: unanswered invitations to one address
    budget_needed: str | None = None      # TABLEPOST_MAIL_BUDGET_NEEDED: what a player needs, per recipient
    budget_others: str | None = None      # TABLEPOST_MAIL_BUDGET_OTHERS: what others cause, per recipient

    def budget(self) -> Budget:
        """The per-recipient budget and the consent bounds (mail/consent.py)."""
        return Budget(needed=windows(self.budget_needed), others=windows(self.budget_others),
                      pending_daily=self.new_address_daily, pending_per_game=self.new_address_per_game,
                      invitations=self.invitations)

    @classmethod
    def from_env(cls) -> "MailConfig":
        domain = os.environ.get("TABLEPOST_MAIL_DOMAIN", "pbem.localhost")
        secret = os.environ.get("TABLEPOST_MAIL_SECRET")
        if not secret:
            raise RuntimeError("TABLEPOST_MAIL_SECRET is not set (tablepost serve sets one)")
        return cls(secret=secret, domain=domain,
                   from_addr=os.environ.get("TABLEPOST_MAIL_FROM",
                                            f"{DEFAULT_SENDER_NAME} <noreply@{domain}>"),
                   public_url=os.environ.get("TABLEPOST_PUBLIC_URL", "http://127.0.0.1:8000").rstrip("/"),
                   authserv_id=os.environ.get("TABLEPOST_MAIL_AUTHSERV_ID") or None,
                   unauthenticated=unauthenticated_policy(),
                   inbound_secret=os.environ.get("TABLEPOST_INBOUND_SECRET") or None,
                   pictures=os.environ.get("TABLEPOST_MAIL_PICTURES", "1").strip().lower() not in ("0", "no",
                                                                                                 "off",
                                                                                                "false"),
                   live_delay=default_live_delay_minutes() * 60,
                   new_address_daily=new_address_daily(),
                   new_address_per_game=_count("TABLEPOST_MAIL_NEW_ADDRESS_PER_GAME", 5),
                   invitations=_count("TABLEPOST_MAIL_INVITATIONS", 5),
                   budget_needed=_windows_setting("TABLEPOST_MAIL_BUDGET_NEEDED", DEFAULT_BUDGET_NEEDED),
                   budget_others=_windows_setting("TABLEPOST_MAIL_BUDGET_OTHERS", DEFAULT_BUDGET_OTHERS))


def default_live_delay_minutes() -> float:
    """The service's default grace of a live seat's turn email, in minutes (a player's own setting
    comes first: application/notifications.py)."""
    return delay_minutes_default()


def new_address_daily() -> int | None:
    """``TABLEPOST_MAIL_NEW_ADDRESS_DAILY`` (default 3); ``off`` lifts the limit."""
    raw = os.environ.get("TABLEPOST_MAIL_NEW_ADDRESS_DAILY", "3").strip().lower()
    if raw in ("off", "none", ""):
        return None
    return max(0, int(raw))


# the default budgets of one recipient (docs/pbem.md, "Email by consent"): what a player needs of the
# games they are in, generous (a busy player of many games); what others can cause, a handful
DEFAULT_BUDGET_NEEDED = "40/hour;300/day"
DEFAULT_BUDGET_OTHERS = "5/hour;15/day"


def _count(name: str, default: int) -> int:
    raw = os.environ.get(name, str(default)).strip()
    try:
        return max(0, int(raw))
    except ValueError:
        raise RuntimeError(f"{name} must be a whole number, not {raw!r}") from None


def _windows_setting(name: str, default: str) -> str | None:
    """A budget in the ``limits`` notation ("5/hour;15/day"); ``off`` lifts it. A bad one stops the
    service at its start with the setting's name, rather than mailing without a limit."""
    raw = os.environ.get(name, default).strip()
    try:
        windows(raw)
    except ValueError as e:
        raise RuntimeError(f"{name}: {raw!r} is not a budget like \"5/hour;15/day\" ({e})") from None
    return None if raw.lower() in ("", "off", "none") else raw


def unauthenticated_policy() -> str:
    """``TABLEPOST_MAIL_UNAUTHENTICATED``: ``refuse`` (the default) or ``accept``, what becomes of a reply
    that no mail server in front authenticated, where no ``TABLEPOST_MAIL_AUTHSERV_ID`` is set
    (mail/sender_auth.py)."""
    raw = os.environ.get("TABLEPOST_MAIL_UNAUTHENTICATED", REFUSE).strip().lower()
    if raw not in POLICIES:
        raise RuntimeError(f"TABLEPOST_MAIL_UNAUTHENTICATED is {raw!r}: it is 'accept' or 'refuse'")
    return raw
