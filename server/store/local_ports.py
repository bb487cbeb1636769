"""The lease and inbox ports of a store that one process owns (the memory and SQLite
stores): :class:`LocalLeases` keeps the room leases in this process, :class:`LocalInbox`
is the inbox of a process that has no other to hear from.

Nobody else can hold a lease, so :meth:`LocalLeases.acquire` always succeeds and leases
never expire; fencing still stops a copy of a room superseded by a later acquisition in this
process (a takeover after a reload, say). The stores' own ``release``, ``owner``, ``owners``
and ``orphans`` say which rooms this process runs.
"""

from __future__ import annotations

from collections.abc import Mapping

from .ports import InboxHandler, Lease, OwnershipLost

__all__ = ["LocalInbox", "LocalLeases"]


class LocalLeases:
    """Room leases kept in this process, each a :class:`~.store.Lease` whose epoch counts
    this process's acquisitions of the room (part of the :class:`~.store.Leases` port of a
    store that is not :attr:`~.store.Store.shared`).

    Attributes:
        leases: The lease each room holds, by room id.
    """

    process_id: str

    def __init__(self) -> None:
        self.leases: dict[str, Lease] = {}
        self._epochs: dict[str, int] = {}

    def fence(self, room_id: str, lease: Lease | None) -> None:
        """Check a fenced write: ``lease`` (None: unfenced) must be the room's lease.

        Raises:
            OwnershipLost: ``lease`` is given and is not the room's lease (a later
                acquisition superseded it, or the room is gone).
        """
        if lease is not None:
            held = self.leases.get(room_id)
            if held is not lease and held != lease:
                raise OwnershipLost(f"the lease of {room_id} is not {lease} any more")

    def forget(self, room_id: str) -> None:
        """The room is gone: forget its lease and epoch."""
        self.leases.pop(room_id, None)
        self._epochs.pop(room_id, None)

    async def acquire(self, room_id: str) -> Lease | None:
        """Always granted (this process owns every room), with a new epoch."""
        self._epochs[room_id] = epoch = self._epochs.get(room_id, 0) + 1
        self.leases[room_id] = lease = Lease(self.process_id, epoch)
        return lease

    async def renew(self, leases: Mapping[str, Lease]) -> list[str]:
        """Only a lease superseded by a later :meth:`acquire` is lost (its room listed)."""
        return [r for r, lease in leases.items() if self.leases.get(r, lease) != lease]

    async def heartbeat(self) -> None:
        """Nobody else listens: nothing to tell."""
        return None

    async def alive(self, process_id: str) -> bool:
        """Only this process is alive."""
        return process_id == self.process_id


class LocalInbox:
    """The :class:`~.store.Inbox` port of a store no other process uses: nothing to send to,
    nothing to hear."""

    async def publish(self, process_id: str, payload: bytes) -> int:
        """There are no other processes: nobody received it (0)."""
        return 0

    async def listen(self, handler: InboxHandler) -> None:
        """Nothing ever arrives: returns at once."""
        return None
