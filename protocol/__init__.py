"""Cardhall wire protocol: bytes <-> typed messages. No sockets, no asyncio."""
