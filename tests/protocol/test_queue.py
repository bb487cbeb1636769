"""The messages of rated play's queue (protocol/queue.py): ``queue_join.seats`` holds 1 to 3
distinct table sizes of 2, 3 and 4, and what else it holds is refused with a typed error;
the four messages round-trip."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from cardhall import protocol as p


@pytest.mark.parametrize("seats", [[2], [4, 2], [2, 3, 4]])
def test_queue_join_takes_table_sizes(seats: list[int]) -> None:
    msg = p.QueueJoin(game="skipper", mode="multi", seats=seats, id=1)
    assert p.decode(p.encode(msg), side="client") == msg


@pytest.mark.parametrize(("seats", "error"), [
    ([], p.BadValue), ([1], p.BadValue), ([5], p.BadValue), ([2, 2], p.BadValue),
    ([2, 3, 4, 2], p.BadValue), ([True], p.BadValue), ("2", p.BadType), (4, p.BadType),
])
def test_queue_join_refuses_other_seats(seats: Any, error: type[Exception]) -> None:
    frame = msgpack.packb({"t": "queue_join", "game": "skipper", "mode": "multi",
                           "seats": seats})
    with pytest.raises(error):
        p.decode(frame, side="client")


def test_matched_is_a_server_message_and_queue_join_a_client_one() -> None:
    assert "matched" in p.SERVER_MESSAGES and "queued" in p.SERVER_MESSAGES
    assert "queue_join" in p.CLIENT_MESSAGES and "queue_leave" in p.CLIENT_MESSAGES
    with pytest.raises(p.ProtocolError):
        p.decode(msgpack.packb({"t": "matched", "room": "r", "game": "g", "mode": "m",
                                "seats": 4, "bots": 0, "host": True, "spread": 0}),
                 side="client")
