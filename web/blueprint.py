"""The API's blueprint: flask-smorest's, with each argument schema built once."""

from __future__ import annotations

from typing import Any

import flask_smorest
import marshmallow as ma
from webargs.flaskparser import FlaskParser


class SchemaReusingParser(FlaskParser):
    """webargs builds a new instance of a schema class for every request it parses (a few
    hundred microseconds for a create body). Marshmallow 4 schemas keep no per-call state,
    so one instance per class serves every request and thread."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._instances: dict[type[ma.Schema], ma.Schema] = {}

    def _get_schema(self, argmap: Any, req: Any) -> ma.Schema:
        if isinstance(argmap, type) and issubclass(argmap, ma.Schema):
            schema = self._instances.get(argmap)
            if schema is None:
                schema = self._instances[argmap] = argmap()
            return schema
        return super()._get_schema(argmap, req)


class Blueprint(flask_smorest.Blueprint):
    ARGUMENTS_PARSER = SchemaReusingParser()
