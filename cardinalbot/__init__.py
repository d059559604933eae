"""The Cardinalbot: the solo automa as a separate player of the service. Its decision logic is
pure (``policy``, ``decrees``: the rules' Cardinalbot turn over ``tiletum``); it talks to the
service only over HTTP with its own credential (``client``, ``runner``), woken by a Celery task
(``worker``) or polling (``python -m cardinalbot``). It never reads the store.
"""

from tablepost.env_names import migrate_environ

migrate_environ()   # the settings' old names (TILETUM_*) read as TABLEPOST_*, first: tablepost/env_names.py
