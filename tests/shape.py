"""The size checks of issue #31 ("Done when"), shared by the tests of each part of the tree:
no module over 800 lines, no function over 80, no import of another module's ``_private``
name."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

#: Lines a module may have at most.
MAX_MODULE_LINES = 800
#: Lines a function may have at most (from its ``def`` to its last line, decorators apart).
MAX_FUNCTION_LINES = 80


def shape_problems(paths: Iterable[Path], root: Path) -> list[str]:
    """One line per breach in the Python files ``paths``, each named relative to ``root``:
    ``"PATH: N lines"``, ``"PATH: NAME is N lines"``, ``"PATH: imports _NAME from MODULE"``.
    An empty list: they keep the shape."""
    problems = []
    for path in sorted(paths):
        text = path.read_text(encoding="utf-8")
        where = path.relative_to(root)
        if len(text.splitlines()) > MAX_MODULE_LINES:
            problems.append(f"{where}: {len(text.splitlines())} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > MAX_FUNCTION_LINES:
                    problems.append(f"{where}: {node.name} is {size} lines")
            elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
                problems += [f"{where}: imports {a.name} from {node.module}"
                             for a in node.names if a.name.startswith("_")]
    return problems
