"""A room: one authoritative game, its seats and spectators (DESIGN "Rooms").

The package front: :class:`Room` (the driver, :mod:`.driver`) and what callers need with it.
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
from .views import Peer as Peer
