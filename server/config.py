"""Server settings: one frozen dataclass, filled from the command line or by tests."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    """Settings of one ``cardhall serve`` process.

    Attributes:
        host: Interface to listen on (``127.0.0.1`` by default; ``0.0.0.0`` for all).
        port: TCP port; 0 picks a free one (see :attr:`Server.port`).
        max_frame: Largest frame accepted from a client, in bytes (64 KiB). Longer frames
            close the connection with 1009.
        hello_timeout: Seconds a new connection has to complete the hello (close 4001).
        max_bad_frames: Malformed frames one connection may send before it is closed with
            4000; each one before that gets an error reply.
        max_rooms: Rooms this process hosts at most (``room/limit`` beyond).
        finished_ttl: Seconds a finished room stays listed (and its log kept) before removal.
        max_pending_bytes: Bytes queued for one slow client before it is dropped (close 4009).
        ping_interval: Seconds between keepalive pings (None: off).
        ping_timeout: Seconds to wait for a pong before closing (None: wait for ever).
        compression: Use permessage-deflate (off by default: frames are small msgpack).
        server_name: Sent in ``welcome.server``.
    """

    host: str = "127.0.0.1"
    port: int = 8765
    max_frame: int = 64 * 1024
    hello_timeout: float = 10.0
    max_bad_frames: int = 100
    max_rooms: int = 10_000
    finished_ttl: float = 300.0
    max_pending_bytes: int = 1024 * 1024
    ping_interval: float | None = 20.0
    ping_timeout: float | None = 20.0
    compression: bool = False
    server_name: str = "cardhall/0.1"
