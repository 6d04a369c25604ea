"""The names a Python block of the documents uses, checked without running the block.

A block is compiled; each of its ``import`` statements is executed as written (so that a moved or
renamed name fails with Python's own ``ImportError``); every attribute the block reads from what it
imported (``results.load``, ``np.random.default_rng``) must exist, as long as the chain runs through
modules and classes; and every call of an imported simstudy function or class must fit its
signature (the keyword names and the number of positional arguments), so that a renamed argument
fails too.  What a block computes (``a = assess(...)``, then ``a.scores(...)``) is left to the run.
"""

from __future__ import annotations

import ast
import inspect
import types
from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    line: int  # in the block, from 1
    message: str


def check(code: str, name: str, local_modules: frozenset[str] = frozenset()) -> list[Problem]:
    """Everything wrong with the names of one block; ``local_modules`` are files the documents write beside it."""
    try:
        tree = ast.parse(code, filename=name)
    except SyntaxError as exc:
        return [Problem(exc.lineno or 1, f"SyntaxError: {exc.msg}")]
    try:
        compile(tree, name, "exec")
    except SyntaxError as exc:
        return [Problem(exc.lineno or 1, f"SyntaxError: {exc.msg}")]
    problems: list[Problem] = []
    namespace: dict = {"__name__": "__docs__"}
    imported: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
        if any(m.split(".")[0] in local_modules for m in modules):
            continue  # a file an earlier block of the page writes (my_models.py): checked as a block itself
        statement = ast.Module(body=[node], type_ignores=[])
        try:
            exec(compile(statement, name, "exec"), namespace)  # the import as the block writes it
        except Exception as exc:  # noqa: BLE001 - any failure of an import is the finding
            problems.append(Problem(node.lineno, f"{type(exc).__name__}: {exc}"))
            continue
        imported.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
    rebound = {
        target.id
        for node in ast.walk(tree)
        for target in _targets(node)
        if isinstance(target, ast.Name) and target.id in imported
    }
    names = {n: namespace[n] for n in imported - rebound if n in namespace}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            problem = _attribute(node, names)
            if problem:
                problems.append(Problem(node.lineno, problem))
        elif isinstance(node, ast.Call):
            problem = _call(node, names)
            if problem:
                problems.append(Problem(node.lineno, problem))
    return sorted(set(problems), key=lambda p: (p.line, p.message))


def _targets(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.Assign):
        return [t for target in node.targets for t in ast.walk(target)]
    if isinstance(node, ast.AugAssign | ast.AnnAssign | ast.For | ast.comprehension):
        return list(ast.walk(node.target))
    if isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
        return [ast.Name(id=node.name, ctx=ast.Store())]
    if isinstance(node, ast.arg):
        return [ast.Name(id=node.arg, ctx=ast.Store())]
    return []


def _chain(node: ast.AST) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]``; None for anything but names and attributes."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def _resolve(parts: list[str], names: dict):
    """The object ``parts`` name, following only modules and classes; (object, None) or (None, problem)."""
    obj = names[parts[0]]
    for i, attr in enumerate(parts[1:], start=1):
        if not isinstance(obj, types.ModuleType | type):
            return None, None  # an instance's attributes are the run's business
        if not hasattr(obj, attr):
            owner = ".".join(parts[:i])
            kind = "module" if isinstance(obj, types.ModuleType) else "class"
            return None, f"AttributeError: {kind} {owner} ({_qualname(obj)}) has no attribute {attr!r}"
        obj = getattr(obj, attr)
    return obj, None


def _qualname(obj) -> str:
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    return f"{obj.__module__}.{obj.__qualname__}"


def _attribute(node: ast.Attribute, names: dict) -> str | None:
    parts = _chain(node)
    if not parts or parts[0] not in names:
        return None
    return _resolve(parts, names)[1]


def _call(node: ast.Call, names: dict) -> str | None:
    parts = _chain(node.func)
    if not parts or parts[0] not in names:
        return None
    obj, problem = _resolve(parts, names)
    if problem or obj is None or not callable(obj):
        return None
    if not (getattr(obj, "__module__", "") or "").startswith("simstudy"):
        return None  # other libraries' signatures are theirs to keep
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return None
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    try:
        signature.bind(*[None] * len(node.args), **{k.arg: None for k in node.keywords})
    except TypeError as exc:
        return f"TypeError: {'.'.join(parts)}{signature}: {exc}"
    return None
