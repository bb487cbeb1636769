"""Sign-in attempts: how many passwords may be tried (issues #29 and #41; :mod:`.auth` asks).

:class:`Attempts` counts sign-in attempts with ``limits`` (a moving window, in the account
store's backend so that a Redis lobby counts for all its processes): per client address, per
account for password logins, per address for new guests. A password
login is counted (reserved: ``limits``' ``hit`` is one atomic test-and-count, never a
``test`` then a ``hit``) before its password is hashed, so that logins sent at once from any
number of addresses never check more passwords than the limit. A successful login keeps its
reservation: giving it back would mean clearing the whole window (a guesser would get a
fresh budget whenever the owner signs in) or reaching into the library's window.
"""

from __future__ import annotations

from collections.abc import Awaitable

from limits import RateLimitItem, parse
from limits.aio.storage import Storage
from limits.aio.strategies import MovingWindowRateLimiter

from .store import StoreError

__all__ = ["Attempts"]


class Attempts:
    """Sign-in attempts counted in moving windows (``limits``), in a storage every process
    of the lobby shares when the account store is shared. Every count is ``limits``' ``hit``:
    one atomic test-and-count, so that attempts made at once never pass a limit together.

    Args:
        storage: The ``limits`` storage (:meth:`AccountBook.limits_storage`).
        per_account: Password logins per account (``"10/5 minutes"``).
        per_address: Password and JWT sign-ins per client address.
        guests: New guest accounts per client address.

    Raises:
        ValueError: a limit that ``limits.parse`` cannot read.
    """

    def __init__(self, storage: Storage, per_account: str, per_address: str,
                 guests: str) -> None:
        self.limiter = MovingWindowRateLimiter(storage)
        self.per_account: RateLimitItem = parse(per_account)
        self.per_address: RateLimitItem = parse(per_address)
        self.guests: RateLimitItem = parse(guests)

    async def _run(self, call: Awaitable[bool]) -> bool:
        try:
            return await call
        except Exception as exc:  # the storage's own errors (redis-py's, say)
            raise StoreError(f"sign-in limits unavailable: {exc}") from None

    async def from_address(self, address: str) -> bool:
        """Count a password, JWT or registration attempt from ``address``; False (nothing
        to be tried) when the address is over its limit.

        Raises:
            StoreError: the storage is unavailable.
        """
        return await self._run(self.limiter.hit(self.per_address, "addr", address))

    async def reserve(self, username: str) -> bool:
        """Count a password login for the account ``username`` before its password is
        checked; False (check no password) when the account is over its limit.

        Raises:
            StoreError: the storage is unavailable.
        """
        return await self._run(self.limiter.hit(self.per_account, "user", username))

    async def new_guest(self, address: str) -> bool:
        """Count a new guest account from ``address``; False when over the limit.

        Raises:
            StoreError: the storage is unavailable.
        """
        return await self._run(self.limiter.hit(self.guests, "guest", address))
