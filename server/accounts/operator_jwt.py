"""The operator's identity provider: JWTs it signed sign players in (``login`` with
``jwt``), as Nakama's custom authentication or a Colyseus room's ``onAuth`` do.

``cardhall serve --auth-jwt-key FILE`` (a PEM public key: RSA, EC or Ed25519; or a file
holding an HMAC secret of at least 32 bytes) or ``--auth-jwks FILE`` (a JSON Web Key Set;
the token's ``kid`` picks the key), with ``--auth-issuer`` and ``--auth-audience``. A token
is accepted only when (PyJWT, :func:`jwt.decode`):

* its algorithm is one the key is for (RS256/384/512 and PS* for RSA keys, ES256/384/512
  for EC keys by curve, EdDSA for Ed25519, HS256/384/512 for a secret): ``alg: none`` and
  an HMAC token checked against a public key are refused;
* its signature holds, ``iss`` is the issuer, ``aud`` holds the audience, and ``exp``
  (required, as are ``sub`` and ``iat``) has not passed (30 s leeway for clocks).

Its subject (``iss`` and ``sub``) maps to one account (:mod:`.auth`); ``preferred_username``
and ``name``, when present, valid and free, name a new account; an account whose token
claims no such name gets the generated ``user-TAG`` as username and display name alike
(:func:`.names.external_names`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from cryptography.hazmat.primitives.serialization import load_pem_public_key

from .identity import AuthError

__all__ = ["Claims", "OperatorTokens"]

#: Seconds of clock difference tolerated on ``exp``, ``iat`` and ``nbf``.
LEEWAY = 30.0
_RSA = ("RS256", "RS384", "RS512", "PS256", "PS384", "PS512")
_EC = {"secp256r1": ("ES256",), "secp384r1": ("ES384",), "secp521r1": ("ES512",)}
_HMAC = ("HS256", "HS384", "HS512")


@dataclass(frozen=True, slots=True)
class Claims:
    """What an accepted token says of its player.

    Attributes:
        issuer: ``iss``.
        subject: ``sub``.
        username: ``preferred_username`` (``""``: none).
        name: ``name`` (``""``: none).
    """

    issuer: str
    subject: str
    username: str = ""
    name: str = ""


def _algorithms(key: Any) -> tuple[str, ...]:
    """The JWS algorithms a key verifies (raises ValueError for another kind of key)."""
    if isinstance(key, rsa.RSAPublicKey):
        return _RSA
    if isinstance(key, ec.EllipticCurvePublicKey):
        return _EC.get(key.curve.name, ())
    if isinstance(key, ed25519.Ed25519PublicKey):
        return ("EdDSA",)
    raise ValueError(f"a {type(key).__name__} is not a key for JWTs here (RSA, EC or Ed25519)")


class OperatorTokens:
    """Verifies the operator's JWTs.

    Args:
        issuer: The ``iss`` a token must carry.
        audience: The audience its ``aud`` must hold.
        key_file: A PEM public key, or a file holding an HMAC secret (>= 32 bytes).
        jwks_file: A JSON Web Key Set file (instead of ``key_file``).

    Raises:
        ValueError: neither or both files, a file that holds no usable key, or an empty
            issuer or audience.
        OSError: a file cannot be read.
    """

    def __init__(self, issuer: str, audience: str, *, key_file: str | None = None,
                 jwks_file: str | None = None) -> None:
        if not issuer or not audience:
            raise ValueError("an issuer and an audience are needed (--auth-issuer, "
                             "--auth-audience)")
        if (key_file is None) == (jwks_file is None):
            raise ValueError("give exactly one of --auth-jwt-key and --auth-jwks")
        self.issuer, self.audience = issuer, audience
        #: (key id or None, key, algorithms) of each key.
        self.keys: list[tuple[str | None, Any, Sequence[str]]] = []
        if key_file is not None:
            self.keys.append((None, *_pem_or_secret(Path(key_file).read_bytes())))
        else:
            assert jwks_file is not None
            self.keys = _jwks(Path(jwks_file).read_text(encoding="utf-8"))

    def _key(self, token: str) -> tuple[Any, Sequence[str]]:
        """The key (and its algorithms) that should have signed ``token``: the one its
        ``kid`` names, or the only one.

        Raises:
            AuthError: ``auth/bad_credentials`` for a token without a readable header, or
                whose ``kid`` names no key.
        """
        try:
            kid = jwt.get_unverified_header(token).get("kid")
        except jwt.InvalidTokenError:
            raise AuthError("auth/bad_credentials", "not a JWT") from None
        for key_id, key, algorithms in self.keys:
            if kid is None and len(self.keys) == 1 or key_id == kid:
                return key, algorithms
        raise AuthError("auth/bad_credentials", "the JWT's kid names no key of this server")

    def verify(self, token: str) -> Claims:
        """The claims of ``token`` when it is valid (see the module docstring).

        Raises:
            AuthError: ``auth/expired`` for an expired token; ``auth/bad_credentials`` for
                any other fault (algorithm, signature, issuer, audience, missing claims).
        """
        key, algorithms = self._key(token)
        try:
            claims = jwt.decode(token, key, algorithms=list(algorithms),
                                audience=self.audience, issuer=self.issuer, leeway=LEEWAY,
                                options={"require": ["exp", "iat", "iss", "aud", "sub"]})
        except jwt.ExpiredSignatureError:
            raise AuthError("auth/expired", "the JWT has expired") from None
        except jwt.InvalidTokenError as exc:
            raise AuthError("auth/bad_credentials",
                            f"the JWT is not valid here ({type(exc).__name__})") from None
        subject = claims.get("sub")
        if not isinstance(subject, str) or not subject:
            raise AuthError("auth/bad_credentials", "the JWT has no subject")
        username, name = claims.get("preferred_username"), claims.get("name")
        return Claims(self.issuer, subject, username if isinstance(username, str) else "",
                      name if isinstance(name, str) else "")


def _pem_or_secret(data: bytes) -> tuple[Any, Sequence[str]]:
    """A PEM public key with its algorithms, or an HMAC secret (a file that is not PEM).

    Raises:
        ValueError: a PEM that is not a public key of a kind JWTs use, or a secret shorter
            than 32 bytes.
    """
    if b"-----BEGIN" in data:
        key = load_pem_public_key(data)
        return key, _algorithms(key)
    secret = data.strip()
    if len(secret) < 32:
        raise ValueError("an HMAC secret for JWTs has at least 32 bytes")
    return secret, _HMAC


def _jwks(text: str) -> list[tuple[str | None, Any, Sequence[str]]]:
    """The keys of a JSON Web Key Set, each with the algorithms its type verifies.

    Raises:
        ValueError: not a JWKS, or a key PyJWT cannot read.
    """
    try:
        found = jwt.PyJWKSet.from_json(text)
    except (jwt.PyJWKSetError, jwt.PyJWKError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a usable JSON Web Key Set: {exc}") from None
    keys: list[tuple[str | None, Any, Sequence[str]]] = []
    for jwk in found.keys:
        algorithms = _HMAC if jwk.key_type == "oct" else _algorithms(jwk.key)
        keys.append((jwk.key_id, jwk.key, algorithms))
    return keys
