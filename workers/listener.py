"""The inbound SMTP listener: an aiosmtpd server that refuses recipients that are not valid
reply addresses at RCPT time and hands every accepted message to
:func:`mail.mailin.handle_inbound` (the same pipeline as ``POST /api/v1/inbound-email``)."""
from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable

from mail import addresses
from mail.mailin import Deps, Result, handle_inbound

log = logging.getLogger("tablepost.mailin")

class MailinHandler:
    """aiosmtpd handler: refuses recipients that are not valid reply addresses at RCPT time,
    and hands every accepted message to ``handle_inbound`` once per recipient (in a worker
    thread: the service is blocking)."""

    def __init__(self, deps: Deps, handle: Callable[..., Result] | None = None):
        self.deps = deps
        self.handle = handle or handle_inbound

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        try:
            addresses.parse_reply_address(self.deps.secret, address)
        except ValueError:
            return "550 5.1.1 not a valid Table Post reply address"
        except Exception:
            log.exception("mailin: checking recipient %s", address)
            return "451 4.3.0 temporary failure, try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        content = envelope.original_content or envelope.content or b""
        if isinstance(content, str):
            content = content.encode("utf-8", errors="surrogateescape")
        if len(content) > self.deps.max_bytes:
            return "552 5.3.4 message too big for this server"
        if not envelope.rcpt_tos:
            return "550 5.1.1 no valid recipient"
        loop = asyncio.get_running_loop()
        try:
            for rcpt in envelope.rcpt_tos:
                await loop.run_in_executor(None, self.handle, content, self.deps, rcpt)
        except Exception:  # handle_inbound does not raise; a replaced handler might
            log.exception("mailin: handling a message from %s", envelope.mail_from)
            return "451 4.3.0 temporary failure, try again later"
        return "250 OK"


def start_listener(deps: Deps, host: str = "127.0.0.1", port: int = 8025, **kwargs: Any):
    """Start an SMTP listener on ``host:port`` in a background thread; returns the started
    ``aiosmtpd.controller.Controller`` (call ``.stop()``). Messages over ``deps.max_bytes`` are
    refused by the SMTP server itself (552)."""
    from aiosmtpd.controller import Controller
    handler = kwargs.pop("handler", None) or MailinHandler(deps)
    controller = Controller(handler, hostname=host, port=port, data_size_limit=deps.max_bytes,
                            decode_data=False, **kwargs)
    controller.start()
    return controller
