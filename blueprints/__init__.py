"""One blueprint per domain; `register(api)` mounts them all."""

from flask_smorest import Api


def register(api: Api) -> None:
    from blueprints import (
        analysis,
        billing,
        clinical,
        health,
        organizations,
        sessions,
        templates,
        voice,
        workflows,
    )

    for module in (sessions, templates, analysis, clinical, health, voice, workflows,
                   organizations, billing):
        api.register_blueprint(module.blp)
