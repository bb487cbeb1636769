"""Declarative, validated game options shared by every engine.

Each engine lists its options as :class:`Option` values; :func:`parse_options` checks a raw
mapping (from a room request, or ``--option k=v`` strings on the command line) against that
list and returns a complete dict with defaults filled in.
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import OptionError

_SHOWN = reprlib.Repr()  # keyword arguments need Python 3.12
_SHOWN.maxstring = _SHOWN.maxother = 60
_SHOWN.maxlist = _SHOWN.maxtuple = 6
_SHOWN.maxdict, _SHOWN.maxlevel = 4, 2
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


@dataclass(frozen=True)
class Option:
    """One room option of a game.

    Attributes:
        name: Option key, e.g. ``"hand_size"``.
        kind: ``bool``, ``int``, ``float``, ``str`` or ``list`` (a list of card codes or of
            such lists).
        default: Value used when the option is absent. ``None`` means "not set".
        doc: One-line description, including the rule (seed section or ruling id) it selects.
        choices: Allowed values, or ``None`` for any value of ``kind``.
        min: Smallest allowed number (``int`` and ``float`` kinds), or ``None``.
        max: Largest allowed number (``int`` and ``float`` kinds), or ``None``.
    """

    name: str
    kind: type
    default: Any
    doc: str
    choices: tuple[Any, ...] | None = None
    # int | float, not float: a compiled build stores a float field as a C double, so an
    # int limit would read back as a float (``0.0``; 2**63 - 1 rounded up to 2**63).
    min: int | float | None = None
    max: int | float | None = None

    def describe(self) -> dict[str, Any]:
        """The option as a client reads it in a ``games`` reply: ``name``, ``kind``
        (``"bool"``, ``"int"``, ``"float"``, ``"str"`` or ``"list"``), ``default``, ``doc``,
        and ``choices``, ``min`` and ``max`` when the option has them."""
        out: dict[str, Any] = {"name": self.name, "kind": self.kind.__name__,
                               "default": self.default, "doc": self.doc}
        if self.choices is not None:
            out["choices"] = list(self.choices)
        if self.min is not None:
            out["min"] = self.min
        if self.max is not None:
            out["max"] = self.max
        return out

    def coerce(self, value: Any) -> Any:
        """Return ``value`` converted to this option's kind.

        Strings are accepted for every kind (``"true"``/``"off"``, ``"12"``,
        ``"AS,2S,3S"`` for card lists; ``"AS,2S;AH,2H"`` for a list per seat).

        Raises:
            OptionError: the value has the wrong type, is not among ``choices`` or is out of
                the ``min``/``max`` range.
        """
        if value is None:
            return None
        kind = self.kind
        if kind is bool:
            if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
                value = value.lower() in _TRUE
            if not isinstance(value, bool):
                raise OptionError(f"option {self.name!r} must be true or false, not {shown(value)}")
        elif kind is int:
            if isinstance(value, str):
                try:
                    value = int(value, 10)
                except ValueError:
                    raise OptionError(f"option {self.name!r} must be an integer, "
                                      f"not {shown(value)}")
            if isinstance(value, bool) or not isinstance(value, int):
                raise OptionError(f"option {self.name!r} must be an integer, not {shown(value)}")
        elif kind is float:
            if isinstance(value, str):
                try:
                    value = float(value)
                except ValueError:
                    raise OptionError(f"option {self.name!r} must be a number, not {shown(value)}")
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise OptionError(f"option {self.name!r} must be a number, not {shown(value)}")
            value = float(value)
            if value != value or value in (float("inf"), float("-inf")):
                raise OptionError(f"option {self.name!r} must be a finite number")
        elif kind is str:
            if not isinstance(value, str):
                raise OptionError(f"option {self.name!r} must be a string, not {shown(value)}")
        elif kind is list:
            if isinstance(value, str):
                parts = [p for p in value.replace(" ", "").split(";") if p]
                lists = [[c for c in p.split(",") if c] for p in parts]
                value = lists[0] if len(lists) == 1 else lists
            if not isinstance(value, (list, tuple)):
                raise OptionError(f"option {self.name!r} must be a list, not {shown(value)}")
            value = [list(v) if isinstance(v, (list, tuple)) else v for v in value]
        if kind in (int, float):
            if self.min is not None and value < self.min:
                raise OptionError(f"option {self.name!r} must be >= {self.min}, not {value}")
            if self.max is not None and value > self.max:
                raise OptionError(f"option {self.name!r} must be <= {self.max}, not {value}")
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(repr(c) for c in self.choices)
            raise OptionError(f"option {self.name!r} must be one of {allowed}, not {shown(value)}")
        return value


SEED = Option("seed", int, None, "Deal number: the same seed gives the same deal. None: random. "
              "Solo rooms only: a room of several seats refuses it (fair deals).",
              min=0, max=2**63 - 1)


def parse_options(spec: Sequence[Option], raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """Validate ``raw`` against ``spec`` and fill in defaults.

    Args:
        spec: The game's options.
        raw: Option values by name; may be ``None`` or empty.

    Returns:
        A new dict holding every option of ``spec``.

    Raises:
        OptionError: an unknown option name, or a bad value (see :meth:`Option.coerce`).
    """
    raw = dict(raw or {})
    known = {o.name: o for o in spec}
    unknown = sorted(set(raw) - set(known))
    if unknown:
        raise OptionError(
            f"unknown option(s) {', '.join(map(shown, unknown[:5]))}"
            f"{' and more' if len(unknown) > 5 else ''}; known: {', '.join(sorted(known))}"
        )
    return {o.name: o.coerce(raw[o.name]) if o.name in raw else o.default for o in spec}


def shown(value: Any) -> str:
    """``repr(value)`` clipped to about 60 characters, for echoing a client's value (an
    option's value or name) in an error message: a 2,000-character value must not make the
    message longer than the protocol allows."""
    return _SHOWN.repr(value)


def parse_kv(pairs: Sequence[str]) -> dict[str, str]:
    """Turn command-line ``k=v`` strings into a dict of strings.

    Raises:
        OptionError: an item has no ``=``.
    """
    out: dict[str, str] = {}
    for item in pairs:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise OptionError(f"expected key=value, got {shown(item)}")
        out[key.strip()] = value.strip()
    return out
