"""The operators' admin HTTP API, on the WebSocket port (issue #21).

Every request needs ``Authorization: Bearer TOKEN`` with the token of ``--admin-token`` (or
``CARDHALL_ADMIN_TOKEN``, or ``--admin-token-file``), compared in constant time
(:func:`hmac.compare_digest`). Without a configured token the API is off: every ``/admin``
path answers 404. A missing or wrong token answers 401. Answers are JSON objects; errors
are ``{"error": MESSAGE}``.

    GET  /admin/rooms?cursor=&limit=&game=&mode=&waiting=  one page of every process's rooms
                                                           (as ``list_rooms``) with owners
    POST /admin/rooms/ID/close                             close a room on any process
    POST /admin/rooms/ID/seats/N/kick                      remove the player of seat N
    POST /admin/rooms/ID/seats/N/mute                      mute seat N in the room's chat
    POST /admin/rooms/ID/seats/N/unmute                    let seat N chat again
    POST /admin/drain?timeout=SECONDS                      start draining this process (202)
    POST /admin/games/ID/purge                             forget a finished game's archived
                                                           record (issue #44: :mod:`.archive`)
    POST /admin/games/prune?days=N                         forget the archived games finished
                                                           more than N days ago
    GET  /admin/drain                                      the drain's progress
    ...  /admin/accounts...                                accounts: list, find, ban, unban,
                                                           rename, revoke (:mod:`.admin_accounts`)

Why the WebSocket port and not a listener of its own: websockets hands any method (``POST``
included) with an empty body to ``process_request``, which already serves ``/healthz`` and
``/metrics``; the API needs no body (everything is in the path and query), and it gets the
port's TLS, admission limits and address for free. Operators keep ``/admin`` off the public
proxy (see docs/operations.md, "Admin API and rolling restarts").

A close or kick for a room owned by another process is sent to the owner's inbox (see
:mod:`.cluster`: ``{"k": "admin", ...}``), which runs it and answers ``{"k": "admin_re",
...}``. A drain (:meth:`Admin.drain`) stops this process from creating rooms and accepting
connections (``/healthz`` and WebSocket upgrades answer 503), hands every room it owns to the
other processes through the store (:meth:`~.lobby.Lobby.hand_over`: state saved, lease
released, taken over by their orphan scans), then closes its client connections with 1012
(service restart), and the clients reconnect elsewhere and resume their seats. With the
durable embedded store (SQLite) the rooms stay in the data file, and the restarted process
takes them over: the drain closes the connections at once, and the clients resume their
seats on the new process. With the memory store there is nowhere to keep rooms: the drain
waits until no game is being played (or the timeout), then closes the connections.
"""

from __future__ import annotations

import asyncio
import hmac
import http
import itertools
import json
import logging
import re
import time
from typing import Any, Protocol
from urllib.parse import parse_qs, urlsplit

import msgpack
from websockets.http11 import Request, Response

from .web import Responder
from .. import protocol as p
from . import archive
from .admin_accounts import AccountsAdmin, page_limit
from .accounts.auth import Auth
from .room.chat import ChatRefused
from .cluster import Cluster
from .config import Settings
from .connection import Connection, peer_address
from .lobby import Lobby
from .logs import event
from .room import Room, RoomError
from .phases import Phase
from .store.ports import Store, StoreError, store_kind

log = logging.getLogger("cardhall.admin")

#: Close code of client connections when their server drains (RFC 6455 "service restart").
CLOSE_SERVICE_RESTART = 1012
#: Seconds a drain waits by default for its rooms to be taken over (Redis) or to finish
#: (memory store) before it closes the connections all the same.
DRAIN_TIMEOUT = 60.0
#: Seconds a close or kick forwarded to the room's owner may take before it answers 504.
FORWARD_TIMEOUT = 10.0
#: Most rooms on one page of ``GET /admin/rooms``.
MAX_PAGE = 500

_ROOM = r"(?P<room>[A-Za-z0-9_-]{1,64})"
_CLOSE = re.compile(rf"/admin/rooms/{_ROOM}/close")
_KICK = re.compile(rf"/admin/rooms/{_ROOM}/seats/(?P<seat>[0-9]{{1,2}})/kick")
_MUTE = re.compile(rf"/admin/rooms/{_ROOM}/seats/(?P<seat>[0-9]{{1,2}})/(?P<op>mute|unmute)")
_PURGE = re.compile(rf"/admin/games/{_ROOM}/purge")

Result = tuple[int, dict[str, Any]]
"""An HTTP status and the JSON object answered."""


class Hub(Protocol):
    """What the admin API needs of its server (:class:`~cardhall.server.app.Server`)."""

    settings: Settings
    store: Store
    lobby: Lobby
    cluster: Cluster
    connections: set[Connection]
    auth: Auth


class Admin:
    """The admin API of one server process.

    Args:
        server: The server.
        token: The bearer token operators must send; None or ``""`` turns the API off.

    Attributes:
        drain_state: ``"serving"``, ``"draining"`` or ``"drained"``.
    """

    def __init__(self, server: Hub, token: str | None) -> None:
        self.server = server
        self._token = token.encode() if token else None
        self._ids = itertools.count(1)
        self._replies: dict[int, asyncio.Future[Result]] = {}
        self.drain_state = "serving"
        self._drain: dict[str, Any] = {}
        self._drain_task: asyncio.Task[None] | None = None
        self.accounts = AccountsAdmin(server.auth)

    @property
    def draining(self) -> bool:
        """True once a drain has begun (it never ends before the process does)."""
        return self.drain_state != "serving"

    # -- HTTP ----------------------------------------------------------------------------

    async def http(self, ws: Responder, request: Request) -> Response | None:
        """Answer a request for ``/admin`` or below; None for any other path.

        Args:
            ws: The connection the request came on.
            request: The parsed request (any method; websockets refuses bodies).
        """
        if not request.path.startswith("/admin"):  # the common case: one string test
            return None
        url = urlsplit(request.path)
        if url.path != "/admin" and not url.path.startswith("/admin/"):
            return None
        addr = peer_address(ws)
        if self._token is None:
            return _json(ws, 404, {"error": "the admin API is disabled: start the server "
                                            "with --admin-token or CARDHALL_ADMIN_TOKEN"})
        if not self._authorized(request):
            event(log, logging.WARNING, "admin_denied", addr=addr, method=request.method,
                  path=url.path)
            response = _json(ws, 401, {"error": "a valid admin token is required "
                                                "(Authorization: Bearer TOKEN)"})
            response.headers["WWW-Authenticate"] = 'Bearer realm="cardhall-admin"'
            return response
        query = {k: v[-1] for k, v in parse_qs(url.query).items()}
        status, body = await self._route(request.method, url.path, query)
        event(log, logging.INFO, "admin", addr=addr, method=request.method, path=url.path,
              status=status)
        return _json(ws, status, body)

    def _authorized(self, request: Request) -> bool:
        """Whether the request carries the admin token (constant-time comparison)."""
        assert self._token is not None
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(),
                                                                  self._token)

    async def _route(self, method: str, path: str, query: dict[str, str]) -> Result:
        if path.startswith("/admin/accounts"):
            found = await self.accounts.route(method, path, query)
            if found is not None:
                return found
        if path == "/admin/rooms":
            return await self.rooms(query) if method == "GET" else _not_allowed("GET")
        if path == "/admin/drain":
            if method == "GET":
                return 200, self.drain_status()
            if method != "POST":
                return _not_allowed("GET, POST")
            try:
                timeout = float(query.get("timeout", DRAIN_TIMEOUT))
            except ValueError:
                timeout = -1.0
            if not 0 <= timeout <= 3600:
                return 400, {"error": "timeout: seconds from 0 to 3600"}
            return await self.drain(timeout)
        if path.startswith("/admin/games/"):
            return await self.games(method, path, query)
        for pattern, op in ((_CLOSE, "close"), (_KICK, "kick"), (_MUTE, "")):
            match = pattern.fullmatch(path)
            if match is not None:
                if method != "POST":
                    return _not_allowed("POST")
                seat = int(match["seat"]) if op != "close" else None
                return await self.run(op or match["op"], match["room"], seat)
        return 404, {"error": f"no admin endpoint {path}"}

    # -- the games archive ---------------------------------------------------------------

    async def games(self, method: str, path: str, query: dict[str, str]) -> Result:
        """``POST /admin/games/ID/purge`` (``{"room", "purged": 0 or 1}``; 404 when the
        archive holds no such game) and ``POST /admin/games/prune?days=N`` (``{"days",
        "pruned"}``: how many games finished more than N days ago were forgotten)."""
        match = _PURGE.fullmatch(path)
        if match is None and path != "/admin/games/prune":
            return 404, {"error": f"no admin endpoint {path}"}
        if method != "POST":
            return _not_allowed("POST")
        store = self.server.store
        try:
            if match is not None:
                purged = await store.purge_archived([match["room"]])
                if not purged:
                    return 404, {"error": f"the games archive holds no game {match['room']!r}"}
                event(log, logging.WARNING, "game_purged", room=match["room"])
                return 200, {"room": match["room"], "purged": purged}
            try:
                days = float(query.get("days", ""))
            except ValueError:
                days = -1.0
            if not 0 <= days <= 1e6:
                return 400, {"error": "days: a number of days from 0 to 1000000"}
            pruned = await archive.prune(store, days)
        except StoreError as exc:
            return 503, {"error": str(exc) or "the store is unavailable"}
        event(log, logging.WARNING, "games_pruned", days=days, pruned=pruned)
        return 200, {"days": days, "pruned": pruned}

    # -- rooms ---------------------------------------------------------------------------

    async def rooms(self, query: dict[str, str]) -> Result:
        """One page of the rooms of every process (the store's lobby, private rooms
        included), each entry with its ``owner`` (the process holding its lease, None when
        nobody runs it now).

        Args:
            query: ``cursor`` (of the previous page), ``limit`` (1..500, default 100),
                ``game``, ``mode``, ``waiting`` (``1``: only rooms anyone may join now).

        Returns:
            200 with ``{"rooms": [...], "cursor": CURSOR_OR_NULL}``; 400 for a bad limit;
            503 when the store is unavailable.
        """
        limit = page_limit(query, MAX_PAGE)
        if limit is None:
            return 400, {"error": f"limit: 1 to {MAX_PAGE}"}
        store = self.server.store
        try:
            page, cursor = await store.list_page(
                game=query.get("game"), mode=query.get("mode"),
                waiting=query.get("waiting", "") in ("1", "true", "yes"),
                cursor=query.get("cursor") or None, limit=limit)
            owners = await store.owners([entry["room"] for entry in page])
            rooms = [{**entry, "owner": owner} for entry, owner in zip(page, owners)]
        except StoreError as exc:
            return 503, {"error": f"store unavailable: {exc}"}
        return 200, {"rooms": rooms, "cursor": cursor}

    async def run(self, op: str, room_id: str, seat: int | None, *,
                  forwarded: bool = False) -> Result:
        """Close room ``room_id`` (``op`` ``"close"``), kick the player of ``seat`` from
        it (``"kick"``), or mute (``"mute"``) or unmute (``"unmute"``) that seat in its chat,
        here when this process owns the room, else at its owner.

        Args:
            op: ``"close"``, ``"kick"``, ``"mute"`` or ``"unmute"``.
            room_id: The room.
            seat: The seat (all but ``close``).
            forwarded: The request came from another process: it is not sent on again.

        Returns:
            200 with what was done; 404 (no such room, or nobody holds the seat); 503 (the
            store or the owner cannot be reached, or the room moved meanwhile); 504 (the
            owner did not answer in time).
        """
        lobby = self.server.lobby
        try:
            where = await lobby.route(room_id)
        except RoomError as exc:
            return (404 if exc.code == "room/not_found" else 503), {"error": exc.message}
        except StoreError as exc:
            return 503, {"error": f"store unavailable: {exc}"}
        if isinstance(where, str):
            if forwarded:
                return 503, {"error": f"room {room_id} moved to another process; retry"}
            return await self._forward(where, op, room_id, seat)
        try:
            if op == "close":
                return 200, await self._close(where)
            assert seat is not None
            if op in ("mute", "unmute"):
                muted = await asyncio.wait_for(where.submit(
                    lambda: where.apply(where.table.mute(seat, op == "mute"))), FORWARD_TIMEOUT)
                return 200, {"room": room_id, **muted, "owner": self.server.store.process_id}
            result = await asyncio.wait_for(
                where.submit(lambda: where.apply(where.table.kick(seat))), FORWARD_TIMEOUT)
        except ChatRefused as exc:
            return 404, {"error": exc.message}
        except RoomError as exc:
            return (404 if exc.code in ("room/not_seated", "room/not_found") else 503), {
                "error": exc.message}
        except TimeoutError:
            return 504, {"error": f"room {room_id} did not answer in time"}
        return 200, {"room": room_id, "seat": seat, "seat_now": result,
                     "owner": self.server.store.process_id}

    async def _close(self, room: Room) -> dict[str, Any]:
        """Tell every member (``error room/closed``, then ``left``), then remove the room
        and its stored state.

        Raises:
            RoomError: the room stopped running here meanwhile (``server/unavailable``).
            TimeoutError: its task did not run the notice in time.
        """
        def tell() -> int:
            members = list(room.table.members)
            for conn in members:
                conn.send_error("room/closed", "an operator closed the room")
                conn.send(p.Left(room=room.id))
            return len(members)

        told = await asyncio.wait_for(room.submit(tell), FORWARD_TIMEOUT)
        await self.server.lobby.remove(room.id)
        return {"room": room.id, "closed": True, "members_told": told,
                "owner": self.server.store.process_id}

    async def _forward(self, owner: str, op: str, room_id: str, seat: int | None) -> Result:
        """Send the operation to the room's owner and wait for its answer."""
        rid = next(self._ids)
        fut: asyncio.Future[Result] = asyncio.get_running_loop().create_future()
        self._replies[rid] = fut
        payload = msgpack.packb({"k": "admin", "from": self.server.store.process_id,
                                 "id": rid, "op": op, "room": room_id, "seat": seat})
        try:
            if not await self.server.store.publish(owner, payload):
                return 503, {"error": f"the owner of room {room_id} ({owner}) is not "
                                      "listening; retry once the room is taken over"}
            return await asyncio.wait_for(fut, FORWARD_TIMEOUT)
        except StoreError as exc:
            return 503, {"error": f"store unavailable: {exc}"}
        except TimeoutError:
            return 504, {"error": f"the owner of room {room_id} ({owner}) did not answer"}
        finally:
            self._replies.pop(rid, None)

    async def inbox(self, msg: dict[str, Any]) -> None:
        """Handle an ``admin`` request from another process (run in the background, the
        answer published to its inbox) or an ``admin_re`` answer to one of ours."""
        if msg.get("k") == "admin_re":
            fut = self._replies.get(msg["id"])
            if fut is not None and not fut.done():
                fut.set_result((int(msg["status"]), dict(msg["body"])))
            return
        cluster = self.server.cluster

        async def answer() -> None:
            status, body = await self.run(msg["op"], msg["room"], msg.get("seat"),
                                          forwarded=True)
            event(log, logging.INFO, "admin_forwarded", op=msg["op"], room=msg["room"],
                  seat=msg.get("seat"), origin=msg["from"], status=status)
            try:
                await self.server.store.publish(msg["from"], msgpack.packb(
                    {"k": "admin_re", "id": msg["id"], "status": status, "body": body}))
            except StoreError as exc:
                log.warning("admin answer to %s lost: %s", msg["from"], exc)

        cluster.background.spawn(answer())

    # -- drain ---------------------------------------------------------------------------

    def drain_status(self) -> dict[str, Any]:
        """The drain's progress: ``state`` (``serving``, ``draining``, ``drained``),
        ``store`` (``shared``, ``durable``: SQLite, or ``memory``), and once begun:
        ``started`` (unix time s), ``timeout`` (s), ``rooms_handed_over``,
        ``rooms_not_taken_over`` (ids still without a new owner), ``rooms_kept`` (durable
        store: rooms left in the file for the restarted process), ``rooms_left`` (memory
        store: games still played), ``connections_closed`` and ``seconds`` (time the drain
        took, once drained)."""
        return {"state": self.drain_state, "store": store_kind(self.server.store),
                "process": self.server.store.process_id, **self._drain}

    async def drain(self, timeout: float) -> Result:
        """Begin draining this process (idempotent: a drain under way or done is reported).

        Args:
            timeout: Seconds to wait for the rooms to be taken over (shared store) or to
                finish (memory store) before the connections are closed all the same.

        Returns:
            202 with :meth:`drain_status` while draining, 200 once drained.
        """
        if not self.draining:
            self.drain_state = "draining"
            self.server.lobby.draining = True
            self._drain = {"started": time.time(), "timeout": timeout}
            event(log, logging.WARNING, "drain_start", timeout=timeout,
                  rooms=len(self.server.lobby.rooms),
                  connections=len(self.server.connections))
            self._drain_task = asyncio.get_running_loop().create_task(
                self._run_drain(timeout), name="drain")
            await asyncio.sleep(0)  # let it begin
        status = 200 if self.drain_state == "drained" else 202
        return status, self.drain_status()

    async def _run_drain(self, timeout: float) -> None:
        try:
            started = time.monotonic()
            deadline = started + timeout
            store = self.server.store
            if store.shared:
                await self._hand_over_rooms(deadline)
            elif store.durable:  # the restarted process takes the rooms over from the file
                self._drain["rooms_kept"] = len(self.server.lobby.rooms)
            else:
                await self._wait_games(deadline)
            closed = 0
            for conn in list(self.server.connections):
                if not conn.closed:
                    conn.close_with(CLOSE_SERVICE_RESTART, "server draining: reconnect to "
                                    "another server")
                    closed += 1
            self._drain["connections_closed"] = closed
            self._drain["seconds"] = round(time.monotonic() - started, 3)
            self.drain_state = "drained"
            event(log, logging.WARNING, "drain_done", **{
                k: v for k, v in self._drain.items() if k in (
                    "seconds", "connections_closed", "rooms_handed_over")},
                not_taken_over=len(self._drain.get("rooms_not_taken_over", [])),
                left=len(self._drain.get("rooms_left", [])))
        except Exception:  # a bug: logged, never lost in an unawaited task
            log.exception("drain failed")
            self._drain["error"] = "the drain failed (logged on the server)"

    async def _hand_over_rooms(self, deadline: float) -> None:
        """Shared store: hand every room over, then wait (until ``deadline``, monotonic)
        for another process to own each one."""
        lobby, store = self.server.lobby, self.server.store
        handed: list[str] = []
        # Again while rooms are left: a takeover begun before the drain may add one.
        while lobby.rooms and time.monotonic() < deadline:
            for room in list(lobby.rooms.values()):
                try:
                    await lobby.hand_over(room)
                except StoreError as exc:  # its lease expires: taken over all the same
                    log.warning("room %s: handover incomplete: %s", room.id, exc)
                    lobby.rooms.pop(room.id, None)
                handed.append(room.id)
        self._drain["rooms_handed_over"] = len(handed)
        pending = set(handed)
        self._drain["rooms_not_taken_over"] = sorted(pending)
        while pending and time.monotonic() < deadline:
            for room_id in sorted(pending):
                try:
                    owner = await store.owner(room_id)
                    gone = owner is None and await store.load(room_id) is None
                except StoreError:
                    continue
                if gone or (owner is not None and owner != store.process_id):
                    pending.discard(room_id)
            self._drain["rooms_not_taken_over"] = sorted(pending)
            if pending:
                await asyncio.sleep(0.2)

    async def _wait_games(self, deadline: float) -> None:
        """Memory store: wait (until ``deadline``, monotonic) until no game is played."""
        lobby = self.server.lobby

        def playing() -> list[str]:
            return sorted(r.id for r in lobby.rooms.values()
                          if r.table.phase is Phase.PLAYING)

        while playing() and time.monotonic() < deadline:
            self._drain["rooms_left"] = playing()
            await asyncio.sleep(0.2)
        self._drain["rooms_left"] = playing()

    async def close(self) -> None:
        """Stop a drain still running (server shutdown)."""
        task = self._drain_task
        if task is not None and not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


def _not_allowed(allowed: str) -> Result:
    return 405, {"error": f"method not allowed here (allowed: {allowed})"}


def _json(ws: Responder, status: int, body: dict[str, Any]) -> Response:
    """A JSON response (``Content-Type: application/json``) built on ``ws.respond``."""
    data = json.dumps(body, sort_keys=True).encode() + b"\n"
    response = ws.respond(http.HTTPStatus(status), "")
    headers = response.headers.copy()
    del headers["Content-Type"]
    del headers["Content-Length"]
    headers["Content-Type"] = "application/json"
    headers["Content-Length"] = str(len(data))
    headers["Cache-Control"] = "no-store"
    return Response(response.status_code, response.reason_phrase, headers, data)
