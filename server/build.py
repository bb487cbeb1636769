"""Which build of Cardhall is running: the compiled core (mypyc, what ``pip install .`` makes
when a C compiler is present; see setup.py) or pure Python (an editable install, a build
without a compiler, or one made with ``CARDHALL_MYPYC=0``).

The answer comes from the modules themselves (a compiled module is an extension module, its
``__file__`` ends in ``.so`` or ``.pyd``), not from the note the build writes: a module
shadowed by a copy on ``PYTHONPATH``, or an edit after an in-place build, shows as it runs.
``cardhall --version`` and ``cardhall serve``'s start line print :func:`describe`.
"""

from __future__ import annotations

import importlib
import importlib.machinery
from importlib import resources

#: Modules every compiled build compiles (the engines' core, the protocol's codec, a server
#: module on the action path): the build is "compiled" when all of them are extensions.
PROBES = ("cardhall.games.base", "cardhall.games.skipper.rules", "cardhall.protocol.codec",
          "cardhall.server.lobby")
#: The note setup.py writes into an installed (not editable) package.
NOTE = "build.txt"


def compiled_modules(names: tuple[str, ...] = PROBES) -> dict[str, bool]:
    """``{module: imported from an extension module}`` for ``names`` (imported here).

    Raises:
        ImportError: a module of ``names`` does not exist.
    """
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    return {name: str(getattr(importlib.import_module(name), "__file__", "") or "")
            .endswith(suffixes) for name in names}


def kind() -> str:
    """``"compiled"`` when every module of :data:`PROBES` is an extension module, else
    ``"pure"`` (a build mixing both, e.g. one module shadowed, counts as pure)."""
    return "compiled" if all(compiled_modules().values()) else "pure"


def note() -> str | None:
    """The line setup.py wrote at build time (``compiled with mypyc: N modules`` or ``pure
    Python: REASON``), or None for an editable install (which has none)."""
    try:
        text = resources.files("cardhall.server").joinpath(NOTE).read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return None
    return text.strip() or None


def describe() -> str:
    """One phrase for ``--version`` and the start line: ``compiled with mypyc`` or ``pure
    Python``, with why a build is pure when its note says (``pure Python: CARDHALL_MYPYC=0``,
    ``pure Python, editable install``)."""
    written = note()
    if kind() == "compiled":
        return "compiled with mypyc"
    if written is None:
        return "pure Python, editable install"
    if written.startswith("pure Python"):
        return written
    return f"pure Python, though built as: {written}"
