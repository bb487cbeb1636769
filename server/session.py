"""Request handling shared by every kind of session: a client on a local socket or a forwarded one.

:class:`Session` holds the handlers of the client requests (``list_rooms`` .. ``ping``). A
:class:`~cardhall.server.connection.Connection` is a Session on a local WebSocket; a
forwarded client (a client connected to another server process, whose requests reach the
room's owner through the store) is a Session too, so every request is handled by the same
code wherever the client is connected.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from mypy_extensions import mypyc_attr

from .. import protocol as p
from .. import games
from . import archive, leaderboard, visibility
from .accounts import names
from .accounts.account_store import AccountStore
from .accounts.auth import Auth
from .room.chat import ChatRefused
from .config import Settings
from .history import my_games
from .accounts.identity import AuthError
from .limits import address_key
from .lobby import Lobby
from .replay import replay_view
from .room import ROOM_OPTIONS, Room, RoomError
from .room import rules as table
from .room.rules import Event, Phase
from .store.ports import Store, StoreError

log = logging.getLogger("cardhall.session")

#: Requests addressed to one room: handled by the room's owner process.
_ROOM_REQUESTS = (p.Spectate, p.Leave, p.Start, p.Resume, p.Act, p.GetView, p.GetLog,
                  p.Chat, p.GetReplay)
#: Requests a connection signed in to no account may make on a server that requires
#: accounts (``--auth required``): the lobby's listings, leaderboards, ping, the ways in.
_OPEN_REQUESTS = frozenset({p.ListGames, p.ListRooms, p.GetLeaderboard, p.Ping, p.Guest,
                            p.Register, p.Login, p.Restore, p.Refresh})
#: Requests a finished game's archived record answers once its room is gone (:mod:`.archive`).
_ARCHIVED_REQUESTS = (p.GetLog, p.GetReplay)


class Forwarder(Protocol):
    """What a session needs of the cluster (:class:`~cardhall.server.cluster.Cluster`)."""

    async def forward(self, origin: Session, owner: str, room_id: str, msg: p.Message) -> None:
        """Send ``msg`` from ``origin`` to process ``owner`` of room ``room_id``; the reply
        reaches ``origin`` through its inbox.

        Raises:
            RoomError: ``server/unavailable`` when no process took the room over in time.
        """


class Hub(Protocol):
    """What a session needs of its server (:class:`~cardhall.server.app.Server`), declared
    here so that sessions do not import the layers above them: the ``store``, the ``lobby``
    of this process's rooms, the ``cluster`` that forwards requests to other processes, the
    ``settings`` (``ipv6_prefix``) and the count of failed look-ups (``lookups``)."""

    settings: Settings
    store: Store
    lobby: Lobby
    auth: Auth
    accounts: AccountStore
    lookups: visibility.Lookups
    #: Rated play's queue (:class:`~.rated_queue.RatedQueue`; declared Any: a layer above).
    queue: Any

    @property
    def cluster(self) -> Forwarder:  # read-only: a server's Cluster is one
        ...


# Compiled (setup.py); a forwarded peer (cluster.RemotePeer, pure Python) subclasses it.
@mypyc_attr(allow_interpreted_subclasses=True)
class Session:
    """A client as the server serves it: it sends requests and receives frames.

    Subclasses provide :meth:`send`. Attributes every session has: ``server``, ``session_id``
    (random id, also the host identity of rooms it creates), ``process`` (id of the server
    process the client is connected to), ``account`` (the id of the account it is signed in
    to, ``""`` for none: :mod:`.auth`), ``guest`` (False once signed in to a registered
    account), ``name`` (that account's display name, or an anonymous guest's name),
    ``login`` (digest of its access token, ``""``), ``addr``
    (client address), ``rooms`` (rooms of this process it is seated in or watching, by id),
    ``remote_rooms`` (ids of rooms owned by other processes it was forwarded to), ``closed``
    ``act_reply`` and ``wire``.
    """

    server: Hub
    session_id: str
    process: str
    name: str
    rooms: dict[str, Room]
    remote_rooms: set[str]
    closed: bool
    #: ``hello.act_reply``: ``"update"`` when an accepted ``act`` is answered by the acting
    #: seat's update carrying its id, else ``"ok"`` (an ``ok``, then the update).
    act_reply: str = "ok"
    #: ``hello.v``: the protocol version the client speaks (2: deltas without ``state_id``).
    wire: int = 1
    account: str = ""
    login: str = ""
    guest: bool = True  # signed in to a guest account, or to none
    addr: str = "?"

    @property
    def address_key(self) -> str:
        """The key of the client's address in every per-address limit
        (:func:`~.limits.address_key`: an IPv6 address by its network)."""
        return address_key(self.addr, self.server.settings.ipv6_prefix)

    def send(self, msg: p.Message) -> None:
        """Queue ``msg`` for the peer without waiting."""
        self.send_raw(p.encode(msg))

    def send_raw(self, *frames: bytes) -> None:
        """Queue encoded frames for the peer, in order, without waiting."""
        raise NotImplementedError

    def close_with(self, code: int, reason: str) -> None:
        """Close the client's connection with ``code`` (a local connection does; a peer
        forwarded from another process is closed by its own process)."""

    def send_later(self, frame: bytes) -> None:
        """Queue an encoded frame, in order with every other, to be written soon rather
        than now (see :meth:`~cardhall.server.room.views.Peer.send_later`); here, now."""
        self.send_raw(frame)

    def push(self) -> None:
        """Write what is queued now (:meth:`~cardhall.server.room.views.Peer.push`); here,
        nothing waits."""

    def send_error(self, code: str, message: str, re: Any = None) -> None:
        """Queue an ``error`` reply. Always buildable: a message longer than the protocol
        allows is cut (:func:`cardhall.protocol.clip_message`), and a reply that still
        cannot be built (a bad code or ``re``, our bug: logged) goes out as the fixed
        ``server/internal`` one."""
        try:
            reply = p.error_reply(code, message, re)
        except p.ProtocolError:
            log.error("unbuildable error reply code=%.70r session=%s", code, self.session_id)
            reply = p.error_reply("server/internal", re=re)
        self.send(reply)

    async def handle(self, msg: p.Message) -> None:
        """Handle one decoded request; every failure becomes an ``error`` reply
        (:meth:`refusal`), never a traceback to the client."""
        try:
            await self.dispatch(msg)
        except Exception as exc:
            self.refusal(exc, msg)

    def refusal(self, exc: Exception, msg: p.Message) -> None:
        """Answer the failure ``exc`` of request ``msg`` with an ``error`` reply: client
        faults (:class:`RoomError`, :class:`AuthError`) with their code, store outages as
        ``server/unavailable``, anything else (our bug: logged) as ``server/internal``."""
        re = p.reply_id(msg)
        if isinstance(exc, (RoomError, AuthError)):
            self.send_error(exc.code, exc.message, re)
        elif isinstance(exc, StoreError):
            self.send_error("server/unavailable", str(exc) or "the store is unavailable", re)
        else:
            log.error("bug handling %s session=%s", msg.TYPE, self.session_id, exc_info=exc)
            self.send_error("server/internal", "internal error (logged on the server)", re)

    async def dispatch(self, msg: p.Message) -> None:
        """Run the handler of ``msg`` here, or forward it to the process owning its room.

        A look-up (:meth:`_looks_up`) is refused with ``rate/limited`` while this client's
        address or account is out of failed look-ups, and one answered ``room/not_found``
        counts as failed (:class:`~.visibility.Lookups`).

        Raises:
            RoomError: the request is refused (its ``code`` says why).
            StoreError: the store is unavailable.
        """
        if type(msg) is p.Act:
            # The hot path: an action in a room of this process the session is in goes
            # straight to it (what the routing below and _act would do, in fewer steps).
            room = self.rooms.get(msg.room)
            if room is not None and self.server.lobby.rooms.get(msg.room) is room:
                await room.play(self, msg)
                return
        handler = HANDLERS.get(type(msg))
        if handler is None:
            raise RoomError("protocol/unexpected", f"{msg.TYPE} is not expected now")
        if not self.account and self.server.auth.required and type(msg) not in _OPEN_REQUESTS:
            raise AuthError("auth/required", "this server requires an account: sign in "
                            "(guest, register, login or restore) first")
        if not self._looks_up(msg):
            await self._run(handler, msg)
            return
        lookups, key = self.server.lookups, self.address_key
        await lookups.check(key, self.account)
        try:
            await self._run(handler, msg)
            return
        except RoomError as exc:
            if exc.code != visibility.HIDDEN:
                raise
            hidden = exc
        # Counted outside the handler: compiled (mypyc), an await inside an except block
        # that then re-raises crashed the interpreter once the await really suspended.
        await lookups.failed(key, self.account)
        raise hidden

    async def _run(self, handler: Any, msg: p.Message) -> None:
        """Route ``msg`` to its room's process and run ``handler`` here, or forward it; a
        ``get_log`` or ``get_replay`` of a room no process runs is answered from the games
        archive (:func:`.archive.answer`: the same visibility rule)."""
        room_id = await self._target(msg)
        if room_id is not None:
            where: Room | str | None = None
            try:
                where = await self.server.lobby.route(room_id)
            except RoomError as exc:  # no await in here (see dispatch)
                if exc.code != visibility.HIDDEN or not isinstance(msg, _ARCHIVED_REQUESTS):
                    raise
            if where is None:  # the room is gone: its finished game may be archived
                assert isinstance(msg, _ARCHIVED_REQUESTS)
                self.send(await archive.answer(self.server.store, self, msg))
                return
            if isinstance(where, str):
                await self.server.cluster.forward(self, where, room_id, msg)
                return
        await handler(self, msg)

    def _looks_up(self, msg: p.Message) -> bool:
        """Whether ``msg`` looks a room up: a ``join`` by code, or any request but ``resume``
        naming a room this session is not in (here or on another process). A ``resume``
        proves itself with its seat token (or account), tells a guesser nothing of a private
        room, and must take a seat back even from an address out of look-ups."""
        if isinstance(msg, p.Resume):
            return False
        if isinstance(msg, p.Join):
            if msg.code is not None:
                return True
            room_id = msg.room or ""
        elif isinstance(msg, _ROOM_REQUESTS):
            room_id = msg.room
        else:
            return False
        return room_id not in self.rooms and room_id not in self.remote_rooms

    async def _target(self, msg: p.Message) -> str | None:
        if isinstance(msg, p.Join):
            if msg.code is not None:
                room_id = await self.server.store.room_by_code(msg.code.upper())
                if room_id is None:
                    raise visibility.unknown_code()
                return room_id
            return msg.room or ""
        if isinstance(msg, _ROOM_REQUESTS):
            return msg.room
        return None

    # -- requests ------------------------------------------------------------------------

    async def _list_games(self, msg: p.ListGames) -> None:
        self.send(p.Games(games=games.catalog(),
                          room_options=[o.describe() for o in ROOM_OPTIONS], re=msg.id))

    async def _list_rooms(self, msg: p.ListRooms) -> None:
        """One page of the lobby (:meth:`Store.list_page`): any number of rooms is listed
        page by page, each page read through an index, never the whole lobby at once.
        Private rooms are never listed (issue #35)."""
        page, cursor = await self.server.store.list_page(
            game=msg.game, mode=msg.mode, waiting=bool(msg.waiting), cursor=msg.cursor,
            limit=msg.limit or p.LIST_LIMIT, public=True)
        self.send(p.Rooms(rooms=[p.RoomSummary(**s) for s in page if visibility.listed(s)],
                          more=True if cursor is not None else None, cursor=cursor,
                          re=msg.id))

    async def _queue_request(self, msg: p.QueueJoin | p.QueueLeave) -> None:
        """Answer ``queue_join`` and ``queue_leave``: rated play's queue (issue #45,
        :meth:`.rated_queue.RatedQueue.request`)."""
        await self.server.queue.request(self, msg)

    async def _create_room(self, msg: p.CreateRoom) -> None:
        room = await self.server.lobby.create(self, msg, dict(msg.options), msg.private,
                                              msg.name)
        self.send(p.RoomCreated(room=room.id, code=room.table.code, re=msg.id))

    async def _join_room(self, room: Room, seat: int | None, re: Any) -> None:
        await room.submit(lambda: room.apply(room.table.join(self, seat, re)))

    async def _join(self, msg: p.Join) -> None:
        rooms = self.server.lobby.rooms
        if msg.code is not None:
            room = visibility.by_code(rooms, await self._target(msg))
        else:
            room = visibility.enterable(rooms, msg.room or "")
        await self._join_room(room, msg.seat, msg.id)

    async def _quick_join(self, msg: p.QuickJoin) -> None:
        """Seat the client in an open room that fits, or in a fresh one. An open room on
        another process: the quick join goes there whole, so that its owner seats the client
        in a fresh room of its own when that one filled meanwhile; forwarded, it looks at
        the owner's rooms only (one hop at most)."""
        lobby = self.server.lobby
        forwarded = self.process != self.server.store.process_id
        room_id = await lobby.quick_room(msg, local=forwarded)
        room = None
        if room_id is not None:
            where = await lobby.route(room_id)
            if isinstance(where, str):  # an open room on another process: join there
                await self.server.cluster.forward(self, where, room_id, msg)
                return
            room = where
        if room is None:
            room = await lobby.create(self, msg)
        try:
            await self._join_room(room, None, msg.id)
        except RoomError as exc:
            if exc.code not in ("room/full", "room/already_started", "room/already_seated"):
                raise
            # Someone took the last seat first: make a fresh room.
            await self._join_room(await lobby.create(self, msg), None, msg.id)

    async def _spectate(self, msg: p.Spectate) -> None:
        room = visibility.enterable(self.server.lobby.rooms, msg.room)

        async def work() -> None:
            if not room.lease_current():  # a stale copy, maybe (issue #35)
                raise RoomError("server/unavailable", "the room is moving to another "
                                "server: ask again shortly")
            await room.apply(room.table.spectate(self, msg.id))

        await room.submit(work)

    async def _leave(self, msg: p.Leave) -> None:
        room = self._member_room(msg.room)
        await room.submit(lambda: room.apply(room.table.leave(self)))
        self.send(p.Left(room=room.id, re=msg.id))

    async def _start(self, msg: p.Start) -> None:
        room = self._visible_room(msg.room)
        await room.submit(lambda: room.apply(room.table.start(self, msg.id)))

    async def _resume(self, msg: p.Resume) -> None:
        room = self.server.lobby.find(msg.room)

        async def work() -> None:
            try:
                outs = room.table.resume(self, msg.token, msg.id)
            except RoomError as exc:
                raise visibility.refusal(room, self, exc) from None
            await room.apply(outs)

        await room.submit(work)

    async def _act(self, msg: p.Act) -> None:
        room = self._member_room(msg.room)
        await room.play(self, msg)

    async def _get_view(self, msg: p.GetView) -> None:
        room = self._member_room(msg.room)

        async def work() -> None:
            # A room reloading after a failed write may not know its true state yet; one
            # whose lease is not confirmed current may be a stale copy (issue #35).
            if room.table.reloading or not room.lease_current():
                raise RoomError("server/unavailable", "the room is reloading its game from "
                                "the store, or moving to another server: ask again shortly")
            await room.apply(room.table.view(self, msg.id))

        await room.submit(work)

    async def _get_log(self, msg: p.GetLog) -> None:
        """Answer ``get_log``: a page of a finished room's log with what replays it (any
        connection may ask of a public room, the game being over and its deal revealed; of a
        private room only its members: to anyone else it answers as an unknown room does,
        before the end and after).

        Raises:
            RoomError: ``room/not_found`` (no such room, or a private room this session is
                not in), ``room/not_finished`` (the game is not over).
            StoreError: the store is unavailable.
        """
        room = self._visible_room(msg.room)
        if room.table.phase is not Phase.FINISHED:  # as the transition table says
            table.step(room.table.phase, Event.REVEAL)
        # Any: the SQLite and Redis stores hand back each entry as the list msgpack unpacks,
        # which a compiled LogEntry (a tuple) would refuse
        entries: list[Any] = await self.server.store.log(room.id)
        first = msg.first or 0
        page, more = archive.log_page(entries, first)
        game = room.table.dealt()
        outcome = dict(game.outcome() or {})
        outcome["stats"] = game.stats()
        self.send(p.Log(room=room.id, game=room.table.game_name, seats=game.seats,
                        options=dict(game.options), salt=room.table.salt or None,
                        commitment=room.table.commitment, state_id=game.state_id,
                        outcome=outcome, first=first, entries=page, more=more,
                        re=msg.id))

    async def _get_leaderboard(self, msg: p.GetLeaderboard) -> None:
        """Answer ``get_leaderboard``: a page of a game's board (:mod:`.leaderboard`; its
        entries are accounts, shown by their display names now), the top one or the one
        around ``msg.around``'s rank, and this session's account's own rank.

        Raises:
            RoomError: ``lobby/unknown_game`` (no such game, or no such mode of it),
                ``lobby/no_leaderboard`` (the game or mode keeps no board).
            StoreError: the store is unavailable.
        """
        if msg.game not in games.names():
            raise RoomError("lobby/unknown_game", f"no game {msg.game!r} on this server")
        modes = games.get(msg.game).modes() or (leaderboard.STANDARD,)
        if msg.mode is not None and msg.mode not in modes:
            raise RoomError("lobby/unknown_game", f"{msg.game} has no mode {msg.mode!r}")
        board = leaderboard.find(msg.game, msg.mode)
        if board is None:
            raise RoomError("lobby/no_leaderboard", f"{msg.game} keeps no leaderboard"
                            + (f" in mode {msg.mode}" if msg.mode else ""))
        store, limit = self.server.store, msg.limit or p.LEADERBOARD_LIMIT
        start = 0
        if msg.around is not None:
            holder = await self._account_named(msg.around)
            found = await store.board_rank(board.id, holder) if holder else None
            if found is not None:
                start = max(0, found[0] - (limit - 1) // 2)
        rows, total = await store.board_page(board.id, start, limit)
        accounts = await self.server.accounts.get_many([a for a, _ in rows])
        entries = [{"rank": start + i + 1, "name": acct.name if acct is not None else "?",
                    "score": board.score(value)}
                   for i, ((_, value), acct) in enumerate(zip(rows, accounts))]
        mine = await store.board_rank(board.id, self.account) if self.account else None
        you = None if mine is None else {"rank": mine[0] + 1, "score": board.score(mine[1])}
        self.send(p.Leaderboard(game=board.game, mode=board.mode, order=board.order,
                                entries=entries, total=total, you=you, how=board.ranking.how,
                                re=msg.id))

    async def _chat(self, msg: p.Chat) -> None:
        """Answer ``chat``: the room says the line to its members (:meth:`Room.say`).

        Raises:
            RoomError: ``room/not_found``, ``room/not_seated`` (not in the room),
                ``chat/muted``, ``protocol/bad_value`` (nothing printable in the text).
        """
        room = self._member_room(msg.room)

        async def work() -> None:
            try:
                outs = room.table.say(self, msg)
            except ChatRefused as exc:
                raise RoomError(exc.code, exc.message) from None
            await room.apply(outs)

        await room.submit(work)

    async def _get_replay(self, msg: p.GetReplay) -> None:
        """Answer ``get_replay``: the view of a finished room at ``msg.state_id``, replayed
        by the engine (:mod:`.replay`): the public view, or the asker's own seat's.

        Raises:
            RoomError: ``room/not_found``, ``room/not_finished``, ``room/not_seated`` (a
                seat's view asked by a connection that does not hold that seat),
                ``protocol/bad_value`` (``state_id`` past the end).
            StoreError: the store is unavailable.
        """
        room = self._visible_room(msg.room)
        view, events, final = await replay_view(room, self, msg.state_id, msg.seat)
        self.send(p.Replay(room=room.id, state_id=msg.state_id, final=final, seat=msg.seat,
                           view=view, events=events, re=msg.id))

    async def _account_named(self, name: str) -> str | None:
        """The id of the account whose username is ``name``, or whose names look like it
        (:func:`.names.name_keys`), or None.

        Raises:
            StoreError: the store is unavailable.
        """
        accounts = self.server.accounts
        try:
            found = await accounts.lookup("user", names.username(name))
        except names.BadName:
            found = None
        for key in sorted(names.name_keys(name)) if found is None else ():
            found = await accounts.lookup("name", key)
            if found is not None:
                break
        return found

    async def _account(self, msg: p.AccountRequest) -> None:
        """A way in or out, or a new display name: the auth service's (:mod:`.auth`)."""
        await self.server.auth.request(self, msg)

    async def _my_games(self, msg: p.GetMyGames) -> None:
        """Answer ``get_my_games`` (:func:`.history.my_games`).

        Raises:
            AuthError: ``auth/required`` (signed in to no account).
            StoreError: a store is unavailable.
        """
        if not self.account:
            raise AuthError("auth/required", "sign in to see your games")
        self.send(await my_games(self.server.accounts, self.server.store, self.account, msg))

    async def _ping(self, msg: p.Ping) -> None:
        self.send(p.Pong(re=msg.id))

    def _member_room(self, room_id: str) -> Room:
        """The room ``room_id`` this session is in (:func:`.visibility.member`).

        Raises:
            RoomError: ``room/not_found`` (missing or hidden), ``room/not_seated``.
        """
        return visibility.member(self.server.lobby.rooms, self, room_id)

    def _visible_room(self, room_id: str) -> Room:
        """The room ``room_id`` of this process, when this session may know it exists
        (:func:`.visibility.visible`: a public room, or a private one it is in or created;
        issue #35 and #41: a hidden room answers as an unknown one does).

        Raises:
            RoomError: ``room/not_found``.
        """
        return visibility.visible(self.server.lobby.rooms, self, room_id)


HANDLERS: dict[type, Any] = {
    p.ListGames: Session._list_games,
    p.ListRooms: Session._list_rooms,
    p.CreateRoom: Session._create_room,
    p.Join: Session._join,
    p.QuickJoin: Session._quick_join,
    p.Spectate: Session._spectate,
    p.Leave: Session._leave,
    p.Start: Session._start,
    p.Resume: Session._resume,
    p.Act: Session._act,
    p.GetView: Session._get_view,
    p.GetLog: Session._get_log,
    p.GetLeaderboard: Session._get_leaderboard,
    p.Ping: Session._ping,
    p.Chat: Session._chat,
    p.GetReplay: Session._get_replay,
    **{cls: Session._account for cls in (p.Guest, p.Register, p.Login, p.Restore, p.Refresh,
                                         p.Logout, p.SetName)},
    p.GetMyGames: Session._my_games,
    p.QueueJoin: Session._queue_request,
    p.QueueLeave: Session._queue_request,
}
