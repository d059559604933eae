"""Tiletum's search player: the determinized tree search (``search``), its evaluation
(``evaluate``), the seat's view rebuilt into a full state (``view``), the look-ahead of ``hard``
(``lookahead``) and the root-parallel search of ``master`` (``parallel``). ``ai.decide`` calls it
for a Tiletum view (docs/ai.md)."""
