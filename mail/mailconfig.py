"""Mail settings from the environment (documented in docs/pbem.md and the README)."""
from __future__ import annotations

import os
from dataclasses import dataclass

# the display name of the default From: the service's, not one game's (it sends every game's email)
DEFAULT_SENDER_NAME = "Board games by mail"


@dataclass
class MailConfig:
    secret: str
    domain: str
    from_addr: str
    public_url: str
    authserv_id: str | None = None   # TILETUM_MAIL_AUTHSERV_ID: require this server's SPF/DKIM/DMARC pass
    inbound_secret: str | None = None  # TILETUM_INBOUND_SECRET: signs the inbound webhook's requests
    pictures: bool = True            # TILETUM_MAIL_PICTURES=0: turn emails without the inline board PNG

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
                   inbound_secret=os.environ.get("TILETUM_INBOUND_SECRET") or None,
                   pictures=os.environ.get("TILETUM_MAIL_PICTURES", "1").strip().lower() not in ("0", "no",
                                                                                                 "off",
                                                                                                "false"))
