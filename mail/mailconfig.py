"""Mail settings from the environment (documented in docs/pbem.md and the README)."""
from __future__ import annotations

import os
from dataclasses import dataclass

from application.notifications import delay_minutes_default

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
    authserv_id: str | None = None   # TILETUM_MAIL_AUTHSERV_ID: require this server's SPF/DKIM/DMARC pass
    unauthenticated: str = REFUSE    # TILETUM_MAIL_UNAUTHENTICATED: without an authserv-id, whether a reply
                                     # counts (accept: the embedded listener of `tiletum serve`)
    inbound_secret: str | None = None  # TILETUM_INBOUND_SECRET: signs the inbound webhook's requests
    pictures: bool = True            # TILETUM_MAIL_PICTURES=0: turn emails without the inline board PNG
    live_delay: float = 0.0          # TILETUM_MAIL_LIVE_DELAY_MINUTES (seconds here): a live seat's turn
                                     # email waits so long, unless the player chose otherwise (0: at once)
    new_address_daily: int | None = None  # TILETUM_MAIL_NEW_ADDRESS_DAILY: emails a day to an address that
                                          # never acted on ours, one per game at most (None: no limit)

    @classmethod
    def from_env(cls) -> "MailConfig":
        domain = os.environ.get("TILETUM_MAIL_DOMAIN", "pbem.localhost")
        secret = os.environ.get("TILETUM_MAIL_SECRET")
        if not secret:
            raise RuntimeError("TILETUM_MAIL_SECRET is not set (tiletum serve sets one)")
        return cls(secret=secret, domain=domain,
                   from_addr=os.environ.get("TILETUM_MAIL_FROM", f"{DEFAULT_SENDER_NAME} <noreply@{domain}>"),
                   public_url=os.environ.get("TILETUM_PUBLIC_URL", "http://127.0.0.1:8000").rstrip("/"),
                   authserv_id=os.environ.get("TILETUM_MAIL_AUTHSERV_ID") or None,
                   unauthenticated=unauthenticated_policy(),
                   inbound_secret=os.environ.get("TILETUM_INBOUND_SECRET") or None,
                   pictures=os.environ.get("TILETUM_MAIL_PICTURES", "1").strip().lower() not in ("0", "no",
                                                                                                 "off",
                                                                                                "false"),
                   live_delay=default_live_delay_minutes() * 60,
                   new_address_daily=new_address_daily())


def default_live_delay_minutes() -> float:
    """The service's default grace of a live seat's turn email, in minutes (a player's own setting
    comes first: application/notifications.py)."""
    return delay_minutes_default()


def new_address_daily() -> int | None:
    """``TILETUM_MAIL_NEW_ADDRESS_DAILY`` (default 3); ``off`` lifts the limit."""
    raw = os.environ.get("TILETUM_MAIL_NEW_ADDRESS_DAILY", "3").strip().lower()
    if raw in ("off", "none", ""):
        return None
    return max(0, int(raw))


def unauthenticated_policy() -> str:
    """``TILETUM_MAIL_UNAUTHENTICATED``: ``refuse`` (the default) or ``accept``, what becomes of a reply
    that no mail server in front authenticated, where no ``TILETUM_MAIL_AUTHSERV_ID`` is set
    (mail/sender_auth.py)."""
    raw = os.environ.get("TILETUM_MAIL_UNAUTHENTICATED", REFUSE).strip().lower()
    if raw not in POLICIES:
        raise RuntimeError(f"TILETUM_MAIL_UNAUTHENTICATED is {raw!r}: it is 'accept' or 'refuse'")
    return raw
