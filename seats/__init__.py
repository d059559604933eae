"""The seats the service plays itself, as players over HTTP (docs/architecture.md): a game's own
automa (its declared policy, ``games.Game.automa``: Tiletum's Cardinalbot, ``cardinalbot/``) and
every game's AI seats (``ai``). It talks to the service only over the public REST API with its own
credentials (``client``), plays a seat while it is to act (``runner``, ``ai_runner``), woken by a
Celery task on the queue ``seats`` (``worker``) or by polling (``python -m seats``). It never reads
the store and knows no game by name: the game of a served view is found by its ``format``.
"""

from tablepost.env_names import migrate_environ

migrate_environ()   # the settings' old names (TILETUM_*) read as TABLEPOST_*, first: tablepost/env_names.py
