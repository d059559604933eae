"""Table Post, the platform, apart from any game: what belongs to the service's own name.

``env_names`` reads the settings' old names (``TILETUM_*``, from when the service was named after
its first game) as the new ones (``TABLEPOST_*``) for one release, with a warning. It imports
nothing of the project, so every package that reads a setting (application, mail, api, workers,
cardinalbot, ai) calls it first, when it is imported.
"""
