"""The learned correction to the evaluation: a model fitted to the outcomes of played games.

``tools/train_eval.py`` plays games, records the features of positions (``ai.tiletum.evaluate.
features``: the evaluation's terms and counts of the position, each also times the share of the
game left) with the seat's final score, and fits a ridge regression of what the terms miss (the
final score less the evaluation's value) with scikit-learn. It writes the fitted model as JSON
(``ai/tiletum/data/learned_eval.json``): the feature names, one coefficient each (in the
features' own units: the standardization is folded in), the intercept, and how it was made
(seeds, games, library versions). Playing needs nothing but this file: the prediction is a dot
product in plain Python, so the service never imports the training library.

Two kinds of model are read: ``linear`` (:class:`Model`, a dot product) and ``trees``
(:class:`Trees`, a gradient-boosted ensemble of small regression trees, fitted by scikit-learn's
``GradientBoostingRegressor`` and written out node by node: a prediction walks each tree, a few
comparisons each). A model is a *correction* (its target was the outcome less the evaluation's
value: ``value`` adds ``learned_w`` times the prediction) or, with ``"full": true`` in the file, a
*full* evaluation (its target was the outcome itself: ``value`` moves ``learned_w`` of the way from
the terms' sum to the prediction, so 1 replaces the sum). The outcome is the seat's final score, or
with ``"target": "margin"`` its final score less the other seat's (a solo game's bot), or with
``"target": "next_turn"`` not an outcome of the game but what the seat's next turn makes of a
position where its turn has ended (``ai.tiletum.lookahead.next_turn_value``: the look-ahead's
next-turn search, on sampled futures), so that every leaf of the search sees what the look-ahead
sees at the root.

``Settings.learned_w`` switches it on (0, the presets' default, leaves the evaluation as it was),
and ``Settings.learned_file`` names the model (a file of ``ai/tiletum/data/`` or a path).
"""
from __future__ import annotations

import functools
import json
from importlib import resources
from pathlib import Path

DEFAULT_FILE = "learned_eval.json"


class Model:
    """A linear model over named features."""

    __slots__ = ("names", "coef", "intercept", "meta", "full", "target", "_pairs")

    def __init__(self, names: list[str], coef: list[float], intercept: float, meta: dict | None = None,
                 full: bool = False, target: str = "score"):
        if len(names) != len(coef):
            raise ValueError(f"the model has {len(coef)} coefficients for {len(names)} features")
        self.names, self.coef, self.intercept = tuple(names), tuple(float(c) for c in coef), float(intercept)
        self.meta = meta or {}
        self.full, self.target = bool(full), _target(target)
        # only the features that count (a coefficient of 0 is skipped at play time)
        self._pairs = tuple((i, c) for i, c in enumerate(self.coef) if c)

    def predict(self, x: list[float]) -> float:
        total = self.intercept
        for i, c in self._pairs:
            total += c * x[i]
        return total

    def to_doc(self) -> dict:
        doc = {"kind": "linear", "features": list(self.names), "coef": list(self.coef),
               "intercept": self.intercept}
        return _common(self, doc)

    @classmethod
    def from_doc(cls, doc: dict) -> Model:
        return cls(doc["features"], doc["coef"], doc["intercept"], doc.get("made"),
                   doc.get("full", False), doc.get("target", "score"))


class Trees:
    """A sum of regression trees over named features (gradient boosting), plus a constant.

    Each tree is four lists over its nodes: the feature compared, the threshold, the left child
    (-1 at a leaf) and the right child, and a fifth, each leaf's value (the learning rate folded
    in). At a node, a feature at or below the threshold goes left (scikit-learn's rule; the library
    compares features rounded to single precision, so one within that rounding of a threshold may
    go the other way here)."""

    __slots__ = ("names", "trees", "base", "meta", "full", "target")

    def __init__(self, names: list[str], trees: list[dict], base: float, meta: dict | None = None,
                 full: bool = False, target: str = "score"):
        self.names, self.base, self.meta = tuple(names), float(base), meta or {}
        self.full, self.target = bool(full), _target(target)
        n = len(self.names)
        out = []
        for t in trees:
            feat, thr = [int(f) for f in t["feature"]], [float(v) for v in t["threshold"]]
            left, right = [int(i) for i in t["left"]], [int(i) for i in t["right"]]
            val = [float(v) for v in t["value"]]
            size = len(feat)
            if not size or any(len(x) != size for x in (thr, left, right, val)):
                raise ValueError("a tree's lists must be of one length, at least 1")
            for i in range(size):
                if left[i] >= 0 and not (0 <= feat[i] < n and i < left[i] < size and i < right[i] < size):
                    raise ValueError("a tree's node points outside the tree or the features")
            out.append((tuple(feat), tuple(thr), tuple(left), tuple(right), tuple(val)))
        self.trees = tuple(out)

    def predict(self, x: list[float]) -> float:
        total = self.base
        for feat, thr, left, right, val in self.trees:
            i = 0
            while left[i] >= 0:
                i = left[i] if x[feat[i]] <= thr[i] else right[i]
            total += val[i]
        return total

    def to_doc(self) -> dict:
        doc = {"kind": "trees", "features": list(self.names), "base": self.base,
               "trees": [{"feature": list(f), "threshold": list(t), "left": list(lft), "right": list(r),
                          "value": list(v)} for f, t, lft, r, v in self.trees]}
        return _common(self, doc)

    @classmethod
    def from_doc(cls, doc: dict) -> Trees:
        return cls(doc["features"], doc["trees"], doc["base"], doc.get("made"),
                   doc.get("full", False), doc.get("target", "score"))


TARGETS = ("score", "margin", "next_turn")


def _target(t: str) -> str:
    if t not in TARGETS:
        raise ValueError(f"unknown target of a learned model {t!r}: one of {', '.join(TARGETS)}")
    return t


def _common(m: Model | Trees, doc: dict) -> dict:
    if m.full:
        doc["full"] = True
    if m.target != "score":
        doc["target"] = m.target
    doc["made"] = m.meta
    return doc


KINDS = {"linear": Model, "trees": Trees}


def from_doc(doc: dict) -> Model | Trees:
    """The model a file's JSON describes (its ``kind``: ``linear`` or ``trees``)."""
    kind = KINDS.get(doc.get("kind"))
    if kind is None:
        raise ValueError(f"unknown kind of learned model {doc.get('kind')!r}: one of {', '.join(KINDS)}")
    return kind.from_doc(doc)


def _read(name: str) -> dict:
    if "/" in name or name.startswith("."):
        return json.loads(Path(name).read_text(encoding="utf-8"))
    return json.loads(resources.files("ai.tiletum.data").joinpath(name).read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=8)
def model(name: str, features: tuple[str, ...]) -> Model | Trees:
    """The model in ``name`` (a file of ``ai/tiletum/data/``, or a path), read once per process.
    Its features must be ``features`` (the evaluation's, ``ai.tiletum.evaluate.FEATURES``), in
    order: a model fitted to other features is refused (train it again: ``tools/train_eval.py``)."""
    m = from_doc(_read(name))
    if m.names != tuple(features):
        missing = sorted(set(features) - set(m.names))
        raise ValueError(f"the learned model {name!r} was fitted to other features than the evaluation's "
                         f"(missing: {', '.join(missing) or 'none'}): train it again (tools/train_eval.py)")
    return m
