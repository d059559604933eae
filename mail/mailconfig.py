"""Mail settings from the environment (documented in docs/pbem.md and the README)."""
from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass
class MailConfig:
    secret: str
    domain: str
    from_addr: str
    public_url: str

    @classmethod
    def from_env(cls) -> "MailConfig":
        domain = os.environ.get("TILETUM_MAIL_DOMAIN", "pbem.localhost")
        secret = os.environ.get("TILETUM_MAIL_SECRET")
        if not secret:
            raise RuntimeError("TILETUM_MAIL_SECRET is not set (tiletum serve sets one)")
        return cls(secret=secret, domain=domain,
                   from_addr=os.environ.get("TILETUM_MAIL_FROM", f"Tiletum PBEM <noreply@{domain}>"),
                   public_url=os.environ.get("TILETUM_PUBLIC_URL", "http://127.0.0.1:8000").rstrip("/"))
