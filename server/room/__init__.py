"""A room: one authoritative game, its seats and spectators (DESIGN "Rooms").

- :mod:`.rules`: the phases' transition table, the derived moves, the seat rules;
- :mod:`.play`: the action path's rules, events in and effects out;
- :mod:`.table`: :class:`~.table.Table`, the room's state and its every change, I/O-free
  (:mod:`.state`: what it holds and reads; :mod:`.seats`: seats and members; :mod:`.chat`);
- :mod:`.outputs`: what a table asks its driver to do;
- :mod:`.views`: the fan-out of updates to the members, plain functions;
- :mod:`.driver`: :class:`Room`, the driver (work queue, store, timers, lease, reload).
"""

from __future__ import annotations

from .driver import COMPILED as COMPILED
from .driver import REAL_TIME_BOT_SECONDS as REAL_TIME_BOT_SECONDS
from .driver import SNAPSHOT_EVERY as SNAPSHOT_EVERY
from .driver import Room as Room
from .rules import ROOM_OPTION_NAMES as ROOM_OPTION_NAMES
from .rules import ROOM_OPTIONS as ROOM_OPTIONS
from .rules import RoomError as RoomError
from .rules import split_options as split_options
from .seats import Peer as Peer
from .driver import dropped as dropped
from .driver import resend as resend
from .driver import resync as resync
