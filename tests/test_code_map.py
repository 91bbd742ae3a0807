"""The code map holds (issue 14): imports point one way. A cycle in the import graph of the apps'
modules (module-level and late imports alike) is allowed only between an app's services and
its own tasks module (a service queues a task; the task calls the service)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APPS = ("config", "papers", "topics", "accounts")


def app_modules() -> dict[str, Path]:
    modules = {}
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if {"migrations", "tests"} & set(path.relative_to(ROOT).parts):
                continue
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            modules[name.removesuffix(".__init__")] = path
    return modules


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    def resolve(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [
                    resolve(f"{node.module}.{a.name}") or resolve(node.module) for a in node.names
                ]
            elif isinstance(node, ast.Import):
                targets = [resolve(a.name) for a in node.names]
            graph[module] |= {t for t in targets if t and t != module}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(component)
    return found


def allowed(component: set[str]) -> bool:
    apps = {m.split(".")[0] for m in component}
    if len(apps) != 1:
        return False
    (app,) = apps
    tasks = f"{app}.tasks"
    return tasks in component and all(
        m == tasks or m.startswith(f"{app}.services.") for m in component
    )


def test_the_only_import_cycles_are_services_and_their_own_tasks():
    found = cycles(import_graph(app_modules()))
    assert [sorted(c) for c in found if not allowed(c)] == []


def test_the_checker_finds_a_cycle_between_a_selector_and_a_service():
    graph = {
        "topics.selectors": {"topics.services.stats"},
        "topics.services.stats": {"topics.selectors"},
        "topics.tasks": {"topics.services.stats"},
    }
    found = cycles(graph)
    assert found == [{"topics.selectors", "topics.services.stats"}]
    assert not allowed(found[0])
    assert allowed({"topics.tasks", "topics.services.stats"})
