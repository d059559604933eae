"""One registration (games/registry.py, games/spec.py): the hosted games are the specs the installed
distributions register under the entry point group ``tablepost.games``, checked as they load; a bad
registration stops the service with the game and its distribution named."""
from __future__ import annotations

from importlib import metadata

import pytest

import games
from games import registry
from games.spec import GROUP, GameSpec, resolve


@pytest.fixture
def fresh_registry(monkeypatch):
    """A registry that loads again, from the entry points the test gives (then the real one back)."""
    monkeypatch.setattr(registry, "_specs", None)
    yield monkeypatch
    monkeypatch.undo()
    registry._specs = None
    registry.specs()


def entry(name: str, value: str) -> metadata.EntryPoint:
    return metadata.EntryPoint(name=name, value=value, group=GROUP)


def test_the_hosted_games_are_those_the_installed_distributions_register():
    eps = {ep.name: ep.value for ep in metadata.entry_points(group=GROUP)}
    assert set(eps) == set(games.NAMES) >= {"tiletum", "carcassonne", "pillars"}
    for name, spec in games.specs().items():
        assert isinstance(spec, GameSpec) and spec.name == name
        assert games.get(name) is spec.game is games.spec_of(name).game
        assert spec.problems() == []
    assert list(games.NAMES) == sorted(games.NAMES)
    # the capitals name a hosted game (tools and tests): the registry's object, nothing of its own
    assert games.TILETUM is games.get("tiletum")
    with pytest.raises(AttributeError):
        games.NOT_A_GAME  # noqa: B018


def test_every_part_a_spec_names_resolves_to_what_it_says():
    for spec in games.specs().values():
        if spec.evaluation is not None:
            assert callable(spec.part("evaluation"))
        if spec.chances is not None:
            assert callable(spec.part("chances"))
        if spec.ai is not None:
            assert callable(spec.part("ai").decide)
            if spec.game.review:
                assert callable(spec.part("ai").review)
        if spec.position_schema is not None:
            schema = spec.part("position_schema")
            assert schema().fields["format"].validate.choices == [spec.game.position_format]
        if spec.page is not None:
            assert "<html" in spec.page_text()
        for level in spec.ai_levels.values():
            assert isinstance(level, tuple) and 2 <= len(level) <= 3


def test_references_are_module_and_attribute():
    assert resolve("games.spec:GameSpec") is GameSpec
    assert resolve(len) is len
    for bad in ("games.spec", ":GameSpec", "games.spec:"):
        with pytest.raises(ValueError, match="module:attribute"):
            resolve(bad)
    with pytest.raises(ValueError, match="no part"):
        games.spec_of("tiletum").part("game")


def test_a_game_that_cannot_be_loaded_is_named_with_its_error(fresh_registry):
    good = [ep for ep in metadata.entry_points(group=GROUP)]
    fresh_registry.setattr(registry, "_entry_points",
                           lambda: good + [entry("broken", "no_such_module_anywhere:SPEC")])
    with pytest.raises(registry.RegistryError, match=r"the game 'broken' .*cannot be loaded: "
                                                     r"ModuleNotFoundError"):
        registry.specs()


@pytest.mark.parametrize("value, message", [
    ("games.spec:GROUP", "names str, not a GameSpec"),
    ("games.carcassonne:SPEC", "registers a game named 'carcassonne'"),
])
def test_an_entry_point_must_name_its_game_s_spec(fresh_registry, value, message):
    fresh_registry.setattr(registry, "_entry_points", lambda: [entry("chess", value)])
    with pytest.raises(registry.RegistryError, match=message):
        registry.specs()


def test_no_game_registered_says_how_to_install(fresh_registry):
    fresh_registry.setattr(registry, "_entry_points", lambda: [])
    with pytest.raises(registry.RegistryError, match="no game is registered.*make .venv/.installed"):
        registry.specs()


class _Renamed:
    """A hosted game under another name (and whatever else a test changes), for the checks."""

    def __init__(self, game, **changes):
        self._game, self._changes = game, changes

    def __getattr__(self, attr):
        return self._changes[attr] if attr in self._changes else getattr(self._game, attr)


@pytest.mark.parametrize("changes, problem", [
    ({"name": "Bad Name"}, "a game's name is"),
    ({"name": "x" * 40}, "a game's name is"),
    ({"name": "toy", "min_players": 3, "max_players": 2}, "min_players <= max_players"),
    ({"name": "toy", "phases": ("play",)}, "phases end with 'over'"),
])
def test_a_spec_the_service_cannot_host_is_refused(changes, problem):
    spec = GameSpec(game=_Renamed(games.CARCASSONNE, **changes), evaluation="ai.carcassonne:value")
    assert any(problem in p for p in spec.problems())
    with pytest.raises(registry.RegistryError, match="cannot be hosted"):
        games.register(spec)
    assert spec.name not in games.NAMES


def test_ai_seats_need_an_evaluation_or_an_ai_of_the_game_s_own():
    game = _Renamed(games.CARCASSONNE, name="toy")
    assert any("AI seats need" in p for p in GameSpec(game=game).problems())
    assert GameSpec(game=game, evaluation="ai.carcassonne:value").problems() == []
    assert GameSpec(game=_Renamed(game, seat_kinds=("human",))).problems() == []


def test_a_game_registered_in_process_is_hosted_until_it_is_unregistered():
    toy = GameSpec(game=_Renamed(games.CARCASSONNE, name="toy-tiles"), evaluation="ai.carcassonne:value")
    games.register(toy)
    try:
        assert "toy-tiles" in games.NAMES and games.get("toy-tiles") is toy.game
        assert games.TOY_TILES is toy.game
        with pytest.raises(registry.RegistryError, match="already hosted"):
            games.register(GameSpec(game=_Renamed(games.PILLARS, name="toy-tiles"),
                                    evaluation="ai.pillars:value"))
    finally:
        games.unregister("toy-tiles")
    assert "toy-tiles" not in games.NAMES
    with pytest.raises(games.UnknownGame, match="unknown game 'toy-tiles'"):
        games.get("toy-tiles")
