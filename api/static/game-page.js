"use strict";
// What every game's page (/play/<id>: the page a game's spec names, else the generic game.html)
// shares, loaded before the page's own script, which defines render() (draw the state it is given) and may
// define more. Works only through the public REST API, like any client. A seat's token comes in
// the URL fragment (#token=...), which browsers never send to servers or in Referer headers.
const gameId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const frag = new URLSearchParams(location.hash.slice(1));
const token = frag.get("token");
const pollSeconds = Math.max(0.2, parseFloat(frag.get("poll") || "2"));
const api = "/api/v1/games/" + encodeURIComponent(gameId);
const auth = token ? {"Authorization": "Bearer " + token} : {};
// The API answers in the page's language (ASK; docs/i18n.md, "The API's language"): this fetch, which
// the page's own script calls too, says it on every request.
const fetch = (url, opts = {}) =>
  window.fetch(url, {...opts, headers: {"Accept-Language": ASK, ...(opts.headers || {})}});
const $ = id => document.getElementById(id);
// An element with attributes and children (text or elements): markup built from nodes, not HTML text.
function make(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  e.append(...kids);
  return e;
}
let etag = null, state = null, summary = null, legalVersion = null, historyAfter = 0, busy = false;
let fairnessShown = false;
let replayAt = null;   // the version the replay shows (null: the game as it stands)
let allEvents = [];  // the game's events read so far (GET /events), each with its text in words
// A spectator's last visit: the version this browser saw last time (localStorage), read once.
const seenKey = "seen:" + gameId;
let lastSeen = null;
try { lastSeen = Number(localStorage.getItem(seenKey)) || null; } catch (e) { /* storage off */ }

// Who is to act: the seats in to_act (one, or none once the game is over); `actor` is deprecated.
function actorOf(s) { return s.to_act && s.to_act.length ? s.to_act[0] : null; }

// A seat by its name, an AI seat as "Robo (AI, easy)" (application/seats.py names it so too).
function seatName(i) {
  const s = summary && summary.seats[i];
  if (!s) return t("Player {n}", {n: Number(i) + 1});
  return s.kind === "ai" ? t("{name} (AI, {level})", {name: s.name, level: s.level || "medium"}) : s.name;
}

// "A, B and C".
function andList(items) {
  return items.length < 2 ? items.join("")
    : t("{first} and {last}", {first: items.slice(0, -1).join(", "), last: items[items.length - 1]});
}

// A seat's name as a node: a link to the player's profile (/players/<handle>) where the seat's
// player has made theirs public (the summary's seat carries the handle then, and nothing else of
// the player), else the name as text.
function seatNode(i) {
  const s = summary && summary.seats[i];
  if (!s || !s.handle) return document.createTextNode(seatName(i));
  return make("a", {href: "/players/" + encodeURIComponent(s.handle), class: "profile"}, seatName(i));
}

// ``nodes`` joined as andList joins words: "A, B and C".
function andNodes(nodes) {
  const out = [];
  const [before, between, after] = t("{first} and {last}").split(/\{first\}|\{last\}/);
  nodes.forEach((n, k) => {
    if (k) out.push(k === nodes.length - 1 ? between : ", ");
    out.push(n);
  });
  if (nodes.length > 1) { out.unshift(before); out.push(after); }
  return out;
}

// The game's name and its players, as the page's heading and title: "<Game>: Ann, Bob and Robo",
// each name a link to the player's public profile where there is one.
function showTitle(gameName, suffix) {
  const seats = summary ? summary.seats.map((s, i) => i) : [];
  const text = seats.length ? t("{label}: {text}", {label: gameName, text: andList(seats.map(seatName))}) : gameName;
  // the language's colon between them (French: " : "), the names as nodes (links)
  const colon = t("{label}: {text}").replace("{label}", "").replace("{text}", "");
  // a rated game says so (its result moves the players' ratings, and it gives no hints)
  $("title").replaceChildren(gameName + (seats.length ? colon : ""), ...andNodes(seats.map(seatNode)),
                             summary && summary.rated ? " " + t("(rated)") : "");
  document.title = text + (suffix ? " (" + suffix + ")" : "");
}

// Whether the page shows the game as it stands (not a step of the replay): only then may the seat
// act, and only then does a finished game's result stand beside it.
function live() { return replayAt === null; }

// The status line's beginning: in the replay, which step it shows ("Step 12 of 80: "), so that who
// was to act then does not read as who acts now.
function stepPrefix() { return live() ? "" : t("Step {step} of {steps}: ", {step: replayAt, steps: liveVersion}); }

// The moves' section: shown to a seat while the game goes on, headed by whose turn it is (never
// "Your turn" over "Not your turn" or "The game is over"), hidden once the game is over (the
// status says so) and to spectators. Whether to show it.
function showPlaySection(mine, mineHeading, waitingHeading) {
  const show = !!token && state && state.phase !== "over";
  $("play").hidden = !show;
  if (show) $("play-h").textContent = mine ? mineHeading : waitingHeading;
  return show;
}

// A refusal in words for players (the problem's detail); its status, code and rule stay in the
// problem document for programs.
async function problemText(r) {
  try {
    const p = await r.json();
    if (r.status === 409) return t("The game moved on meanwhile: here it is as it stands now. Please choose again.");
    return p.detail || p.title || t("The server refused that.");
  } catch (e) {
    return r.status >= 500 ? t("Something went wrong on the server; please try again.") : t("The server refused that.");
  }
}

// Read the seat's view (or the public one) when it changed, and draw it with the page's render().
// One at a time: a poll asked for while one runs (the event stream, the timer, a move) makes the
// running one read again once it is done, so an older view's slow drawing (its board fetched
// later) never lands over a newer one's.
let polling = null, pollAgain = false;
async function poll() {
  if (polling) { pollAgain = true; return polling; }
  polling = (async () => {
    do { pollAgain = false; await pollOnce(); } while (pollAgain);
  })();
  try { await polling; } finally { polling = null; }
}

async function pollOnce() {
  if (busy || replayAt !== null) return;   // stepping through the history: the live game waits
  try {
    // a page in a background tab reads without looking: its player is not at the keyboard, so the
    // read does not hold their turn email back (docs/pbem.md, "No email while you play live")
    const url = api + "/state" + (token && document.hidden ? "?hidden=true" : "");
    const r = await fetch(url, {headers: {...auth, ...(etag ? {"If-None-Match": etag} : {})}, cache: "no-store"});
    if (r.status === 304) return;
    if (!r.ok) { $("status").textContent = await problemText(r); return; }
    etag = r.headers.get("ETag");
    state = await r.json();
    await render();
  } catch (e) {
    $("status").textContent = t("Cannot reach the server; retrying…");
  }
}

// The event log a page at a time (GET /events answers at most `limit` events; `more` says that
// events after `next_after` are already there).
async function showHistory() {
  const list = $("history");
  for (let pages = 0; pages < 1000; pages++) {
    const r = await fetch(api + "/events?after=" + historyAfter, {cache: "no-store"});
    if (!r.ok) return;
    const body = await r.json();
    for (const ev of body.events) {
      if (ev.version <= historyAfter) continue;
      historyAfter = ev.version;
      allEvents.push(ev);
      const li = document.createElement("li");
      li.value = ev.version;
      li.textContent = ev.text || ev.move || "";  // who did what, in words (the API names the seat)
      if (ev.move) li.title = ev.move;            // the notation, for those who read it
      list.appendChild(li);
    }
    if (!body.more || !body.events.length) break;
  }
  list.scrollTop = list.scrollHeight;
  showSince();
}

// What the others did since this seat last acted (a spectator: since this browser's last visit),
// listed at the top of the page; the page's own markOnBoard(events) shows where on the board.
function sinceEvents() {
  if (token && state && state.viewer !== null && state.viewer !== undefined) {
    let last = -1;
    allEvents.forEach((ev, i) => { if (ev.seat === state.viewer && ev.type !== "GameStarted") last = i; });
    return allEvents.slice(last + 1).filter(ev => ev.type !== "GameStarted" && ev.seat !== state.viewer);
  }
  return lastSeen ? allEvents.filter(ev => ev.version > lastSeen && ev.type !== "GameStarted") : [];
}

function showSince() {
  const evs = sinceEvents();
  const box = $("since");
  if (box) {
    box.hidden = !evs.length;
    $("since-h").textContent = token ? t("Since your last turn") : t("Since your last visit");
    const list = $("since-list");
    list.textContent = "";
    for (const ev of evs) {
      const li = document.createElement("li");
      li.textContent = ev.text || ev.move || "";
      list.appendChild(li);
    }
  }
  if (typeof markOnBoard === "function") markOnBoard(evs);
  if (!token && state) {
    try { localStorage.setItem(seenKey, String(state.version)); } catch (e) { /* storage off */ }
  }
}

async function showFairness() {
  const r = await fetch(api + "/fairness", {cache: "no-store"});
  if (!r.ok) return;
  const f = await r.json();
  if (!f.finished) return;
  fairnessShown = true;
  $("fairness-box").hidden = false;
  $("commitment").textContent = f.seed_commitment;
  $("seed").textContent = f.seed;
  $("verify").textContent = f.verify;
  let ok = "";
  if (window.crypto && crypto.subtle && window.TextEncoder) {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(f.seed));
    const hex = [...new Uint8Array(digest)].map(x => x.toString(16).padStart(2, "0")).join("");
    ok = hex === f.seed_commitment
      ? t("Checked: the secret revealed now is the one locked in at the start, so no roll or draw was changed.")
      : t("The check failed: the secret revealed now is NOT the one locked in at the start!");
  }
  $("fair-ok").textContent = ok;
}

// A finished game's review of the seat (GET /review): the five costliest decisions, each with the
// position before it in words, the move played and the AI's, its estimated loss (an estimate, at
// most what the game could give: the review's `bound`), and a link that opens the replay at that
// step with both moves drawn on the board (the page's own markMove(move, seat, cls): solid for the
// move played, dashed for the AI's) and said in words. While it is being computed (202) the page
// asks again after Retry-After; a game the review does not cover (409) shows nothing.
let reviewShown = false, reviewTimer = null, review = null;
function reviewPanel() {
  if ($("review")) return;
  const sec = make("section", {id: "review", "aria-labelledby": "review-h", hidden: ""},
                   make("h2", {id: "review-h"}, t("Your game reviewed by the AI")),
                   make("p", {id: "review-status", role: "status"}),
                   make("ol", {id: "review-list"}));
  const history = $("history").closest("section");
  history.parentNode.insertBefore(sec, history);
}

// a score in the game's unit (the catalog's score_unit: the game's word, said as the game says it)
function points(n, unit) {
  return unit === "points" ? tn("{n} point", "{n} points", n) : t("{n} {unit}", {n: Number(n).toLocaleString(LANG), unit});
}

async function showReview(seat) {
  reviewPanel();
  if (reviewShown || reviewTimer) return;
  const r = await fetch(api + "/review?seat=" + seat, {headers: auth, cache: "no-store"});
  if (r.status === 202) {
    $("review").hidden = false;
    $("review-status").textContent = t("The AI is looking at your decisions; this takes a minute or so.");
    const wait = Math.max(1, parseInt(r.headers.get("Retry-After") || "5", 10));
    reviewTimer = setTimeout(() => { reviewTimer = null; showReview(seat); }, wait * 1000);
    return;
  }
  if (!r.ok) return;
  const rv = await r.json();
  review = rv;
  reviewShown = true;
  $("review").hidden = false;
  const list = $("review-list");
  list.replaceChildren();
  if (!rv.costliest.length) {
    $("review-status").textContent = t("The AI would have played as you did at every decision it looked at.");
    return;
  }
  const unit = rv.score_unit || "VP";
  $("review-status").textContent = t("Your {n} costliest decisions of {all}, as the AI estimates them: about {lost} given away in all",
                                     {n: rv.costliest.length, all: rv.decisions.length, lost: points(rv.total_loss, unit)})
    + (rv.total_loss >= rv.bound ? " " + t("(at most {bound}, the best score of the game: the estimates overlap, so they do not add up beyond it)",
                                           {bound: points(rv.bound, unit)}) : "") + ". " + t("Each is an estimate.");
  for (const i of rv.costliest) {
    const d = rv.decisions[i];
    const li = make("li", {"data-version": String(d.version)});
    const link = make("a", {href: "#v=" + d.version, class: "review-step"}, t("See it on the board (step {step})", {step: d.version}));
    link.addEventListener("click", ev => { ev.preventDefault(); showDecision(d); });
    li.append(make("p", {}, d.position + "."),
              make("p", {}, t("You played: {played}. The AI prefers: {preferred} (an estimated {loss} more by the end).",
                              {played: d.played_words, preferred: d.preferred_words, loss: points(d.loss, unit)})),
              make("p", {}, link));
    list.appendChild(li);
  }
  if (frag.get("review")) $("review").scrollIntoView();
}

// Open the replay at a reviewed decision: the position before it, the move played and the AI's
// drawn on the board and said in words.
async function showDecision(d) {
  replayPanel();
  await replayTo(d.version);
  if (replayAt !== d.version) return;
  const unit = (review && review.score_unit) || "VP";
  const drawn = typeof markMove === "function"
    ? [markMove(d.played, review.seat, "review-played"), markMove(d.preferred, review.seat, "review-preferred")]
    : [false, false];
  const where = drawn[0] || drawn[1]
    ? " " + (drawn[1] ? t("On the board, your move is outlined in solid orange and the AI's in dashed blue.")
                      : t("On the board, your move is outlined in solid orange."))
    : "";
  $("replay-at").textContent = t("Step {step} of {steps}, before your decision: you played {played}; the AI prefers {preferred} (an estimated {loss} more by the end).",
                                 {step: d.version, steps: liveVersion, played: d.played_words, preferred: d.preferred_words,
                                  loss: points(d.loss, unit)}) + where;
  // the board's marked part in sight (a big board scrolls within its frame), else the words
  const mark = document.querySelector(".review-played, .review-preferred");
  (mark || $("replay")).scrollIntoView({block: "center", inline: "center"});
}

// A move's button: its words, and under them, small, its notation; ``before`` (if any) runs first
// on a click (a page with board choices closes the open one).
function moveButton(move, words, before) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "move";
  b.dataset.move = move;
  const w = document.createElement("span");
  w.className = "words";
  w.textContent = words;
  const mv = document.createElement("code");   // notation, marked up as such (players who type moves read it)
  mv.className = "mv notation";
  mv.textContent = move;
  b.append(w, mv);
  b.addEventListener("click", () => { if (before) before(); play(move); });
  return b;
}

// Send one move at the version the legal moves were listed at; a refusal (409 stale, 422
// illegal) is shown and the page reads the game again.
// ``move``: one move, or several played as one request (all or none: a choice made of several moves).
async function play(move) {
  if (busy) return;
  busy = true;
  let failed = false;
  const moves = Array.isArray(move) ? move : [move];
  try {
    const r = await fetch(api + "/moves", {method: "POST", headers: {...auth, "Content-Type": "application/json"},
                                           body: JSON.stringify({expected_version: legalVersion, moves})});
    if (r.ok) {
      $("move-input").value = "";
    } else {
      failed = true;
      $("error").textContent = await problemText(r);
    }
  } catch (e) {
    failed = true;
    $("error").textContent = t("The move could not be sent: {reason}", {reason: String(e)});
  } finally {
    busy = false;
  }
  if (!failed) $("error").textContent = "";
  etag = null;
  await poll();
}

// Push where the browser has EventSource: the page re-reads the game when the stream says it
// changed (docs/push.md). Polling stays as the fallback: it runs only while no stream is open
// (no EventSource, the server at its stream limit, a proxy that cuts streams).
let streaming = false, nudged = false;
function nudge() {
  if (nudged) return;
  nudged = true;
  setTimeout(() => { nudged = false; poll(); }, 50);
}
function follow() {
  if (!window.EventSource || frag.get("stream") === "0") return;  // #stream=0: polling only
  const es = new EventSource(api + "/stream?after=" + (state ? state.version : 0) + "&lang=" + ASK);
  es.onopen = () => { streaming = true; };
  es.onmessage = nudge;
  es.addEventListener("turn", nudge);
  es.addEventListener("talk", () => { if (window.talkNudge) window.talkNudge(); });   // the table talk
  es.addEventListener("end", () => { es.close(); streaming = false; nudge(); });
  es.onerror = () => {
    if (es.readyState === EventSource.CLOSED) {  // refused (e.g. 503): poll, and try again later
      streaming = false;
      setTimeout(follow, 30000);
    }  // else the browser reconnects by itself with Last-Event-ID
  };
}

// Start the page: the record and fairness links (the record saved as "<game>-<id>.txt"), the
// typed-move form, then ``first()`` (what the page loads before its first drawing, if anything),
// the first read, the stream, and polling while no stream is open.
function cap(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

// The short choice a part of the board opens when several moves act on it (a page with a board
// to click has the #choice dialog): ``items`` are [move, words]; the choice sits under the part
// (or above it, near the bottom of the screen), and closing it gives the focus back to the part.
let choiceFrom = null;
function openChoice(el, heading, items) {
  closeChoice();
  choiceFrom = el;
  el.classList.add("chosen");
  $("choice-h").textContent = heading;
  const list = $("choice-list");
  list.textContent = "";
  for (const [move, words] of items) list.appendChild(moveButton(move, words, closeChoice));
  const box = $("choice");
  box.hidden = false;
  const r = el.getBoundingClientRect(), h = box.offsetHeight, w = box.offsetWidth;
  box.style.left = Math.max(4, Math.min(innerWidth - w - 4, r.left)) + "px";
  box.style.top = (r.bottom + 6 + h < innerHeight ? r.bottom + 6 : Math.max(4, r.top - h - 6)) + "px";
  list.querySelector("button").focus();
}

function closeChoice() {
  const from = choiceFrom;
  const box = $("choice");
  if (box) box.hidden = true;
  choiceFrom = null;
  if (from) {
    from.classList.remove("chosen");
    if (document.contains(from) && box.contains(document.activeElement)) from.focus();
  }
}

if ($("choice")) {
  $("choice-close").addEventListener("click", closeChoice);
  $("choice").addEventListener("keydown", ev => { if (ev.key === "Escape") closeChoice(); });
}

// --- the replay: the game step by step (GET /state?version=N, GET /board.svg?version=N) -----------
// Each step is a version of the game: the position as this seat (or a spectator) saw it then. The
// page's own render() draws it; its moves are hidden meanwhile (body.replaying). Buttons, a slider,
// the arrow keys, and a link to the step (#v=12: no token in it, so it can be shared).
let liveVersion = 0;
function replayPanel() {
  if ($("replay")) return;
  const sec = document.createElement("section");
  sec.id = "replay";
  sec.setAttribute("aria-labelledby", "replay-h");
  sec.append(
    make("h2", {id: "replay-h"}, t("Replay")),
    make("div", {class: "replay-controls"},
         make("button", {type: "button", id: "replay-first", "aria-label": t("First step")}, t("« First")),
         make("button", {type: "button", id: "replay-prev", "aria-label": t("Previous step")}, "◀"),
         make("input", {type: "range", id: "replay-slider", min: "1", value: "1", "aria-label": t("Step")}),
         make("button", {type: "button", id: "replay-next", "aria-label": t("Next step")}, "▶"),
         make("button", {type: "button", id: "replay-live", "aria-label": t("Back to the game as it stands")}, t("Now »"))),
    make("p", {id: "replay-at", "aria-live": "polite"}),
    make("p", {}, make("a", {id: "replay-link", href: "#"}, t("Link to this step"))));
  const history = $("history").closest("section");
  history.parentNode.insertBefore(sec, history);
  $("replay-first").addEventListener("click", () => replayTo(1));
  $("replay-prev").addEventListener("click", () => replayTo((replayAt || liveVersion) - 1));
  $("replay-next").addEventListener("click", () => replayTo((replayAt || liveVersion) + 1));
  $("replay-live").addEventListener("click", () => replayTo(liveVersion));
  $("replay-slider").addEventListener("change", ev => replayTo(Number(ev.target.value)));
  addEventListener("keydown", ev => {
    const t = ev.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
    if (ev.key === "ArrowLeft") { ev.preventDefault(); replayTo((replayAt || liveVersion) - 1); }
    if (ev.key === "ArrowRight") { ev.preventDefault(); replayTo((replayAt || liveVersion) + 1); }
  });
}

function showReplayStep() {
  const at = replayAt || liveVersion;
  const slider = $("replay-slider");
  slider.max = String(liveVersion);
  slider.value = String(at);
  const ev = allEvents.find(e => e.version === at);
  const step = replayAt === null ? t("Step {step} of {steps} (now)", {step: at, steps: liveVersion})
                                 : t("Step {step} of {steps}", {step: at, steps: liveVersion});
  const said = ev ? t("{label}: {text}", {label: step, text: ev.text || ev.move || ""}) : step;
  $("replay-at").textContent = said + (/[.!?]$/.test(said) ? "" : ".");
  $("replay-link").href = location.pathname + "#v=" + at;
  $("replay-prev").disabled = at <= 1;
  $("replay-first").disabled = at <= 1;
  $("replay-next").disabled = at >= liveVersion;
  $("replay-live").disabled = replayAt === null;
  document.body.classList.toggle("replaying", replayAt !== null);
}

async function replayTo(v) {
  if (!liveVersion) return;
  v = Math.max(1, Math.min(liveVersion, Math.round(v)));
  if (v === liveVersion) {   // back to the game as it stands
    replayAt = null;
    etag = null;
    showReplayStep();
    await poll();
    return;
  }
  const r = await fetch(api + "/state?version=" + v, {headers: auth, cache: "no-store"});
  if (!r.ok) { $("error").textContent = await problemText(r); return; }
  replayAt = v;
  state = await r.json();
  showReplayStep();
  await render();
  showReplayStep();
}

// --- resign and rematch ------------------------------------------------------------------------
// A seat resigns after saying so twice (the button opens a confirmation); once the game is over a
// seat may ask for a rematch (or accept the one asked for), which starts when everyone accepted.
function tablePanel() {
  if (!token || $("table-actions")) return;
  const sec = document.createElement("section");
  sec.id = "table-actions";
  sec.setAttribute("aria-labelledby", "table-h");
  sec.append(
    make("h2", {id: "table-h"}, t("At the table")),
    make("p", {}, make("button", {type: "button", id: "resign"}, t("Resign…"))),
    make("div", {id: "resign-confirm", role: "alertdialog", "aria-labelledby": "resign-q", hidden: ""},
         make("p", {id: "resign-q"}, t("Resign this game? You cannot take it back.")),
         make("button", {type: "button", id: "resign-yes"}, t("Yes, resign")), " ",
         make("button", {type: "button", id: "resign-no"}, t("Keep playing"))),
    make("p", {}, make("button", {type: "button", id: "rematch", hidden: ""},
                      t("Play again (ask for a rematch, or accept the one asked for)"))),
    make("p", {id: "table-status", "aria-live": "polite"}));
  const history = $("history").closest("section");
  history.parentNode.insertBefore(sec, history);
  $("resign").addEventListener("click", () => {
    $("resign-confirm").hidden = false;
    $("resign-no").focus();
  });
  $("resign-no").addEventListener("click", () => { $("resign-confirm").hidden = true; $("resign").focus(); });
  $("resign-yes").addEventListener("click", async () => {
    $("resign-confirm").hidden = true;
    const r = await fetch(api + "/resign", {method: "POST", headers: auth});
    $("table-status").textContent = r.ok ? t("You resigned.") : await problemText(r);
    etag = null;
    replayAt = null;
    await poll();
  });
  $("rematch").addEventListener("click", async () => {
    const r = await fetch(api + "/rematch", {method: "POST", headers: auth});
    showRematch(r.ok ? await r.json() : null, r.ok ? "" : await problemText(r));
  });
}

function showRematch(doc, error) {
  const box = $("table-status");
  box.textContent = error || "";
  if (!doc) return;
  if (doc.new_game) {
    // the same seat token plays the rematch; a link token from an email is the old game's only
    const own = /^L\d+\./.test(token) ? "" : "#token=" + encodeURIComponent(token);
    const a = document.createElement("a");
    a.href = "/play/" + encodeURIComponent(doc.new_game) + own;
    a.textContent = t("Open the new game");
    box.append(t("Everyone accepted: the rematch has started.") + " ", a);
  } else {
    const waiting = doc.seats.filter(s => !s.accepted).map(s => s.name);
    box.textContent = t("Rematch asked for: waiting for {players}.", {players: andList(waiting)});
  }
}

// After each drawing of the live game: the replay's range, and what the seat may do at the table.
async function afterRender() {
  if (replayAt !== null || !state) return;
  liveVersion = state.version;
  replayPanel();
  showReplayStep();
  // a finished game's review of the seat, on every game's page
  if (state.phase === "over" && token && state.viewer !== null && state.viewer !== undefined) showReview(state.viewer);
  tablePanel();
  if (!$("table-actions")) return;
  const over = state.phase === "over";
  $("resign").hidden = over;
  $("rematch").hidden = !over;
  // The proposal is read only on the page the results email's rematch link opens (#rematch=1), where
  // the player comes to answer one: GET /rematch answers 404 where none was asked for, which a
  // browser logs as an error on every finished page. Elsewhere the button asks for a rematch or
  // accepts the one asked for, and its answer says who has accepted.
  if (over && !$("rematch").dataset.shown) {
    $("rematch").dataset.shown = "1";
    if (frag.get("rematch")) {   // the results email's link: the page opens at its button
      const r = await fetch(api + "/rematch", {cache: "no-store"});
      if (r.ok) showRematch(await r.json(), "");
      $("table-actions").scrollIntoView();
      $("rematch").focus();
    }
  }
}

// The emails of this game held back from the seat's address (docs/pbem.md, "Email by consent"): said
// on the page opened from an email's or the dashboard's link (a link token, L...), never to a seat
// token, which the game's creator holds too.
async function showHeldEmails() {
  // a link token is "L<seat>.<mac>" (application/links.py); a seat token may start with an L too
  if (!token || !/^L(0|[1-9][0-9]?)\./.test(token) || !$("title")) return;
  const r = await fetch(api + "/held-emails", {headers: auth, cache: "no-store"});
  if (!r.ok) return;
  const held = (await r.json()).held || [];
  if (!held.length) return;
  const kinds = [...new Set(held.map(h => h.what))];
  const why = [...new Set(held.map(h => h.why))];
  $("title").after(make("p", {id: "held-emails", class: "notice", role: "status"},
    t("We held back {emails} of this game from your email: {why}.", {emails: andList(kinds), why: why.join("; ")}) + " ",
    make("a", {href: "/me"}, t("Your dashboard")), " " + t("lists every game and every email held.")));
}

function startGamePage(game, first) {
  $("record").href = api + "/record";
  $("record").setAttribute("download", game + "-" + gameId + ".txt");
  $("fairness-link").href = api + "/fairness";
  $("type-form").addEventListener("submit", ev => {
    ev.preventDefault();
    const text = $("move-input").value.trim();
    if (text) play(text);
  });
  const drawn = render;   // the page's own drawing, then the replay's and the table's parts
  render = async function () { await drawn(); await afterRender(); };
  const step = Number(frag.get("v")) || null;   // #v=12: open the replay at step 12
  (first ? first().catch(() => {}) : Promise.resolve()).then(poll)
    .then(() => step ? replayTo(step) : null).then(follow);
  setInterval(() => { if (!streaming) poll(); }, pollSeconds * 1000);
  // While the stream is open, a seat's page reads the game (a 304 when nothing changed) once a
  // minute while it is shown: its player is looking, so no turn email goes (docs/pbem.md, "No email
  // while you play live").
  if (token) setInterval(() => { if (streaming && !document.hidden) poll(); }, 60000);
  // shown again: the player looks (a 304 when nothing changed)
  if (token) document.addEventListener("visibilitychange", () => { if (!document.hidden) poll(); });
  addEventListener("hashchange", () => location.reload());  // another seat's link pasted in
  if (token) document.body.append(make("script", {src: "/play/scripts/talk.js"}));   // the table talk
  showHeldEmails().catch(() => {});
}

// The page is shown whole once it is first drawn (render() sets body's data-version), or once it
// has an error to say, or after 6 s at the latest: nothing moves under a reader's eyes meanwhile
// (site.css, main.loading).
(function reveal() {
  const main = document.querySelector("main.loading");
  if (!main) return;
  const show = () => { main.classList.remove("loading"); main.removeAttribute("aria-busy"); watch.disconnect(); };
  const watch = new MutationObserver(() => {
    if (document.body.dataset.version || ($("error") && $("error").textContent)) show();
  });
  watch.observe(document.body, {attributes: true, attributeFilter: ["data-version"], subtree: true,
                                childList: true, characterData: true});
  setTimeout(show, 6000);
})();
