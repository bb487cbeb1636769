"""Accounts and sign-ins: who a connection is (issue #29).

Ways in (protocol/README.md, "Accounts"): ``guest`` (a device secret: the first time makes a
guest account ``Guest-TAG``), ``register`` (a username and password; a guest upgrades in
place, keeping its games, seats and board entries), ``login`` (username and password, or an
operator's JWT: :mod:`.operator_jwt`), ``restore`` (an access token), ``refresh`` (a refresh
token for a new pair). ``logout`` ends the sign-in (``everywhere``: every sign-in of the
account, its other connections signed out). A connection that signs in to nothing is an
anonymous guest (``account`` ``""``) unless the server requires accounts.

Tokens are opaque (:mod:`.identity`) and kept by their digest in the account store with
their expiry, so every process of a Redis lobby accepts a token another issued, and a
logout, an expiry or a ban voids it everywhere at once.

Operators (:mod:`.admin_accounts`): :meth:`Auth.ban` (tokens dropped, the account's
connections closed on every process it signed in on: ``error auth/banned``, then close
4010), :meth:`Auth.unban`, :meth:`Auth.rename`, :meth:`Auth.revoke`.

Costs and limits: passwords are hashed with argon2id (``argon2-cffi``) in a small thread
pool, off the event loop (:attr:`Settings.auth_hash`); sign-in attempts are counted
(:class:`~.attempts.Attempts`) per client address, per account for password logins (before
the password is hashed), per address for new guests; a password ``login`` or ``register``
gives the device a remembered-device token (:class:`~.attempts.Devices`), with which its
next login is counted per device instead of per account: guesses from elsewhere lock out
new devices only (issue #41). Failed guesses never touch existing sign-ins: their
connections stay, their refresh tokens trade as ever.

A log line or a metric label never holds a password, secret, token or username (only
account ids, addresses and error codes).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

import msgpack
from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from ... import protocol as p
from . import names
from .account_store import AccountStore, KeyTaken
from .attempts import Attempts, Devices
from ..config import Settings
from ..limits import address_key
from .identity import (
    ACCESS, BANNED, REFRESH, Account, AuthError, check_password, digest, new_account_id,
    new_token, read_token)
from ..logs import event
from .operator_jwt import Claims, OperatorTokens
from ..store.ports import StoreError

log = logging.getLogger("cardhall.auth")

__all__ = ["CLOSE_SIGNED_OUT", "Auth", "Grant", "Member", "anonymous_name"]

#: Close code of a connection the server signs out (ban, revoke, logout everywhere).
CLOSE_SIGNED_OUT = 4010
#: Tries at a fresh guest tag (or generated username) before giving up.
_TAG_TRIES = 8
_TAG_ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz"


class Member(Protocol):
    """What the auth service needs of a local connection (a
    :class:`~cardhall.server.connection.Connection`): its ``session_id``, client ``addr``,
    and the identity it carries (``account``: an id or ``""``; ``name``: the display name;
    ``login``: the digest of the access token it signed in with, ``""`` for none;
    ``guest``: False for a registered account)."""

    session_id: str
    addr: str
    account: str
    name: str
    login: str
    guest: bool

    def send(self, msg: p.Message) -> None:
        """Queue ``msg`` for the client."""

    def send_error(self, code: str, message: str, re: Any = None) -> None:
        """Queue an ``error`` for the client."""

    def close_with(self, code: int, reason: str) -> None:
        """Close the connection with ``code`` once its queued frames are written."""


def anonymous_name(session_id: str) -> str:
    """The display name of a connection signed in to no account: ``Guest-`` and six
    characters of its session id (``guest-`` names are reserved: no account takes one)."""
    return "Guest-" + session_id[:6].upper()


@dataclass(frozen=True, slots=True)
class Grant:
    """A successful sign-in.

    Attributes:
        account: The account signed in to.
        login: Digest of the access token the connection now holds.
        token: A new access token (None: unchanged, a ``restore``).
        refresh: Its refresh token (with ``token``).
        expires: When ``token`` expires, unix s (with ``token``).
        device: A new remembered-device token (None: none given, not a password sign-in).
    """

    account: Account
    login: str
    token: str | None = None
    refresh: str | None = None
    expires: int | None = None
    device: str | None = None

    def reply(self, re: Any = None) -> p.Account:
        """The ``account`` message of this grant."""
        a = self.account
        return p.Account(account=a.id, username=a.username, name=a.name, guest=a.guest,
                         token=self.token, refresh=self.refresh, expires=self.expires,
                         device=self.device, re=re)


def _held(account: Account, kind: str) -> str:
    """The key of ``kind`` (``device``, ``subject``) the account holds, or ``""``."""
    return next((key for k, key in account.keys if k == kind), "")


def _keys(username: str, display: str, *, guest: bool, device: str = "",
          subject: str = "") -> tuple[tuple[str, str], ...]:
    """The unique keys of an account: its username, the name keys of its username (not a
    guest's generated one) and display name (not a reserved ``guest-`` one), its device or
    subject."""
    keys: set[str] = set() if names.is_reserved(display) else set(names.name_keys(display))
    if not guest:
        keys |= names.name_keys(username)
    found: list[tuple[str, str]] = [("user", username)]
    found += [("name", k) for k in sorted(keys)]
    if device:
        found.append(("device", device))
    if subject:
        found.append(("subject", subject))
    return tuple(found)


def _tag() -> str:
    return "".join(secrets.choice(_TAG_ALPHABET) for _ in range(6))


class Auth:
    """The auth service of one server process.

    Args:
        settings: The server's settings (``auth*``).
        accounts: Where accounts and their tokens are kept.
        process_id: This process's id (the store's).
        publish: Sends a payload to another process's inbox (the room store's
            ``publish``): bans and renames are told to the processes an account signed in on.
        on_sign_in: Counts a sign-in request: ``(way, "ok" or error code)``.

    Raises:
        ValueError, OSError: the operator JWT key cannot be used (see
            :class:`~.operator_jwt.OperatorTokens`).
    """

    def __init__(self, settings: Settings, accounts: AccountStore, process_id: str,
                 publish: Callable[[str, bytes], Awaitable[int]],
                 on_sign_in: Callable[[str, str], None] | None = None) -> None:
        self.settings = settings
        self.accounts = accounts
        self.process_id = process_id
        self._publish = publish
        self._on_sign_in = on_sign_in
        self.required = settings.auth == "required"
        time_cost, memory_cost, parallelism = settings.auth_hash
        self.hasher = PasswordHasher(time_cost=time_cost, memory_cost=memory_cost,
                                     parallelism=parallelism, type=Type.ID)
        self._pool = ThreadPoolExecutor(max_workers=settings.auth_hash_threads,
                                        thread_name_prefix="argon2")
        self._dummy: str | None = None  # a hash to verify against for unknown usernames
        self.attempts = Attempts(accounts.limits_storage(), settings.auth_login_limit,
                                 settings.auth_address_limit, settings.auth_guest_limit)
        self.devices = Devices(accounts)
        self.jwt = None
        if settings.auth_jwt_key or settings.auth_jwks:
            assert settings.auth_issuer and settings.auth_audience  # Settings checks it
            self.jwt = OperatorTokens(settings.auth_issuer, settings.auth_audience,
                                      key_file=settings.auth_jwt_key,
                                      jwks_file=settings.auth_jwks)
        #: Local connections signed in, by account id.
        self.online: dict[str, set[Member]] = {}
        self._noted: set[str] = set()  # accounts whose sign-in here the store knows of
        self._telling: set[asyncio.Task[None]] = set()  # see _tell

    async def close(self) -> None:
        """Stop the hashing threads (server shutdown)."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    # -- hashing -------------------------------------------------------------------------

    async def hash_password(self, password: str) -> str:
        """The argon2id hash of ``password``, computed in the hashing threads."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, self.hasher.hash, password)

    async def verify_password(self, hashed: str, password: str) -> bool:
        """Whether ``password`` matches ``hashed`` (argon2's constant-time check), in the
        hashing threads. An unknown account is checked against a dummy hash, so that its
        answer takes as long as a wrong password's."""
        loop = asyncio.get_running_loop()
        if not hashed:
            if self._dummy is None:
                self._dummy = await self.hash_password(secrets.token_urlsafe(16))
            hashed = self._dummy

        def check() -> bool:
            try:
                return bool(self.hasher.verify(hashed, password))
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False

        return await loop.run_in_executor(self._pool, check)

    # -- requests --------------------------------------------------------------------------

    async def request(self, member: Member, msg: p.AccountRequest) -> None:
        """Handle a ``guest``, ``register``, ``login``, ``restore``, ``refresh``, ``logout``
        or ``set_name`` of ``member`` and reply (``get_my_games``: :mod:`.session`).

        Raises:
            AuthError: the request is refused (its ``code`` says why).
            StoreError: the account store is unavailable.
        """
        if isinstance(msg, p.Logout):
            await self.logout(member, bool(msg.everywhere))
            member.send(p.SignedOut(re=msg.id))
            return
        if isinstance(msg, p.SetName):
            if not member.account:
                await self.name_anonymous(member, msg.name)
                member.send(p.Account(account="", username="", name=member.name, guest=True,
                                      re=msg.id))
                return
            account = await self.set_name(member, msg.name)
            member.send(Grant(account, member.login).reply(msg.id))
            return
        way = "jwt" if isinstance(msg, p.Login) and msg.jwt is not None else msg.TYPE
        try:
            grant = await self._sign_in(member, msg)
        except AuthError as exc:
            self._count(way, exc.code)
            event(log, logging.INFO, "sign_in_refused", session=member.session_id,
                  addr=member.addr, way=way, code=exc.code)
            raise
        self._count(way, "ok")
        await self.bind(member, grant)
        event(log, logging.INFO, "signed_in", session=member.session_id, addr=member.addr,
              way=way, account=grant.account.id)
        member.send(grant.reply(p.reply_id(msg)))

    def _count(self, way: str, result: str) -> None:
        if self._on_sign_in is not None:
            self._on_sign_in(way, result)

    async def _sign_in(self, member: Member, msg: p.AccountRequest) -> Grant:
        # The per-address limits count the address's key (IPv6 by network).
        addr = address_key(member.addr, self.settings.ipv6_prefix)
        if isinstance(msg, p.Guest):
            return await self.guest(msg.secret, addr)
        if isinstance(msg, p.Register):
            return await self.register(msg.username, msg.password, addr,
                                       upgrade=member.account)
        if isinstance(msg, p.Login):
            if msg.jwt is not None:
                return await self.login_jwt(msg.jwt, addr)
            assert msg.username is not None and msg.password is not None
            return await self.login(msg.username, msg.password, addr, device=msg.device)
        if isinstance(msg, p.Restore):
            return await self.restore(msg.token)
        assert isinstance(msg, p.Refresh)
        return await self.refresh(msg.token)

    # -- ways in ---------------------------------------------------------------------------

    async def _issue(self, account: Account, *, remember: bool = False,
                     forget: str = "") -> Grant:
        """A new access and refresh token pair for ``account``.

        Args:
            account: The account signed in to.
            remember: Also give the device a remembered-device token (a password sign-in).
            forget: The digest of the device token the sign-in came with (``""``: none),
                dropped: the new one replaces it.

        Raises:
            StoreError: the store is unavailable.
        """
        s = self.settings
        token, login = new_token(ACCESS, account.id)
        refresh, renewal = new_token(REFRESH, account.id)
        now = time.time()
        expires = int(now + s.auth_access_seconds)
        await self.accounts.put_token(account.id, login, {
            "kind": ACCESS, "expires": expires, "pair": renewal}, s.auth_access_seconds)
        await self.accounts.put_token(account.id, renewal, {
            "kind": REFRESH, "expires": int(now + s.auth_refresh_seconds), "pair": login},
            s.auth_refresh_seconds)
        device = await self.devices.remember(account.id, forget) if remember else None
        return Grant(account, login, token, refresh, expires, device)

    async def _create(self, make: Callable[[str], Account], what: str, *,
                      generated: bool = True) -> Account:
        """Create the account ``make(tag)`` returns, with a fresh random tag (and id) while
        its generated username (and, with ``generated``, its display name: generated too)
        is taken.

        Raises:
            AuthError: ``auth/name_taken`` when a key other than a generated one is taken.
            StoreError: the store is unavailable.
        """
        for _ in range(_TAG_TRIES):
            account = make(_tag())
            try:
                await self.accounts.create(account)
            except KeyTaken as exc:
                if exc.kind in ("user", "id") or generated and exc.kind == "name":
                    continue  # a generated name or id met another: draw again
                raise AuthError("auth/name_taken", f"that {what} is held by another "
                                "account") from None
            return account
        raise StoreError("no free generated name found")

    def _active(self, account: Account | None) -> Account:
        """``account`` when it exists and is not banned.

        Raises:
            AuthError: ``auth/bad_credentials`` (gone), ``auth/banned``.
        """
        if account is None:
            raise AuthError("auth/bad_credentials", "no such account")
        if account.status == BANNED:
            raise AuthError("auth/banned", "an operator banned this account")
        return account

    async def guest(self, secret: str, addr: str) -> Grant:
        """Sign in with a device secret; the first time makes a guest account.

        Raises:
            AuthError: ``auth/banned``; ``auth/rate_limited`` (too many new guests from
                ``addr``).
            StoreError: the store is unavailable.
        """
        device = digest(secret)
        found = await self.accounts.lookup("device", device)
        if found is not None:
            account = await self.accounts.get(found)
            if account is not None:
                return await self._issue(self._active(account))
        if not await self.attempts.new_guest(addr):
            raise AuthError("auth/rate_limited", "too many new guests from this address")

        def make(tag: str) -> Account:
            username, display = names.guest_names(tag)
            return Account(id=new_account_id(), username=username, name=display, guest=True,
                           keys=_keys(username, display, guest=True, device=device))

        return await self._issue(await self._create(make, "device"))

    async def _free(self, username: str, display: str, account_id: str) -> None:
        """Refuse names held by another account before any hashing.

        Raises:
            AuthError: ``auth/name_taken``.
            StoreError: the store is unavailable.
        """
        for kind, key in _keys(username, display, guest=False):
            holder = await self.accounts.lookup(kind, key)
            if holder is not None and holder != account_id:
                raise AuthError("auth/name_taken", "that name is held by another account, "
                                "or looks like one")

    async def register(self, username: str, password: str, addr: str, *,
                       upgrade: str = "") -> Grant:
        """Claim ``username`` with ``password``: upgrade the guest account ``upgrade`` (its
        id, ``""``: none) in place, or make a new account.

        Raises:
            AuthError: ``auth/bad_name``, ``auth/weak_password``, ``auth/name_taken``,
                ``auth/rate_limited``; ``protocol/unexpected`` when ``upgrade`` is not a
                guest (log out first).
            StoreError: the store is unavailable.
        """
        try:
            user, display = names.username(username), names.display_name(username)
        except names.BadName as exc:
            raise AuthError("auth/bad_name", str(exc)) from None
        check_password(password)
        old = await self.accounts.get(upgrade) if upgrade else None
        if old is not None and not old.guest:
            raise AuthError("protocol/unexpected", "this connection is signed in to a "
                            "registered account: log out before registering another")
        if old is not None and not names.is_reserved(old.name):
            display = old.name  # the guest chose a name: it stays
        await self._free(user, display, upgrade)
        if not await self.attempts.from_address(addr):
            raise AuthError("auth/rate_limited", "too many sign-in attempts from this "
                            "address: wait a minute")
        hashed = await self.hash_password(password)
        keys = _keys(user, display, guest=False)
        try:
            if old is not None:
                account = old.with_(username=user, name=display, guest=False, password=hashed,
                                    keys=keys)
                await self.accounts.save(account, old)
                event(log, logging.INFO, "account_upgraded", account=account.id)
            else:
                account = Account(id=new_account_id(), username=user, name=display,
                                  password=hashed, keys=keys)
                await self.accounts.create(account)
        except KeyTaken:
            raise AuthError("auth/name_taken", "that name is held by another account, or "
                            "looks like one") from None
        return await self._issue(account, remember=True)

    async def login(self, username: str, password: str, addr: str, *,
                    device: str | None = None) -> Grant:
        """Sign in with a username and password. The attempt is counted before the password
        is checked (see the module docstring): against the remembered device when
        ``device`` is a live remembered-device token of the account, else against the
        account (a username no account may hold: per address only). The grant brings a new
        remembered-device token (the one sent is dropped).

        Args:
            username: The username, as typed (normalised here).
            password: The password.
            addr: The client's address (the per-address limit's key).
            device: The remembered-device token the client sent (None: none).

        Raises:
            AuthError: ``auth/bad_credentials`` (unknown username or wrong password: the
                same answer, in about the same time), ``auth/rate_limited`` (too many
                attempts from ``addr``, from this remembered device, or for the account
                from devices it does not remember), ``auth/banned``.
            StoreError: the store is unavailable.
        """
        try:
            user = names.username(username)
        except names.BadName:
            user = ""
        if not await self.attempts.from_address(addr):
            raise AuthError("auth/rate_limited", "too many sign-in attempts from this "
                            "address: wait a minute")
        found = await self.accounts.lookup("user", user) if user else None
        remembered = await self.devices.check(device, found)
        if user and not await self.attempts.reserve(user, remembered):
            raise AuthError("auth/rate_limited", "too many sign-in attempts: wait a few "
                            "minutes")
        account = await self.accounts.get(found) if found else None
        hashed = account.password if account is not None else ""
        if not await self.verify_password(hashed, password) or account is None:
            raise AuthError("auth/bad_credentials", "unknown username or wrong password")
        account = self._active(account)
        if self.hasher.check_needs_rehash(account.password):  # the parameters changed
            updated = account.with_(password=await self.hash_password(password))
            await self.accounts.save(updated, account)
            account = updated
        return await self._issue(account, remember=True, forget=remembered)

    async def login_jwt(self, token: str, addr: str) -> Grant:
        """Sign in with the operator's JWT; its subject's first sign-in makes its account
        (named after ``preferred_username`` and ``name`` when they are free).

        Raises:
            AuthError: ``auth/bad_credentials`` (no operator key configured, or the token is
                not valid), ``auth/expired``, ``auth/banned``, ``auth/rate_limited``.
            StoreError: the store is unavailable.
        """
        if self.jwt is None:
            raise AuthError("auth/bad_credentials", "this server takes no operator JWTs")
        if not await self.attempts.from_address(addr):
            raise AuthError("auth/rate_limited", "too many sign-in attempts from this "
                            "address: wait a minute")
        claims = self.jwt.verify(token)
        subject = digest(f"{claims.issuer}\0{claims.subject}")
        found = await self.accounts.lookup("subject", subject)
        account = await self.accounts.get(found) if found else None
        if account is None:
            account = await self._external(claims, subject)
        return await self._issue(self._active(account))

    async def _unheld(self, *keys: tuple[str, str]) -> bool:
        """Whether no account holds any of ``keys``.

        Raises:
            StoreError: the store is unavailable.
        """
        for kind, key in keys:
            if await self.accounts.lookup(kind, key) is not None:
                return False
        return True

    async def _external(self, claims: Claims, subject: str) -> Account:
        """A new account for an identity provider's subject, named by one rule: its username
        is the claimed ``preferred_username`` when that is a valid username no account holds
        (nor a name like it), else a generated one (:func:`.names.external_names`); its
        display name is the first of ``name`` and ``preferred_username`` that is a valid,
        free display name, else its username.

        Raises:
            AuthError: ``auth/name_taken`` (a claimed name was taken meanwhile).
            StoreError: the store is unavailable.
        """
        wanted = ""
        try:
            wanted = names.username(claims.username) if claims.username else ""
        except names.BadName:
            pass
        if wanted and not await self._unheld(("user", wanted), *(
                ("name", k) for k in sorted(names.name_keys(wanted)))):
            wanted = ""
        display = ""
        for claimed in (claims.name, claims.username):
            try:
                shown = names.display_name(claimed) if claimed else ""
            except names.BadName:
                continue
            if shown and not names.is_reserved(shown) and await self._unheld(*(
                    ("name", k) for k in sorted(names.name_keys(shown)))):
                display = shown
                break

        def make(tag: str) -> Account:
            user, shown = (wanted, wanted) if wanted else names.external_names(tag)
            shown = display or shown
            return Account(id=new_account_id(), username=user, name=shown,
                           keys=_keys(user, shown, guest=False, subject=subject))

        return await self._create(make, "subject", generated=not display)

    async def _token(self, token: str, kind: str) -> tuple[Account, dict[str, Any], str]:
        """The account, record and digest of a live token of ``kind``.

        Raises:
            AuthError: ``auth/bad_credentials`` (not a token of ours, or of another kind),
                ``auth/expired`` (expired or revoked), ``auth/banned``.
            StoreError: the store is unavailable.
        """
        read = read_token(token)
        if read is None or read[0] != kind:
            raise AuthError("auth/bad_credentials", "not a " + (
                "access" if kind == ACCESS else "refresh") + " token of this server")
        _, account_id, login = read
        record = await self.accounts.get_token(account_id, login)
        if record is None or record.get("kind") != kind:
            raise AuthError("auth/expired", "the token has expired or was revoked: sign in "
                            "again")
        return self._active(await self.accounts.get(account_id)), record, login

    async def restore(self, token: str) -> Grant:
        """Sign in with an access token (no new tokens).

        Raises:
            AuthError: ``auth/bad_credentials``, ``auth/expired``, ``auth/banned``.
            StoreError: the store is unavailable.
        """
        account, _, login = await self._token(token, ACCESS)
        return Grant(account, login)

    async def refresh(self, token: str) -> Grant:
        """Trade a refresh token for a new pair (the old pair stops working).

        Raises:
            AuthError: ``auth/bad_credentials``, ``auth/expired``, ``auth/banned``.
            StoreError: the store is unavailable.
        """
        account, record, renewal = await self._token(token, REFRESH)
        await self.accounts.drop_tokens(account.id, renewal, str(record.get("pair", "")))
        return await self._issue(account)

    # -- the connection's identity -----------------------------------------------------------

    async def bind(self, member: Member, grant: Grant) -> None:
        """Sign ``member`` in to ``grant``'s account (out of any other first).

        Raises:
            StoreError: the store is unavailable (noting the process for bans).
        """
        self.unbind(member)
        account = grant.account
        member.account, member.name, member.login = account.id, account.name, grant.login
        member.guest = account.guest
        self.online.setdefault(account.id, set()).add(member)
        if self.accounts.shared and account.id not in self._noted:
            await self.accounts.note_process(account.id, self.process_id)
            self._noted.add(account.id)

    def unbind(self, member: Member) -> None:
        """``member`` is signed in no more (signed out, or closed): an anonymous guest."""
        held = self.online.get(member.account)
        if held is not None:
            held.discard(member)
            if not held:
                del self.online[member.account]
        member.account, member.login, member.guest = "", "", True
        member.name = anonymous_name(member.session_id)

    async def logout(self, member: Member, everywhere: bool) -> None:
        """End ``member``'s sign-in (``everywhere``: every sign-in of its account, its other
        connections signed out, on every process).

        Raises:
            AuthError: ``auth/required`` when ``member`` is signed in to nothing.
            StoreError: the store is unavailable.
        """
        account_id, login = member.account, member.login
        if not account_id:
            raise AuthError("auth/required", "this connection is signed in to no account")
        self.unbind(member)
        if everywhere:
            await self.revoke(account_id, reason="the account logged out everywhere")
        elif login:
            record = await self.accounts.get_token(account_id, login)
            pair = str((record or {}).get("pair", ""))
            await self.accounts.drop_tokens(account_id, login, *([pair] if pair else []))
        event(log, logging.INFO, "signed_out", session=member.session_id, account=account_id,
              everywhere=everywhere)

    async def _rename(self, account: Account, name: str) -> Account:
        """``account`` with display name ``name`` (its name keys moved).

        Raises:
            AuthError: ``auth/bad_name``, ``auth/name_taken``.
            StoreError: the store is unavailable.
        """
        try:
            display = names.display_name(name)
        except names.BadName as exc:
            raise AuthError("auth/bad_name", str(exc)) from None
        if names.is_reserved(display) and display != account.name:
            raise AuthError("auth/bad_name", "names beginning with 'Guest-' are the guests'")
        if names.is_bot_like(display):
            raise AuthError("auth/bad_name", "names like 'Bot 2' are the server bots'")
        keys = _keys(account.username, display, guest=account.guest,
                     device=_held(account, "device"), subject=_held(account, "subject"))
        updated = account.with_(name=display, keys=keys)
        try:
            await self.accounts.save(updated, account)
        except KeyTaken:
            raise AuthError("auth/name_taken", "that name is held by another account, or "
                            "looks like one") from None
        for member in self.online.get(account.id, ()):
            member.name = display
        self._tell(account.id, {"op": "name", "name": display})
        return updated

    async def set_name(self, member: Member, name: str) -> Account:
        """Change the display name of ``member``'s account.

        Raises:
            AuthError: ``auth/required``, ``auth/bad_name``, ``auth/name_taken``,
                ``auth/banned``.
            StoreError: the store is unavailable.
        """
        if not member.account:
            raise AuthError("auth/required", "sign in (a guest will do) to choose a name")
        account = self._active(await self.accounts.get(member.account))
        return await self._rename(account, name)

    async def name_anonymous(self, member: Member, name: str) -> None:
        """Name a connection signed in to no account (for its life; nothing is kept): a name
        that looks like no name an account holds.

        Raises:
            AuthError: ``auth/required`` (the server requires accounts), ``auth/bad_name``,
                ``auth/name_taken``.
            StoreError: the store is unavailable.
        """
        if self.required:
            raise AuthError("auth/required", "this server requires an account: sign in "
                            "first")
        try:
            display = names.display_name(name)
        except names.BadName as exc:
            raise AuthError("auth/bad_name", str(exc)) from None
        if names.is_reserved(display):
            raise AuthError("auth/bad_name", "names beginning with 'Guest-' are the guests'")
        if names.is_bot_like(display):
            raise AuthError("auth/bad_name", "names like 'Bot 2' are the server bots'")
        for key in sorted(names.name_keys(display)):
            if await self.accounts.lookup("name", key) is not None:
                raise AuthError("auth/name_taken", "that name is held by an account, or "
                                "looks like one")
        member.name = display

    # -- operators -------------------------------------------------------------------------

    async def rename(self, account_id: str, name: str) -> Account:
        """An operator renames an account (its connections show the new name from their
        next seat on).

        Raises:
            AuthError: ``auth/bad_credentials`` (no such account), ``auth/bad_name``,
                ``auth/name_taken``.
            StoreError: the store is unavailable.
        """
        account = await self.accounts.get(account_id)
        if account is None:
            raise AuthError("auth/bad_credentials", "no such account")
        return await self._rename(account, name)

    async def ban(self, account_id: str, banned: bool = True) -> Account:
        """Ban an account (every token dropped, every connection of it closed with
        ``auth/banned`` and 4010, on every process), or lift its ban.

        Raises:
            AuthError: ``auth/bad_credentials`` (no such account).
            StoreError: the store is unavailable.
        """
        account = await self.accounts.get(account_id)
        if account is None:
            raise AuthError("auth/bad_credentials", "no such account")
        updated = account.with_(status=BANNED if banned else "active")
        await self.accounts.save(updated, account)
        event(log, logging.WARNING, "account_banned" if banned else "account_unbanned",
              account=account_id)
        if banned:
            await self.revoke(account_id, code="auth/banned",
                              reason="an operator banned this account")
        return updated

    async def revoke(self, account_id: str, *, code: str = "auth/expired",
                     reason: str = "an operator revoked this account's sign-ins") -> int:
        """End every sign-in of the account (its tokens dropped) and close its connections
        (``error code``, then 4010) here and on every process it signed in on; returns the
        tokens dropped.

        Raises:
            StoreError: the store is unavailable.
        """
        dropped = await self.accounts.drop_all_tokens(account_id)
        self.close_local(account_id, code, reason)
        self._tell(account_id, {"op": "close", "code": code, "reason": reason})
        return dropped

    def close_local(self, account_id: str, code: str, reason: str) -> int:
        """Close this process's connections of the account; returns how many."""
        held = list(self.online.pop(account_id, ()))
        for member in held:
            member.send_error(code, reason)
            member.account, member.login, member.guest = "", "", True
            member.close_with(CLOSE_SIGNED_OUT, "signed out")
        return len(held)

    def _tell(self, account_id: str, facts: dict[str, Any]) -> None:
        """Tell the other processes the account signed in on (a shared store), in the
        background; best effort (a process that missed it closes nothing)."""
        if not self.accounts.shared:
            return

        async def tell() -> None:
            try:
                payload = msgpack.packb({"k": "account", "from": self.process_id,
                                         "acct": account_id, **facts})
                for process in await self.accounts.processes(account_id):
                    if process != self.process_id:
                        await self._publish(process, payload)
            except StoreError as exc:
                log.warning("account %s: other processes not told: %s", account_id, exc)

        task = asyncio.get_running_loop().create_task(tell())
        self._telling.add(task)
        task.add_done_callback(self._telling.discard)

    async def inbox(self, msg: dict[str, Any]) -> None:
        """An account fact from another process: ``close`` its connections here, or its
        new ``name``."""
        account_id = str(msg.get("acct", ""))
        if msg.get("op") == "close":
            self.close_local(account_id, str(msg.get("code", "auth/expired")),
                             str(msg.get("reason", "signed out")))
        elif msg.get("op") == "name":
            for member in self.online.get(account_id, ()):
                member.name = str(msg.get("name", member.name))
