"""The client library's requests (``client/client.py``) against a real server: listing a
lobby of many pages within the message rate (the connection itself:
tests/client/test_connection.py)."""

from __future__ import annotations

from cardhall.client.client import Client

from ..conftest import ServerFactory


async def test_list_rooms_of_a_large_lobby_slows_down_to_the_message_rate(
        make_server: ServerFactory) -> None:
    """Issue #35 defect 8: listing a lobby of more pages than the server's message burst
    allows back to back backs off on ``rate/limited`` and lists every room."""
    server = await make_server(msg_rate=40, msg_burst=5, rooms_per_minute=None)
    made: set[str] = set()
    for k in range(8):
        async with Client(server.url) as maker:  # hello and 4 rooms: within the burst
            for _ in range(4):
                made.add((await maker.create_room("skipper", mode="solo")).room)
    async with Client(server.url) as reader:
        listed = [r["room"] async for r in reader.iter_rooms(limit=1)]
    assert sorted(listed) == sorted(made)
