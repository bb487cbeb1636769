"""Sign-in attempts and remembered devices: how many passwords may be tried, and for whom
the account's limit does not apply (issues #29 and #41; :mod:`.auth` asks both).

:class:`Attempts` counts sign-in attempts with ``limits`` (a moving window, in the account
store's backend so that a Redis lobby counts for all its processes): per client address, per
account for password logins, per remembered device, per address for new guests. A password
login is counted (reserved: ``limits``' ``hit`` is one atomic test-and-count, never a
``test`` then a ``hit``) before its password is hashed, so that logins sent at once from any
number of addresses never check more passwords than the limit. A successful login keeps its
reservation: giving it back would mean clearing the whole window (a guesser would get a
fresh budget whenever the owner signs in) or reaching into the library's window, and the
owner's own devices do not spend from the account's budget anyway.

:class:`Devices` (OWASP's "Slow Down Online Guessing Attacks with Device Cookies"): a
password ``login`` or a ``register`` gives the device a remembered-device token
(:data:`~.identity.DEVICE`, kept by its digest among the account's tokens for
:data:`DEVICE_SECONDS`), which the device sends with its next ``login`` of that account; a
new token replaces it each time. A login with a valid one is counted per device (the same
limit), not against the account's budget, so that guesses from elsewhere lock out new
devices only, never the owner's; an invalid one (expired, used, another account's) counts as
none. A logout everywhere, an operator's revoke or a ban forgets the account's devices with
its other tokens (``drop_all_tokens``).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable

from limits import RateLimitItem, parse
from limits.aio.storage import Storage
from limits.aio.strategies import MovingWindowRateLimiter

from .account_store import TokenBook
from .identity import DEVICE, new_token, read_token
from ..store.ports import StoreError

__all__ = ["DEVICE_SECONDS", "Attempts", "Devices"]

#: Life of a remembered-device token, in seconds (180 days); each login replaces it.
DEVICE_SECONDS = 180 * 86_400.0


class Attempts:
    """Sign-in attempts counted in moving windows (``limits``), in a storage every process
    of the lobby shares when the account store is shared. Every count is ``limits``' ``hit``:
    one atomic test-and-count, so that attempts made at once never pass a limit together.

    Args:
        storage: The ``limits`` storage (:meth:`AccountBook.limits_storage`).
        per_account: Password logins per account from devices it does not remember, and
            per remembered device (``"10/5 minutes"``).
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

    async def reserve(self, username: str, device: str = "") -> bool:
        """Count a password login before its password is checked: against the remembered
        device ``device`` (the digest of its valid token) when given, else against the
        account ``username``; False (check no password) when that is over its limit.

        Raises:
            StoreError: the storage is unavailable.
        """
        if device:
            return await self._run(self.limiter.hit(self.per_account, "device", device))
        return await self._run(self.limiter.hit(self.per_account, "user", username))

    async def new_guest(self, address: str) -> bool:
        """Count a new guest account from ``address``; False when over the limit.

        Raises:
            StoreError: the storage is unavailable.
        """
        return await self._run(self.limiter.hit(self.guests, "guest", address))


class Devices:
    """The remembered-device tokens of accounts, kept in their token book.

    Args:
        tokens: Where the tokens' records are kept (the account store).
    """

    def __init__(self, tokens: TokenBook) -> None:
        self.tokens = tokens

    async def check(self, token: str | None, account_id: str | None) -> str:
        """The digest of ``token`` when it is a live remembered-device token of the account
        ``account_id``; ``""`` otherwise (none, malformed, expired, dropped, or another
        account's: no token at all).

        Raises:
            StoreError: the store is unavailable.
        """
        read = read_token(token) if token and account_id else None
        if read is None or read[0] != DEVICE or read[1] != account_id:
            return ""
        record = await self.tokens.get_token(read[1], read[2])
        return read[2] if record is not None and record.get("kind") == DEVICE else ""

    async def remember(self, account_id: str, forget: str = "") -> str:
        """A new remembered-device token for the account (kept :data:`DEVICE_SECONDS`),
        replacing the one whose digest is ``forget`` (``""``: none).

        Raises:
            StoreError: the store is unavailable.
        """
        token, kept = new_token(DEVICE, account_id)
        await self.tokens.put_token(account_id, kept, {
            "kind": DEVICE, "expires": int(time.time() + DEVICE_SECONDS)}, DEVICE_SECONDS)
        if forget:
            await self.tokens.drop_tokens(account_id, forget)
        return token
