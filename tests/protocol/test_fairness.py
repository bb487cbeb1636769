"""Tests of the fair-deal commitment (``cardhall.protocol.fairness``) against its spec: what
tests/server/test_fairness.py (the rooms' use of it) does not pin down."""

from __future__ import annotations

import hashlib

import pytest
from cardhall.protocol import fairness


def test_the_commitment_is_the_documented_sha256() -> None:
    """The module docstring's example: seed 7, salt ``"00" * 16``, a 50-byte string hashed;
    a client in another language recomputes exactly this."""
    text = b"cardhall-deal/1:7:" + b"0" * 32
    assert len(text) == 50
    assert fairness.commitment(7, "00" * 16) == hashlib.sha256(text).hexdigest()
    big = 2**63 - 1
    assert fairness.commitment(big, "ab" * 16) == hashlib.sha256(
        f"cardhall-deal/1:{big}:{'ab' * 16}".encode()).hexdigest()


@pytest.mark.parametrize("seed, salt, needle", [
    (-1, "0" * 32, "seed"), (True, "0" * 32, "seed"), ("7", "0" * 32, "seed"),
    (1.0, "0" * 32, "seed"), (7, "0" * 31, "salt"), (7, "A" * 32, "salt"),
    (7, "0" * 33, "salt"), (7, b"0" * 32, "salt"),
])
def test_commitment_refuses_a_bad_seed_or_salt(seed: object, salt: object, needle: str) -> None:
    """ValueError naming which; ``matches`` answers False for the same values."""
    with pytest.raises(ValueError, match=needle):
        fairness.commitment(seed, salt)  # type: ignore[arg-type]
    assert not fairness.matches(seed, salt, "0" * 64)  # type: ignore[arg-type]


def test_matches_wants_the_very_commitment() -> None:
    """Another salt, an upper-case copy or a non-string published value do not match."""
    salt = fairness.new_salt()
    published = fairness.commitment(42, salt)
    assert fairness.matches(42, salt, published)
    assert not fairness.matches(42, fairness.new_salt(), published)
    assert not fairness.matches(42, salt, published.upper())
    assert not fairness.matches(42, salt, None)  # type: ignore[arg-type]


def test_salts_and_commitments_are_recognised_by_shape() -> None:
    """Fresh salts are well formed and differ; the predicates take any object."""
    salts = {fairness.new_salt() for _ in range(20)}
    assert len(salts) == 20 and all(fairness.is_salt(s) for s in salts)
    assert fairness.is_commitment(fairness.commitment(0, salts.pop()))
    for bad in ("0" * 63, "g" * 64, "F" * 64, None, 12, "0" * 64 + "\n"):
        assert not fairness.is_commitment(bad)
    assert not fairness.is_salt("0" * 32 + "\n") and not fairness.is_salt(None)
