"""The application core of Table Post: everything the service does, with no HTTP and no Celery.

Both adapters call it: the HTTP API (``api/``) and the Celery workers (``workers/``), and the
email channel (``mail/``) builds on it. It holds the event store (``store``), the game service
that loads, decides and appends (``game_service``), what happens after a save (``scheduling``,
``finished``), deadlines and vacations (``deadlines``), notification settings and intents
(``notifications``), dashboards, tournaments and ratings, and the board picture. It imports the
rules (``tiletum``, ``tournaments``) and Redis, never Flask, Celery or an SMTP server; a refusal
is a :class:`application.errors.ServiceError` whose kind each adapter maps (docs/architecture.md).
"""

from tablepost.env_names import migrate_environ

migrate_environ()   # the settings' old names (TILETUM_*) read as TABLEPOST_*, first: tablepost/env_names.py
