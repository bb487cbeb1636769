"""Provably fair deals: the commitment a room publishes at start and checks after the reveal.

A room of the server draws its deal seed (a 63-bit integer) and a salt (16 random bytes,
written as 32 lowercase hex digits) when it is created. When the game starts every member
learns the **commitment**::

    commitment = lowercase hex of SHA-256( UTF-8 of "cardhall-deal/1:" + str(seed) + ":" + salt )

e.g. seed ``7`` and salt ``"00" * 16`` give the SHA-256 of the 50-byte string
``cardhall-deal/1:7:00000000000000000000000000000000``. At game over the server reveals
``seed`` and ``salt``; anyone can then recompute the commitment and replay the deal (see
``cardhall verify``). The salt makes the commitment useless for guessing the seed before the
reveal, even though seeds are shorter than the hash (protocol/README.md, "Fair deals").

Pure code (``hashlib``, ``secrets``): no I/O, importable by any client.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

#: The text before the seed in the hashed string; its ``/1`` is the scheme's version.
COMMITMENT_PREFIX = "cardhall-deal/1:"
#: Bytes of randomness in a salt (written as twice as many hex digits).
SALT_BYTES = 16
_SALT_RE = re.compile(r"[0-9a-f]{32}")
_HEX64_RE = re.compile(r"[0-9a-f]{64}")


def new_salt() -> str:
    """A fresh salt: ``SALT_BYTES`` random bytes from :mod:`secrets` as 32 lowercase hex
    digits."""
    return secrets.token_hex(SALT_BYTES)


def is_salt(salt: object) -> bool:
    """True when ``salt`` is a well-formed salt (32 lowercase hex digits)."""
    return isinstance(salt, str) and _SALT_RE.fullmatch(salt) is not None


def is_commitment(text: object) -> bool:
    """True when ``text`` looks like a commitment (64 lowercase hex digits)."""
    return isinstance(text, str) and _HEX64_RE.fullmatch(text) is not None


def commitment(seed: object, salt: object) -> str:
    """The commitment to a deal seed: SHA-256 of ``"cardhall-deal/1:<seed>:<salt>"``.

    Args:
        seed: The deal seed, an integer ``>= 0`` (written in decimal, no sign, no leading
            zeros).
        salt: The room's salt, 32 lowercase hex digits.

    Returns:
        64 lowercase hex digits.

    Raises:
        ValueError: ``seed`` is not a non-negative int (``True`` is not one), or ``salt`` is
            not a salt. (Typed ``object`` so that a compiled build checks them here too: a
            parameter typed ``int`` would take ``True`` as 1 and refuse a str with a
            TypeError before this check.)
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"a seed is an integer >= 0, not {seed!r}")
    if not isinstance(salt, str) or not is_salt(salt):
        raise ValueError(f"a salt is 32 lowercase hex digits, not {salt!r}")
    text = f"{COMMITMENT_PREFIX}{seed}:{salt}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def matches(seed: object, salt: object, published: object) -> bool:
    """True when ``seed`` and ``salt`` hash to the ``published`` commitment (compared in
    constant time); False for malformed values (any type) instead of raising."""
    try:
        mine = commitment(seed, salt)
    except ValueError:
        return False
    return isinstance(published, str) and hmac.compare_digest(mine, published)
