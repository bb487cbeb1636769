"""What seats saw, compared across seats: the shared part of each view a client applied, by
room and ``state_id`` (issue #35: after a paused owner woke, two seats of one room held
different views at one ``state_id``).

A view's *shared part* is what every seat of the room is shown alike: the view less the
engine's per-seat keys (``GameType.per_seat_view_keys``: the seat's own hand, its legal
actions), less ``room`` (the server's table facts: who is connected, deadlines, which may
change without a new ``state_id``). Two seats whose shared parts differ at one ``state_id``
were shown two different games.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

import msgpack

#: Keys left out of every view's shared part, besides the engine's per-seat keys.
SERVER_KEYS = frozenset({"room"})


def shared_digest(view: Mapping[str, Any], per_seat: Iterable[str] | None) -> str:
    """A digest (16 hex digits) of the shared part of ``view`` (see the module docstring;
    ``per_seat``: the engine's per-seat keys, None when it declares none: then only the
    legal actions are left out)."""
    skip = SERVER_KEYS | set(per_seat if per_seat is not None else ("legal_actions",))
    shared = {k: v for k, v in view.items() if k not in skip}
    packed = msgpack.packb(shared, default=repr)
    return hashlib.blake2b(packed, digest_size=8).hexdigest()


def split_states(seen: Iterable[Mapping[tuple[str, int], str]]) -> list[tuple[str, int]]:
    """The ``(room, state_id)`` pairs at which the clients' digests (one mapping per client:
    ``(room, state_id) -> digest`` of each view it applied) disagree, sorted."""
    digests: dict[tuple[str, int], set[str]] = {}
    for mine in seen:
        for at, digest in mine.items():
            digests.setdefault(at, set()).add(digest)
    return sorted(at for at, found in digests.items() if len(found) > 1)
