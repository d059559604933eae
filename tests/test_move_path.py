"""The move path (issue 15): a process that holds a game at the version a move is made at decides
it from what it holds and appends in one Redis round trip; the append itself checks the stream's
version and the meta's generation, so another process's move or a revoked token is never
trusted stale."""
from __future__ import annotations

import pytest

import tiletum
from application.credentials import Credentials
from application.dashboard import Dashboard
from application.errors import ServiceError
from application.game_service import GameService
from application.store import EventStore


def evalsha_calls(r) -> int:
    return r.info("commandstats").get("cmdstat_evalsha", {}).get("calls", 0)


def two_processes(redis_client):
    """Two GameService objects on one Redis: what two API processes are (the scripts already
    loaded, as in a running service, so a call is one EVALSHA)."""
    from application.store import APPEND, LOAD_FOR
    for script in (APPEND, LOAD_FOR):
        redis_client.script_load(script)
    return (GameService(EventStore(redis_client), allow_seeded_games=True),
            GameService(EventStore(redis_client), allow_seeded_games=True))


def new_game(svc, seed):
    created = svc.create_game([{"name": "A"}, {"name": "B"}], {"seed": seed}, game="tiletum")
    return created["id"], [s["token"] for s in created["seats"]]


def next_move(svc, gid):
    _, state = svc.load(gid)
    legal = tiletum.legal_moves(state)
    return state, ("end" if "end" in legal else legal[0])


def test_a_move_on_a_game_this_process_holds_is_one_round_trip(redis_client):
    a, _ = two_processes(redis_client)
    gid, tokens = new_game(a, "one-trip")
    state, move = next_move(a, gid)                       # a load: the process now holds the game
    before = evalsha_calls(redis_client)
    answer = a.submit(gid, tokens[state.actor], state.version, [move])
    assert evalsha_calls(redis_client) - before == 1, "the append alone: no load before it"
    state2 = tiletum.play(state, state.actor, move, seed="one-trip")[1]
    assert answer["version"] == state2.version
    # the next move, from the state the append left in the process: one round trip again
    legal = tiletum.legal_moves(state2)
    before = evalsha_calls(redis_client)
    a.submit(gid, tokens[state2.actor], state2.version, ["end" if "end" in legal else legal[0]])
    assert evalsha_calls(redis_client) - before == 1


def test_a_move_made_by_another_process_is_never_trusted_stale(redis_client):
    a, b = two_processes(redis_client)
    gid, tokens = new_game(a, "two-procs")
    state, move = next_move(a, gid)
    b.submit(gid, tokens[state.actor], state.version, [move])       # b moves; a still holds the old version
    with pytest.raises(ServiceError) as e:                          # a client that missed it, via a
        a.submit(gid, tokens[state.actor], state.version, [move])   # a's cached state at that version
    assert e.value.code == "version-conflict"
    _, now = a.load(gid)
    assert now.version == state.version + 1


def test_a_token_revoked_in_another_process_is_refused_at_once(redis_client):
    a, b = two_processes(redis_client)
    gid, tokens = new_game(a, "revoked")
    state, move = next_move(a, gid)
    seat = state.actor
    fresh = Credentials(b, Dashboard(b)).new_seat_token(gid, seat, tokens[seat])["token"]
    versions = a.store.version(gid)
    with pytest.raises(ServiceError) as e:                          # a holds the game and the old meta
        a.submit(gid, tokens[seat], state.version, [move])
    assert e.value.kind == "unauthorized"
    assert a.store.version(gid) == versions, "nothing was appended with the revoked token"
    assert a.submit(gid, fresh, state.version, [move])["version"] == state.version + 1


def test_a_replayed_request_through_the_fast_path_gets_the_first_answer(redis_client):
    a, b = two_processes(redis_client)
    gid, tokens = new_game(a, "idem-fast")
    state, move = next_move(a, gid)
    first = b.submit(gid, tokens[state.actor], state.version, [move], idem_key="k1")
    # a holds the old version
    again = a.submit(gid, tokens[state.actor], state.version, [move], idem_key="k1")
    assert again == first
    assert a.store.version(gid) == state.version + 1
