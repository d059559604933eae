"""What the rules engines of every hosted game share: their errors, the seeded chance that draws
an outcome only when it is revealed, the text frame of a game record, the command line's file
handling and the random playout loop.

Each game's engine (``tiletum/`` for Tiletum, ``carcassonne/``, ``pillars/``) is pure and imports no
other game; each imports this package, which imports nothing of the project and does no I/O
beyond what a command line reads and prints.
"""
