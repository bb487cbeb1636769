"""Load and fault harnesses that drive live Cardhall servers from outside.

:mod:`cardhall.bench.load` is ``cardhall bench`` (latency, throughput and memory against a raw
websockets baseline: the load generator :mod:`~cardhall.bench.loadgen`, its server children
:mod:`~cardhall.bench.servers`, run as ``python -m cardhall.bench.servers serve|echo``, the
table :mod:`~cardhall.bench.report`) and :mod:`cardhall.bench.drills` is ``cardhall chaos``
(bots play while server processes and Redis are killed or paused: :mod:`~cardhall.bench.chaos`,
:mod:`~cardhall.bench.ha_chaos`). :mod:`cardhall.bench.procs` starts child processes for them,
the benchmarks and the tests. They sit above :mod:`cardhall.server` and the client, and only
the command line (:mod:`cardhall.cli`) imports them.
"""
