"""The email channel: turn, reminder, results and tournament emails (``notify``, ``compose``),
the outbox that delivers them (``outbox``), the signed reply addresses and links
(``addresses``), and the pipeline that turns a player's reply into moves (``mailin``).

It builds on the application core (``application/``) and is used by both adapters: the Celery
workers send what is due and run the SMTP listener (``workers/``), the HTTP API receives
providers' inbound webhooks and one-click links (``api/``). No Flask, no Celery here.
"""

from tablepost.env_names import migrate_environ

migrate_environ()   # the settings' old names (TILETUM_*) read as TABLEPOST_*, first: tablepost/env_names.py
