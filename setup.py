"""Build script: the metadata is in pyproject.toml; this file adds the compiled core.

``pip install .`` (and ``pip wheel .``) compiles the modules listed by :data:`COMPILED` less
:data:`PURE` with mypyc (part of mypy, a build requirement) into C extensions, when a C
compiler and Python's headers are present. When they are not, or when compilation fails,
the build prints one warning line and installs the same modules as pure Python: the package
works either way, only slower. ``cardhall --version`` says which build is installed.

Editable installs (``pip install -e .``) stay pure Python: a compiled module beside its
source would shadow every later edit of that source. ``CARDHALL_MYPYC=0`` keeps any install
pure; ``CARDHALL_MYPYC=1`` compiles an editable install too (the extensions are then written
beside the sources, which must be rebuilt after every edit: for benchmarking only).
"""

from __future__ import annotations

import os
import sys
import sysconfig
import traceback
from glob import glob
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
#: Source folders compiled (globs, relative to the checkout): the engines, the protocol and
#: the server. New modules in these folders are compiled without a change here.
COMPILED = ("games/**/*.py", "protocol/**/*.py", "server/**/*.py")
#: Modules kept pure Python (globs): what runs once per process or per request of an
#: operator, and what a compiled class would break (subclassed or patched from outside).
PURE = (
    "**/__init__.py",  # package fronts: imports only
    "server/cli.py", "server/cli/**/*.py",  # the command line: once per process
    "protocol/messages.py", "server/connection.py", "server/room.py", "server/fanout.py",
    "server/clocks.py", "server/chat.py", "server/store.py", "server/sqlite_store.py",
)
#: Written into the installed package: which build this is (``cardhall --version``).
BUILD_NOTE = "cardhall/server/build.txt"
#: The folders of the ``cardhall`` namespace (pyproject.toml ``package-dir``).
PARTS = ("bench", "client", "games", "protocol", "server")


def compiled_sources() -> list[str]:
    """The ``.py`` files to compile, relative to the checkout, sorted."""
    chosen = {p for pattern in COMPILED for p in glob(pattern, root_dir=ROOT, recursive=True)}
    pure = {p for pattern in PURE for p in glob(pattern, root_dir=ROOT, recursive=True)}
    return sorted(chosen - pure)


def _choice() -> str | None:
    """``CARDHALL_MYPYC``: ``"0"`` (pure), ``"1"`` (compile, even editable) or None."""
    value = os.environ.get("CARDHALL_MYPYC", "").strip()
    return value if value in ("0", "1") else None


class BuildCompiled(build_ext):
    """``build_ext`` that compiles :func:`compiled_sources` with mypyc, or falls back to pure
    Python with one warning line (the extensions are made here, not at import of this
    file, so an editable or pure install never runs mypyc)."""

    def run(self) -> None:
        """Compile, or explain in one line why this build stays pure Python."""
        editable = bool(getattr(self, "editable_mode", False)) or self.inplace
        choice = _choice()
        if choice == "0":
            self._pure("CARDHALL_MYPYC=0")
        elif editable and choice != "1":
            self._pure("editable install (CARDHALL_MYPYC=1 compiles it in place)", warn=False)
        elif not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")):
            self._pure("Python's headers (Python.h) are missing")
        else:
            try:
                self._compile()
            except (Exception, SystemExit) as exc:  # any failure: pure Python still works
                if os.environ.get("CARDHALL_MYPYC_DEBUG"):
                    traceback.print_exc()
                reason = str(exc).strip().splitlines()[-1:] or [type(exc).__name__]
                self._pure(f"compilation failed ({type(exc).__name__}: {reason[0][:200]})")

    def _compile(self) -> None:
        from mypyc.build import mypycify

        stage = Path(self.build_temp) / "mypyc-src"
        package = stage / "cardhall"
        package.mkdir(parents=True, exist_ok=True)
        (package / "__init__.py").write_text("")  # mypy names modules cardhall.X
        for part in PARTS:
            link = package / part
            if not link.exists():
                link.symlink_to(ROOT / part, target_is_directory=True)
        sources = compiled_sources()
        target = Path(self.build_temp).resolve() / "mypyc-c"
        old = os.getcwd()
        os.chdir(stage)
        try:
            extensions = mypycify(
                ["--config-file=", "--python-version", "3.11", "--ignore-missing-imports",
                 "--follow-imports=silent", *[f"cardhall/{s}" for s in sources]],
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
        super().run()
        self._note(f"compiled with mypyc: {len(sources)} modules")

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


# A stand-in: setuptools runs build_ext only for a distribution with extensions (and tags
# the wheel for this platform); BuildCompiled replaces it with mypyc's.
setup(ext_modules=[Extension("cardhall.server._compiled", sources=[])],
      cmdclass={"build_ext": BuildCompiled})
