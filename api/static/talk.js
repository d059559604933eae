"use strict";
// The table talk of a game page: the seats' messages beside the history, for a seat's
// page only (spectators read nothing). Loaded by game-page.js; uses its `api`, `auth`, `token`,
// `make`, `$` and `problemText`. Words are shown as text (textContent), never as HTML or links.
// New messages (after the last one this browser showed this seat) are marked "new". Who is muted
// shows under the list, each with an "Unmute" button; one button mutes or unmutes the whole game.
(function () {
  const seenKey = "talk:" + gameId + ":" + (token || "").slice(-12);
  // `gen` counts the list's resets (a mute or unmute reads it again from the start): a read that
  // began before one drops what it fetched and reads again, so an answer to a muted list never
  // lands in an unmuted one; a read asked for while one runs (`again`) runs after it
  let after = 0, lastSeen = 0, seats = [], muted = {all: false, seats: []}, loading = false;
  let gen = 0, again = false;
  try { lastSeen = Number(localStorage.getItem(seenKey)) || 0; } catch (e) { /* storage off */ }

  function panel() {
    if ($("talk")) return;
    const sec = make("section", {id: "talk", "aria-labelledby": "talk-h"},
      make("h2", {id: "talk-h"}, t("Table talk") + " ", make("span", {id: "talk-new", class: "talk-new", hidden: ""})),
      make("ol", {id: "talk-list", tabindex: "0", "aria-live": "polite", "aria-labelledby": "talk-h"}),
      make("form", {id: "talk-form"},
        make("label", {for: "talk-text"}, t("Your message to the table")),
        make("textarea", {id: "talk-text", rows: "2", maxlength: "1000", autocomplete: "off"}),
        make("button", {type: "submit"}, t("Send"))),
      make("p", {id: "talk-status", role: "status"}),
      make("div", {id: "talk-muted", hidden: ""},
        make("h3", {id: "talk-muted-h"}, t("Muted")),
        make("ul", {id: "talk-muted-list", "aria-labelledby": "talk-muted-h"})),
      make("p", {}, make("button", {type: "button", id: "talk-mute-all", "aria-pressed": "false"},
                         t("Mute this game's messages"))));
    const history = $("history").closest("section");
    history.parentNode.insertBefore(sec, history.nextSibling);
    $("talk-form").addEventListener("submit", async ev => {
      ev.preventDefault();
      const text = $("talk-text").value.trim();
      if (!text) return;
      const r = await fetch(api + "/messages", {method: "POST", headers: {...auth, "Content-Type": "application/json"},
                                                body: JSON.stringify({text})});
      if (r.ok) { $("talk-text").value = ""; $("talk-status").textContent = t("Sent."); await read(); }
      else $("talk-status").textContent = await problemText(r);
    });
    $("talk-mute-all").addEventListener("click", () => mute({all: !muted.all}, "talk-mute-all"));
    $("talk-list").addEventListener("focus", markSeen);
  }

  // a seat by its name (game-page.js's seatName, once the game is read)
  function nameOf(i) {
    return typeof seatName === "function" ? seatName(i) : t("Player {n}", {n: Number(i) + 1});
  }

  // save what is muted; then focus goes to `focusId` (the button that undoes it), as the one
  // pressed may be gone from the page
  async function mute(body, focusId) {
    const r = await fetch(api + "/messages/mute", {method: "PUT", headers: {...auth, "Content-Type": "application/json"},
                                                   body: JSON.stringify(body)});
    $("talk-status").textContent = r.ok ? t("Saved.") : await problemText(r);
    if (r.ok) {
      muted = await r.json();
      showMuted();
      gen += 1; after = 0; $("talk-list").replaceChildren(); await read();
      if (focusId && $(focusId)) $(focusId).focus();
    }
  }

  function showMuted() {
    const all = $("talk-mute-all");
    all.textContent = muted.all ? t("Unmute this game's messages") : t("Mute this game's messages");
    all.setAttribute("aria-pressed", String(muted.all));
    $("talk-muted-list").replaceChildren(...muted.seats.map(seat => {
      const name = nameOf(seat);
      const b = make("button", {type: "button", id: "talk-unmute-" + seat}, t("Unmute {name}", {name}));
      b.addEventListener("click", () => mute({seats: muted.seats.filter(s => s !== seat)}, "talk-mute-all"));
      return make("li", {}, name + " ", b);
    }));
    $("talk-muted").hidden = !muted.seats.length;
  }

  function markSeen() {
    $("talk-new").hidden = true;
    try { localStorage.setItem(seenKey, String(after)); } catch (e) { /* storage off */ }
  }

  function item(m) {
    const li = make("li", {"data-id": String(m.id)}, make("b", {}, m.name), ": ", m.text);
    if (!m.mine && m.id > lastSeen) { li.classList.add("new"); li.prepend(make("span", {class: "talk-new"}, t("new")), " "); }
    if (!m.mine) {
      const muteB = make("button", {type: "button"}, t("Mute {name}", {name: m.name}));
      muteB.addEventListener("click", () => mute({seats: Array.from(new Set([...muted.seats, m.seat]))},
                                                 "talk-unmute-" + m.seat));
      const report = make("button", {type: "button"}, t("Report"));
      report.addEventListener("click", async () => {
        const r = await fetch(api + "/messages/" + m.id + "/report", {method: "POST",
          headers: {...auth, "Content-Type": "application/json"}, body: "{}"});
        $("talk-status").textContent = r.ok ? t("Reported: the operator will look at it.") : await problemText(r);
      });
      li.append(muteB, report);
    }
    return li;
  }

  async function read() {
    if (loading) { again = true; return; }
    loading = true;
    try {
      do {
        again = false;
        const mine = gen;
        let more = true, fresh = 0;
        while (more) {
          const r = await fetch(api + "/messages?after=" + after, {headers: auth, cache: "no-store"});
          const page = r.ok ? await r.json() : null;
          if (gen !== mine) { again = true; break; }   // the list was reset meanwhile: read it again
          if (!page) { if (r.status === 401 || r.status === 403) $("talk").hidden = true; return; }
          muted = page.muted;
          showMuted();
          for (const m of page.messages) {
            $("talk-list").append(item(m));
            if (!m.mine && m.id > lastSeen) fresh += 1;
          }
          after = page.last;
          more = page.more;
          $("talk-form").hidden = !page.open;
        }
        if (fresh) { $("talk-new").textContent = tn("{n} new", "{n} new", fresh); $("talk-new").hidden = false; }
      } while (again);
      const list = $("talk-list");
      list.scrollTop = list.scrollHeight;
    } finally { loading = false; }
  }

  window.talkNudge = () => { if (token) read(); };
  if (!token) return;
  panel();
  read();
  setInterval(() => { if (!document.hidden) read(); }, 30000);   // the stream ends with the game
})();
