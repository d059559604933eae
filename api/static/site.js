// The site's script on the game pages (api/pages.py puts it in at <!--site-footer-->). A seat
// link whose token the service does not accept (mistyped, cut short, or replaced by a newer link)
// gets a message in words with the ways to a link that works, in the site's layout, instead of
// the game page's error. Works only through the public REST API; the token stays in the fragment.
"use strict";
(function () {
  const token = new URLSearchParams(location.hash.slice(1)).get("token");
  if (!token) return;
  const id = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
  const watch = "/play/" + encodeURIComponent(id);

  function el(tag, text, attrs) {
    const e = document.createElement(tag);
    if (text) e.textContent = text;
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    return e;
  }

  function badLink() {
    if (document.body.classList.contains("site-bad-link")) return;
    for (const m of document.querySelectorAll("main")) m.removeAttribute("id");  // the skip link's target is this one
    const main = el("main", "", {id: "main", class: "site-main site-problem", "aria-labelledby": "bad-link-h"});
    const card = el("section", "", {class: "card problem"});
    card.append(el("h1", t("This link to your seat no longer works"), {id: "bad-link-h"}),
                el("p", t("The secret part of the link (after #token=) is not one this game knows: it may be "
                          + "mistyped or cut short, or a newer link to your seat has replaced it.")),
                el("p", t("To get a link that works:")));
    const ways = el("ul");
    const dash = el("li");
    const [before, after] = t("open the game from {your_games}, your own page, whose link is in every email we send you;")
      .split("{your_games}");
    dash.append(before, el("a", t("Your games"), {href: "/me"}), after || "");
    ways.append(el("li", t("open the game from your latest email about it (every turn email has your link);")),
                dash, el("li", t("or ask the player who created the game: they were given every seat's link.")));
    const actions = el("p", "", {class: "actions"});
    actions.append(el("a", t("Watch the game without a seat"), {href: watch, class: "btn btn-primary"}),
                   el("a", t("Home"), {href: "/", class: "btn"}));
    card.append(ways, actions);
    main.appendChild(card);
    const header = document.querySelector(".site-header");
    header.after(main);
    document.body.classList.add("site-bad-link");
    document.title = t("This link no longer works · Table Post");
  }

  fetch("/api/v1/games/" + encodeURIComponent(id) + "/legal-moves",
        {headers: {"Authorization": "Bearer " + token, "Accept": "application/json"}, cache: "no-store"})
    .then(r => { if (r.status === 401) badLink(); })
    .catch(() => {});  // the game page says when the server cannot be reached
})();
