// The games played here, from the service (GET /api/v1/catalog), read asked per page: the pages'
// choices of game, the names of the games and of their rating pools, and what a score counts,
// come from it, so that a game the service hosts is on every page without an edit of the page. It is
// asked in the page's language (ASK), in which the games' declared words come.
"use strict";
window.gameCatalog = (function () {
  let asked = null;
  const none = {games: [], titles: {}, units: {}, pools: {}};
  return function () {
    if (!asked) {
      // (in the page's language: the games' declared words, their options' and automa's, are said in it)
      asked = fetch("/api/v1/catalog?lang=" + encodeURIComponent(ASK), {headers: {"Accept": "application/json"}})
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
  const parts = [];
  const played = rel.games_finished + rel.games_abandoned;
  parts.push(!played ? t("No finished game yet")
    : rel.games_abandoned ? tn("Finished {n} game and left {left}", "Finished {n} games and left {left}",
                               rel.games_finished, {left: rel.games_abandoned})
    : tn("Finished {n} game, left none", "Finished {n} games, left none", rel.games_finished));
  if (rel.stand_in_turns) parts.push(tn("the stand-in took {n} turn", "the stand-in took {n} turns", rel.stand_in_turns));
  const s = rel.median_move_seconds;
  if (s !== null && s !== undefined) {
    parts.push(s < 90 ? t("usually moves within a minute")
      : s < 5400 ? tn("usually moves within {n} minute", "usually moves within {n} minutes", Math.round(s / 60))
      : s < 129600 ? tn("usually moves within {n} hour", "usually moves within {n} hours", Math.round(s / 3600))
      : tn("usually moves within {n} day", "usually moves within {n} days", Math.round(s / 86400)));
  }
  return t("{sentence}.", {sentence: parts.join("; ")});
};
