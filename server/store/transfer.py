"""Moving a lobby from one store to another (``cardhall migrate --from SOURCE --to TARGET``).

Everything goes through the :class:`~.store.Store` contract, so any store may be the source or
the target (a SQLite data file onto Redis to grow past one process, or back): every room with
its record, state (seats and their tokens, deadlines), lobby entry, join code, whole log and
latest snapshot, finished rooms with the rest of their time to live, every finished game of the
games archive (:func:`copy_archive`; those the target holds already are kept as they are), every
leaderboard of :func:`~.leaderboard.boards`, and, given both sides' account stores, every
account (its record: names, password hash, device and subject keys, status) with its running
seats and its finished games (:func:`copy_accounts`), and, given both sides' ratings stores,
every rating of rated play with its history and every rated game (:func:`copy_ratings`).
Sign-ins (tokens) are not copied: a player signs in again on the target (a guest client does
so by itself, with its device secret).

Rooms in play arrive without a lease: the first server on the target takes them over (the
orphan scan of a shared store, the restore of a SQLite file) and holds their seats for the
grace window, so that players ``resume`` with the seat tokens they had. The source must not
be in use: a SQLite file is locked while it is read; a room of a Redis source that a live
server still runs is refused (:class:`TransferError`). A room the target already holds is
skipped, never overwritten.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..accounts.account_store import AccountStore, KeyTaken
from ..leaderboard import BOARD_SIZE, boards
from ..phases import Phase, is_phase
from ..ratings import RATED, Ratings, board_id
from .ports import Boards, Store, StoreError

#: Leaderboard entries read per page of the source.
BOARD_PAGE = 500
#: Archived games read per page of the source.
ARCHIVE_PAGE = 200
#: Accounts, and finished games of one account, read per page of the source.
ACCOUNT_PAGE = 200
#: Ratings, and rated games, read per page of the source.
RATING_PAGE = 500


class TransferError(StoreError):
    """The source is in use (a server runs some of its rooms): nothing was copied."""


async def copy_rooms(source: Store, target: Store, finished_ttl: float,
                     say: Callable[[str], None] | None = None) -> dict[str, int]:
    """Copy every room of ``source`` that ``target`` does not hold yet.

    Args:
        finished_ttl: Seconds a finished room stays listed after its end (the target's
            ``--finished-ttl``): a finished room keeps what is left of it (at least 1 s).
        say: Receives one line per room skipped.

    Returns:
        ``rooms``, ``waiting``, ``playing``, ``finished`` (copied), ``skipped`` (in the
        target already) and ``entries`` (log entries copied).

    Raises:
        TransferError: a live server runs rooms of the source; nothing was copied.
        StoreError: a store is unavailable (what was copied so far stays).
    """
    summaries = await source.list_rooms()
    ids = [s["room"] for s in summaries]
    owners = await source.owners(ids)
    running = [r for r, o in zip(ids, owners) if o is not None and o != source.process_id]
    if running:
        raise TransferError(f"{len(running)} rooms of the source are run by a server (e.g. "
                            f"{running[0]}): stop the servers using it first")
    out = dict.fromkeys(("rooms", "waiting", "playing", "finished", "skipped", "entries"), 0)
    for summary in summaries:
        room_id = summary["room"]
        loaded = await source.load(room_id)
        if loaded is None:  # expired meanwhile
            continue
        if await target.load(room_id) is not None:
            out["skipped"] += 1
            if say is not None:
                say(f"room {room_id} is in the target already: skipped")
            continue
        entries = await source.log(room_id)
        state = loaded.state or {}
        lease = await target.save_room(room_id, loaded.record, state, summary)
        if entries:
            await target.append(room_id, entries, 0, None, lease=lease)
        if loaded.snapshot is not None:
            await target.save_snapshot(room_id, loaded.snapshot_state_id, loaded.snapshot)
        if is_phase(summary["status"], Phase.FINISHED):
            ended = state.get("finished_at") or time.time()
            await target.finish_room(room_id, max(1.0, ended + finished_ttl - time.time()))
        await target.release(room_id)
        out["rooms"] += 1
        out[summary["status"]] = out.get(summary["status"], 0) + 1
        out["entries"] += len(entries)
    return out


async def copy_boards(source: Boards, target: Boards) -> int:
    """Copy every entry of every leaderboard (:func:`~.leaderboard.boards`); an entry the
    target holds already keeps the better value. Returns the entries copied.

    Raises:
        StoreError: a store is unavailable.
    """
    copied = 0
    for board in boards().values():
        start = 0
        while True:
            rows, total = await source.board_page(board.id, start, BOARD_PAGE)
            for name, value in rows:
                await target.record_score(board.id, name, value, BOARD_SIZE)
            copied += len(rows)
            start += len(rows)
            if not rows or start >= total:
                break
    return copied


async def copy_accounts(source: AccountStore, target: AccountStore, keep: int,
                        say: Callable[[str], None] | None = None) -> int:
    """Copy every account of ``source`` that ``target`` does not hold yet, with its running
    seats and its newest ``keep`` finished games (added oldest first, so the target's
    history keeps their order).
    An account whose id the target holds is skipped; one whose username, name or device
    key another account of the target holds is skipped and said. Returns the accounts
    copied.

    Raises:
        StoreError: a store is unavailable (what was copied so far stays).
    """
    copied, after = 0, ""
    while True:
        page = await source.page(after, ACCOUNT_PAGE)
        for account in page:
            if await target.get(account.id) is not None:
                continue
            try:
                await target.create(account)
            except KeyTaken as exc:
                if say is not None:
                    say(f"account {account.username} not copied: its {exc.kind} key is held "
                        "by another account of the target")
                continue
            for room_id, entry in (await source.seats(account.id)).items():
                await target.set_seat(account.id, room_id, entry)
            games: list[dict[str, Any]] = []
            while len(games) < keep:
                rows, total = await source.games(account.id, len(games),
                                                 min(ACCOUNT_PAGE, keep - len(games)))
                games += rows
                if not rows or len(games) >= total:
                    break
            for entry in reversed(games):  # the newest last: first in the target's history
                await target.add_game(account.id, entry, keep)
            copied += 1
        if len(page) < ACCOUNT_PAGE:
            return copied
        after = page[-1].username


async def copy_archive(source: Store, target: Store) -> int:
    """Copy every archived game of ``source`` (:class:`~.store.Archive`) that ``target``
    does not hold yet, page by page (:data:`ARCHIVE_PAGE` records), oldest first; a record
    the source lost meanwhile is skipped. Copied records have no time to live of their own:
    the target's ``--history-days`` prunes them by their finish time.

    Returns:
        How many records were copied.

    Raises:
        StoreError: a store is unavailable (what was copied so far stays).
    """
    copied = offset = 0
    while True:
        page = await source.archived_ids(offset, ARCHIVE_PAGE)
        for room_id in page:
            if await target.archived(room_id) is not None:
                continue
            record = await source.archived(room_id)
            if record is not None:
                await target.archive_game(room_id, record)
                copied += 1
        if len(page) < ARCHIVE_PAGE:
            return copied
        offset += len(page)


async def copy_ratings(source: Ratings, target: Ratings) -> tuple[int, int]:
    """Copy every rating of every rated game type (:data:`~.ratings.RATED`) with its
    history, and every rated game's mark with its changes (the target never rates it again;
    My games shows its rating change), page by page (:data:`RATING_PAGE`). A rating key the
    target holds keeps the target's rating and history; a game marked on the target keeps
    its own changes.

    Returns:
        ``(ratings, rated games)`` copied.

    Raises:
        StoreError: a store is unavailable (what was copied so far stays).
    """
    entries = games = 0
    for game, modes in RATED.items():
        for mode in modes:
            board = board_id(game, mode)
            offset = 0
            while True:
                page = await source.listing(board, RATING_PAGE, offset)
                for entry in page:
                    history = await source.history(board, entry.key)
                    entries += await target.put_entry(board, entry, history)
                offset += len(page)
                if len(page) < RATING_PAGE:
                    break
            offset = 0
            while True:
                rated = await source.rated_ids(board, offset, RATING_PAGE)
                for game_id, at in rated:
                    done = await source.game_changes(board, game_id)
                    if done is not None:
                        games += await target.put_game(board, game_id, done, at)
                offset += len(rated)
                if len(rated) < RATING_PAGE:
                    break
    return entries, games


async def copy_store(source: Store, target: Store, finished_ttl: float,
                     say: Callable[[str], None] | None = None,
                     accounts: tuple[AccountStore, AccountStore] | None = None,
                     games_kept: int = 200,
                     ratings: tuple[Ratings, Ratings] | None = None) -> dict[str, Any]:
    """:func:`copy_rooms`, :func:`copy_archive`, :func:`copy_accounts` (given ``accounts``:
    the source's and the target's account stores; ``games_kept`` finished games each),
    :func:`copy_ratings` (given ``ratings``: the source's and the target's), then
    :func:`copy_boards`; returns the rooms' figures, ``archived``, ``accounts``,
    ``ratings``, ``rated_games`` and ``board_entries``.

    Raises:
        TransferError: a live server runs rooms of the source; nothing was copied.
        StoreError: a store is unavailable.
    """
    out: dict[str, Any] = await copy_rooms(source, target, finished_ttl, say)
    out["archived"] = await copy_archive(source, target)
    out["accounts"] = (0 if accounts is None
                       else await copy_accounts(accounts[0], accounts[1], games_kept, say))
    out["ratings"], out["rated_games"] = ((0, 0) if ratings is None
                                          else await copy_ratings(*ratings))
    out["board_entries"] = await copy_boards(source, target)
    return out
