"""Pairings for correspondence tournaments: round robin, Swiss and knockout (docs/tournaments.md).

Pure functions: no I/O, no clock; every "random" choice comes from a ``random.Random`` seeded
with a string, so the same input always gives the same tables.

Shapes. A *table* is a list of player ids in seat order (seat 1 first). A *round* is a list of
tables. A player of the field who is at no table of a round has a **bye** that round (in a
``history`` a one-seat table ``[p]`` is read as a bye too).

Table sizes (:func:`table_sizes`): with ``table_size`` 2 a round is ``n // 2`` two-player tables
and, when ``n`` is odd, one bye. With ``table_size`` 3 or 4 a round uses tables of
``table_size`` and, where the count does not divide, of ``table_size - 1`` (never fewer than 2
seats), so that as few players as possible sit out: only 5 players at 4-player tables (one bye)
need a bye at all. A field no larger than ``table_size`` plays at one table of everybody.
"""
from __future__ import annotations

import math
import random
from collections import Counter, deque
from functools import lru_cache
from itertools import combinations, permutations

__all__ = [
    "MIN_TABLE", "MAX_TABLE", "table_sizes", "byes", "pair_counts", "seat_counts", "repeat_pairs",
    "round_robin", "swiss_round", "knockout_round", "max_matching",
]

MIN_TABLE = 2   # Tiletum seats 2-4 players (solo games are not tournament games)
MAX_TABLE = 5   # Carcassonne seats five; Tiletum four (each game checks its own)
TABU_ITERS = 300
SEAT_STEPS = 1000
SWISS_KICKS = 10

Table = list[str]
Round = list[Table]


# --- shared helpers ----------------------------------------------------------------------------

def _check_size(table_size: int) -> None:
    if isinstance(table_size, bool) or not isinstance(table_size, int) or \
            not MIN_TABLE <= table_size <= MAX_TABLE:
        raise ValueError(f"table_size must be {MIN_TABLE}..{MAX_TABLE}, not {table_size!r}")


def _check_players(players: list[str]) -> None:
    if len(set(players)) != len(players):
        dup = sorted(p for p, c in Counter(players).items() if c > 1)
        raise ValueError(f"duplicate players: {dup}")


def table_sizes(n: int, table_size: int) -> list[int]:
    """The table sizes of one round for ``n`` players, largest first; ``n - sum(...)`` players
    have a bye. Fewest byes first, then as many full tables as possible."""
    _check_size(table_size)
    if n < MIN_TABLE:
        return []
    if n <= table_size:
        return [n]
    k = table_size
    if k == 2:
        return [2] * (n // 2)
    for spare in range(k):              # fewest byes ...
        m = n - spare
        for short in range(k):          # ... then fewest short tables (k short tables = k-1 full ones)
            rest = m - short * (k - 1)
            if rest >= 0 and rest % k == 0:
                return [k] * (rest // k) + [k - 1] * short
    raise AssertionError("unreachable")  # spare = n mod k with short = 0 always fits


def byes(players: list[str], tables: Round) -> list[str]:
    """The players of ``players`` (in that order) who have no table in ``tables`` or sit alone."""
    seated = {p for t in tables if len(t) >= 2 for p in t}
    return [p for p in players if p not in seated]


def pair_counts(rounds: list[Round]) -> Counter:
    """How many times each pair (a frozenset of two ids) shared a table."""
    c: Counter = Counter()
    for rnd in rounds:
        for t in rnd:
            for a, b in combinations(t, 2):
                c[frozenset((a, b))] += 1
    return c


def seat_counts(rounds: list[Round]) -> dict[str, Counter]:
    """Per player, how many times they sat in each seat (0 = first seat); one-seat tables skipped."""
    out: dict[str, Counter] = {}
    for rnd in rounds:
        for t in rnd:
            if len(t) < 2:
                continue
            for s, p in enumerate(t):
                out.setdefault(p, Counter())[s] += 1
    return out


def repeat_pairs(tables: Round, history: list[Round]) -> int:
    """How many pairs at ``tables`` already shared a table in ``history``."""
    met = pair_counts(history)
    return sum(1 for t in tables for a, b in combinations(t, 2) if met[frozenset((a, b))])


# --- maximum matching (Edmonds' blossom algorithm) ------------------------------------------------

def max_matching(n: int, adj: list[set[int]] | list[list[int]]) -> list[int]:
    """A maximum-cardinality matching of a general graph on vertices ``0..n-1`` (Edmonds' blossom
    algorithm, O(n^3)). Returns ``match`` with ``match[v]`` the partner of ``v`` or -1."""
    match = [-1] * n
    for v in range(n):                   # greedy start
        if match[v] == -1:
            for u in adj[v]:
                if match[u] == -1 and u != v:
                    match[v], match[u] = u, v
                    break

    def augment(root: int) -> bool:
        parent = [-1] * n
        base = list(range(n))
        used = [False] * n
        used[root] = True
        queue = deque([root])

        def lca(a: int, b: int) -> int:
            seen = [False] * n
            while True:
                a = base[a]
                seen[a] = True
                if match[a] == -1:
                    break
                a = parent[match[a]]
            while True:
                b = base[b]
                if seen[b]:
                    return b
                b = parent[match[b]]

        def mark(v: int, b: int, child: int, blossom: list[bool]) -> None:
            while base[v] != b:
                blossom[base[v]] = blossom[base[match[v]]] = True
                parent[v] = child
                child = match[v]
                v = parent[match[v]]

        while queue:
            v = queue.popleft()
            for to in adj[v]:
                if base[v] == base[to] or match[v] == to:
                    continue
                if to == root or (match[to] != -1 and parent[match[to]] != -1):
                    cur = lca(v, to)
                    blossom = [False] * n
                    mark(v, cur, to, blossom)
                    mark(to, cur, v, blossom)
                    for i in range(n):
                        if blossom[base[i]]:
                            base[i] = cur
                            if not used[i]:
                                used[i] = True
                                queue.append(i)
                elif parent[to] == -1:
                    parent[to] = v
                    if match[to] == -1:        # augmenting path root .. v - to
                        while to != -1:
                            pv = parent[to]
                            nxt = match[pv]
                            match[to], match[pv] = pv, to
                            to = nxt
                        return True
                    used[match[to]] = True
                    queue.append(match[to])
        return False

    for v in range(n):
        if match[v] == -1:
            augment(v)
    return match


# --- seat balancing --------------------------------------------------------------------------

def _seat_delta(cnt: dict[int, int], old: int | None, new: int,
                neighbours: tuple[int | None, ...]) -> tuple[int, int]:
    """Cost change (count part, same-seat-as-neighbour part) of a player moving from seat ``old``
    (None: not seated yet) to seat ``new``; the count part is the change of sum(count^2)."""
    if old == new:
        return 0, 0
    d = 2 * cnt.get(new, 0) + 1
    streak = sum(1 for s in neighbours if s == new)
    if old is not None:
        d += -2 * cnt.get(old, 0) + 1
        streak -= sum(1 for s in neighbours if s == old)
    return d, streak


def _balance_rounds(rounds: list[list[list[int]]], n: int, rng: random.Random) -> None:
    """Reorder the seats of every table of a whole schedule (in place) so that each player's seat
    counts are as even as possible (minimum sum of squared counts), then so that a player rarely
    has the same seat in consecutive games: a chronological greedy pass, seeded simulated
    annealing on swaps of two seats at a table (stopping once every player's counts are even),
    then improving passes (each table takes its best seat order given all the others) until
    nothing improves."""
    pos: list[list[int | None]] = [[None] * len(rounds) for _ in range(n)]
    cnt: list[dict[int, int]] = [dict() for _ in range(n)]
    games: list[list[int]] = [[] for _ in range(n)]       # rounds each player plays
    for r, rnd in enumerate(rounds):
        for t in rnd:
            for p in t:
                games[p].append(r)
    prev_next: dict[tuple[int, int], tuple[int | None, int | None]] = {}
    for p in range(n):
        g = games[p]
        for i, r in enumerate(g):
            prev_next[p, r] = (g[i - 1] if i else None, g[i + 1] if i + 1 < len(g) else None)

    def neighbours(p: int, r: int, chronological: bool) -> tuple[int | None, ...]:
        a, b = prev_next[p, r]
        out = [pos[p][a] if a is not None else None]
        if not chronological:
            out.append(pos[p][b] if b is not None else None)
        return tuple(out)

    def best_order(r: int, t: list[int], chronological: bool) -> tuple[list[int], int, int]:
        current = tuple(t)
        best, best_cost = current, (0, 0)
        for perm in permutations(current):
            if perm == current:
                continue
            dc = ds = 0
            for s, p in enumerate(perm):
                a, b = _seat_delta(cnt[p], pos[p][r], s, neighbours(p, r, chronological))
                dc += a
                ds += b
            if (dc, ds) < best_cost:
                best, best_cost = perm, (dc, ds)
        return list(best), best_cost[0], best_cost[1]

    def place(r: int, t: list[int], order: list[int]) -> None:
        for p in t:
            s = pos[p][r]
            if s is not None:
                cnt[p][s] -= 1
        for s, p in enumerate(order):
            pos[p][r] = s
            cnt[p][s] = cnt[p].get(s, 0) + 1
        t[:] = order

    # chronological greedy: each table in turn, given the rounds before it
    for r, rnd in enumerate(rounds):
        for t in rnd:
            options = []
            for perm in permutations(t):
                dc = ds = 0
                for s, p in enumerate(perm):
                    a, b = _seat_delta(cnt[p], None, s, neighbours(p, r, True))
                    dc += a
                    ds += b
                options.append(((dc, ds), perm))
            low = min(c for c, _ in options)
            choices = [perm for c, perm in options if c == low]
            place(r, t, list(choices[rng.randrange(len(choices))]))
    # simulated annealing on swaps of two seats at one table (seeded), keeping the best
    tables = [(r, t) for r, rnd in enumerate(rounds) for t in rnd]
    BIG = 4 * len(rounds) + 1                  # count evenness dominates the same-seat streaks

    def total() -> int:
        c = sum(v * v for d in cnt for v in d.values()) * BIG
        for p in range(n):
            g = games[p]
            c += sum(1 for a, b in zip(g, g[1:]) if pos[p][a] == pos[p][b])
        return c

    cur = total()
    best, best_pos = cur, [[(r, list(t)) for r, t in tables]]
    uniform = len({len(t) for _, t in tables}) == 1
    steps = (SEAT_STEPS if uniform else SEAT_STEPS // 3) * len(tables)
    # the count part cannot go below every player spreading evenly over the seats of their
    # largest table: stop the annealing once it is there (streaks are left to the passes below)
    widest = [max((len(t) for r in games[p] for t in rounds[r] if p in t), default=1) for p in range(n)]
    floor = BIG * sum(_ideal_sq(len(games[p]), widest[p]) for p in range(n))
    for step in range(steps):
        if best < floor + BIG:
            break
        r, t = tables[rng.randrange(len(tables))]
        i, j = rng.sample(range(len(t)), 2)
        a, b = t[i], t[j]
        da, sa = _seat_delta(cnt[a], i, j, neighbours(a, r, False))
        db, sb = _seat_delta(cnt[b], j, i, neighbours(b, r, False))
        d = (da + db) * BIG + sa + sb
        temp = 3.0 * BIG * (1 - step / steps) + 1e-9
        if d <= 0 or rng.random() < math.exp(-d / temp):
            order = list(t)
            order[i], order[j] = b, a
            place(r, t, order)
            cur += d
            if cur < best:
                best, best_pos = cur, [[(r2, list(t2)) for r2, t2 in tables]]
    if steps:
        for (r, t), (_, order) in zip(tables, best_pos[0]):
            place(r, t, order)
    # improving passes
    for _ in range(50):
        improved = False
        for r, rnd in enumerate(rounds):
            for t in rnd:
                order, dc, ds = best_order(r, t, False)
                if (dc, ds) < (0, 0):
                    place(r, t, order)
                    improved = True
        if not improved:
            break


# --- round robin -------------------------------------------------------------------------------

def _rr_rounds(n: int, k: int) -> int:
    """Rounds of a grouped round robin: enough table-sharings for every pair to meet once
    (and every player to meet everybody once), then more until the byes are spread equally."""
    sizes = table_sizes(n, k)
    spare = n - sum(sizes)
    pairs = sum(s * (s - 1) // 2 for s in sizes)
    r = max(math.ceil(n * (n - 1) / 2 / pairs), math.ceil((n - 1) / (max(sizes) - 1)))
    while spare and (r * spare) % n:
        r += 1
    return r


def _ideal_sq(total: int, slots: int) -> int:
    """The least sum of squares of ``slots`` non-negative integers summing to ``total``."""
    q, rem = divmod(total, slots)
    return (slots - rem) * q * q + rem * (q + 1) * (q + 1)


@lru_cache(maxsize=None)
def _rr_schedule(n: int, k: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """The schedule on player indices 0..n-1 (see :func:`round_robin`)."""
    rng = random.Random(f"tiletum-round-robin:{n}:{k}")
    if n < MIN_TABLE:
        return ((),)
    if n <= k:
        return ((tuple(range(n)),),)
    if k == 2:
        return _circle(n)
    rounds = _grouped_schedule(n, k, rng)
    _balance_rounds(rounds, n, rng)
    return tuple(tuple(tuple(t) for t in rnd) for rnd in rounds)


def _circle(n: int) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """The circle method in its modular form (the rotation of the polygon written as arithmetic):
    with ``m = n - 1`` (n even; the last index is the pivot) or ``m = n`` (n odd; the pivot is the
    bye), in round ``r`` player ``i < m`` meets ``j = (r - i) mod m``, and the one player with
    ``2i = r (mod m)`` meets the pivot (or has the bye). Every pair meets exactly once, in round
    ``i + j mod m``. Seats: ``i`` sits first against ``j`` when ``(j - i) mod m`` is odd; as
    ``r`` grows that difference grows by one, so each player alternates first and second seat,
    with one break where it wraps round (none for an odd field, where the bye falls exactly
    there); the pivot sits first in the even rounds. Every player's first-seat count is half of
    their games, rounded either way."""
    m = n - 1 if n % 2 == 0 else n
    rounds = []
    for r in range(m):
        tables = []
        for i in range(m):
            j = (r - i) % m
            if j == i:
                if n % 2 == 0:
                    tables.append((n - 1, i) if r % 2 == 0 else (i, n - 1))
            elif i < j:
                tables.append((i, j) if (j - i) % m % 2 == 1 else (j, i))
        tables.sort(key=min)
        rounds.append(tuple(tables))
    return tuple(rounds)


def _grouped_schedule(n: int, k: int, rng: random.Random) -> list[list[list[int]]]:
    """Round robin at 3-4 player tables. Byes in a fixed rotation (round ``r`` gives them to
    indices ``r*b .. r*b+b-1 mod n``, so each player has the same number). Start: each round
    greedily, players in seeded random order, each to the table where they have met the fewest.
    Then a tabu search on swaps of two players between tables of one round. The cost, compared
    in this order: the sum of squared pair counts (even pair counts), the sum of their 4th
    powers (of equally even schedules, the one with fewer extremes: 0..2 before 0..3), the sum
    of squared short-table counts (short tables shared out evenly). It stops at the ideal (every
    pair count ``q`` or ``q + 1`` and short tables even) or after ``TABU_ITERS`` iterations."""
    sizes = table_sizes(n, k)
    spare = n - sum(sizes)
    R = _rr_rounds(n, k)
    short = [s < max(sizes) for s in sizes]
    W = n * R * R + 1                      # pair evenness dominates short-table evenness
    K = (n * (n - 1) // 2) * (R + 1) ** 4 + 1

    def pair_cost(c: int) -> int:          # sum of squares first, then sum of 4th powers (fewer extremes)
        return c * c * K + c ** 4

    up = [pair_cost(c + 1) - pair_cost(c) for c in range(R + 2)]
    down = [0] + [pair_cost(c - 1) - pair_cost(c) for c in range(1, R + 2)]
    rounds: list[list[list[int]]] = []
    cnt = [[0] * n for _ in range(n)]
    shorts = [0] * n
    for r in range(R):                     # greedy start: players in random order, each to the cheapest table
        out = {(r * spare + j) % n for j in range(spare)}
        active = [p for p in range(n) if p not in out]
        rng.shuffle(active)
        tables: list[list[int]] = [[] for _ in sizes]
        for p in active:
            best = min((sum(cnt[p][q] for q in tables[i]) * W + (shorts[p] if short[i] else 0), i)
                       for i in range(len(sizes)) if len(tables[i]) < sizes[i])[1]
            for q in tables[best]:
                cnt[p][q] += 1
                cnt[q][p] += 1
            tables[best].append(p)
            if short[best]:
                shorts[p] += 1
        rounds.append(tables)

    def cost() -> int:
        pair = sum(pair_cost(cnt[a][b]) for a in range(n) for b in range(a + 1, n))
        return pair * W + sum(s * s for s in shorts)

    pairs_total = R * sum(s * (s - 1) // 2 for s in sizes)
    short_total = R * sum(s for s, f in zip(sizes, short) if f)
    q, rem = divmod(pairs_total, n * (n - 1) // 2)
    even = (n * (n - 1) // 2 - rem) * pair_cost(q) + rem * pair_cost(q + 1)
    ideal = even * W + _ideal_sq(short_total, n)
    cur = cost()
    if cur == ideal or len(sizes) < 2:
        return rounds
    best, best_rounds = cur, [[list(t) for t in rnd] for rnd in rounds]

    def delta(r: int, ia: int, a: int, ib: int, b: int) -> int:
        A, B = rounds[r][ia], rounds[r][ib]
        d = 0
        for x in A:
            if x != a:
                d += down[cnt[a][x]] + up[cnt[b][x]]
        for y in B:
            if y != b:
                d += down[cnt[b][y]] + up[cnt[a][y]]
        d *= W
        if short[ia] != short[ib]:          # a moves to ib's kind of table, b to ia's
            sa = shorts[a] + (1 if short[ib] else -1)
            sb = shorts[b] + (1 if short[ia] else -1)
            d += sa * sa - shorts[a] ** 2 + sb * sb - shorts[b] ** 2
        return d

    def swap(r: int, ia: int, a: int, ib: int, b: int) -> None:
        A, B = rounds[r][ia], rounds[r][ib]
        for x in A:
            if x != a:
                cnt[a][x] -= 1; cnt[x][a] -= 1; cnt[b][x] += 1; cnt[x][b] += 1  # noqa: E702
        for y in B:
            if y != b:
                cnt[b][y] -= 1; cnt[y][b] -= 1; cnt[a][y] += 1; cnt[y][a] += 1  # noqa: E702
        if short[ia] != short[ib]:
            shorts[a] += 1 if short[ib] else -1
            shorts[b] += 1 if short[ia] else -1
        A[A.index(a)] = b
        B[B.index(b)] = a

    # tabu search: each iteration makes the best swap (over all rounds) that moves a player out of
    # a table where they meet someone more often than the average allows; recently moved players
    # stay put for a few iterations unless the move beats the best schedule so far
    sq = short_total // n
    tabu: dict[tuple[int, int], int] = {}
    for it in range(1, TABU_ITERS + 1):
        move = None
        for r in range(R):
            tables = rounds[r]
            for ia, A in enumerate(tables):
                for a in A:
                    if not any(cnt[a][x] > q for x in A if x != a) and not (short[ia] and shorts[a] > sq):
                        continue
                    a_tabu = tabu.get((r, a), 0) > it
                    for ib, B in enumerate(tables):
                        if ib == ia:
                            continue
                        for b in B:
                            d = delta(r, ia, a, ib, b)
                            if (a_tabu or tabu.get((r, b), 0) > it) and cur + d >= best:
                                continue
                            key = (d, rng.random())
                            if move is None or key < move[0]:
                                move = (key, r, ia, a, ib, b)
        if move is None:
            break
        (d, _), r, ia, a, ib, b = move
        swap(r, ia, a, ib, b)
        cur += d
        tabu[r, a] = it + rng.randint(2, 2 + n // 2)
        tabu[r, b] = it + rng.randint(2, 2 + n // 2)
        if cur < best:
            best, best_rounds = cur, [[list(t) for t in rnd] for rnd in rounds]
            if best == ideal:
                break
    return best_rounds


def round_robin(players: list[str], table_size: int) -> list[list[list[str]]]:
    """The rounds of a round robin (rounds -> tables -> seats in seat order).

    ``table_size`` 2: the circle method (:func:`_circle`): ``n - 1`` rounds for an even field,
    ``n`` for an odd one with one bye a round (each player exactly one); every pair meets exactly
    once; first and second seat alternate.

    ``table_size`` 3 or 4 (grouped round robin): every round uses the tables of
    :func:`table_sizes`; the rounds are the fewest that give every pair the chance to meet (at
    least ``C(n,2) / pairs-per-round`` and ``(n-1) / (table_size-1)``), extended until byes, if
    any, fall equally (5 players at 4-player tables: 5 rounds, one bye each). Byes rotate through
    the field in order; the groups are then searched (seeded tabu search on swaps, see
    :func:`_grouped_schedule`) for the most even pair counts (least sum of squared counts), then
    the most even share of short tables. Balanced designs are found where they exist and the
    search reaches them (e.g. Kirkman triple systems of 9 and 15, the 16-player 4-table design);
    otherwise a few pairs meet 0 or 2 times (docs/tournaments.md lists every field to 30).

    Seats: every table's seat order is chosen for the whole schedule so that each player's seat
    counts are as even as possible, and a player seldom keeps the same seat two games running.

    Deterministic: the schedule depends only on the number of players and ``table_size``, and
    ``players[i]`` takes the place of index ``i``.
    """
    _check_size(table_size)
    _check_players(players)
    sched = _rr_schedule(len(players), table_size)
    return [[[players[i] for i in t] for t in rnd] for rnd in sched]


# --- Swiss -----------------------------------------------------------------------------------

def _met(history: list[Round]) -> Counter:
    return pair_counts([[t for t in rnd if len(t) >= 2] for rnd in history])


def _byes_so_far(field: list[str], history: list[Round]) -> Counter:
    c: Counter = Counter()
    for rnd in history:
        seated = {p for t in rnd if len(t) >= 2 for p in t}
        for p in field:
            if p not in seated:
                c[p] += 1
    return c


def _repeats_floor(rest: list[str], met: Counter) -> int:
    """The fewest repeated pairs any 2-player pairing of ``rest`` (even length) must have:
    ``n/2 - (maximum matching of the never-met pairs)``, because the players a matching leaves
    over can always be paired among themselves as repeats."""
    m = len(rest)
    local = {p: i for i, p in enumerate(rest)}
    adj = [[local[q] for q in rest if q != p and not met[frozenset((p, q))]] for p in rest]
    match = max_matching(m, adj)
    return m // 2 - sum(1 for v in match if v != -1) // 2


def _pair_two(order: list[str], met: Counter) -> tuple[list[list[str]], int]:
    """Two-player tables for ``order`` (even length, best first) with the fewest repeated pairs,
    exactly (:func:`_repeats_floor`); among those, top-down, each highest unpaired player takes
    the best-ranked opponent that keeps that minimum reachable (checked with a matching): the
    standings-order backtracking search, with an exact feasibility test in place of blind
    backtracking, so it never needs to undo a choice."""
    idx = {p: i for i, p in enumerate(order)}
    target = _repeats_floor(order, met)
    tables, repeats = [], 0
    rest = list(order)
    while rest:
        top = rest[0]
        for opp in rest[1:]:
            r = 1 if met[frozenset((top, opp))] else 0
            if repeats + r > target:
                continue
            left = [p for p in rest if p not in (top, opp)]
            if repeats + r + (_repeats_floor(left, met) if left else 0) == target:
                tables.append([top, opp])
                repeats += r
                rest = left
                break
        else:  # pragma: no cover - the target is always reachable
            raise AssertionError("no pairing reaches the computed minimum")
    tables.sort(key=lambda t: idx[t[0]])
    return tables, repeats


def _pair_groups(order: list[str], sizes: list[int], met: Counter, rng: random.Random) -> list[list[str]]:
    """Tables of 3-4 (``sizes``, largest first, so short tables are at the bottom) for ``order``
    (best first): greedy then repair. Cost, compared in order: pairs that met before, total
    earlier meetings of the seated pairs, standings spread (sum over tables of the rank distance
    between their best and worst player). Greedy: each table takes the best unseated player, then
    repeatedly the best-ranked candidate adding the fewest repeats. Repair: swaps of two players
    between tables while they lower the cost, plus seeded random kicks (iterated local search)."""
    rank = {p: i for i, p in enumerate(order)}

    def table_cost(t: list[str]) -> tuple[int, int, int]:
        rep = tot = 0
        for a, b in combinations(t, 2):
            m = met[frozenset((a, b))]
            if m:
                rep += 1
                tot += m
        rs = [rank[p] for p in t]
        return rep, tot, max(rs) - min(rs)

    def add(x: tuple, y: tuple) -> tuple:
        return tuple(a + b for a, b in zip(x, y))

    def total(ts: list[list[str]]) -> tuple[int, int, int]:
        out = (0, 0, 0)
        for t in ts:
            out = add(out, table_cost(t))
        return out

    # greedy
    left = list(order)
    tables: list[list[str]] = []
    for size in sizes:
        t = [left.pop(0)]
        while len(t) < size:
            best = min(left, key=lambda c: (sum(1 for p in t if met[frozenset((p, c))]), rank[c]))
            left.remove(best)
            t.append(best)
        tables.append(t)

    def local_search(ts: list[list[str]]) -> None:
        costs = [table_cost(t) for t in ts]
        improved = True
        while improved:
            improved = False
            for i, j in combinations(range(len(ts)), 2):
                for x in range(len(ts[i])):
                    for y in range(len(ts[j])):
                        before = add(costs[i], costs[j])
                        ti, tj = list(ts[i]), list(ts[j])
                        ti[x], tj[y] = tj[y], ti[x]
                        ci, cj = table_cost(ti), table_cost(tj)
                        if add(ci, cj) < before:
                            ts[i], ts[j], costs[i], costs[j] = ti, tj, ci, cj
                            improved = True

    local_search(tables)
    best, best_cost = [list(t) for t in tables], total(tables)
    if len(tables) > 1 and best_cost[0] > 0:
        stale = 0
        while stale < SWISS_KICKS * len(tables):
            ts = [list(t) for t in best]
            for _ in range(2):            # kick: two random swaps
                i, j = rng.sample(range(len(ts)), 2)
                a, b = rng.randrange(len(ts[i])), rng.randrange(len(ts[j]))
                ts[i][a], ts[j][b] = ts[j][b], ts[i][a]
            local_search(ts)
            c = total(ts)
            stale += 1
            if c < best_cost:
                best, best_cost, stale = ts, c, 0
                if c[0] == 0:
                    break
    for t in best:
        t.sort(key=rank.__getitem__)
    best.sort(key=lambda t: rank[t[0]])
    return best


def _seat_tables(tables: list[list[str]], history: list[Round], rng: random.Random) -> list[list[str]]:
    """Seat orders for new tables given the history: each table takes the order with the lowest
    sum of the players' earlier counts in their new seats (a player often first goes later), then
    the fewest players in the same seat as in their last game; remaining ties by the seed."""
    counts = seat_counts(history)
    last: dict[str, int] = {}
    for rnd in history:
        for t in rnd:
            if len(t) >= 2:
                for s, p in enumerate(t):
                    last[p] = s
    out = []
    for t in tables:
        options = []
        for perm in permutations(t):
            c = sum(counts.get(p, Counter())[s] for s, p in enumerate(perm))
            same = sum(1 for s, p in enumerate(perm) if last.get(p) == s)
            options.append(((c, same), perm))
        low = min(c for c, _ in options)
        choices = [perm for c, perm in options if c == low]
        out.append(list(choices[rng.randrange(len(choices))]))
    return out


def swiss_round(players: list[str], standings_order: list[str], history: list[list[list[str]]],
                table_size: int, rng_seed: str) -> list[list[str]]:
    """The tables of the next Swiss round.

    ``players``: the field of this round (withdrawn players left out); ``standings_order``: the
    current standings, best first (players of the field missing from it go to the bottom in
    ``players`` order); ``history``: the earlier rounds (tables in seat order; absence from a
    round, or a one-seat table, counts as a bye).

    Byes: with 2-player tables and an odd field, one bye, to the lowest-ranked player without a
    bye so far (everybody has had one: among those with the fewest) - among those, the
    lowest-ranked whose bye still allows the fewest repeated pairs. With 3-4 player tables the
    sizes of :func:`table_sizes` (short tables of ``table_size - 1``; a bye only for 5 players at
    4-player tables), the bye to the lowest-ranked player without one.

    Tables: 2-player: the fewest repeated opponents, exactly (maximum matching), and among those
    the pairing that seats neighbours in the standings (top-down: each best unpaired player
    against the next best allowed). 3-4 players: greedy + repair minimising repeated pairs, then
    standings spread; short tables go to the bottom of the standings. Seats: see
    :func:`_seat_tables`. Deterministic given ``rng_seed``.
    """
    _check_size(table_size)
    _check_players(players)
    field = set(players)
    order = [p for p in dict.fromkeys(standings_order) if p in field] + \
            [p for p in players if p not in set(standings_order)]
    rng = random.Random(f"tiletum-swiss:{rng_seed}:{len(history)}")
    n = len(order)
    if n < MIN_TABLE:
        return []
    met = _met(history)
    had = _byes_so_far(order, history)
    sizes = table_sizes(n, table_size)
    spare = n - sum(sizes)
    if table_size == 2:
        if spare:
            fewest = min(had[p] for p in order)
            candidates = [p for p in reversed(order) if had[p] == fewest]
            floors = [(_repeats_floor([p for p in order if p != c], met), i)
                      for i, c in enumerate(candidates)]
            bye = candidates[min(floors)[1]]
            tables, _ = _pair_two([p for p in order if p != bye], met)
        else:
            tables, _ = _pair_two(order, met)
    else:
        out: list[str] = []
        for _ in range(spare):
            fewest = min(had[p] for p in order if p not in out)
            out.append(next(p for p in reversed(order) if p not in out and had[p] == fewest))
        rest = [p for p in order if p not in out]
        if len(sizes) == 1:
            tables = [rest]
        else:
            tables = _pair_groups(rest, sizes, met, rng)
    return _seat_tables(tables, history, rng)


# --- knockout --------------------------------------------------------------------------------

def knockout_round(players_in_order: list[str], table_size: int) -> list[list[str]]:
    """Tables of a knockout round, the players given in seed order (seed 1 first; re-seeded by
    the caller each round). 2-player tables: 1 v N, 2 v N-1, ...; with an odd count seed 1 has a
    bye. 3-4 player tables: the sizes of :func:`table_sizes` with any byes to the top seeds and
    the short tables (one opponent fewer) to the best seeds; seeds are dealt to the tables
    serpentine-wise (1, 2, .., T, T, .., 2, 1, 1, 2, ..), which is 1 v N for two seats. Each
    table is seated in seed order (the better seed sits first)."""
    _check_size(table_size)
    _check_players(players_in_order)
    n = len(players_in_order)
    sizes = table_sizes(n, table_size)
    if not sizes:
        return []
    spare = n - sum(sizes)
    seeds = list(players_in_order[spare:])       # the top ``spare`` seeds have byes
    caps = sorted(sizes)                          # short tables first: to the best seeds
    T = len(caps)
    tables: list[list[str]] = [[] for _ in caps]
    path = list(range(T)) + list(range(T - 1, -1, -1))
    step = 0
    for p in seeds:
        while True:
            i = path[step % len(path)]
            step += 1
            if len(tables[i]) < caps[i]:
                tables[i].append(p)
                break
    return tables
