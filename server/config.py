"""Server settings: one frozen dataclass, filled from the command line or by tests."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

from limits import parse


@dataclass(frozen=True)
class Settings:
    """Settings of one ``cardhall serve`` process.

    Attributes:
        host: Interface to listen on (``127.0.0.1`` by default; ``0.0.0.0`` for all).
        port: TCP port; 0 picks a free one (see :attr:`Server.port`).
        max_frame: Largest frame accepted from a client, in bytes (64 KiB). Longer frames
            close the connection with 1009.
        hello_timeout: Seconds a new connection has to complete the hello (close 4001). The
            same bound applies to the HTTP upgrade and TLS handshake before it (an idle socket
            that never upgrades is dropped).
        max_bad_frames: Malformed frames one connection may send before it is closed with
            4000; each one before that gets an error reply.
        max_rooms: Rooms this process hosts at most (``room/limit`` beyond; 100,000). A
            waiting room costs about 3 KiB (``benchmarks/waiting_rooms.py``), a playing one
            its engine and task besides.
        finished_ttl: Seconds a finished room stays listed before removal (its record stays
            in the games archive: ``history_days``).
        history_days: Days a finished game's record (log, seeds, result, seats) is kept in
            the games archive after its end (issue #44); None: kept until an operator
            purges it.
        rated_boards: Who the rating lists of rated play show (issue #45,
            :mod:`.rated`): ``"all"`` (guest accounts too) or ``"registered"``.
        queue_bot_after: Seconds a ticket of rated play's queue waits before bots fill its
            table's empty seats (``--queue-bot-after``); None: never.
        queue_wave_seconds: Seconds between two waves of the queue (``--queue-wave-seconds``).
        solo_keep_days: Days a solo game its player left (or lost the connection to) is
            kept for that player, paused: its turn clock stopped, no bot moves for it, listed
            in My games as running and resumed from any device of the account (issue #44
            item 1, ``--solo-keep``); then it ends as a loss (forfeited). None: kept until
            the player resigns or finishes it.
        public_turn_seconds: The turn clock (seconds per turn) of a public room of several
            seats whose creator set none (issue #44 item 12: one idle player cannot hold a
            public table for ever); private and solo rooms choose their own. None: no clock.
        max_pending_bytes: Bytes queued for one slow client before it is dropped (close 4009).
            Beyond these, at most the WebSocket write buffer (32 KiB) and the kernel's socket
            buffer hold data for a client, so a reader that never reads costs bounded memory.
        ping_interval: Seconds between keepalive pings (None: off).
        ping_timeout: Seconds to wait for a pong before closing (None: wait for ever).
        msg_rate: Messages per second one connection may send, sustained: the refill rate of
            its token bucket (100 messages/s). A message without a token is refused with
            ``rate/limited`` and the server reads nothing more from that connection until a
            token is back. None: no limit (local load tests with bots at loopback speed).
        msg_burst: Capacity of that bucket, in messages (200): how many may come at once.
        max_rate_strikes: Messages refused with ``rate/limited`` that one connection may
            send within ``rate_strike_window`` before it is closed with 4008 (100).
        rate_strike_window: Seconds over which refusals are counted (10 s): the strike
            allowance refills at ``max_rate_strikes / rate_strike_window`` per second.
        max_connections_per_address: Open connections (including ones still in the
            handshake) from one client IP address (64), counted when the TCP connection is
            accepted; more are reset at once, before any HTTP is read. Behind a trusted
            proxy (``trusted_proxies``) the address is the client's from the PROXY header.
            None: no limit.
        max_connections: Open sockets in all (handshakes included), counted at accept;
            more are reset at once. None: the soft limit of open file descriptors (raised to
            the hard limit by ``cardhall serve``) less ``fd_reserve``.
        fd_reserve: File descriptors kept for everything but client sockets (Redis,
            logs, sockets accepted but not yet counted) when ``max_connections`` is derived
            (128).
        header_timeout: Seconds a new TCP connection has to deliver its whole HTTP request
            (and, from a trusted proxy, its PROXY header first): 3 s; it is reset
            otherwise. With TLS, the TLS handshake has this long too. ``hello_timeout``
            still bounds the whole upgrade and hello.
        close_grace: Seconds a connection the server is closing (any close code, e.g. 4009
            for a slow reader) has to flush and finish the closing handshake before its
            socket is aborted (2 s): a client that stops reading cannot hold the socket
            and its buffers.
        trusted_proxies: Networks (CIDR, e.g. ``("10.0.0.5/32",)``) of proxies whose
            connections begin with a PROXY protocol header (v1 or v2; haproxy's
            ``send-proxy-v2``). Their client's address is the one in the header; a
            connection from them without a valid header is reset. Others may not send one.
            Empty: the PROXY protocol is off. Not with TLS (terminate TLS at the proxy).
        rooms_per_minute: Rooms one connection may create per minute (10; ``create_room`` and
            a ``quick_join`` that finds no room both count), as a token bucket with a burst
            of the same size; beyond it ``room/limit``. None: no limit.
        rooms_per_minute_per_address: Rooms all connections from one client address (the
            creator key: :meth:`~.connection.Connection.creator`) may create per minute
            together (30), as a token bucket with a burst of the same size; beyond it
            ``room/limit``. A spammer that reconnects gets no fresh allowance. None: no
            limit.
        empty_room_ttl: Seconds a waiting room may stay with nobody seated in it (from its
            creation, or from the moment its last seat was freed) before it is removed (60):
            created rooms nobody plays do not pile up. A waiting room whose seated players
            all dropped is removed as soon as their grace windows end and nobody is
            connected to it. None: never.
        chat_rate: Chat lines (``chat``, emotes included) one connection may send per
            second, sustained: the refill rate of its chat bucket (1 line/s), checked before
            the message bucket's limit matters; beyond it ``rate/limited`` (no strike
            towards the 4008 close). None: no chat limit.
        chat_burst: Capacity of that bucket, in lines (5): how many may come at once.
        certfile: PEM certificate chain for TLS (``wss://``); None: plain ``ws://``.
        keyfile: PEM private key of ``certfile`` (None: the key is in ``certfile``).
        origins: Browser origins allowed to connect (``Origin`` header, e.g.
            ``("https://cards.example",)``); other origins get HTTP 403. Requests without an
            ``Origin`` header (non-browser clients, bots) are always allowed. None: any
            origin.
        compression: Use permessage-deflate (off by default: frames are small msgpack).
        server_name: Sent in ``welcome.server``.
        gc_threshold: Container allocations between two young-generation runs of Python's
            cycle collector (50,000; Python's default is 700), set by :func:`app.run` for the
            whole process, which also freezes the objects alive at startup out of later
            collections (``gc.freeze``). Fewer, slightly longer pauses of the event loop: in
            ``cardhall bench`` this halved the p99 action round trip. None: Python's defaults.
        admin_token: Bearer token of the admin HTTP API (``/admin/...``, :mod:`.admin`);
            None: the API is off (404). Never logged.
        auth: ``"optional"``: a connection that signs in to no account plays as an
            anonymous guest (old clients that send only ``hello``); ``"required"``: every
            request but the lobby's listings, leaderboards, ``ping`` and the ways in needs a
            signed-in account (``auth/required``). See :mod:`.auth`.
        auth_access_seconds: Life of an access token (1 day).
        auth_refresh_seconds: Life of a refresh token (30 days); a refresh gives a new pair.
        auth_jwt_key: File of the operator identity provider's key (PEM public key, or an
            HMAC secret): its JWTs sign players in (:mod:`.operator_jwt`). None: off.
        auth_jwks: A JSON Web Key Set file instead of ``auth_jwt_key``.
        auth_issuer: The ``iss`` those JWTs must carry.
        auth_audience: The ``aud`` they must hold.
        auth_login_limit: Password logins per account from devices it does not remember,
            and per remembered device (``limits`` notation: ``"10/5 minutes"``), counted
            before the password is checked; beyond, such logins are refused
            (``auth/rate_limited``) until the window moves on (see :mod:`.auth`).
        auth_address_limit: Password and JWT sign-ins (each costs a hash) per client
            address (``"30/minute"``).
        auth_guest_limit: New guest accounts per client address (``"30/minute"``).
        lookup_limit: Failed look-ups of rooms (``join`` by a code no room has; ``join``,
            ``spectate``, ``get_view``, ``get_log``, ``get_replay`` and every other request
            naming a room that does not exist or is hidden) per client address and per
            account, in ``limits`` notation (``"20/minute"``); beyond, every look-up (even
            of a room that exists) is refused with ``rate/limited`` until the window moves
            on; requests about rooms the session is in, and ``resume``, never count nor
            wait. None: no limit.
            See :mod:`.visibility`.
        ipv6_prefix: Leading bits of a client's IPv6 address that make its key in every
            per-address limit (64: one /64 network counts as one address; 128: each
            address alone): :func:`~.limits.address_key`. IPv4 addresses count alone.
        auth_hash: argon2id parameters ``(time_cost, memory_cost in KiB, parallelism)``:
            ``(3, 19456, 1)`` (above OWASP's least, 2 passes over 19 MiB) costs about 27 ms
            of a worker thread per login, in the 20-100 ms asked for (benchmarks/auth.py:
            2 passes cost 18 ms there).
        auth_hash_threads: Threads that hash passwords (each holds ``memory_cost`` KiB while
            it hashes); sign-ins beyond them wait their turn.
    """

    host: str = "127.0.0.1"
    port: int = 8765
    max_frame: int = 64 * 1024
    hello_timeout: float = 10.0
    max_bad_frames: int = 100
    max_rooms: int = 100_000
    finished_ttl: float = 300.0
    history_days: float | None = None
    rated_boards: str = "all"
    queue_bot_after: float | None = None
    queue_wave_seconds: float = 3.0
    solo_keep_days: float | None = 30.0
    public_turn_seconds: float | None = 60.0
    max_pending_bytes: int = 1024 * 1024
    ping_interval: float | None = 20.0
    ping_timeout: float | None = 20.0
    msg_rate: float | None = 100.0
    msg_burst: int = 200
    max_rate_strikes: int = 100
    rate_strike_window: float = 10.0
    max_connections_per_address: int | None = 64
    max_connections: int | None = None
    fd_reserve: int = 128
    header_timeout: float = 3.0
    close_grace: float = 2.0
    trusted_proxies: tuple[str, ...] = ()
    rooms_per_minute: int | None = 10
    rooms_per_minute_per_address: int | None = 30
    empty_room_ttl: float | None = 60.0
    chat_rate: float | None = 1.0
    chat_burst: int = 5
    certfile: str | None = None
    keyfile: str | None = None
    origins: tuple[str, ...] | None = None
    compression: bool = False
    server_name: str = "cardhall/0.1"
    gc_threshold: int | None = 50_000
    admin_token: str | None = field(default=None, repr=False)
    auth: str = "optional"
    auth_access_seconds: float = 86_400.0
    auth_refresh_seconds: float = 30 * 86_400.0
    auth_jwt_key: str | None = None
    auth_jwks: str | None = None
    auth_issuer: str | None = None
    auth_audience: str | None = None
    auth_login_limit: str = "10/5 minutes"
    auth_address_limit: str = "30/minute"
    auth_guest_limit: str = "30/minute"
    lookup_limit: str | None = "20/minute"
    ipv6_prefix: int = 64
    auth_hash: tuple[int, int, int] = (3, 19_456, 1)
    auth_hash_threads: int = 2

    def __post_init__(self) -> None:
        """Check what cannot be checked by a type.

        Raises:
            ValueError: a ``trusted_proxies`` entry is not an IP network, the PROXY
                protocol is asked for together with TLS, ``auth`` is neither
                ``"optional"`` nor ``"required"``, or a JWT key comes without an issuer
                and an audience, ``lookup_limit`` is not in ``limits`` notation, or
                ``ipv6_prefix`` is not in 0..128.
        """
        if not 0 <= self.ipv6_prefix <= 128:
            raise ValueError(f"ipv6_prefix must be in 0..128, not {self.ipv6_prefix}")
        if self.lookup_limit:
            try:
                parse(self.lookup_limit)
            except ValueError:
                raise ValueError(f"lookup limit {self.lookup_limit!r} is not a rate such as "
                                 "'20/minute'") from None
        if self.auth not in ("optional", "required"):
            raise ValueError(f"auth must be 'optional' or 'required', not {self.auth!r}")
        if (self.auth_jwt_key or self.auth_jwks) and not (self.auth_issuer
                                                          and self.auth_audience):
            raise ValueError("operator JWTs need --auth-issuer and --auth-audience")
        for net in self.trusted_proxies:
            try:
                ipaddress.ip_network(net, strict=False)
            except ValueError:
                raise ValueError(f"trusted proxy {net!r} is not an IP address or network "
                                 "(CIDR)") from None
        if self.trusted_proxies and self.certfile is not None:
            raise ValueError("the PROXY protocol and TLS together are not supported: "
                             "terminate TLS at the proxy")
