"""Cardhall server: WebSocket lobby and rooms hosting authoritative card-game engines.

Subpackages:
    cardhall.server.games: pure, deterministic rule engines (no I/O, no asyncio).
"""
