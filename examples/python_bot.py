"""A complete Cardhall bot in Python, using the ``cardhall.client`` library.

Run a server (``cardhall serve``), then::

    python examples/python_bot.py --url ws://127.0.0.1:8765 --game shop
    python examples/python_bot.py --url ws://127.0.0.1:8765 --join ROOM

It signs in to a guest account (issue #29: the device secret in ``$CARDHALL_BOT_SECRET``, or
in the file ``--secret-file`` names, made there the first time: the same secret is the same
account, its games and board entries, next time; with neither, a new guest each run), creates
a one-seat room of GAME (or takes a free seat in the existing room ROOM), plays it to the end
with :func:`choose` and prints the outcome as one JSON line. Change
:func:`choose` to make it play better: it gets the seat's view (see
``docs/schemas/GAME.view.json``) and returns one of ``view["legal_actions"]``. The same
function also runs offline: ``cardhall simulate --game shop --strategy
examples/python_bot.py:choose``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cardhall.client.client import Client, ServerError, new_device_secret
from cardhall.protocol import GameOver

#: Verbs that give the game up: this bot plays them only when nothing else is legal.
GIVE_UP = {"resign", "close_shop", "concede"}


def choose(view: Mapping[str, Any], rng: random.Random) -> list[Any]:
    """Pick an action: any legal one at random, but never give up while there is a choice.

    Args:
        view: The seat's view; ``view["legal_actions"]`` lists what it may send now.
        rng: A random generator (seeded by the caller, for repeatable games).

    Returns:
        One of ``view["legal_actions"]``.
    """
    legal = list(view["legal_actions"])
    keep = [a for a in legal if a[0] not in GIVE_UP] or legal
    return list(rng.choice(keep))


def device_secret(path: str | None) -> str:
    """The bot's guest device secret: ``$CARDHALL_BOT_SECRET``, or the file ``path`` (made,
    readable by its owner only, the first time), or a new one."""
    secret = os.environ.get("CARDHALL_BOT_SECRET")
    if secret:
        return secret
    if path is None:
        return new_device_secret()
    file = Path(path)
    if not file.exists():
        file.touch(mode=0o600)
        file.write_text(new_device_secret(), encoding="utf-8")
    return file.read_text(encoding="utf-8").strip()


async def play(url: str, game: str, room: str | None, seed: int,
               secret: str) -> dict[str, Any]:
    """Play one game at ``url``, signed in to the guest account of ``secret``, and return
    its ``game_over`` outcome."""
    rng = random.Random(seed)
    async with Client(url, software="example-python-bot/0.1", guest=secret,
                      name="example-bot") as client:
        if room is None:
            room = (await client.create_room(game, seats=1)).room
        await client.join(room)
        acted_on = -1

        async def act_if_my_turn() -> None:
            nonlocal acted_on
            view = client.views[room]
            if view["over"] or not view["legal_actions"] or view["state_id"] <= acted_on:
                return
            acted_on = view["state_id"]
            try:  # the action carries the state_id it was chosen from (stale: refused)
                await client.act(room, choose(view, rng), view["state_id"])
            except ServerError as exc:
                if exc.code == "rate/limited":  # over the server's message rate: slow down
                    await asyncio.sleep(1.0)
                    acted_on = -1
                    await act_if_my_turn()
                elif exc.code != "action/stale_state":  # stale: an update is on its way
                    raise

        await act_if_my_turn()  # the room may have started when we took the last seat
        async for msg in client.updates():  # update, started, seat_event, game_over ...
            if getattr(msg, "room", None) != room:
                continue
            if isinstance(msg, GameOver):
                return {"room": room, "state_id": msg.state_id, **msg.outcome}
            await act_if_my_turn()
    raise ConnectionError("the connection closed before the game ended")


def main() -> None:
    """Command line: ``--url``, ``--game``, ``--join``, ``--seed``, ``--secret-file``."""
    parser = argparse.ArgumentParser(description="A Cardhall bot (example).")
    parser.add_argument("--url", default="ws://127.0.0.1:8765", help="server URL")
    parser.add_argument("--game", default="shop", help="game of the room to create")
    parser.add_argument("--join", metavar="ROOM", default=None,
                        help="take a seat in this existing room instead")
    parser.add_argument("--seed", type=int, default=1, help="seed of the bot's choices")
    parser.add_argument("--secret-file", default=None,
                        help="keep the bot's guest device secret in this file")
    args = parser.parse_args()
    outcome = asyncio.run(play(args.url, args.game, args.join, args.seed,
                               device_secret(args.secret_file)))
    print(json.dumps(outcome, sort_keys=True))


if __name__ == "__main__":
    main()
