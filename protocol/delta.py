"""View deltas: what changed between two views, as a small map, and how to apply it.

A delta is a map. A key that does not start with ``/`` names a top-level view key whose new
value replaces the old one whole (a top-level key that itself starts with ``/`` is always
sent as a pointer). A key that starts with ``/`` is a JSON Pointer (RFC 6901:
tokens separated by ``/``, ``~1`` for ``/`` and ``~0`` for ``~`` inside a token, array
indexes in decimal) to a value deeper in the view, replaced whole. Arrays never change length
through a pointer: an array whose length changed is replaced whole by its parent's key.

Example: ``{"state_id": 42, "/seats/1/hand": 4, "/seats/1/stacks/3/cards": ["AS", "2S"]}``
(protocol version 1; version 2 sends it without ``"state_id"``, and the client takes the
update's: :func:`apply_update`).

Pure functions, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: Replace a container whole when more than this share of its entries changed, unless every
#: changed entry is itself a container worth pointing into (see :func:`_small`).
_WHOLE = 0.5
#: A container of at most this many plain values (a legal action, a stack's values) is
#: small: when most entries of a container changed and some of them are small, the container
#: goes whole rather than as pointers into it.
_SMALL = 4
_MISSING = object()


def _token(key: Any) -> str:
    if type(key) is str and "~" not in key and "/" not in key:
        return key  # the usual view key: nothing to escape
    return str(key).replace("~", "~0").replace("/", "~1")


def _untoken(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _small(value: Any) -> bool:
    """True for a plain value, or a container of at most ``_SMALL`` plain values: something
    a pointer into would not make shorter."""
    kind = type(value)
    if kind is not list and kind is not dict:
        return True
    if len(value) > _SMALL:
        return False
    items = value if kind is list else value.values()
    return all(type(v) is not list and type(v) is not dict for v in items)


def _walk(old: Any, new: Any, path: str, out: dict[str, Any]) -> None:
    """Add the changes from ``old`` to ``new`` under ``path`` to ``out``.

    A container whose entries mostly changed is replaced whole, unless each changed entry
    is a larger container: a move in Skipper touches every seat a little (a draw each), and
    pointers into the seats are a fraction of the seats list.
    """
    # ``a is not b and a != b``: views share unchanged parts, so identity settles most.
    if type(old) is dict and type(new) is dict and old.keys() == new.keys():
        changed = [k for k, v in new.items() if v is not old[k] and v != old[k]]
        if changed and (len(changed) <= max(1, len(new) * _WHOLE)
                        or not any(_small(new[k]) for k in changed)):
            for k in changed:
                _walk(old[k], new[k], f"{path}/{_token(k)}", out)
            return
    elif type(old) is list and type(new) is list and len(old) == len(new):
        changed = [i for i, v in enumerate(new) if v is not old[i] and v != old[i]]
        if changed and (len(changed) <= max(1, len(new) * _WHOLE)
                        or not any(_small(new[i]) for i in changed)):
            for i in changed:
                _walk(old[i], new[i], f"{path}/{i}", out)
            return
    out[path] = new


def diff(old: dict[str, Any], new: dict[str, Any],
         memo: dict[tuple[Any, int, int], dict[str, Any]] | None = None,
         keys: Iterable[str] | None = None) -> dict[str, Any]:
    """The delta that turns view ``old`` into view ``new`` (``{}`` when equal); with
    ``keys``, only the part of it under those top-level keys of ``new``.

    Both views must have the same top-level keys (views never gain or lose keys during a
    game); a key missing from ``old`` is sent whole.

    Args:
        memo: Optional cache for diffing many views that share values (a room's broadcast:
            every member's views share their public part). Keyed by the identities of the
            two values, so it is only valid while those objects live and do not change: use
            one dict per broadcast.

    Values are compared by identity first: a value that is the very object of ``old`` is
    unchanged, so neither view may be mutated after it was diffed or sent.
    """
    out: dict[str, Any] = {}
    get = old.get
    for key in (new if keys is None else keys):
        value = new[key]
        before = get(key, _MISSING)
        if before is value:
            continue  # the same object: unchanged (engines reuse unchanged parts)
        kind = type(value)
        if before is _MISSING or (kind is not dict and kind is not list):
            if before is _MISSING or type(before) is not kind or before != value:
                if type(key) is str and key[:1] != "/":
                    out[key] = value
                else:
                    out.update(_whole(key, value))
        elif memo is None:
            out.update(_diff_key(key, before, value))
        else:
            mkey = (key, id(before), id(value))
            hit = memo.get(mkey)
            if hit is None:
                hit = memo[mkey] = _diff_key(key, before, value)
            out.update(hit)
    return out


def diff_value(key: str, before: Any, value: Any) -> dict[str, Any]:
    """``diff({key: before}, {key: value})``: the delta entries turning top-level ``key``'s
    value ``before`` into ``value``, found without diffing the entries the two share when
    both are maps with the same keys whose values are the very same objects but under one
    key (room facts whose deadlines alone changed: each action's, with a turn clock; issue
    #43): that key's values alone are compared and walked, as :func:`diff` would."""
    if before is value:
        return {}
    if (type(before) is dict and type(value) is dict and len(before) == len(value)
            and key[:1] != "/" and "/" not in key and "~" not in key):
        odd: Any = _MISSING
        for k, v in value.items():
            old = before.get(k, _MISSING)
            if old is not v:
                if odd is not _MISSING or old is _MISSING:
                    break  # more than one changed, or another key: the general way
                odd = k
        else:
            if odd is _MISSING:
                return {}  # every value the same object
            was, now = before[odd], value[odd]
            if was == now:
                return {}
            out: dict[str, Any] = {}
            _walk(was, now, f"/{key}/{_token(odd)}", out)
            return out
    return diff({key: before}, {key: value})


def _whole(key: Any, value: Any) -> dict[str, Any]:
    """The delta entry replacing top-level ``key`` whole (a key like ``"/x"`` travels as a
    pointer, or it would read as one)."""
    if type(key) is str and not key.startswith("/"):
        return {key: value}
    return {"/" + _token(key): value}


def _diff_key(key: Any, before: Any, value: Any) -> dict[str, Any]:
    """The delta entries for top-level ``key`` going from ``before`` to ``value``."""
    if before == value:
        return {}
    sub: dict[str, Any] = {}
    path = "/" + _token(key)
    _walk(before, value, path, sub)
    if len(sub) == 1 and path in sub:
        return _whole(key, value)  # replaced whole: the plain key is shorter
    return sub


def apply_delta(view: dict[str, Any], delta: dict[str, Any]) -> dict[str, Any]:
    """Apply ``delta`` to ``view`` in place and return it.

    Raises:
        KeyError / IndexError / TypeError: a pointer does not lead to an existing value (the
            delta is not for this view: ask the server for the full view).
    """
    for key, value in delta.items():
        if not key.startswith("/"):
            view[key] = value
            continue
        tokens = [_untoken(t) for t in key[1:].split("/")]
        target: Any = view
        for token in tokens[:-1]:
            target = target[int(token)] if type(target) is list else target[token]
        last = tokens[-1]
        if type(target) is list:
            target[int(last)] = value
        else:
            target[last] = value
    return view


def apply_update(view: dict[str, Any], delta: dict[str, Any], state_id: int) -> dict[str, Any]:
    """Apply the ``delta`` of an ``update`` whose ``state_id`` is ``state_id`` to ``view`` in
    place and return it: :func:`apply_delta`, then ``view["state_id"] = state_id`` (a delta
    of protocol version 2 carries no ``"state_id"``: the update's is the view's; one of
    version 1 carries the same value).

    Raises:
        KeyError / IndexError / TypeError: as :func:`apply_delta`.
    """
    apply_delta(view, delta)
    view["state_id"] = state_id
    return view


def top_keys(delta: dict[str, Any]) -> set[str]:
    """The top-level view keys a delta touches (``"/seats/1/hand"`` -> ``"seats"``)."""
    return {_untoken(k[1:].split("/", 1)[0]) if k.startswith("/") else k for k in delta}
