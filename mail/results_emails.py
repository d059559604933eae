"""The results email: every player told, once, how a game ended."""
from __future__ import annotations


import games
from application.notifications import preference
from application.resigned import final_places, resigned_of
from application.seats import seat_names

from .compose import consent_lines, hello, one_line, simple_email, thread_subject, unsubscribe_line
from .notify_base import Mailer, chosen, email_game


class ResultsEmails(Mailer):
    """The results of a finished game, to every player, once."""

    def _results(self, game_id: str, meta: dict, state) -> int:
        sent = 0
        game = email_game(meta)
        names = seat_names(meta)
        scores = game.scores(state)
        ranked = sorted(enumerate(scores), key=lambda x: -x[1])
        # by the game's own tie-break (Tiletum's decides one winner), the seats that resigned last
        resigned = resigned_of(self.service.store.events(game_id))
        places = final_places(game.places(state), resigned)
        # a rematch (application/together.py) is offered to the seats of a game that has one
        rematch = not any(s["kind"] == "bot" or s.get("former") for s in meta["seats"])
        for seat, info in enumerate(meta["seats"]):
            email = info.get("email")
            if info["kind"] != "human" or preference(self.r, email) == "none":
                continue
            tr, _tz = self.voice(email, info)
            first = self.first_email(email)
            pending = self.stranger(email)
            # to an address that has not accepted, nothing another person wrote (docs/pbem.md,
            # "Email by consent"): "you", "Player 2"
            shown = self.neutral_names(names, seat, tr) if pending else names
            in_lang = games.in_language(game, tr.lang)   # the game's own words in the recipient's language
            unit = games.score_words(game, tr.lang)
            lines = ["  " + tr._("{name}: {score} {unit}", name=shown[i], score=v, unit=unit)
                     for i, v in ranked]
            top = [(i, one_line(shown[i])) for i, place in enumerate(places) if place == 1]
            if len(top) == 1:
                outcome = (tr._("you win") if pending and top[0][0] == seat
                           else tr._("{name} wins", name=top[0][1]))
            else:
                outcome = tr._("{names} share the victory", names=tr.list([n for _, n in top]))
            title = games.title_in(game, tr.lang)
            stop = ("\n".join(consent_lines(email, title, self.consent_urls(email), tr)) if pending
                    else unsubscribe_line(self.unsubscribe_url(email), tr))
            page = self.open_url(game_id, seat, lang=tr.lang)
            # the game page shows the seat's review (GET /review, docs/ai.md "Game review") and,
            # with review=1 in the fragment, opens at it
            review = ([tr._("Your decisions reviewed by the AI (the costliest five, with what it would have "
                            "played):"),
                       f"{page}&review=1", ""] if game.review else [])
            # the last round's end
            round_end = [] if pending else game.email_round_end(state, seat, names, **in_lang)
            body = ([hello(tr._("there") if pending else names[seat], tr), "",
                     tr._("the game is over. The final scores:")]
                    + lines
                    + (["", " ".join(tr._("{name} resigned.", name=one_line(shown[i])) for i in resigned)]
                       if resigned else [])
                    + (["", *round_end] if round_end else [])
                    + ["", tr._("The final position: {url}", url=page), ""] + review
                    # the game page as the seat, at its "Play again" button (game-page.js)
                    + ([tr._("Play again with the same players (a rematch; it starts once everyone has "
                             "accepted):"), f"{page}&rematch=1", ""] if rematch else [])
                    + [tr._("The game's record to download and the fairness check of every draw are on the "
                            "game's page too."), ""]
                    + self.dashboard_lines(email, first, tr)
                    + ["", stop])
            msg = simple_email(subject=thread_subject(title, shown, seat, game_id, tr),
                               from_addr=self.cfg.from_addr, to_addr=email, lines=body,
                               headline=tr._("Game over: {outcome}.", outcome=outcome), lang=tr.lang)
            sent += self.send_once(f"final:{game_id}:{seat}", email, msg, first, game_id=game_id, seat=seat,
                                   own_game=chosen(meta))
        return sent
