"""Who a player is: the account record, its secrets' digests, and the access tokens.

No I/O here: the account stores (:mod:`.account_store`) keep these records, the auth service
(:mod:`.auth`) issues and checks them.

Secrets are never kept, compared or logged as they are:

* a password is kept as its argon2id hash (:mod:`.auth` hashes and verifies it off the
  event loop; argon2's verify compares in constant time);
* a guest's device secret, an access token's and a refresh token's secret part are kept
  and looked up as their SHA-256 :func:`digest` (each holds at least 128 random bits, so a
  fast hash suffices; a lookup by digest compares no secret byte by byte);
* an operator identity provider's subject is kept as the digest of its issuer and ``sub``.

Tokens (:func:`new_token`) read ``chs1.ACCOUNT.SECRET`` (an access token),
``chr1.ACCOUNT.SECRET`` (a refresh token) and ``chd1.ACCOUNT.SECRET`` (a remembered-device
token: the device signed in to the account with its password, and may sign in again past the
account's failed-login limit, :mod:`.auth`): the account id names where the store keeps the
token's record (every key of an account shares one Redis hash slot), the secret (256 random
bits) proves it.

Exception tree::

    AuthError            a refused sign-in or name; ``code`` is its protocol error code
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["ACCESS", "ACTIVE", "BANNED", "DEVICE", "PASSWORD_MAX", "PASSWORD_MIN", "REFRESH",
           "Account", "AuthError", "check_password", "digest", "new_account_id", "new_token",
           "read_token"]

PASSWORD_MIN, PASSWORD_MAX = 8, 1024
"""Bytes of a password (UTF-8), least and most (``auth/weak_password`` outside)."""
ACTIVE, BANNED = "active", "banned"
"""Values of :attr:`Account.status`."""
ACCESS, REFRESH, DEVICE = "s", "r", "d"
"""Kinds of token: an access token (signs a connection in), a refresh token (trades the
pair for a new one) and a remembered-device token (lets its device's password login past
the account's failed-login limit). The values are kept in stored token records and in the
tokens themselves (``chs1.``): ``"s"`` stays."""

_TOKEN = re.compile(r"ch([srd])1\.([0-9a-f]{16})\.([A-Za-z0-9_-]{43})")


class AuthError(Exception):
    """A refused sign-in, registration or name (sent as an ``error`` with ``code``).

    Args:
        code: The protocol error code (``auth/...``).
        message: Human-readable explanation (never holds a secret).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def digest(text: str) -> str:
    """The SHA-256 digest of ``text`` (UTF-8) as 64 lowercase hex digits."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def new_account_id() -> str:
    """A fresh, random account id: 16 lowercase hex digits (64 bits)."""
    return secrets.token_hex(8)


def new_token(kind: str, account: str) -> tuple[str, str]:
    """A new token of ``kind`` (:data:`ACCESS`, :data:`REFRESH` or :data:`DEVICE`) for
    ``account``.

    Returns:
        ``(token, digest)``: the token to hand to the client once, and the digest of its
        secret, which is what the store keeps.
    """
    secret = secrets.token_urlsafe(32)  # 43 characters, 256 bits
    return f"ch{kind}1.{account}.{secret}", digest(secret)


def read_token(token: str) -> tuple[str, str, str] | None:
    """``(kind, account, digest)`` of a token made by :func:`new_token`, or None when
    ``token`` does not have that shape."""
    match = _TOKEN.fullmatch(token)
    if match is None:
        return None
    kind, account, secret = match.groups()
    return kind, account, digest(secret)


def check_password(password: str) -> None:
    """Check a new password's length: :data:`PASSWORD_MIN`..:data:`PASSWORD_MAX` bytes of
    UTF-8.

    Raises:
        AuthError: ``auth/weak_password`` when it is shorter or longer.
    """
    size = len(password.encode("utf-8", "surrogatepass"))
    if not PASSWORD_MIN <= size <= PASSWORD_MAX:
        raise AuthError("auth/weak_password", f"a password has {PASSWORD_MIN} to "
                        f"{PASSWORD_MAX} bytes (UTF-8); this one has {size}")


@dataclass(frozen=True, slots=True)
class Account:
    """One account.

    Attributes:
        id: Opaque id (:func:`new_account_id`); never changes, keys leaderboards and history.
        username: The normalised username (:func:`.names.username`; a guest's is
            ``guest-TAG``).
        name: The display name tables and boards show (:func:`.names.display_name`).
        created: When the account was made (unix time, s).
        status: :data:`ACTIVE` or :data:`BANNED`.
        guest: True until the account has a password or an external subject.
        password: The argon2id hash of its password (``""``: none).
        subject: Digest of the operator identity provider's issuer and subject (``""``:
            none).
        keys: The unique keys the account holds in its store, ``(kind, key)`` pairs: its
            username (``"user"``), its names' keys (``"name"``, :func:`.names.name_keys`),
            its device digest (``"device"``) or subject digest (``"subject"``).
    """

    id: str
    username: str
    name: str
    created: float = field(default_factory=time.time)
    status: str = ACTIVE
    guest: bool = False
    password: str = ""
    subject: str = ""
    keys: tuple[tuple[str, str], ...] = ()

    @property
    def banned(self) -> bool:
        """True when an operator banned the account."""
        return self.status == BANNED

    def record(self) -> dict[str, Any]:
        """The account as a store keeps it (msgpack-able; the password hash included)."""
        return {"id": self.id, "username": self.username, "name": self.name,
                "created": self.created, "status": self.status, "guest": self.guest,
                "password": self.password, "subject": self.subject,
                "keys": [list(k) for k in self.keys]}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Account:
        """The account a store kept (:meth:`record`).

        Raises:
            KeyError: the record lacks ``id``, ``username`` or ``name``.
        """
        return cls(id=record["id"], username=record["username"], name=record["name"],
                   created=float(record.get("created", 0.0)),
                   status=record.get("status", ACTIVE), guest=bool(record.get("guest")),
                   password=record.get("password", ""), subject=record.get("subject", ""),
                   keys=tuple((str(k), str(v)) for k, v in record.get("keys", ())))

    def public(self) -> dict[str, Any]:
        """What an operator may see of the account (no password hash, no digests)."""
        return {"account": self.id, "username": self.username, "name": self.name,
                "created": int(self.created), "status": self.status, "guest": self.guest,
                "external": bool(self.subject)}

    def with_(self, **changes: Any) -> Account:
        """A copy with ``changes`` (dataclass field names)."""
        return replace(self, **changes)
