"""The account of ``cardhall play`` on disk, per server: its guest device secret, its
access tokens (issue #29) and its remembered-device token (issue #41), kept like the seat
tokens (:mod:`.seat_store`).

One small JSON file, ``account.json`` in the user's state folder
(``platformdirs.user_state_path("cardhall")``: ``$XDG_STATE_HOME/cardhall`` or
``~/.local/state/cardhall`` on Linux), readable by its owner only (mode 0600: a device secret
or an access token signs whoever holds it in)::

    {"format": "cardhall-account/1",
     "servers": {"ws://host:8765": {"guest": "...", "token": "...", "refresh": "...",
                                    "account": "0123456789abcdef", "username": "alice",
                                    "device": "..."}}}

``device`` is the remembered-device token the last password sign-in gave: the next
``--login`` sends it, so that a guesser elsewhere does not lock this computer out of its
account (the server ignores it for another account). A logout keeps it.

A missing or unreadable file is an empty one (an unreadable one is replaced on the next
save); saving writes a new file and renames it over the old one, so a crash never leaves half
a file. The password is never kept.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Any

from .state_file import load_entries, save_entries, state_path

__all__ = ["FORMAT", "AccountFile", "default_path"]

FORMAT = "cardhall-account/1"
_FIELDS = ("guest", "token", "refresh", "account", "username", "device")


def default_path() -> Path:
    """``account.json`` in the user's state folder for Cardhall (the folder may not exist)."""
    return state_path("account.json")


class AccountFile:
    """What ``cardhall play`` keeps of its account on each server.

    Args:
        path: The JSON file (default :func:`default_path`).
    """

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()

    def _load(self) -> dict[str, dict[str, str]]:
        """Every server's entry; ``{}`` when the file is missing, unreadable or not ours."""
        return {url: {k: v for k, v in entry.items() if k in _FIELDS and isinstance(v, str)}
                for url, entry in load_entries(self.path, FORMAT, "servers").items()}

    def _save(self, servers: dict[str, dict[str, str]]) -> None:
        """Write ``servers`` (mode 0600, folder 0700) atomically.

        Raises:
            OSError: the folder or the file cannot be written.
        """
        save_entries(self.path, FORMAT, "servers", servers)

    def get(self, url: str) -> dict[str, str]:
        """What is kept for the server at ``url`` (``{}``: nothing): ``guest``, ``token``,
        ``refresh``, ``account``, ``username``, ``device``."""
        return dict(self._load().get(url, {}))

    def put(self, url: str, **fields: str | None) -> None:
        """Keep ``fields`` for the server at ``url`` (a None value forgets that field).

        Raises:
            OSError: the file cannot be written.
            ValueError: a field that is not one of those kept.
        """
        bad = set(fields) - set(_FIELDS)
        if bad:
            raise ValueError(f"not kept: {', '.join(sorted(bad))}")
        servers = self._load()
        entry = servers.setdefault(url, {})
        for key, value in fields.items():
            if value is None:
                entry.pop(key, None)
            else:
                entry[key] = value
        self._save(servers)

    def guest_secret(self, url: str) -> str:
        """The device secret for ``url``, made (32 random bytes) and kept the first time.

        Raises:
            OSError: the file cannot be written.
        """
        secret = self.get(url).get("guest")
        if not secret:
            secret = secrets.token_urlsafe(32)
            self.put(url, guest=secret)
        return secret

    def keep_tokens(self, url: str, reply: Any) -> None:
        """Keep what an ``account`` reply says (its tokens when it brings new ones): the
        ``on_account`` callback of :class:`~cardhall.client.client.Client`.

        Raises:
            OSError: the file cannot be written.
        """
        if not reply.account:
            return
        fields: dict[str, str | None] = {"account": reply.account, "username": reply.username}
        if reply.token is not None:
            fields.update(token=reply.token, refresh=reply.refresh)
        if reply.device is not None:
            fields.update(device=reply.device)
        self.put(url, **fields)

    def forget_tokens(self, url: str) -> None:
        """Forget the sign-in of ``url`` (a logout), keeping the device secret and the
        remembered-device token.

        Raises:
            OSError: the file cannot be written.
        """
        self.put(url, token=None, refresh=None, account=None, username=None)


async def sign_in_options(url: str, *, login: str | None = None, register: str | None = None,
                          password: str | None = None, logout: bool = False,
                          file: AccountFile | None = None) -> dict[str, Any]:
    """How ``cardhall play`` signs in to the server at ``url``: the
    :class:`~cardhall.client.client.Client` options (``guest``, ``token``, ``refresh``,
    ``on_account``) from what ``file`` keeps for it, after a ``login`` or ``register``
    (``password`` given) or ``logout`` done first on a connection of its own.

    With neither: the sign-in kept (refreshed when it expired), else the guest account of
    the kept device secret (made now the first time). A ``login`` sends the kept
    remembered-device token. ``register`` while a guest upgrades
    that guest account (it keeps its games and board entries).

    Raises:
        ServerError: the server refused the login, registration or logout.
        OSError, websockets errors: the server cannot be reached, or the file written.
    """
    from .client import Client

    file = file or AccountFile()
    kept = file.get(url)

    def keep(reply: Any) -> None:
        file.keep_tokens(url, reply)

    options: dict[str, Any] = {"guest": file.guest_secret(url), "token": kept.get("token"),
                               "refresh": kept.get("refresh"), "on_account": keep}
    if login is None and register is None and not logout:
        return options
    async with Client(url, reconnect=False, device=kept.get("device"), **options) as client:
        if logout:
            await client.logout()
        elif login is not None:
            assert password is not None
            await client.login(login, password)
        else:
            assert register is not None and password is not None
            await client.register(register, password)
    if logout:
        file.forget_tokens(url)
        options.update(token=None, refresh=None)
    else:
        kept = file.get(url)
        options.update(token=kept.get("token"), refresh=kept.get("refresh"))
    return options
