"""GET /health: is the service up, and can it reach its Redis?"""
from __future__ import annotations

from flask.views import MethodView

from ..blueprint import Blueprint
from ..extensions import service
from ..problems import ApiError, documented
from ..schemas import Health

blp = Blueprint("health", __name__, description="Service health")


@blp.route("/health")
class HealthView(MethodView):
    @blp.doc(operationId="getHealth")
    @blp.response(200, Health, example={"status": "ok", "redis": "ok"})
    @documented(blp, 503, "storage-unavailable", "Redis is unreachable")
    def get(self):
        """Service health

        Reports whether the game store (Redis) answers.
        """
        try:
            service().store.ping()
        except Exception:  # any failure to reach Redis is "down"
            raise ApiError(503, "storage-unavailable", "Redis does not answer") from None
        return {"status": "ok", "redis": "ok"}
