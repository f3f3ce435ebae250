"""The layers import downwards only: blueprints/web → schemas → services → models, jobs → services
→ models. Read from the source with `ast`, so a lazy import inside a function counts too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("blueprints", "jobs", "models", "schemas", "services", "web")
# What each lower layer must never import (top-level package names).
FORBIDDEN = {
    "models": {"blueprints", "web", "jobs", "flask_smorest", "services", "schemas"},
    "services": {"blueprints", "web", "jobs", "flask_smorest", "schemas"},
}


def _imports(path: Path) -> set[str]:
    """Full dotted names of every module `path` imports, wherever the import stands."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def _module_imports() -> dict[str, set[str]]:
    return {str(path.relative_to(ROOT)): _imports(path)
            for package in PACKAGES for path in _modules(package)}


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_lower_layers_do_not_import_upwards(layer):
    wrong = [f"{path} imports {name}"
             for path, names in _module_imports().items() if path.startswith(f"{layer}/")
             for name in sorted(names) if name.split(".")[0] in FORBIDDEN[layer]]
    assert wrong == []


def test_no_import_cycle_between_top_level_packages():
    graph: dict[str, set[str]] = {package: set() for package in PACKAGES}
    for path, names in _module_imports().items():
        source = path.split("/")[0]
        graph[source] |= {n.split(".")[0] for n in names
                          if n.split(".")[0] in PACKAGES and n.split(".")[0] != source}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for nxt in graph[start] - seen:
            if nxt == goal or reaches(nxt, goal, seen | {nxt}):
                return True
        return False

    cycles = sorted(p for p in PACKAGES if reaches(p, p, set()))
    assert cycles == [], {p: sorted(graph[p]) for p in cycles}


def test_the_layer_rules_see_a_wrong_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from jobs.analysis import x\n", encoding="utf-8")
    assert "jobs.analysis" in _imports(bad)
