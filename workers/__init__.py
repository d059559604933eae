"""The Celery adapter: the service's Celery app and beat schedule (``app``), its tasks (``tasks``),
the parts they use built from the environment (``runtime``), and the inbound SMTP listener
process (``listener``, ``mailin_main``). Tasks take ids, re-read the game through the
application core and are idempotent; the email work itself is in ``mail/``.
"""

from tablepost.env_names import migrate_environ

migrate_environ()   # the settings' old names (TILETUM_*) read as TABLEPOST_*, first: tablepost/env_names.py
