"""The settings' old names, read for one release: ``TILETUM_<X>`` is ``TABLEPOST_<X>``.

The service was named after its first game; its settings are now ``TABLEPOST_*`` and the code
reads only those. :func:`migrate_environ` runs when each of the service's packages is imported
(application, mail, api, workers, cardinalbot, ai), before any of them reads a setting: every
``TILETUM_<X>`` is copied to ``TABLEPOST_<X>`` unless that is set too (the new name wins and the
old one is ignored), with a warning once per name and process (a ``DeprecationWarning`` and a
``logging`` warning, so that it shows in the service's log). Child processes inherit both names
with one value and warn no more. It imports nothing of the project and nothing but the standard library.
"""
from __future__ import annotations

import logging
import os
import warnings
from collections.abc import MutableMapping

OLD_PREFIX = "TILETUM_"
NEW_PREFIX = "TABLEPOST_"

log = logging.getLogger("tablepost.settings")
_warned: set[str] = set()


def new_name(old: str) -> str:
    """``TILETUM_RATE_LIMIT`` -> ``TABLEPOST_RATE_LIMIT``."""
    return NEW_PREFIX + old[len(OLD_PREFIX):]


def _warn(old: str, message: str) -> None:
    if old in _warned:
        return
    _warned.add(old)
    warnings.warn(message, DeprecationWarning, stacklevel=3)
    log.warning("%s", message)


def migrate_environ(environ: MutableMapping[str, str] | None = None) -> list[str]:
    """Copy every old-named setting in ``environ`` (``os.environ`` by default) to its new name.

    Returns the old names found. A name set both ways keeps its new value; the old one is ignored,
    with a warning that says so when the two differ."""
    env = os.environ if environ is None else environ
    found = sorted(k for k in env if k.startswith(OLD_PREFIX) and len(k) > len(OLD_PREFIX))
    for old in found:
        new = new_name(old)
        if new in env:
            # the same value both ways: copied by this function in a parent process (the
            # processes `tablepost serve` starts inherit its environment), already warned there
            if env[new] != env[old]:
                _warn(old, f"{old} is deprecated and ignored: {new} is set too (use {new} only)")
            continue
        env[new] = env[old]
        _warn(old, f"{old} is deprecated: use {new}")
    return found
