"""Workflow definitions: the graph's rules, checked on save so that a run never meets a
dangling edge.

A definition is `{"start": node_id, "nodes": [{"id", "type", "config", "next"}]}`. The graph is
acyclic: every node runs at most once per execution, which is what lets a completed node be
recognised (and skipped) when its job is delivered twice.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from typing import Any

from services.workflows.conditions import predicate_problems

NODE_TYPES = ("analyze_session", "llm", "condition", "approval", "ehr_sync", "webhook", "set",
              "end")
MAX_NODES = 50
# A definition written out as JSON: 50 nodes with long prompts fit; a 3 MB `set` value, which
# every trace entry's state snapshot then repeated, does not.
MAX_DEFINITION_BYTES = 256 * 1024
MAX_PROMPT_CHARS = 20_000
NODE_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,63}$")
RESERVED_IDS = ("input",)
EVENT_NAME = re.compile(r"^[a-z][a-z0-9_.-]{0,99}$")
# The voice intake's events: a clinic's receiver trusts them as the intake's own.
RESERVED_EVENT_PREFIXES = ("intake.",)
# Fields every workflow event carries itself: the envelope, and where it came from.
RESERVED_EVENT_FIELDS = frozenset({"event", "event_id", "occurred_at", "execution_id",
                                   "workflow_id"})
# Each node type's configuration keys: another key is a typo ("onReject") that would change
# nothing silently.
CONFIG_KEYS = {
    "analyze_session": {"transcript_path", "session_id_path"},
    "llm": {"prompt", "input_path"},
    "condition": {"when", "then", "else"},
    "approval": {"title", "on_reject"},
    "ehr_sync": {"analysis_path"},
    "webhook": {"event", "fields"},
    "set": {"values"},
    "end": set(),
}

Problems = dict[str, list[str]]


def nodes_by_id(definition: Mapping[str, Any]) -> dict[str, dict]:
    return {node["id"]: node for node in definition["nodes"]}


def edges(node: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """(field, target) for every edge leaving a node: `next`, branches and `on_reject`."""
    config = node.get("config") or {}
    if node.get("next") is not None:
        yield "next", node["next"]
    if node.get("type") == "condition":
        for branch in ("then", "else"):
            if config.get(branch) is not None:
                yield f"config.{branch}", config[branch]
    if node.get("type") == "approval" and config.get("on_reject") is not None:
        yield "config.on_reject", config["on_reject"]


def _optional_str(config: Mapping, key: str, problems: list[str], max_chars: int = 200) -> None:
    value = config.get(key)
    if value is not None and (not isinstance(value, str) or not value.strip()
                              or len(value) > max_chars):
        problems.append(f"'{key}' is a non-empty string of at most {max_chars} characters.")


def _config_problems(node: Mapping[str, Any]) -> list[str]:
    config = node.get("config") or {}
    if not isinstance(config, Mapping):
        return ["'config' is an object."]
    problems: list[str] = []
    kind = node.get("type")
    unknown = set(config) - CONFIG_KEYS.get(kind, set())
    if unknown:
        known = ", ".join(sorted(CONFIG_KEYS.get(kind, set()))) or "none"
        problems.append(f"Unknown config keys: {', '.join(sorted(map(str, unknown)))} "
                        f"(a '{kind}' node takes: {known}).")
    if kind == "condition":
        problems += predicate_problems(config.get("when"))
        if config.get("then") is None and config.get("else") is None:
            problems.append("A condition needs 'then' and/or 'else'.")
    elif kind == "llm":
        prompt = config.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip() or len(prompt) > MAX_PROMPT_CHARS:
            problems.append(f"'prompt' is a non-empty string (≤ {MAX_PROMPT_CHARS} chars).")
        _optional_str(config, "input_path", problems)
    elif kind == "analyze_session":
        _optional_str(config, "transcript_path", problems)
        _optional_str(config, "session_id_path", problems)
    elif kind == "approval":
        _optional_str(config, "title", problems, 300)
    elif kind == "ehr_sync":
        _optional_str(config, "analysis_path", problems)
    elif kind == "webhook":
        event = config.get("event")
        if not isinstance(event, str) or not EVENT_NAME.fullmatch(event):
            problems.append("'event' is a lowercase event name such as 'workflow.high_risk'.")
        elif event.startswith(RESERVED_EVENT_PREFIXES):
            problems.append(f"'event' may not start with {', '.join(RESERVED_EVENT_PREFIXES)}: "
                            "those are the voice intake's own events.")
        fields = config.get("fields", {})
        if not isinstance(fields, Mapping) or not all(
                isinstance(v, str) and v for v in fields.values()):
            problems.append("'fields' maps each event field to a path in the state.")
        elif set(fields) & RESERVED_EVENT_FIELDS:
            problems.append(f"'fields' may not name {', '.join(sorted(RESERVED_EVENT_FIELDS))}: "
                            "every event carries them itself.")
    elif kind == "set":
        if not isinstance(config.get("values"), Mapping):
            problems.append("'values' is an object written as the node's output.")
    if kind in ("end", "condition") and node.get("next") is not None:
        problems.append(f"A '{kind}' node has no 'next'.")
    return problems


def _node_problems(index: int, node: Any, seen: set[str], problems: Problems) -> None:
    where = f"definition.nodes.{index}"
    if not isinstance(node, Mapping):
        problems[where] = ["A node is an object with 'id', 'type', 'config' and 'next'."]
        return
    unknown = set(node) - {"id", "type", "config", "next"}
    if unknown:
        problems.setdefault(where, []).append(f"Unknown node fields: {', '.join(sorted(unknown))}.")
    node_id = node.get("id")
    if not isinstance(node_id, str) or not NODE_ID.fullmatch(node_id) or node_id in RESERVED_IDS:
        problems.setdefault(f"{where}.id", []).append(
            "A node id starts with a letter, uses letters, digits, '_' or '-' (≤ 64), "
            "and is not 'input'.")
    elif node_id in seen:
        problems.setdefault(f"{where}.id", []).append(f"Duplicate node id '{node_id}'.")
    else:
        seen.add(node_id)
    if node.get("type") not in NODE_TYPES:
        problems.setdefault(f"{where}.type", []).append(
            f"Unknown node type; one of: {', '.join(NODE_TYPES)}.")
        return
    for problem in _config_problems(node):
        problems.setdefault(f"{where}.config", []).append(problem)


def _graph_problems(definition: Mapping[str, Any], problems: Problems) -> None:
    nodes = nodes_by_id(definition)
    for index, node in enumerate(definition["nodes"]):
        for field, target in edges(node):
            if not isinstance(target, str) or target not in nodes:
                problems.setdefault(f"definition.nodes.{index}.{field}", []).append(
                    f"No node named {target!r}.")
    start = definition.get("start")
    if not isinstance(start, str) or start not in nodes:
        problems.setdefault("definition.start", []).append(
            f"The start node {start!r} is not among the nodes.")
    if problems:
        return
    # Depth-first walk from the start: finds unreachable nodes and cycles.
    colour: dict[str, int] = {}  # 1 = on the current path, 2 = done

    def visit(node_id: str) -> bool:
        colour[node_id] = 1
        for _, target in edges(nodes[node_id]):
            if colour.get(target) == 1 or (target not in colour and not visit(target)):
                return False
        colour[node_id] = 2
        return True

    if not visit(start):
        problems.setdefault("definition.nodes", []).append(
            "The graph has a cycle; each node runs at most once per execution.")
        return
    unreachable = [n for n in nodes if n not in colour]
    if unreachable:
        problems.setdefault("definition.nodes", []).append(
            f"Unreachable from the start: {', '.join(unreachable)}.")


def definition_problems(definition: Any) -> Problems:
    """Every problem of a definition, by field path (empty when it is valid)."""
    if not isinstance(definition, Mapping):
        return {"definition": ["The definition is an object with 'start' and 'nodes'."]}
    problems: Problems = {}
    unknown = set(definition) - {"start", "nodes"}
    if unknown:
        problems["definition"] = [f"Unknown fields: {', '.join(sorted(unknown))}."]
    nodes = definition.get("nodes")
    if not isinstance(nodes, list) or not nodes:
        problems["definition.nodes"] = ["'nodes' is a non-empty list."]
        return problems
    if len(nodes) > MAX_NODES:
        problems["definition.nodes"] = [f"At most {MAX_NODES} nodes."]
        return problems
    size = len(json.dumps(definition, ensure_ascii=False).encode())
    if size > MAX_DEFINITION_BYTES:
        problems["definition"] = [f"At most {MAX_DEFINITION_BYTES // 1024} KiB written as JSON "
                                  f"(this one is {size // 1024} KiB)."]
        return problems
    seen: set[str] = set()
    for index, node in enumerate(nodes):
        _node_problems(index, node, seen, problems)
    if not problems:
        _graph_problems(definition, problems)
    return problems
