"""The store's shape (issue #31, item 4): small ports composed into :class:`Store`, leases as
:class:`Lease` values, and capabilities, never a store's class, deciding behaviour."""

from __future__ import annotations

import ast
import importlib
import typing
from collections.abc import Mapping
from pathlib import Path

import pytest

from cardhall.server.store import ports as store_module

ROOT = Path(__file__).resolve().parents[2]
PORTS = ("RoomLog", "LobbyIndex", "Leases", "Boards", "Inbox", "Archive")
#: Public methods a port may declare at most.
PORT_METHODS = 10


def _classes(path: Path) -> dict[str, ast.ClassDef]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def _methods(cls: ast.ClassDef) -> list[str]:
    return [node.name for node in cls.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and not node.name.startswith("_")]


def test_the_store_is_the_composition_of_small_ports() -> None:
    """``Store`` declares (almost) nothing of its own: it is the six ports (the sixth, the
    games archive: issue #44), each of at most ten methods (before, one class of 28 methods
    over six concerns)."""
    classes = _classes(ROOT / "server" / "store" / "ports.py")
    store = classes["Store"]
    bases = [ast.unparse(b) for b in store.bases]
    assert [b for b in bases if b != "Protocol"] == list(PORTS), bases
    own = _methods(store)
    assert len(own) <= 2, f"Store declares {len(own)} methods of its own: {own}"
    for name in PORTS:
        methods = _methods(classes[name])
        assert 1 <= len(methods) <= PORT_METHODS, (name, methods)


def _class_checks(text: str, where: str, store_classes: set[str]) -> list[str]:
    """Where the module ``text`` (named ``where``) decides by an object's class instead of
    a store's capabilities: ``isinstance(x, SomeStore)``, or a comparison of ``type(...)``
    or ``.__class__`` of an expression naming a store (a log line may still name the
    class)."""
    found = []

    def names_a_store(node: ast.AST) -> bool:
        return "store" in ast.unparse(node).lower()

    def asks_class(node: ast.AST) -> bool:
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "type" and len(node.args) == 1):
            return names_a_store(node.args[0])
        return (isinstance(node, ast.Attribute) and node.attr == "__class__"
                and names_a_store(node.value))

    for node in ast.walk(ast.parse(text)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("isinstance", "issubclass") and len(node.args) == 2):
            kinds = {n.id for n in ast.walk(node.args[1]) if isinstance(n, ast.Name)}
            kinds |= {n.attr for n in ast.walk(node.args[1]) if isinstance(n, ast.Attribute)}
            if kinds & store_classes:
                found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Compare) and any(
                asks_class(side) for side in (node.left, *node.comparators)):
            found.append(f"{where}:{node.lineno}: {ast.unparse(node)}")
    return found


def _store_classes() -> set[str]:
    """The names of the store classes: the ports and every class of a store module."""
    names: set[str] = {"Store", *PORTS}
    for path in (ROOT / "server" / "store").glob("*.py"):
        names |= set(_classes(path))
    # The store's errors are not stores: answering a StoreError by its class is how an
    # outage becomes ``server/unavailable``.
    return {name for name in names if not name.endswith("Error")}


def test_no_module_asks_a_store_its_class() -> None:
    """Behaviour follows a store's capabilities (``shared``, ``durable``,
    ``answers_at_once``), so a new backend needs no edit elsewhere."""
    classes = _store_classes()
    problems = [problem for folder in ("server", "cli", "bench")
                for path in sorted((ROOT / folder).rglob("*.py"))
                for problem in _class_checks(path.read_text(encoding="utf-8"),
                                             str(path.relative_to(ROOT)), classes)]
    assert problems == []


def test_the_class_check_finds_what_it_forbids() -> None:
    """The check above sees the checks issue #31 found (``isinstance(store, MemoryStore)``
    in cluster.py, admin.py and lobby.py) and their variants, not a log of the name."""
    text = """
if isinstance(self.store, MemoryStore): pass
if isinstance(server.store, (RedisStore, store.SQLiteStore)): pass
if type(self.store) is RedisStore: pass
if self.server.store.__class__ == MemoryStore: pass
log.info("store: %s", type(self.store).__name__)
if isinstance(room, Room): pass
"""
    found = _class_checks(text, "m.py", _store_classes())
    assert [line.split(":")[1] for line in found] == ["2", "3", "4", "5"], found


@pytest.mark.parametrize("where", ["ports.Store", "memory_store.MemoryStore",
                                   "sqlite_store.SQLiteStore", "redis_store.RedisStore"])
def test_leases_are_lease_values_in_the_store_signatures(where: str) -> None:
    """Every lease a store takes or is given is a ``Lease(process, epoch)``, not the
    ``"PROCESS#EPOCH"`` string it is stored as."""
    module, _, name = where.partition(".")
    cls = getattr(importlib.import_module(f"cardhall.server.store.{module}"), name)
    lease_cls = getattr(store_module, "Lease", None)
    assert lease_cls is not None, "store.Lease is missing"
    expected: dict[tuple[str, str], object] = {
        ("save_room", "return"): lease_cls,
        ("acquire", "return"): lease_cls | None,
        ("renew", "leases"): Mapping[str, lease_cls],  # type: ignore[valid-type]
        ("save_state", "lease"): lease_cls | None,
        ("append", "lease"): lease_cls | None,
        ("load", "lease"): lease_cls | None,
    }
    for (method, name), want in expected.items():
        hints = typing.get_type_hints(getattr(cls, method))
        assert hints[name] == want, (cls.__name__, method, name, hints[name])


def test_a_room_holds_a_lease_value() -> None:
    """``Room.lease`` is declared ``Lease | None``: read from the source, as the build
    compiles it (a compiled class, mypyc's, keeps no ``__annotations__``)."""
    from cardhall.server.room import Room

    tree = ast.parse((ROOT / "server" / "room" / "driver.py").read_text(encoding="utf-8"))
    room = next(node for node in tree.body
                if isinstance(node, ast.ClassDef) and node.name == "Room")
    declared = {ast.unparse(node.target): ast.unparse(node.annotation) for node in room.body
                if isinstance(node, ast.AnnAssign)}
    assert declared["lease"] == "Lease | None"
    assert Room.__module__ == "cardhall.server.room.driver"  # the class the source holds


def test_a_lease_reads_and_writes_the_stored_form() -> None:
    """One place reads and writes ``"PROCESS#EPOCH"`` (the Redis key's value, unchanged)."""
    Lease = store_module.Lease
    lease = Lease("host:12:ab12cd", 7)
    assert str(lease) == "host:12:ab12cd#7"
    assert Lease.parse("host:12:ab12cd#7") == lease == Lease.parse(b"host:12:ab12cd#7")
    assert Lease.holder(b"host:12:ab12cd#7") == "host:12:ab12cd"
    assert Lease.holder("host:12:ab12cd") == "host:12:ab12cd"  # no epoch: a process id
    for bad in ("host:12:ab12cd", "host#x", "#3", "host#-1", ""):
        with pytest.raises(ValueError):
            Lease.parse(bad)
    with pytest.raises(AttributeError):  # a value: frozen
        lease.epoch = 8  # type: ignore[misc]
    assert len({lease, Lease("host:12:ab12cd", 7), Lease("host:12:ab12cd", 8)}) == 2


async def test_a_local_lease_is_fenced_by_a_later_acquisition() -> None:
    """The leases of a store one process owns: each acquisition a new epoch, and the copy
    holding an older lease writes nothing."""
    from cardhall.server.store.memory_store import MemoryStore

    store = MemoryStore()
    first = await store.save_room("r", {"game": "skipper"}, {"s": 0},
                                  {"game": "skipper", "status": "waiting", "private": False,
                                   "taken": 0, "seats": 2})
    second = await store.acquire("r")
    assert first == store_module.Lease(store.process_id, 1)
    assert second == store_module.Lease(store.process_id, 2)
    with pytest.raises(store_module.OwnershipLost):
        await store.append("r", [["a", 0, ["draw"]]], 0, None, lease=first)
    await store.append("r", [["a", 0, ["draw"]]], 0, None, lease=second)
    assert await store.renew({"r": first}) == ["r"]
    assert await store.renew({"r": second}) == []
    assert await store.alive(store.process_id) and not await store.alive("elsewhere")
    assert await store.publish("elsewhere", b"x") == 0


def test_pack_reuses_one_packer_and_an_error_leaves_nothing_behind() -> None:
    """:func:`store.pack` keeps one msgpack packer: a value it refused leaves no bytes in
    it for the next value, and what it makes is ``msgpack.packb``'s form."""
    import msgpack
    import pytest

    from cardhall.server.store.ports import pack, unpack

    with pytest.raises(TypeError):
        pack(["a", 1, {"bad": object()}])
    entry = ["a", 1, ["play", "QS"], b"\x00"]
    assert pack(entry) == msgpack.packb(entry, use_bin_type=True)
    assert unpack(pack({0: "seat", "k": None})) == {0: "seat", "k": None}
