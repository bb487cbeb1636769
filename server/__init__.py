"""Cardhall server: WebSocket lobby and rooms hosting authoritative card-game engines.

It hosts the engines of :mod:`cardhall.games` (pure, deterministic rule engines and bot
strategies, no I/O), which the client shares.
"""
