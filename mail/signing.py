"""DKIM signatures of outgoing mail (RFC 6376), with dkimpy, when the operator configures a key.

Large mailbox providers (Gmail, Yahoo, Outlook) file unsigned bulk mail as spam or refuse it: a
sender of more than a few thousand emails a day must sign with DKIM, publish SPF, and publish a
DMARC policy that one of them aligns with the From domain (docs/deploy.md says which DNS records).
The outbox (mail/outbox.py) signs each email once, when it is queued, and stores the signed bytes:
every retry sends exactly the bytes that were signed.

Settings (docs/pbem.md):

- ``TABLEPOST_DKIM_KEY_FILE``: the private key, PEM (RSA, 2048 bits advised). Unset: nothing is signed.
- ``TABLEPOST_DKIM_SELECTOR``: the selector whose DNS record has the public key
  (``<selector>._domainkey.<domain>``).
- ``TABLEPOST_DKIM_DOMAIN``: the signing domain (``d=``); by default the domain of the From address.

A key that cannot be read stops the process at start (``from_env``): an operator who configured
signing must not send unsigned mail without knowing.
"""
from __future__ import annotations

import email.utils
import logging
import os
import re
from dataclasses import dataclass

import dkim

log = logging.getLogger("tablepost.dkim")

# What the signature covers: the headers a forger would change, each signed once more than it occurs
# ("oversigned": an extra From, Subject or To added on the way breaks the signature).
SIGNED_HEADERS = (b"from", b"to", b"subject", b"date", b"message-id", b"reply-to", b"in-reply-to",
                  b"references", b"list-id", b"list-unsubscribe", b"list-unsubscribe-post", b"mime-version",
                  b"content-type", b"auto-submitted")
OVERSIGNED = (b"from", b"to", b"subject", b"reply-to", b"list-unsubscribe")
_BARE_LF = re.compile(rb"(?<!\r)\n")


@dataclass(frozen=True)
class Signer:
    key: bytes            # the PEM private key
    selector: str
    domain: str | None = None   # None: the From address's domain

    @classmethod
    def from_env(cls) -> "Signer | None":
        path = os.environ.get("TABLEPOST_DKIM_KEY_FILE")
        if not path:
            return None
        selector = os.environ.get("TABLEPOST_DKIM_SELECTOR", "").strip()
        if not selector:
            raise RuntimeError("TABLEPOST_DKIM_KEY_FILE is set but TABLEPOST_DKIM_SELECTOR is not")
        with open(path, "rb") as f:
            key = f.read()
        if b"PRIVATE KEY" not in key:
            raise RuntimeError(f"TABLEPOST_DKIM_KEY_FILE {path} holds no PEM private key")
        return cls(key=key, selector=selector, domain=os.environ.get("TABLEPOST_DKIM_DOMAIN") or None)

    def sign(self, raw: bytes) -> bytes:
        """``raw`` (an RFC 5322 message) with its ``DKIM-Signature`` header first, lines ending in
        CRLF as SMTP sends them."""
        raw = _BARE_LF.sub(b"\r\n", raw)
        domain = self.domain or _from_domain(raw)
        if not domain:
            log.warning("dkim: no From domain to sign for: the email goes unsigned")
            return raw
        present = _header_names(raw)
        include = [h for h in SIGNED_HEADERS if h in present]
        include += [h for h in OVERSIGNED if h in present]
        header = dkim.sign(raw, self.selector.encode("ascii"), domain.encode("idna"), self.key,
                           canonicalize=(b"relaxed", b"relaxed"), include_headers=include)
        return header + raw


def _head(raw: bytes) -> bytes:
    return raw.split(b"\r\n\r\n", 1)[0]


def _header_names(raw: bytes) -> set[bytes]:
    return {line.split(b":", 1)[0].strip().lower() for line in _head(raw).split(b"\r\n")
            if line and line[:1] not in (b" ", b"\t") and b":" in line}


def _from_domain(raw: bytes) -> str | None:
    head = _head(raw).decode("ascii", "replace")
    m = re.search(r"^From:(.*(?:\r\n[ \t].*)*)", head, re.IGNORECASE | re.MULTILINE)
    if not m:
        return None
    addr = email.utils.parseaddr(m.group(1).replace("\r\n", ""))[1]
    return addr.rpartition("@")[2].lower() or None
