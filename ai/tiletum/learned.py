"""The learned correction to the evaluation: a model fitted to the outcomes of played games.

``tools/train_eval.py`` plays games, records the features of positions (``ai.tiletum.evaluate.
features``: the evaluation's terms and counts of the position, each also times the share of the
game left) with the seat's final score, and fits a ridge regression of what the terms miss (the
final score less the evaluation's value) with scikit-learn. It writes the fitted model as JSON
(``ai/tiletum/data/learned_eval.json``): the feature names, one coefficient each (in the
features' own units: the standardization is folded in), the intercept, and how it was made
(seeds, games, library versions). Playing needs nothing but this file: the prediction is a dot
product in plain Python, so the service never imports the training library.

``Settings.learned_w`` switches it on (``ai.tiletum.evaluate.value`` adds ``learned_w`` times the
prediction to the terms' sum; 0, the presets' default, leaves the evaluation as it was), and
``Settings.learned_file`` names the model (a file of ``ai/tiletum/data/`` or a path).
"""
from __future__ import annotations

import functools
import json
from importlib import resources
from pathlib import Path

DEFAULT_FILE = "learned_eval.json"


class Model:
    """A linear model over named features."""

    __slots__ = ("names", "coef", "intercept", "meta", "_pairs")

    def __init__(self, names: list[str], coef: list[float], intercept: float, meta: dict | None = None):
        if len(names) != len(coef):
            raise ValueError(f"the model has {len(coef)} coefficients for {len(names)} features")
        self.names, self.coef, self.intercept = tuple(names), tuple(float(c) for c in coef), float(intercept)
        self.meta = meta or {}
        # only the features that count (a coefficient of 0 is skipped at play time)
        self._pairs = tuple((i, c) for i, c in enumerate(self.coef) if c)

    def predict(self, x: list[float]) -> float:
        total = self.intercept
        for i, c in self._pairs:
            total += c * x[i]
        return total

    def to_doc(self) -> dict:
        return {"kind": "linear", "features": list(self.names), "coef": list(self.coef),
                "intercept": self.intercept, "made": self.meta}

    @classmethod
    def from_doc(cls, doc: dict) -> Model:
        if doc.get("kind") != "linear":
            raise ValueError(f"unknown kind of learned model {doc.get('kind')!r}")
        return cls(doc["features"], doc["coef"], doc["intercept"], doc.get("made"))


def _read(name: str) -> dict:
    if "/" in name or name.startswith("."):
        return json.loads(Path(name).read_text(encoding="utf-8"))
    return json.loads(resources.files("ai.tiletum.data").joinpath(name).read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=8)
def model(name: str, features: tuple[str, ...]) -> Model:
    """The model in ``name`` (a file of ``ai/tiletum/data/``, or a path), read once per process.
    Its features must be ``features`` (the evaluation's, ``ai.tiletum.evaluate.FEATURES``), in
    order: a model fitted to other features is refused (train it again: ``tools/train_eval.py``)."""
    m = Model.from_doc(_read(name))
    if m.names != tuple(features):
        missing = sorted(set(features) - set(m.names))
        raise ValueError(f"the learned model {name!r} was fitted to other features than the evaluation's "
                         f"(missing: {', '.join(missing) or 'none'}): train it again (tools/train_eval.py)")
    return m
