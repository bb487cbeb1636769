"""Load and fault harnesses that drive live Cardhall servers from outside.

:mod:`cardhall.bench.load` is ``cardhall bench`` (latency, throughput and memory against a raw
websockets baseline; its server children run as ``python -m cardhall.bench.load serve|echo``)
and :mod:`cardhall.bench.chaos` is ``cardhall chaos`` (bots play while server processes and
Redis are killed or paused). They sit above :mod:`cardhall.server` and the client: the server
imports nothing of them except its command-line front end (``cardhall.server.cli``).
"""
