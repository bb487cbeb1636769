"""The room's driver (``server/room/driver.py``) stays a driver: :class:`Room` holds no
state of the room's own (its :class:`~cardhall.server.room.table.Table` does), and every
request reaches a room's seats and members through the table's inputs (issue #42)."""

from __future__ import annotations

import ast
from pathlib import Path

from cardhall.server.room import Room
from cardhall.server.room.table import Table

ROOT = Path(__file__).resolve().parents[2]
#: What a handler must never assign or change in place but through the table's inputs.
STATE = {"seats", "members", "host", "phase", "deadlines", "chat", "muted", "game", "closed",
         "version", "finished_at", "started_at", "reloading"}
MUTATORS = {"pop", "clear", "update", "setdefault", "append", "remove", "discard", "add",
            "popitem"}


def _project_classes(cls: type) -> list[type]:
    return [c for c in cls.__mro__ if c.__module__.startswith("cardhall.")]


def _class_body(module: str, name: str) -> list[ast.stmt]:
    """The statements of class ``name`` in ``server/room/<module>``, read from the source:
    a compiled class (mypyc) keeps no ``__annotations__`` and lists its methods and fields
    alike as descriptors, so its shape is counted where it is written, on either build."""
    tree = ast.parse((ROOT / "server" / "room" / module).read_text(encoding="utf-8"))
    return next(node.body for node in tree.body
                if isinstance(node, ast.ClassDef) and node.name == name)


def test_room_counting_every_class_it_inherits_has_at_most_20_methods_and_15_fields() -> None:
    """Issue #42 ("Done when"): ``Room`` plus every project class it inherits: at most 20
    methods (functions, properties, class methods) and 15 fields (the annotated attributes)."""
    classes = _project_classes(Room)
    assert classes == [Room], classes  # no mixin, no trait
    body = _class_body("driver.py", "Room")
    methods = {node.name for node in body
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    fields = {node.target.id for node in body
              if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)}
    assert "__init__" in methods and "lease" in fields  # (the source read is Room's)
    assert len(methods) <= 20, sorted(methods)
    assert len(fields) <= 15, sorted(fields)
    assert not hasattr(Room, "seats_touched") and not hasattr(Table, "seats_touched")


def _handler_modules() -> list[Path]:
    """The modules that handle requests and drive rooms: everything in ``server/`` but the
    table's own modules."""
    own = {"table.py", "state.py"}
    return [path for path in sorted((ROOT / "server").rglob("*.py"))
            if not (path.parent.name == "room" and path.name in own)]


def test_no_handler_changes_a_seat_or_member_outside_the_table() -> None:
    """Issue #42: every input reaches the room's state through :class:`Table` (one way
    in). No module but the table's assigns a seat, a member, the host, the phase... of a
    room (``room.table.seats = ...``, ``x.members[c] = ...``, ``x.seats[i].conn = ...``),
    changes its seats or members in place (``.members.pop(...)``), or calls a private
    method of the table."""
    problems = []
    for path in _handler_modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        name = path.relative_to(ROOT).as_posix()
        for node in ast.walk(tree):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                targets = [node.target]
            elif isinstance(node, ast.Delete):
                targets = node.targets
            for target in targets:
                text = ast.unparse(target)
                if ".table." in text or text.startswith("table."):
                    problems.append(f"{name}:{node.lineno}: assigns {text}")
                elif isinstance(target, ast.Subscript) and isinstance(
                        target.value, ast.Attribute) and target.value.attr in STATE:
                    problems.append(f"{name}:{node.lineno}: assigns {text}")
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Attribute)):
                owner, method = node.func.value, node.func.attr
                if owner.attr in ("seats", "members") and method in MUTATORS:
                    problems.append(f"{name}:{node.lineno}: {ast.unparse(node.func)}")
                if owner.attr == "table" and method.startswith("_"):
                    problems.append(f"{name}:{node.lineno}: {ast.unparse(node.func)}")
    assert not problems, "\n".join(problems)


def test_every_request_handler_that_changes_a_room_goes_through_a_table_input() -> None:
    """The session's, the admin API's and the lobby's work items of a room call a
    :class:`Table` input and hand its outputs to the driver (``room.apply(room.table.X(...))``):
    no second way in."""
    inputs = {node.name for node in _class_body("table.py", "Table")
              if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")}
    assert all(callable(getattr(Table, name)) for name in inputs)  # (the source read is Table's)
    seen = set()
    for module in ("session.py", "admin.py", "lobby.py", "cluster.py", "connection.py"):
        tree = ast.parse((ROOT / "server" / module).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "apply" and node.args):
                arg = node.args[0]
                assert isinstance(arg, (ast.Call, ast.Name)), ast.unparse(node)
                if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Attribute):
                    assert ast.unparse(arg.func.value).endswith(".table"), ast.unparse(node)
                    assert arg.func.attr in inputs, ast.unparse(node)
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and ast.unparse(node.func.value).endswith(".table")):
                seen.add(node.func.attr)
    assert {"join", "spectate", "leave", "start", "resume", "view", "say", "mute",
            "kick"} <= seen, seen
