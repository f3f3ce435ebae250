"""The baseline: a Flask hello-world served under the same gunicorn.conf.py as the service."""

from flask import Flask


def create_app() -> Flask:
    app = Flask(__name__)

    @app.get("/")
    def hello() -> str:
        return "hello"

    @app.post("/")
    def echo() -> tuple[str, int]:
        return "created", 201

    return app
