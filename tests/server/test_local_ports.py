"""Tests of the leases and inbox of a store one process owns
(``cardhall.server.store.local_ports``): always granted, never expiring, yet fenced against a
copy that a later acquisition superseded."""

from __future__ import annotations

import pytest
from cardhall.server.store.local_ports import LocalInbox, LocalLeases
from cardhall.server.store.ports import Lease, OwnershipLost


def _leases() -> LocalLeases:
    leases = LocalLeases()
    leases.process_id = "host:1:abc"
    return leases


async def test_each_acquisition_is_granted_with_the_next_epoch() -> None:
    """Epochs count this process's acquisitions of one room; rooms count apart."""
    leases = _leases()
    first = await leases.acquire("r1")
    again = await leases.acquire("r1")
    other = await leases.acquire("r2")
    assert (first, again, other) == (Lease("host:1:abc", 1), Lease("host:1:abc", 2),
                                     Lease("host:1:abc", 1))
    assert leases.leases == {"r1": again, "r2": other}


async def test_a_superseded_lease_fails_its_fenced_writes_and_renewal() -> None:
    """The copy loaded under epoch 1 may not write once epoch 2 was taken; an equal lease
    (read back from a log, say) still may, and an unfenced write always may."""
    leases = _leases()
    old = await leases.acquire("r1")
    new = await leases.acquire("r1")
    with pytest.raises(OwnershipLost, match="r1"):
        leases.fence("r1", old)
    leases.fence("r1", Lease(new.process, new.epoch))
    leases.fence("r1", None)
    assert await leases.renew({"r1": old}) == ["r1"]
    assert await leases.renew({"r1": new, "gone": old}) == []


async def test_a_forgotten_room_starts_again_at_epoch_one() -> None:
    """After ``forget`` no lease fences the room's writes and its epochs begin anew."""
    leases = _leases()
    await leases.acquire("r1")
    await leases.acquire("r1")
    leases.forget("r1")
    with pytest.raises(OwnershipLost):
        leases.fence("r1", Lease("host:1:abc", 2))
    assert (await leases.acquire("r1")).epoch == 1
    leases.forget("never-held")


async def test_only_this_process_is_alive_and_nobody_hears_the_inbox() -> None:
    """No other process exists: ``alive`` is about this one; a publish reaches nobody."""
    leases = _leases()
    assert await leases.alive("host:1:abc") and not await leases.alive("host:2:def")
    await leases.heartbeat()
    heard: list[bytes] = []

    async def handler(payload: bytes) -> None:
        heard.append(payload)

    inbox = LocalInbox()
    assert await inbox.publish("host:2:def", b"hello") == 0
    await inbox.listen(handler)  # type: ignore[arg-type]
    assert heard == []
