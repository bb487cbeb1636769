"""Players' accounts: who a connection is, how it signs in, and the accounts' stores.

- :mod:`.identity`: an account's record and its ids; :mod:`.names`: display names nobody
  can imitate.
- :mod:`.account_store`: the accounts' port; :mod:`.account_memory`,
  :mod:`.account_sqlite`, :mod:`.account_redis`: its backends.
- :mod:`.auth`: sign-in, registration, guests and tokens on the wire;
  :mod:`.attempts`: the limits on guessing; :mod:`.operator_jwt`: the operator's own
  identity provider.
"""
