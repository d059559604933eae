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
