"""One blueprint per domain; `register(api)` mounts them all."""

from flask_smorest import Api


def register(api: Api) -> None:
    from blueprints import analysis, clinical, health, sessions, templates, workflows

    for module in (sessions, templates, analysis, clinical, health, workflows):
        api.register_blueprint(module.blp)
