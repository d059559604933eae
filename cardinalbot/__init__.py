"""The Cardinalbot: Tiletum's solo automa (declared in ``games/tiletum.py``, ``CARDINALBOT``). Its
decision logic is pure (``policy``, ``decrees``: the rules' Cardinalbot turn over ``tiletum``);
``policy.choose`` is what the platform's seat player (``seats/``) calls for its seat. ``python -m
cardinalbot`` hosts it by polling (the same as ``python -m seats``).
"""
