"""Public health check (no token, no PHI)."""

from flask.views import MethodView
from flask_smorest import abort

from jobs.redis_conn import get_redis
from schemas.health import HealthSchema
from services.health import check_health
from web.api import API_VERSION, PUBLIC
from web.blueprint import Blueprint

blp = Blueprint("health", __name__, url_prefix="/api/voice/webhook",
                description="Service health.")


@blp.route("/health")
class Health(MethodView):
    @blp.doc(security=PUBLIC)
    @blp.response(200, HealthSchema)
    @blp.alt_response(503, schema=HealthSchema, description="A dependency is down")
    def get(self):
        """Service, database and Redis status"""
        report = check_health(get_redis(), API_VERSION)
        if report["status"] != "ok":
            abort(503, message="A dependency is unavailable.", errors={"health": report})
        return report
