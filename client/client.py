"""A thin, typed async client for the Cardhall protocol.

::

    async with Client("ws://127.0.0.1:8765", guest=secret, name="Me") as c:
        created = await c.create_room("skipper", mode="multi", seats=4)
        joined = await c.join(room=created.room)
        async for msg in c.updates():
            view = c.views[joined.room]          # deltas already applied
            ...
            await c.act(joined.room, view["legal_actions"][0])

Signing in, reconnecting and resuming seats are the client's :class:`~.connection.Connection`
(see its module); :class:`Client` adds a method per request of the protocol.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
from collections.abc import AsyncIterator, Sequence
from typing import Any

from tenacity import RetryCallState

from .. import protocol as p
from .connection import (
    BUSY_CODES,
    CHAT_KEPT,
    PATIENT_ATTEMPTS,
    SOFTWARE,
    Connection,
    ConnectionLost,
    Push,
    ServerError,
    new_device_secret,
    patiently,
)

__all__ = ["CHAT_KEPT", "SOFTWARE", "Client", "Connection", "ConnectionLost", "Push",
           "ServerError", "new_device_secret"]


class Client(Connection):
    """An async Cardhall client (use as an async context manager): a :class:`Connection`
    (its arguments and attributes) with a method per request of the protocol.
    """

    async def list_games(self) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The games the server hosts and the options every room takes: ``(games,
        room_options)``, as in the ``games`` reply of the protocol spec (per game: ``game``,
        ``title``, ``min_seats``, ``max_seats``, ``modes``, ``options``)."""
        reply = await self.request(p.ListGames())
        assert isinstance(reply, p.Games)
        return list(reply.games), list(reply.room_options)

    async def leaderboard(self, game: str, mode: str | None = None, *,
                          limit: int | None = None, around: str | None = None
                          ) -> p.Leaderboard:
        """One page of a game's leaderboard (``get_leaderboard``): the best solo score of each
        player name, best first.

        Args:
            game: Game name, e.g. ``"skipper"``.
            mode: The board's mode; None: the game's ranked mode (Skipper ``"solo"``,
                ``"standard"`` for games without modes).
            limit: Most entries, 1..100 (None: 10).
            around: A player name: the page around its rank instead of the top (the top
                when the name is not on the board).

        Returns:
            The ``leaderboard`` reply: ``game``, ``mode``, ``order`` (``"asc"``: fewer is
            better, ``"desc"``: more is better), ``entries`` (``{rank, name, score}`` maps),
            ``total`` and ``you`` (this client's name's ``{rank, score}``, or None).

        Raises:
            ServerError: ``lobby/unknown_game`` (no such game or mode),
                ``lobby/no_leaderboard`` (the game or mode keeps no board).
            ConnectionLost: the connection dropped meanwhile.
        """
        reply = await self.request(p.GetLeaderboard(game=game, mode=mode, limit=limit,
                                                    around=around))
        assert isinstance(reply, p.Leaderboard)
        return reply

    async def list_rooms(self, game: str | None = None, *, mode: str | None = None,
                         waiting: bool = False) -> list[dict[str, Any]]:
        """Every room of the lobby that fits the filters, read page by page
        (:meth:`iter_rooms`): one summary dict per room (see ``rooms`` in the protocol
        spec), in room id order.

        Args:
            game: Only rooms of this game (None: all).
            mode: Only rooms of this mode (None: all).
            waiting: Only rooms anyone may join now (public, waiting, a free seat).

        Raises:
            ServerError: the server refused a request.
            ConnectionLost: the connection dropped meanwhile.
        """
        return [room async for room in self.iter_rooms(game, mode=mode, waiting=waiting)]

    async def iter_rooms(self, game: str | None = None, *, mode: str | None = None,
                         waiting: bool = False, limit: int | None = None
                         ) -> AsyncIterator[dict[str, Any]]:
        """Yield every room that fits the filters (summary dicts, in room id order),
        fetching one page of at most ``limit`` rooms at a time (:meth:`rooms_page`; None:
        the server's default page size).

        Raises:
            ServerError: the server refused a request.
            ConnectionLost: the connection dropped meanwhile.
        """
        cursor: str | None = None
        while True:
            page = await self.rooms_page(game, mode=mode, waiting=waiting, cursor=cursor,
                                         limit=limit)
            for room in page.rooms:
                yield dict(room.to_map())
            if not page.more:
                return
            cursor = page.cursor

    async def rooms_page(self, game: str | None = None, *, mode: str | None = None,
                         waiting: bool = False, cursor: str | None = None,
                         limit: int | None = None) -> p.Rooms:
        """One page of the lobby: the ``rooms`` reply (``rooms``, ``more``, ``cursor``).

        Args:
            game: Only rooms of this game (None: all).
            mode: Only rooms of this mode (None: all).
            waiting: Only rooms anyone may join now.
            cursor: ``cursor`` of the previous page (None: the first page).
            limit: Most rooms on the page, 1..``protocol.LIST_LIMIT_MAX`` (None: the
                server's default, ``protocol.LIST_LIMIT``).

        Raises:
            ServerError: the server refused the request.
            ConnectionLost: the connection dropped meanwhile.
        """
        reply = await self.request_patiently(p.ListRooms(
            game=game, mode=mode, waiting=waiting or None, cursor=cursor, limit=limit))
        assert isinstance(reply, p.Rooms)
        return reply

    async def request_patiently(self, msg: p.ClientMessage, *,
                                codes: frozenset[str] = frozenset({"rate/limited"}),
                                attempts: int | None = None) -> p.Message:
        """:meth:`request`, asked again while the server refuses it for now: the client's
        one retry policy (:func:`~.connection.patiently`: exponential backoff with jitter
        from 0.05 s up to 2 s, for at most ``reconnect_timeout`` seconds and ``attempts``
        tries). By default only ``rate/limited`` is asked again, for as long as
        ``reconnect_timeout``: a reader of many pages (a large lobby, a long log) slows
        down to the server's message rate instead of failing (issue #35). Each pause is
        told to ``on_connection`` as ``"busy"`` (``request``: the message's type,
        ``code``, ``attempt`` from 1, ``wait`` in seconds).

        Args:
            msg: The request.
            codes: The refusals asked again (``connection.BUSY_CODES``: also
                ``server/unavailable``).
            attempts: Most tries, the first included (None: ``reconnect_timeout`` alone
                bounds them).

        Raises:
            ServerError: the server refused the request, or still refuses it with one of
                ``codes`` after the last try.
            ConnectionLost: as :meth:`request`.
            TimeoutError: as :meth:`request`.
        """
        def told(state: RetryCallState) -> None:
            error = state.outcome.exception() if state.outcome is not None else None
            self._tell("busy", {
                "request": getattr(msg, "TYPE", None), "code": getattr(error, "code", None),
                "attempt": state.attempt_number,
                "wait": state.next_action.sleep if state.next_action else 0.0})

        async for attempt in patiently(self.reconnect_timeout, attempts=attempts, codes=codes,
                                       before_sleep=told):
            with attempt:
                return await self.request(msg)
        raise AssertionError("unreachable: tenacity returns or raises")  # pragma: no cover

    async def _ask(self, msg: p.ClientMessage, patient: bool) -> p.Message:
        """:meth:`request`, or with ``patient`` :meth:`request_patiently` asking again on
        every refusal of ``connection.BUSY_CODES``, at most ``PATIENT_ATTEMPTS`` tries."""
        if not patient:
            return await self.request(msg)
        return await self.request_patiently(msg, codes=BUSY_CODES, attempts=PATIENT_ATTEMPTS)

    async def create_room(self, game: str, *, mode: str | None = None, seats: int = 1,
                          options: dict[str, Any] | None = None, private: bool = False,
                          name: str | None = None, patient: bool = False) -> p.RoomCreated:
        """Create a room (the creator is its host; it is not seated until it joins).

        Args:
            patient: Ask again while the server answers ``server/unavailable`` (its store
                is down for a moment: a Redis failover, a replica in its first sync) or
                ``rate/limited``, with backoff, at most ``PATIENT_ATTEMPTS`` tries and
                ``reconnect_timeout`` seconds (:meth:`request_patiently`). A refused
                create makes no room, so asking again makes one room at most.

        Raises:
            ServerError: ``lobby/unknown_game``, ``lobby/bad_options``, ``room/limit``,
                ``server/unavailable`` (with ``patient``: still, after the last try).
        """
        reply = await self._ask(p.CreateRoom(game=game, mode=mode, seats=seats,
                                             options=options or {}, private=private,
                                             name=name), patient)
        assert isinstance(reply, p.RoomCreated)
        return reply

    async def join(self, room: str | None = None, *, code: str | None = None,
                   seat: int | None = None, patient: bool = False) -> p.Joined:
        """Take a seat (``seat`` or the first free one) in ``room`` or the room of ``code``.

        Args:
            patient: As for :meth:`create_room` (a refused join seats nobody: the room puts
                its seats back as they were).

        Raises:
            ServerError: ``room/not_found``, ``room/full``, ``room/already_started``,
                ``server/unavailable`` (with ``patient``: still, after the last try).
        """
        reply = await self._ask(p.Join(room=room, code=code, seat=seat), patient)
        assert isinstance(reply, p.Joined)
        return reply

    async def quick_join(self, game: str, *, mode: str | None = None,
                         seats: int | None = None, patient: bool = False) -> p.Joined:
        """Join any open public room of ``game`` (and mode/size), or a new one.

        Args:
            patient: As for :meth:`create_room`.

        Raises:
            ServerError: ``lobby/unknown_game``, ``room/limit``, ``server/unavailable``
                (with ``patient``: still, after the last try).
        """
        reply = await self._ask(p.QuickJoin(game=game, mode=mode, seats=seats), patient)
        assert isinstance(reply, p.Joined)
        return reply

    async def spectate(self, room: str) -> p.Joined:
        """Watch ``room`` (seat None: the public view only)."""
        reply = await self.request(p.Spectate(room=room))
        assert isinstance(reply, p.Joined)
        self.spectating.add(room)
        return reply

    async def leave(self, room: str) -> None:
        """Leave ``room`` (a seat in a running game is abandoned at once)."""
        await self.request(p.Leave(room=room))
        self.seats.pop(room, None)
        self.spectating.discard(room)

    async def start(self, room: str) -> None:
        """Start ``room`` (host only); empty seats get server bots.

        Raises:
            ServerError: ``room/not_host``, ``room/already_started``.
        """
        await self.request(p.Start(room=room))

    async def resume(self, room: str, token: str | None = None) -> p.Joined:
        """Take back a held seat with its token, or (None) the seat the signed-in account
        holds in ``room`` (taken on another device, say); the reply carries the full view.

        Raises:
            ServerError: ``room/not_found``, ``room/bad_token``, ``room/not_seated``.
        """
        reply = await self.request(p.Resume(room=room, token=token))
        assert isinstance(reply, p.Joined)
        return reply

    async def act(self, room: str, action: Sequence[Any], state_id: int | None = None) -> None:
        """Play ``action`` in ``room``, chosen against ``state_id`` (default: the current
        view's).

        Raises:
            ServerError: ``action/*`` (illegal, stale_state, not_your_turn, ...) or
                ``room/*`` codes.
        """
        if state_id is None:
            state_id = int(self.views[room]["state_id"])
        await self.request(p.Act(room=room, state_id=state_id, action=list(action)))

    async def set_auto_trash(self, room: str, on: bool) -> None:
        """Set this seat's Skipper ``auto_trash`` setting in ``room`` (RULINGS K6m): trash
        dead cards when drawn (``on``) or keep them. A setting is no move: accepted at any
        time, not only on the seat's turn, and it leaves ``state_id`` as it is (see the
        spec's "Settings" under ``act``).

        Raises:
            ServerError: ``action/unknown``, ``action/illegal`` (the seat is out of the
                game), ``action/game_over`` or ``room/*`` codes.
        """
        await self.act(room, ["auto_trash", "on" if on else "off"])

    async def say(self, room: str, text: str) -> None:
        """Say ``text`` in ``room``'s chat (seated or watching); every member, this client
        too, receives it in ``chat_lines`` (see :attr:`chat`).

        Raises:
            BadValue: ``text`` is empty or longer than :data:`~cardhall.protocol.MAX_CHAT_LEN`
                code points (nothing is sent).
            ServerError: ``chat/muted`` (an operator muted this seat), ``rate/limited``
                (too many lines: wait), ``room/not_seated`` (not in the room),
                ``protocol/bad_value`` (nothing printable in the text).
        """
        await self.request(p.Chat(room=room, text=text))

    async def emote(self, room: str, emote: str) -> None:
        """Send a quick emote (one of :data:`~cardhall.protocol.EMOTES`) to ``room``'s chat.

        Raises:
            BadValue: not an emote of the protocol (nothing is sent).
            ServerError: as :meth:`say`.
        """
        await self.request(p.Chat(room=room, emote=emote))

    def chat_lines(self, room: str) -> list[dict[str, Any]]:
        """The chat lines of ``room`` this client keeps, oldest first, without those of
        :attr:`muted` names."""
        return [line for line in self.chat.get(room, ()) if line["name"] not in self.muted]

    async def replay(self, room: str, state_id: int, seat: int | None = None) -> p.Replay:
        """The view of finished ``room`` at ``state_id`` (``get_replay``): the public view,
        or with ``seat`` this client's own seat's view.

        Raises:
            ServerError: ``room/not_found``, ``room/not_finished``, ``room/not_seated``
                (``seat`` is not this client's), ``protocol/bad_value`` (past the end).
        """
        reply = await self.request(p.GetReplay(room=room, state_id=state_id, seat=seat))
        assert isinstance(reply, p.Replay)
        return reply

    async def get_view(self, room: str) -> dict[str, Any]:
        """Ask for the full view of ``room`` again (it also replaces :attr:`views`)."""
        await self.request(p.GetView(room=room))
        return self.views[room]

    async def fetch_log(self, room: str) -> p.Log:
        """The whole action log of a finished game, fetched page by page (``get_log``): the
        last page's message with ``entries`` holding every entry and ``first`` 0.

        Raises:
            ServerError: ``room/not_found`` (no such room, or removed since it finished),
                ``room/not_finished``.
        """
        entries: list[Any] = []
        while True:
            reply = await self.request_patiently(p.GetLog(room=room, first=len(entries)))
            assert isinstance(reply, p.Log)
            entries.extend(reply.entries)
            if not reply.more or not reply.entries:
                return dataclasses.replace(reply, first=0, entries=entries, more=False)

    async def game_record(self, room: str) -> dict[str, Any]:
        """What this client saw of the finished game of ``room``, for ``cardhall verify``:
        a JSON-able dict (format ``"cardhall-game-record/1"``, see protocol/README.md "Fair
        deals") with the commitment as first published, the revealed seed and salt from
        ``game_over``, the game's options, seat count and log (fetched now), this client's
        seat (None: a spectator) and, with ``keep_records``, every view and delta it applied.

        Raises:
            ServerError: ``room/not_found``, ``room/not_finished`` (from :meth:`fetch_log`).
        """
        log_msg = await self.fetch_log(room)
        over = self.reveals.get(room)
        seat = self._joined_as.get(room)
        return {
            "format": "cardhall-game-record/1", "url": self.url, "room": room,
            "game": log_msg.game, "seats": log_msg.seats, "seat": seat,
            "commitment": self.commitments.get(room),
            "seed": None if over is None else over.seed,
            "salt": None if over is None else over.salt,
            "state_id": over.state_id if over is not None else log_msg.state_id,
            "outcome": dict(over.outcome) if over is not None else dict(log_msg.outcome),
            "options": dict(log_msg.options), "log": list(log_msg.entries),
            "seen": list(self._seen.get(room, [])),
        }

    async def save_game_record(self, room: str, path: str | os.PathLike[str]) -> dict[str, Any]:
        """Write :meth:`game_record` of ``room`` to ``path`` as JSON (UTF-8) and return it.

        Raises:
            ServerError: as :meth:`game_record`.
            OSError: the file cannot be written.
        """
        record = await self.game_record(room)
        text = json.dumps(record, separators=(",", ":"))

        def write() -> None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)

        await asyncio.to_thread(write)
        return record

    # -- accounts ----------------------------------------------------------------------------

    async def sign_in_guest(self, secret: str) -> p.Account:
        """Sign in to the guest account of device secret ``secret`` (made the first time).

        Raises:
            ServerError: ``auth/banned``, ``auth/rate_limited``.
        """
        reply = await self.request(p.Guest(secret=secret))
        self.guest_secret = secret
        self._signed_in(reply)
        assert self.account is not None
        return self.account

    async def login(self, username: str, password: str) -> p.Account:
        """Sign in with a username and password (later connections use the access token),
        with the remembered-device token held (:attr:`device`), which the reply replaces.

        Raises:
            ServerError: ``auth/bad_credentials``, ``auth/rate_limited``, ``auth/banned``.
        """
        self._signed_in(await self.request(p.Login(username=username, password=password,
                                                   device=self.device)))
        assert self.account is not None
        return self.account

    async def login_jwt(self, jwt: str) -> p.Account:
        """Sign in with a JWT of the server operator's identity provider.

        Raises:
            ServerError: ``auth/bad_credentials``, ``auth/expired``, ``auth/banned``,
                ``auth/rate_limited``.
        """
        self._signed_in(await self.request(p.Login(jwt=jwt)))
        assert self.account is not None
        return self.account

    async def register(self, username: str, password: str) -> p.Account:
        """Register ``username``: a new account, or the upgrade of the guest account the
        client is signed in to (it keeps its games, seats and board entries).

        Raises:
            ServerError: ``auth/bad_name``, ``auth/weak_password``, ``auth/name_taken``,
                ``auth/rate_limited``.
        """
        self._signed_in(await self.request(p.Register(username=username, password=password)))
        assert self.account is not None
        return self.account

    async def restore(self, token: str) -> p.Account:
        """Sign in with an access token.

        Raises:
            ServerError: ``auth/bad_credentials``, ``auth/expired``, ``auth/banned``.
        """
        reply = await self.request(p.Restore(token=token))
        self.token = token
        self._signed_in(reply)
        assert self.account is not None
        return self.account

    async def logout(self, everywhere: bool = False) -> None:
        """End the sign-in (``everywhere``: every sign-in of the account); the client goes
        on as an anonymous guest and forgets its tokens and ways in."""
        await self.request(p.Logout(everywhere=everywhere or None))
        self.account = None
        self.token = self.refresh_token = self.guest_secret = self.jwt = None
        self.username = self.password = None

    async def set_name(self, name: str) -> p.Account:
        """Take the display name ``name`` (the account's; without one, the connection's).

        Raises:
            ServerError: ``auth/bad_name``, ``auth/name_taken``, ``auth/required``.
        """
        self._signed_in(await self.request(p.SetName(name=name)))
        self.wanted_name = name
        assert self.account is not None
        return self.account

    async def my_games(self, cursor: str | None = None,
                       limit: int | None = None) -> p.MyGames:
        """The account's running seats and a page of its finished games (``get_my_games``).

        Raises:
            ServerError: ``auth/required`` (signed in to no account).
        """
        reply = await self.request(p.GetMyGames(cursor=cursor, limit=limit))
        assert isinstance(reply, p.MyGames)
        return reply

    async def queue_join(self, game: str, mode: str,
                         seats: Sequence[int] = (2, 3, 4)) -> p.Queued:
        """Wait in rated play's queue of (``game``, ``mode``) for a table of one of
        ``seats`` sizes (``queue_join``); :meth:`matched` gives the table a wave seats this
        client at (it is seated already: ``joined`` came first).

        Raises:
            ServerError: ``auth/required``, ``lobby/unknown_game`` (not rated),
                ``server/unavailable``.
        """
        reply = await self.request(p.QueueJoin(game=game, mode=mode, seats=list(seats)))
        assert isinstance(reply, p.Queued)
        return reply

    async def queue_leave(self, game: str | None = None) -> None:
        """Leave rated play's queue (of ``game``, or every queue): ``queue_leave``."""
        await self.request(p.QueueLeave(game=game))

    async def matched(self, timeout: float | None = None) -> p.Matched:
        """The next ``matched`` of rated play's queue (waits for it).

        Raises:
            TimeoutError: none came within ``timeout`` seconds.
        """
        return await asyncio.wait_for(self.matches.get(), timeout)
