"""Build script: the metadata is in pyproject.toml; this file adds the compiled core.

``pip install .`` (and ``pip wheel .``) compiles the modules listed by :data:`COMPILED` less
:data:`PURE` with mypyc (part of mypy, a build requirement) into C extensions, when a C
compiler and Python's headers are present. When they are not, or when compilation fails,
the build prints one warning line and installs the same modules as pure Python: the package
works either way, only slower. ``cardhall --version`` says which build is installed.

Editable installs (``pip install -e .``, the developer's tree) stay pure Python, without a
warning: a compiled module beside its source would shadow every later edit of that source
(black keeps its editable installs pure for the same reason). ``CARDHALL_MYPYC=0`` keeps any
install pure. Benchmarks that want both builds of a checkout side by side build the
compiled one apart (:mod:`cardhall.bench.builds`).
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
import sysconfig
import tomllib
import traceback
from glob import glob
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
#: Compiled (globs, relative to the checkout): the engines and the protocol whole (a new
#: game's package is compiled without a change here), and the server's modules on an
#: action's path: the lobby, the room's package (``server/room/``: its table, rules, views
#: and driver), the socket's driver, the connection and its session, and the default store's
#: journal and data file (``server/store/sqlite_journal.py``, ``sqlite_file.py``: each
#: action's journal write and the fold; benchmarks/RESULTS.md, session 30). The rest of the server
#: stays pure: its I/O edges lean on third-party typings a compiled module checks at run time
#: (uvloop's ``Server.sockets`` is a list where websockets says tuple), for little gain.
COMPILED = ("games/**/*.py", "protocol/**/*.py",
            "server/tasks.py", "server/limits.py",
            "server/metrics.py", "server/lobby.py", "server/replay.py", "server/build.py",
            "server/room/*.py", "server/phases.py", "server/work.py",
            "server/driver.py", "server/connection.py",
            "server/session.py", "server/store/sqlite_journal.py", "server/store/sqlite_file.py")
#: Left pure among :data:`COMPILED` (globs), each with why.
PURE = (
    "**/__init__.py",  # package fronts: imports only
    "protocol/messages.py", "protocol/accounts.py",  # records: dataclass field metadata
    "protocol/queue.py",  # records too (rated play's queue)
)
# Not compiled, though on an action's path: the rest of the store and its ports (ports.py,
# memory_store.py, local_ports.py, sqlite_store.py, redis_store.py, redis_leases.py: tests
# subclass MemoryStore and RedisStore and patch their instances, and mypyc 2.4 crashes on
# MemoryStore's bases, a class and two Protocols; the memory append costs 0.5 us of an
# action), and admission.py (the PROXY header's parser, third-party, at accept only). A
# compiled class takes no patched method: tests inject instead (a store
# instance's method, ``Server.connection_class``); Session and Connection allow Python
# subclasses (cluster.RemotePeer; a test's connection). benchmarks/RESULTS.md, session 17.

#: Written into the installed package: which build this is (``cardhall --version``).
BUILD_NOTE = "cardhall/server/build.txt"


def parts() -> dict[str, str]:
    """``{sub-package: folder}`` of the ``cardhall`` namespace, from pyproject.toml's
    ``package-dir`` (``server`` -> ``server``...), so a package added there is seen."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mapping = config["tool"]["setuptools"]["package-dir"]
    return {name.removeprefix("cardhall."): folder for name, folder in mapping.items()}


def packages() -> list[str]:
    """Every package of the ``cardhall`` namespace, sorted: each sub-package of
    :func:`parts` and the packages below its folder (setuptools' ``find_packages``), so
    that a new game's package (``games/NAME/``) ships without a change to any list."""
    found = []
    for part, folder in parts().items():
        found.append(f"cardhall.{part}")
        found += [f"cardhall.{part}.{sub}" for sub in find_packages(str(ROOT / folder))]
    return sorted(found)


def compiled_sources() -> list[str]:
    """The ``.py`` files to compile, relative to the checkout, sorted."""
    chosen = {p for pattern in COMPILED for p in glob(pattern, root_dir=ROOT, recursive=True)}
    pure = {p for pattern in PURE for p in glob(pattern, root_dir=ROOT, recursive=True)}
    return sorted(chosen - pure)


def _wants_pure() -> bool:
    """``CARDHALL_MYPYC=0`` (or ``no``, ``false``): build pure Python even with a compiler."""
    return os.environ.get("CARDHALL_MYPYC", "").strip().lower() in ("0", "no", "false")


class BuildCompiled(build_ext):
    """``build_ext`` that compiles :func:`compiled_sources` with mypyc, or falls back to pure
    Python with one warning line (the extensions are made here, not at import of this
    file, so an editable or pure install never runs mypyc)."""

    def run(self) -> None:
        """Compile, or explain in one line why this build stays pure Python."""
        editable = bool(getattr(self, "editable_mode", False)) or self.inplace
        if not editable:
            self._drop_stale()
        if _wants_pure():
            self._pure("CARDHALL_MYPYC=0")
        elif editable:
            self._pure("editable install", warn=False)
        elif not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")):
            self._pure("Python's headers (Python.h) are missing")
        else:
            try:
                self._compile()
            except (Exception, SystemExit) as exc:  # any failure: pure Python still works
                if os.environ.get("CARDHALL_MYPYC_DEBUG"):
                    traceback.print_exc()
                if isinstance(exc, SystemExit):  # mypyc printed its errors above
                    reason = [f"mypyc stopped with exit code {exc.code}"]
                else:
                    reason = str(exc).strip().splitlines()[-1:] or [type(exc).__name__]
                self._pure(f"compilation failed ({type(exc).__name__}: {reason[0][:200]})")

    def _compile(self) -> None:
        from mypyc.build import mypycify

        stage = Path(self.build_temp) / "mypyc-src"
        package = stage / "cardhall"
        package.mkdir(parents=True, exist_ok=True)
        (package / "__init__.py").write_text("")  # mypy names modules cardhall.X
        for part, folder in parts().items():
            link = package / part
            if not link.exists():
                link.symlink_to(ROOT / folder, target_is_directory=True)
        sources = compiled_sources()
        target = Path(self.build_temp).resolve() / "mypyc-c"
        old = os.getcwd()
        os.chdir(stage)
        try:
            extensions = mypycify(
                # No --ignore-missing-imports: a compiled module must know the types it
                # uses (an unknown base class compiles into a module that crashes); a
                # third-party import missing from the build requirements fails the build.
                ["--config-file=", "--python-version", "3.11", "--follow-imports=silent",
                 *[f"cardhall/{s}" for s in sources]],
                opt_level="3", multi_file=True, group_name="cardhall",
                target_dir=str(target))
        finally:
            os.chdir(old)
        for ext in extensions:  # mypycify names sources relative to the stage
            ext.sources = [s if os.path.isabs(s) else str(stage / s) for s in ext.sources]
            ext.include_dirs = [d if os.path.isabs(d) else str(stage / d)
                                for d in ext.include_dirs]
        self.extensions = extensions
        self.check_extensions_list(extensions)
        for ext in extensions:  # what setuptools' finalize_options sets on each extension
            ext._full_name = self.get_ext_fullname(ext.name)
            self.ext_map[ext._full_name] = ext
            ext._links_to_dynamic = ext._needs_stub = False
            ext._file_name = self.get_ext_filename(ext._full_name)
        if not self.parallel:  # one C file per module: compile them side by side
            self.parallel = os.cpu_count() or 1
        super().run()
        self._note(f"compiled with mypyc: {len(sources)} modules")

    def _drop_stale(self) -> None:
        """Remove the extension modules an earlier build left in ``build_lib`` (setuptools
        reuses the checkout's ``build/``): a pure build, or one that compiles fewer modules,
        would ship them, and an extension module shadows its ``.py``."""
        lib = Path(self.build_lib)
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            for path in [*lib.glob(f"cardhall/**/*{suffix}"), *lib.glob(f"*__mypyc*{suffix}")]:
                path.unlink()

    def _pure(self, reason: str, warn: bool = True) -> None:
        if warn:
            print(f"warning: cardhall installs as pure Python (slower): {reason}",
                  file=sys.stderr, flush=True)
        self.extensions = []
        self._note(f"pure Python: {reason}")

    def _note(self, text: str) -> None:
        if self.inplace or getattr(self, "editable_mode", False):
            return  # never write into the checkout
        path = Path(self.build_lib) / BUILD_NOTE
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")

    def get_outputs(self) -> list[str]:
        """The extensions built, and the build note."""
        return [*super().get_outputs(), str(Path(self.build_lib) / BUILD_NOTE)]


if __name__ == "__main__":  # what setuptools' build backend runs (tests import this file)
    # A stand-in: setuptools runs build_ext only for a distribution with extensions (and
    # tags the wheel for this platform); BuildCompiled replaces it with mypyc's.
    setup(packages=packages(),
          ext_modules=[Extension("cardhall.server._compiled", sources=[])],
          cmdclass={"build_ext": BuildCompiled})
