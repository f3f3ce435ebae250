"""One blueprint per domain; `register(api)` mounts them all."""

from flask_smorest import Api


def register(api: Api) -> None:
    from blueprints import analysis, clinical, health, sessions, templates, voice

    for module in (sessions, templates, analysis, clinical, health, voice):
        api.register_blueprint(module.blp)

    from blueprints import billing, organizations

    for module in (organizations, billing):
        api.register_blueprint(module.blp)
