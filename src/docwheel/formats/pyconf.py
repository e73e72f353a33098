"""The settings a Python config file (Sphinx's ``conf.py``) assigns, read with ``ast``.

A docs build never runs the project's code: a ``conf.py`` may import the package it
documents, read the environment or the network. What can be known without running it are
the top-level assignments of literals (``name = [...]``, ``name: list = ...``) and the
literal lists added to them (``name += [...]``, ``name.append(...)``, ``name.extend(...)``).
Any other value of a name asked for is ``COMPUTED``: the caller falls back to the default.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable

COMPUTED = object()  # a value assigned by code, not a literal


def read_assignments(
    text: str, names: Iterable[str], warn: Callable[[str], None], shown: str = "conf.py"
) -> dict[str, object]:
    """``{name: value}`` for each of ``names`` the file assigns at its top level, the value
    ``COMPUTED`` when it is no literal; ``{}`` (and a warning) for a file Python cannot
    parse. Assignments inside ``if``/``try`` blocks or functions are not read."""
    wanted = set(names)
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:  # ValueError: NUL
        line = f"line {exc.lineno}: " if isinstance(exc, SyntaxError) and exc.lineno else ""
        reason = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        warn(f"{shown}: {line}not valid Python ({reason}); read as Sphinx's defaults")
        return {}
    found: dict[str, object] = {}
    for node in tree.body:
        for name, value in _assigned(node, wanted):
            found[name] = _combined(found.get(name), value)
    return found


_Change = tuple[str, "ast.expr | None"]  # how ("set", "extend", …) and the value's node


def _assigned(node: ast.stmt, wanted: set[str]) -> Iterable[tuple[str, _Change]]:
    """(name, (how, value node)) for each wanted name the statement sets or extends."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            for name in _names(target):
                if name in wanted:
                    # ``a, b = 1, 2`` assigns each name a part: not read, computed
                    how = "set" if isinstance(target, ast.Name) else "computed"
                    yield name, (how, node.value)
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        if isinstance(node.target, ast.Name) and node.target.id in wanted:
            yield node.target.id, ("set", node.value)
    elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
        if node.target.id in wanted:
            how = "extend" if isinstance(node.op, ast.Add) else "computed"
            yield node.target.id, (how, node.value)
    elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call = node.value
        func = call.func
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in wanted
            and func.attr in ("append", "extend")
        ):
            if len(call.args) == 1 and not call.keywords:
                how = "append" if func.attr == "append" else "extend"
                yield func.value.id, (how, call.args[0])
            else:
                yield func.value.id, ("computed", None)


def _names(target: ast.expr) -> Iterable[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _names(element)


def _combined(before: object, change: _Change) -> object:
    how, value_node = change
    if how == "computed" or value_node is None:
        return COMPUTED
    try:
        value = ast.literal_eval(value_node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return COMPUTED
    if how == "set":
        return value
    if before is COMPUTED or not isinstance(before, (list, tuple)):
        return COMPUTED  # extending a value we do not know (or one defined elsewhere)
    if how == "append":
        return [*before, value]
    if not isinstance(value, (list, tuple)):
        return COMPUTED
    return [*before, *value]
