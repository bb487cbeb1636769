"""The two builds of this Cardhall side by side, for benchmarks that run both by turns
(``benchmarks/engine_speed.py --builds``, ``benchmarks/peers.py --servers
cardhall-compiled,cardhall-pure,colyseus``): the compiled core (mypyc, setup.py) and pure
Python, each as a folder that a child process finds first on ``PYTHONPATH``.

:func:`pure` exports this package's sources (a checkout's, or an installed package's
``.py`` files beside its extension modules). :func:`compiled` builds a wheel of the checkout
with mypyc (``pip wheel``, as ``pip install .`` builds it: in an isolated environment of
the build requirements; one to two minutes on two cores) and unpacks it; the result is kept under
``build/cardhall-bench/`` of the checkout, keyed by a digest of the compiled sources, so a
second run reuses it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile
from pathlib import Path

from .versions import ROOT, export

#: Files of the source folders that are no part of a build: what builds and runs leave.
BUILD_LEFTOVERS = (".pyc", ".so", ".pyd")
#: Where :func:`compiled` keeps its builds (``build/`` is ignored by git).
CACHE = ROOT / "build" / "cardhall-bench"


def kind_of(path: Path) -> str:
    """The build a ``PYTHONPATH`` entry holds: ``"compiled"`` or ``"pure"``
    (:func:`cardhall.server.build.kind` run by a child interpreter).

    Raises:
        subprocess.CalledProcessError: the package there does not import.
    """
    done = subprocess.run(
        [sys.executable, "-c", "from cardhall.server import build; print(build.kind())"],
        env=dict(os.environ, PYTHONPATH=str(path)), cwd=tempfile.gettempdir(),
        check=True, capture_output=True, text=True, timeout=120)
    return done.stdout.strip()


def pure(dest: Path) -> Path:
    """This package's sources as pure Python in ``dest/cardhall``; returns ``dest``.

    Raises:
        RuntimeError: the export still imports a compiled module (a bug of the export).
    """
    export(str(ROOT), dest)
    if kind_of(dest) != "pure":
        raise RuntimeError(f"{dest}: the pure export imports compiled modules")
    return dest


def sources() -> list[str]:
    """The checkout's source folders, one per package of ``cardhall`` (pyproject.toml's
    ``[tool.setuptools] package-dir``: ``["bench", "cli", "client", ...]``), sorted.

    Raises:
        FileNotFoundError: this is not a checkout (no pyproject.toml).
    """
    with open(ROOT / "pyproject.toml", "rb") as f:
        dirs = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    return sorted(set(dirs.values()))


def digest() -> str:
    """A digest of what the compiled build is made of: setup.py, pyproject.toml and every
    file of the packages' folders (:func:`sources`: the sources, the web page's files and
    data files alike; not what builds and runs leave there, :data:`BUILD_LEFTOVERS` and
    ``__pycache__``), paths and contents, 16 hex digits.

    Raises:
        FileNotFoundError: this is not a checkout (no pyproject.toml).
    """
    h = hashlib.sha256()
    files = [ROOT / "setup.py", ROOT / "pyproject.toml"]
    for folder in sources():
        files += sorted(f for f in (ROOT / folder).rglob("*")
                        if f.is_file() and "__pycache__" not in f.parts
                        and not f.name.endswith(BUILD_LEFTOVERS))
    for f in files:
        h.update(str(f.relative_to(ROOT)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def compiled(dest: Path | None = None) -> Path:
    """The checkout compiled with mypyc, unpacked as a ``PYTHONPATH`` entry: ``dest`` when
    given, else a folder of :data:`CACHE` reused while the sources are unchanged.

    Raises:
        RuntimeError: this is not a checkout (no setup.py: an installed package cannot be
            rebuilt), or the build came out pure (no C compiler, Python's headers missing, or
            mypyc failed: the build's warning line says which).
        subprocess.CalledProcessError: ``pip wheel`` failed.
    """
    if not (ROOT / "setup.py").exists():
        raise RuntimeError(f"{ROOT} is not a checkout: no setup.py to build")
    target = dest if dest is not None else CACHE / digest()
    if (target / "cardhall").is_dir() and kind_of(target) == "compiled":
        return target
    with tempfile.TemporaryDirectory(prefix="cardhall-wheel-") as tmp:
        env = {k: v for k, v in os.environ.items() if k != "CARDHALL_MYPYC"}
        done = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", tmp,
             str(ROOT)],
            env=env, capture_output=True, text=True, timeout=1800)
        if done.returncode != 0:
            raise subprocess.CalledProcessError(done.returncode, done.args, done.stdout,
                                                done.stderr)
        wheel = next(Path(tmp).glob("cardhall-*.whl"))
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        with zipfile.ZipFile(wheel) as archive:
            archive.extractall(target)
    if kind_of(target) != "compiled":
        warning = [line for line in done.stderr.splitlines() if "warning: cardhall" in line]
        raise RuntimeError(f"the build is pure Python: {' '.join(warning) or done.stderr[-500:]}")
    return target


def cached() -> Path | None:
    """The compiled build :func:`compiled` would reuse now (the sources unchanged since it
    was made), or None when it would have to build one."""
    if not (ROOT / "setup.py").exists():
        return None
    target = CACHE / digest()
    return target if (target / "cardhall").is_dir() else None


def both(tmp: Path) -> dict[str, Path | None]:
    """``{"pure": entry, "compiled": entry}``: the ``PYTHONPATH`` entry of each build, None
    for the one running here (its own package); the other made as :func:`pure` does (into
    ``tmp``) or as :func:`compiled` does (reused from :data:`CACHE` when it can be).

    Raises:
        RuntimeError, subprocess.CalledProcessError: see :func:`compiled` and :func:`pure`.
    """
    from ..server import build

    if build.kind() == "compiled":
        return {"pure": pure(tmp / "pure"), "compiled": None}
    return {"pure": None, "compiled": compiled()}


def main(argv: list[str] | None = None) -> int:
    """``python -m cardhall.bench.builds compiled|pure [DEST]``: make that build, print its
    ``PYTHONPATH`` entry; exit status 1 with the reason on stderr when it cannot be made
    (e.g. no C compiler: the build came out pure)."""
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] not in ("compiled", "pure") or len(args) > 2:
        print("usage: python -m cardhall.bench.builds compiled|pure [DEST]", file=sys.stderr)
        return 2
    dest = Path(args[1]) if len(args) == 2 else None
    try:
        if args[0] == "compiled":
            path = compiled(dest)
        else:
            path = pure(dest or Path(tempfile.mkdtemp(prefix="cardhall-pure-")))
    except (RuntimeError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", None) or ""
        print(f"error: {exc} {detail[-2000:]}".strip(), file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
