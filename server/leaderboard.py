"""Leaderboards: the best solo score of each account, one board per game and mode.

Which games count, and how, each game declares (its ``TYPE.rankings``:
:class:`cardhall.games.Ranking`; issue #21): today

========================  ==========  =======  ================================================
board (game, mode)        score       better   a finished game counts when
========================  ==========  =======  ================================================
``skipper``, ``solo``     turns       fewer    it was won (reason ``won``; K7: fewer turns is
                                               better); unfinished games (resigned,
                                               unwinnable, turn limit) have no score
``thirtysix``,            points      more     it ended by the rules, not by a resignation or a
``standard``                                   forfeit (RULINGS T6: a resignation is a loss)
``shufflejack``,          points      more     likewise (failing a round ends the game with
``standard``                                   the points made so far: that is a score)
========================  ==========  =======  ================================================

Thirty-Six and ShuffleJack have no ``mode`` option: their one board's mode is
:data:`STANDARD`. Every board also requires (the server's rules, this module's):

* a one-seat room played by a person signed in to an account (a guest account counts; a
  connection signed in to none does not): the seat was never played by a server bot (a bot
  that took a dropped seat over, even for a while, disqualifies the game);
* a deal the server drew: a solo room may set ``seed`` or ``deck`` (to replay a deal), and
  such a room is never ranked (its player could pick a known easy deal);
* the standard rules: every engine option other than the deal's (:data:`NEUTRAL_OPTIONS`)
  and those the game's ranking calls neutral (Skipper's ``turn_limit``) at the value a
  room gets without options (an Easier or Harder Skipper rule, a Baltimore rule, ... make
  another game whose scores do not compare).

A board keeps one entry per account (keyed by its id, shown by its display name: a rename
carries the entries along, and nobody can land on another account's line by calling
themselves by its name), its best score, and at most :data:`BOARD_SIZE` entries (the worst
are dropped). Only the server writes boards. Ranking: better score first, equal scores by
account id (a fixed, arbitrary order); ranks are positions 1, 2, 3, ... Stores keep a *rank
value* for each entry: lower is better (the score for ``asc`` boards, minus the score for
``desc`` ones), so both orders are one sorted set read upwards.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .. import games
from ..games import STANDARD as STANDARD  # the mode of a game without modes
from ..games import Ranking

#: Engine options that leave scores comparable in every game: the deal (``seed``, ``deck``:
#: a chosen deal is refused separately). A game's ranking names its own besides.
NEUTRAL_OPTIONS = frozenset({"seed", "deck"})
#: Entries a board keeps at most: the best BOARD_SIZE accounts.
BOARD_SIZE = 1000


@dataclass(frozen=True, slots=True)
class Board:
    """One leaderboard.

    Attributes:
        game: Game name (engine registry name).
        mode: The mode it ranks (Skipper ``"solo"``; :data:`STANDARD` for a game without
            modes).
        order: ``"asc"`` (lower scores are better: Skipper turns) or ``"desc"`` (higher
            scores are better: points).
        unit: What the score counts, for people (``"turns"``, ``"points"``).
        ranking: The game's declaration it comes from (which outcomes count, the options
            that leave scores comparable).
    """

    game: str
    mode: str
    order: str
    unit: str
    ranking: Ranking

    @property
    def id(self) -> str:
        """``acct/GAME:MODE``: the board's name in the store (``acct/``: its entries are
        account ids; boards of player names, from before accounts, are left alone)."""
        return f"acct/{self.game}:{self.mode}"

    def rank_value(self, score: int) -> int:
        """The value a store sorts by (lower is better): ``score`` or ``-score``."""
        return score if self.order == "asc" else -score

    def score(self, rank_value: float) -> int:
        """The score of a stored rank value (the inverse of :meth:`rank_value`)."""
        value = int(rank_value)
        return value if self.order == "asc" else -value


@functools.cache
def boards() -> dict[tuple[str, str], Board]:
    """Every board, by (game, mode): one per ranking every available game declares (its
    ``TYPE.rankings``). Built once; treat it as read-only."""
    return {(name, r.mode): Board(name, r.mode, r.order, r.unit, r)
            for name in games.names() for r in games.get(name).TYPE.rankings}


def find(game: str, mode: str | None) -> Board | None:
    """The board of ``game`` in ``mode`` (None: the game's ranked mode), or None when there
    is none (an unknown game, or a game or mode that keeps no board)."""
    if mode is None:
        return next((b for (g, _), b in boards().items() if g == game), None)
    return boards().get((game, mode))


def _neutral(board: Board) -> frozenset[str]:
    return NEUTRAL_OPTIONS | board.ranking.neutral_options


@functools.cache
def _standard_options(board: Board) -> dict[str, Any]:
    """The resolved options of a one-seat room of ``board``'s game and mode created without
    options, less the neutral ones (deals once, then cached)."""
    cls = games.get(board.game)
    given = {"mode": board.mode} if board.mode != STANDARD else {}
    return {k: v for k, v in cls(given, 1).options.items() if k not in _neutral(board)}


def board_of(game: str, options: Mapping[str, Any], seats: int) -> Board | None:
    """The board that ranks a room of ``game`` with these resolved engine ``options`` and
    ``seats``, or None when such a room is not ranked (several seats, a mode without a board,
    rules other than the standard ones)."""
    if seats != 1:
        return None
    board = boards().get((game, options.get("mode") or STANDARD))
    if board is None:
        return None
    rules = {k: v for k, v in options.items() if k not in _neutral(board)}
    return board if rules == _standard_options(board) else None


def score_of(board: Board, outcome: Mapping[str, Any] | None) -> int | None:
    """The score a finished game puts on ``board`` (:meth:`cardhall.games.Ranking.score`:
    the game's first score when its ranking counts the outcome), or None when the game does
    not count (Skipper: not won; points games: resigned or forfeited).

    Args:
        board: The room's board (:func:`board_of`).
        outcome: The engine's outcome (``{"winner", "reason", "scores"}``), None while the
            game runs.
    """
    return board.ranking.score(outcome)
