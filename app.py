"""Application factory: `flask --app app …` and `gunicorn 'app:create_app()'`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

import config as config_module


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app: config → logging → database → queue → api → cli."""
    import cli
    from blueprints import register
    from jobs import queue, redis_conn
    from models.base import db, release_connections
    from models.migrations import migrate
    from services.templates import ensure_builtin_templates
    from web import api as web_api
    from web import (
        content,
        dashboard,
        database,
        json_output,
        limits,
        logs,
        routing,
        security_headers,
    )

    app = Flask(__name__, instance_relative_config=False)
    try:
        settings = config_module.build(config)
    except config_module.ConfigError as error:
        # One line naming the variable, not a traceback through the factory.
        raise SystemExit(f"Configuration error: {error}") from None
    app.config.from_mapping(settings)
    app.config["MAX_CONTENT_LENGTH"] = int(app.config["MAX_CONTENT_LENGTH"])
    json_output.init_app(app)
    security_headers.init_app(app)
    routing.init_app(app)
    proxies = int(app.config["PROXY_FIX_X_FOR"])
    if proxies:
        # Client address for audit rows and per-IP limits from the trusted proxies' headers.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies)

    logs.init_app(app)
    database.init_app(app)
    redis_conn.init_app(app)
    queue.init_app(app)
    content.init_app(app)
    limits.init_app(app)
    register(web_api.init_app(app))
    dashboard.init_app(app)
    cli.init_app(app)

    if app.config.get("AUTO_MIGRATE", True):
        # A fresh database works without `flask init-db` being run by hand.
        with db.connection_context():
            # Kept for `flask init-db`, which reports what was applied.
            app.extensions["migrations_applied"] = migrate(seed=ensure_builtin_templates)
    # Nothing opened here may be inherited by processes forked from this one (gunicorn
    # --preload workers): each opens its own connections on first use.
    release_connections()
    return app
