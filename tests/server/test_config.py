"""Tests of the server's settings (``cardhall.server.config``): what ``__post_init__`` refuses,
and that settings neither change nor show the admin token."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from cardhall.server.config import Settings


@pytest.mark.parametrize("fields, needle", [
    ({"auth": "sometimes"}, "auth must be 'optional' or 'required'"),
    ({"auth_jwt_key": "/k.pem"}, "--auth-issuer and --auth-audience"),
    ({"auth_jwks": "/k.json", "auth_issuer": "https://id"}, "--auth-issuer and --auth-audience"),
    ({"trusted_proxies": ("10.0.0.5/32", "proxy.local")}, "'proxy.local' is not an IP"),
    ({"trusted_proxies": ("10.0.0.0/8",), "certfile": "/c.pem"}, "terminate TLS at the proxy"),
])
def test_what_a_type_cannot_check_is_a_value_error(fields: dict[str, Any], needle: str) -> None:
    """Each refusal names the setting (``cardhall serve`` shows it as a usage error)."""
    with pytest.raises(ValueError, match=needle):
        Settings(**fields)


def test_good_combinations_pass() -> None:
    """A host's bits beyond its mask are allowed; IPv6 networks too; a JWT key with issuer
    and audience."""
    Settings(trusted_proxies=("10.0.0.5/8", "::1", "fd00::/8"), auth="required")
    Settings(auth_jwks="/k.json", auth_issuer="https://id", auth_audience="cardhall")


def test_settings_are_frozen_and_hide_the_admin_token() -> None:
    """A running server's settings cannot drift; the bearer token never reaches a log."""
    settings = Settings(admin_token="s3cret-admin")
    assert "s3cret-admin" not in repr(settings)
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.port = 1  # type: ignore[misc]
    changed = dataclasses.replace(settings, port=0)
    assert changed.port == 0 and changed.admin_token == "s3cret-admin"


def test_defaults_are_the_documented_ones() -> None:
    """The figures the docstring (and docs/operations.md) promise."""
    s = Settings()
    assert (s.host, s.max_frame, s.max_pending_bytes) == ("127.0.0.1", 65536, 1048576)
    assert (s.msg_rate, s.msg_burst, s.rooms_per_minute, s.auth) == (100.0, 200, 10,
                                                                    "optional")
    assert s.auth_access_seconds == 86_400 and s.auth_refresh_seconds == 30 * 86_400


def test_settings_refuse_a_bad_ipv6_prefix_or_lookup_limit() -> None:
    """Issue #41: ``ipv6_prefix`` is 0..128 and ``lookup_limit`` a ``limits`` rate (or None)."""
    assert Settings(ipv6_prefix=128, lookup_limit=None).ipv6_prefix == 128
    for bad in ({"ipv6_prefix": 129}, {"ipv6_prefix": -1}, {"lookup_limit": "often"}):
        with pytest.raises(ValueError):
            Settings(**bad)  # type: ignore[arg-type]
