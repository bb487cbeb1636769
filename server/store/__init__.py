"""Where rooms, logs, boards and games live: the store's ports and its three backends.

- :mod:`.ports`: the contract every backend implements (room log, lobby index, leases,
  boards, inbox, games archive) and its errors.
- :mod:`.memory_store`: one process, nothing kept (``--store memory``, tests).
- :mod:`.sqlite_store` with :mod:`.sqlite_file`, :mod:`.sqlite_journal`,
  :mod:`.sqlite_checks`, :mod:`.sqlite_archive`: the embedded default, one data file.
- :mod:`.redis_store` with :mod:`.redis_keys`, :mod:`.redis_leases`,
  :mod:`.redis_topology`, :mod:`.redis_archive`: shared by many processes (Sentinel or
  Cluster for no single point of failure).
- :mod:`.transfer`: ``cardhall migrate``, a lobby from one store to another.
- :mod:`.local_ports`: what the single-process stores share.
"""
