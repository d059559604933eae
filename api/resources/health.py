"""GET /health: is the service up: its Redis, and the parts this deployment has (api/parts.py)."""
from __future__ import annotations

from flask.views import MethodView

from ..blueprint import Blueprint
from ..extensions import parts, service
from ..problems import ApiError, documented
from ..schemas import Health

blp = Blueprint("health", __name__, description="Service health")


@blp.route("/health")
class HealthView(MethodView):
    @blp.doc(operationId="getHealth")
    @blp.response(200, Health, example={"status": "ok", "redis": "ok",
                                        "parts": {"worker:tiletum": "ok", "worker:cardinalbot": "ok", "mailin": "ok"}})
    @documented(blp, 503, "storage-unavailable", "Redis is unreachable")
    @documented(blp, 503, "part-down", "a part of the service is down (`parts` says which)")
    def get(self):
        """Service health

        Reports whether the game store (Redis) answers and, where this deployment has them, the
        Celery workers (a ping over the broker) and the inbound SMTP listener (its greeting).
        503 when any of them is down.
        """
        try:
            service().store.ping()
        except Exception:  # any failure to reach Redis is "down"
            raise ApiError(503, "storage-unavailable", "Redis does not answer") from None
        states = parts().check()
        down = sorted(k for k, v in states.items() if v != "ok")
        if down:
            raise ApiError(503, "part-down", f"down: {', '.join(down)}", headers={"Retry-After": "5"},
                           redis="ok", parts=states)
        out = {"status": "ok", "redis": "ok"}
        if states:
            out["parts"] = states
        return out
