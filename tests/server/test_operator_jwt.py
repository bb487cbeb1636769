"""Tests of the operator's JWTs (``cardhall.server.accounts.operator_jwt``) without a server: the
key kinds other than RSA (tests/server/test_auth.py signs in with RSA over a live server), the
refused algorithm swaps, the clock leeway, and the constructor's refusals."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import jwt
import pytest
from cardhall.server.accounts.identity import AuthError
from cardhall.server.accounts.operator_jwt import LEEWAY, Claims, OperatorTokens
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

ISS, AUD = "https://id.example", "cardhall"
SECRET = b"s" * 32


def _token(key: Any, algorithm: str, **claims: Any) -> str:
    now = int(time.time())
    body = {"iss": ISS, "aud": AUD, "sub": "player-1", "iat": now, "exp": now + 300, **claims}
    return jwt.encode({k: v for k, v in body.items() if v is not None}, key, algorithm=algorithm)


def _pem(tmp_path: Path, private: Any) -> str:
    path = tmp_path / "idp.pem"
    path.write_bytes(private.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return str(path)


@pytest.mark.parametrize("make, algorithm", [
    (lambda: ec.generate_private_key(ec.SECP256R1()), "ES256"),
    (lambda: ec.generate_private_key(ec.SECP384R1()), "ES384"),
    (ed25519.Ed25519PrivateKey.generate, "EdDSA"),
])
def test_ec_and_ed25519_keys_verify_their_own_algorithm(tmp_path: Path, make: Any,
                                                        algorithm: str) -> None:
    """The claims come back; a name that is not a string is no name."""
    private = make()
    tokens = OperatorTokens(ISS, AUD, key_file=_pem(tmp_path, private))
    claims = tokens.verify(_token(private, algorithm, preferred_username="zoe", name=7))
    assert claims == Claims(ISS, "player-1", "zoe", "")


def test_an_hmac_token_is_refused_by_a_public_key(tmp_path: Path) -> None:
    """The algorithm swap: an HS256 token is refused by its algorithm before any secret is
    tried (PyJWT would not sign with a PEM as the secret, an attacker's library would)."""
    private = ec.generate_private_key(ec.SECP256R1())
    path = _pem(tmp_path, private)
    tokens = OperatorTokens(ISS, AUD, key_file=path)
    forged = jwt.encode({"iss": ISS, "aud": AUD, "sub": "x", "iat": 1, "exp": 2**40},
                        b"not-the-pem-" + b"x" * 32, algorithm="HS256")
    with pytest.raises(AuthError) as err:
        tokens.verify(forged)
    assert err.value.code == "auth/bad_credentials" and "InvalidAlgorithmError" in str(err.value)


def test_an_hmac_secret_file_and_the_clock_leeway(tmp_path: Path) -> None:
    """A secret of 32 bytes or more (trailing newline stripped) verifies HS256; a token
    expired within LEEWAY seconds passes, one expired before is ``auth/expired``."""
    path = tmp_path / "secret"
    path.write_bytes(SECRET + b"\n")
    tokens = OperatorTokens(ISS, AUD, key_file=str(path))
    now = int(time.time())
    assert tokens.verify(_token(SECRET, "HS256", exp=now - int(LEEWAY) + 5)).subject == "player-1"
    with pytest.raises(AuthError) as err:
        tokens.verify(_token(SECRET, "HS256", exp=now - int(LEEWAY) - 5))
    assert err.value.code == "auth/expired"
    with pytest.raises(AuthError, match="no subject"):
        tokens.verify(_token(SECRET, "HS256", sub=""))
    with pytest.raises(AuthError) as err:
        tokens.verify(_token(SECRET, "HS256", iat=None))
    assert err.value.code == "auth/bad_credentials"


@pytest.mark.parametrize("issuer, audience, files, needle", [
    ("", AUD, {"key_file": "k"}, "an issuer and an audience"),
    (ISS, "", {"key_file": "k"}, "an issuer and an audience"),
    (ISS, AUD, {}, "exactly one of"),
    (ISS, AUD, {"key_file": "k", "jwks_file": "j"}, "exactly one of"),
])
def test_the_constructor_refuses_missing_or_doubled_settings(
        issuer: str, audience: str, files: dict[str, str], needle: str) -> None:
    """ValueError before any file is read (``cardhall serve`` reports it as a usage error)."""
    with pytest.raises(ValueError, match=needle):
        OperatorTokens(issuer, audience, **files)


def test_unusable_key_files_are_value_errors(tmp_path: Path) -> None:
    """A short secret, a private key's PEM, a JWKS that is not one."""
    short = tmp_path / "short"
    short.write_bytes(b"s" * 31)
    with pytest.raises(ValueError, match="at least 32 bytes"):
        OperatorTokens(ISS, AUD, key_file=str(short))
    private = tmp_path / "private.pem"
    private.write_bytes(ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption()))
    with pytest.raises(ValueError):
        OperatorTokens(ISS, AUD, key_file=str(private))
    jwks = tmp_path / "jwks.json"
    jwks.write_text('{"keys": "none"}')
    with pytest.raises(ValueError, match="not a usable JSON Web Key Set"):
        OperatorTokens(ISS, AUD, jwks_file=str(jwks))
