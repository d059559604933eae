"""GET /health: is the service up: its Redis, the parts this deployment has (api/parts.py), and
whether outbound SMTP is failing (status ``degraded``: the service works, its emails wait)."""
from __future__ import annotations

from flask.views import MethodView

from tablepost.i18n import said

from ..blueprint import Blueprint
from ..extensions import parts, service
from ..problems import ApiError, documented
from ..schemas.common import Health

blp = Blueprint("health", __name__, description="Service health")


@blp.route("/health")
class HealthView(MethodView):
    @blp.doc(operationId="getHealth")
    @blp.response(200, Health, example={"status": "ok", "redis": "ok", "smtp": "ok",
                                        "parts": {"worker:email": "ok", "worker:sweeps": "ok",
                                                  "worker:seats": "ok", "worker:stand-in": "ok",
                                                  "mailin": "ok", "scheduler": "ok"}})
    @documented(blp, 503, "storage-unavailable", "Redis is unreachable")
    @documented(blp, 503, "part-down", "a part of the service is down (`parts` says which)")
    def get(self):
        """Service health

        Reports whether the game store (Redis) answers and, where this deployment has them, the
        Celery workers (a ping over the broker), the inbound SMTP listener (its greeting) and the
        scheduler (its sweeps' heartbeat: `down` when none ran for 3 intervals, `starting` just
        after the API started). 503 when any of them is down. Outbound SMTP (`smtp`) is
        `failing` when deliveries have failed for want of the SMTP server for a while and emails
        wait: then the status is `degraded`, still 200 (games go on; their emails are retried).
        """
        try:
            service().store.ping()
        except Exception:  # any failure to reach Redis is "down"
            raise ApiError(503, "storage-unavailable", "Redis does not answer") from None
        states, smtp = parts().check(), parts().smtp()
        down = sorted(k for k, v in states.items() if v == "down")
        if down:
            raise ApiError(503, "part-down", said("down: {parts}", parts=", ".join(down)),
                           headers={"Retry-After": "5"},
                           redis="ok", smtp=smtp, parts=states)
        out = {"status": "ok" if smtp == "ok" else "degraded", "redis": "ok", "smtp": smtp}
        if states:
            out["parts"] = states
        return out
