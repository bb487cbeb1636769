"""The Skipper engine: its rules (:mod:`.rules`) with the views its seats see
(:mod:`.observer`) and the samples search bots play in (:mod:`.sample`).

Rules: the seed's rules text as read by RULINGS K1-K14, restated in
``docs/rules/skipper.md``; modes, actions and the setting are listed in :mod:`.rules`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any, Self

from ..base import Event
from .observer import Observer
from .rules import SkipperRules
from .sample import resample
from .stacks import SUIT_LETTERS


class Skipper(SkipperRules):
    """The Skipper engine (see :mod:`.rules` for modes, actions and rulings).

    Args:
        options: Room options (see :data:`~cardhall.games.skipper.stacks.OPTIONS`); ``seed``
            and ``deck`` fix the deal.
        seats: 1 for ``solo``; 2-6 for ``multi`` and ``race``.

    Raises:
        OptionError: unknown option, bad value, conflicting options, a ``deck`` that is not
            exactly the right cards, or a seat count the mode does not allow.
    """

    #: The game's view caches, made on first use (a copy or a restored game starts without).
    _observer: Observer | None = None

    def _new_observer(self) -> Observer:
        obs = self._observer = Observer()
        return obs

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may see (K8): :meth:`.observer.Observer.view`."""
        return (self._observer or self._new_observer()).view(self, seat)

    def views(self, seats: Iterable[int | None]) -> dict[int | None, dict[str, Any]]:
        """:meth:`view` of several seats, the public part built once per state and shared
        (:meth:`.observer.Observer.views`)."""
        return (self._observer or self._new_observer()).views(self, seats)

    def deltas(self, seats: Iterable[int | None]) -> Mapping[int | None, dict[str, Any]] | None:
        """What changed in each of ``seats``' views since the state before this one
        (:meth:`.observer.Observer.deltas`)."""
        return (self._observer or self._new_observer()).deltas(self, seats)

    def bot_view(self, seat: int) -> Mapping[str, Any]:
        """:meth:`view` computed lazily, key by key (for offline bots)."""
        return (self._observer or self._new_observer()).bot_view(self, seat)

    def _apply_setting(self, seat: int, name: str, value: str) -> list[Event]:
        """The rules' setting (:meth:`.rules.SkipperRules._apply_setting`); the views built
        for this state are dropped, since the state changed without a new ``state_id``."""
        events = super()._apply_setting(seat, name, value)
        if self._observer is not None:
            self._observer.invalidate()
        return events

    def card_locations(self) -> dict[str, list[int]]:
        """Every card by zone: ``hand:i``, ``stock:i``, ``discard:i``, ``trash:i``,
        ``removed:i``, ``stack:i:S``, ``auction``, ``bid:i``."""
        out: dict[str, list[int]] = {}
        for i, p in enumerate(self.players):
            out[f"hand:{i}"] = list(p.hand)
            out[f"stock:{i}"] = list(p.stock)
            out[f"discard:{i}"] = list(p.discard)
            out[f"trash:{i}"] = list(p.trash)
            out[f"removed:{i}"] = list(p.removed)
            for s in range(4):
                out[f"stack:{i}:{SUIT_LETTERS[s]}"] = list(p.stacks[s])
        if self.auction is not None:
            out["auction"] = [self.auction["card"]]
            for s, c in self.auction["bids"]:
                if c is not None:
                    out.setdefault(f"bid:{s}", []).append(c)
        return out

    @classmethod
    def resample(cls, view: Mapping[str, Any], rng: random.Random) -> Self:
        """A whole game consistent with a seat's ``view`` (:func:`.sample.resample`)."""
        return resample(cls, view, rng)


GAME = Skipper
