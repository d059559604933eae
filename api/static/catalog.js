// The games played here, from the service (GET /api/v1/catalog), read asked per page: the pages'
// choices of game, the names of the games and of their rating pools, and what a score counts,
// come from it, so that a game the service hosts is on every page without an edit of the page.
"use strict";
window.gameCatalog = (function () {
  let asked = null;
  const none = {games: [], titles: {}, units: {}, pools: {}};
  return function () {
    if (!asked) {
      asked = fetch("/api/v1/catalog", {headers: {"Accept": "application/json"}})
        .then(r => r.ok ? r.json() : Promise.reject(new Error("no catalog")))
        .then(d => ({
          games: d.games,
          titles: Object.fromEntries(d.games.map(g => [g.name, g.title])),
          units: Object.fromEntries(d.games.map(g => [g.name, g.score_unit])),
          pools: Object.fromEntries(d.games.flatMap(g => g.pools.map(p => [p.pool, p.title])))}))
        .catch(() => { asked = null; return none; });   // the next call asks again
    }
    return asked;
  };
})();

// How reliably a player plays (a public profile's `reliability`, the lobby's `joined[].reliability`),
// in words: "Finished 12 games and left 1; the stand-in took 3 turns; usually moves within 2 hours."
window.reliabilityWords = function (rel) {
  if (!rel) return "";
  const n = (k, one, many) => k + " " + (k === 1 ? one : many);
  const parts = [];
  const played = rel.games_finished + rel.games_abandoned;
  parts.push(played ? "Finished " + n(rel.games_finished, "game", "games")
                      + (rel.games_abandoned ? " and left " + rel.games_abandoned : ", left none")
                    : "No finished game yet");
  if (rel.stand_in_turns) parts.push("the stand-in took " + n(rel.stand_in_turns, "turn", "turns"));
  const s = rel.median_move_seconds;
  if (s !== null && s !== undefined) {
    const within = s < 90 ? "a minute" : s < 5400 ? n(Math.round(s / 60), "minute", "minutes")
      : s < 129600 ? n(Math.round(s / 3600), "hour", "hours") : n(Math.round(s / 86400), "day", "days");
    parts.push("usually moves within " + within);
  }
  return parts.join("; ") + ".";
};
