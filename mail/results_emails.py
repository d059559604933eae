"""The results email: every player told, once, how a game ended."""
from __future__ import annotations


from application.notifications import preference
from application.resigned import final_places, resigned_of
from application.seats import seat_names

from .compose import consent_lines, one_line, simple_email, thread_subject
from .notify_base import Mailer, chosen, email_game


class ResultsEmails(Mailer):
    """The results of a finished game, to every player, once."""

    def _results(self, game_id: str, meta: dict, state) -> int:
        sent = 0
        game = email_game(meta)
        names = seat_names(meta)
        scores = game.scores(state)
        lines = [f"  {names[i]}: {v} {game.score_unit}" for i,
                 v in sorted(enumerate(scores), key=lambda x: -x[1])]
        # by the game's own tie-break (Tiletum's decides one winner), the seats that resigned last
        resigned = resigned_of(self.service.store.events(game_id))
        places = final_places(game.places(state), resigned)
        top = [one_line(names[i]) for i, place in enumerate(places) if place == 1]
        outcome = f"{top[0]} wins" if len(top) == 1 else f"{' and '.join(top)} share the victory"
        all_lines = lines
        # a rematch (application/together.py) is offered to the seats of a game that has one
        rematch = not any(s["kind"] == "bot" or s.get("former") for s in meta["seats"])
        for seat, info in enumerate(meta["seats"]):
            email = info.get("email")
            if info["kind"] != "human" or preference(self.r, email) == "none":
                continue
            first = self.first_email(email)
            pending = self.stranger(email)
            if pending:   # nothing another person wrote (docs/pbem.md, "Email by consent")
                shown = self.neutral_names(names, seat)
                lines = [f"  {shown[i]}: {v} {game.score_unit}" for i, v in
                         sorted(enumerate(scores), key=lambda x: -x[1])]
                top_n = [shown[i] for i, place in enumerate(places) if place == 1]
                outcome_n = (f"{top_n[0]} win" + ("" if top_n[0] == "you" else "s") if len(top_n) == 1
                             else f"{' and '.join(top_n)} share the victory")
            else:
                shown, lines, outcome_n = names, all_lines, outcome
            stop = ("\n".join(consent_lines(email, game.title, self.consent_urls(email))) if pending
                    else f"Unsubscribe (one click, every email from us): {self.unsubscribe_url(email)}")
            page = self.open_url(game_id, seat)
            # the game page shows the seat's review (GET /review, docs/ai.md "Game review") and,
            # with review=1 in the fragment, opens at it
            review = (["Your decisions reviewed by the AI (the costliest five, with what it would have "
                       "played):",
                       f"{page}&review=1", ""] if game.review else [])
            round_end = [] if pending else game.email_round_end(state, seat, names)   # the last round's end
            body = ([f"Hello {'there' if pending else names[seat]},", "",
                     "the game is over. The final scores:"]
                    + lines
                    + (["", " ".join(f"{one_line(shown[i])} resigned." for i in resigned)] if resigned
                       else [])
                    + (["", *round_end] if round_end else [])
                    + ["", f"The final position: {page}", ""] + review
                    # the game page as the seat, at its "Play again" button (game-page.js)
                    + (["Play again with the same players (a rematch; it starts once everyone has "
                        "accepted):", f"{page}&rematch=1", ""] if rematch else [])
                    + ["The game's record to download and the fairness check of every draw are on the "
                       "game's page too.", ""]
                    + self.dashboard_lines(email, first)
                    + ["", stop])
            msg = simple_email(subject=thread_subject(game.title, shown, seat, game_id),
                               from_addr=self.cfg.from_addr, to_addr=email, lines=body,
                               headline=f"Game over: {outcome_n}.")
            sent += self.send_once(f"final:{game_id}:{seat}", email, msg, first, game_id=game_id, seat=seat,
                                   own_game=chosen(meta))
        return sent
