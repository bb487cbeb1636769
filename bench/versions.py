"""A version of Cardhall's server, exported as a package that a child process finds first
on ``PYTHONPATH``: how ``benchmarks/ab.py`` and ``benchmarks/peers.py`` (``cardhall@REV``)
run versions of the server against each other by turns."""

from __future__ import annotations

import importlib.machinery
import io
import shutil
import subprocess
import tarfile
from pathlib import Path

#: The checkout this module belongs to (the git repository revisions are taken from).
ROOT = Path(__file__).resolve().parents[1]
PARTS = ("server", "protocol", "client")
#: Exported too when the version has them: the engines (``cardhall.games``; a version must not
#: run the installed checkout's engines under its own server) and the command line
#: (``cardhall.cli``: its ``cardhall serve``; :func:`~.procs.serve_command`).
OPTIONAL_PARTS = ("games", "cli")
#: Left out of a folder's export: compiled modules (an installed compiled build holds each
#: beside its ``.py``), so an export is always the version's sources, pure Python.
EXTENSIONS = tuple(f"*{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES)


def export(version: str, dest: Path) -> Path:
    """Write ``version`` (a folder holding ``server``, ``protocol`` and ``client``, e.g. ``.``
    or another checkout, or an installed ``cardhall`` package; else a git revision of this
    repository) as the package ``dest/cardhall``, with its ``games`` and ``cli`` when it has
    them, as pure Python (no extension module: :data:`EXTENSIONS`); returns ``dest`` (the
    ``PYTHONPATH`` entry that finds it).

    Raises:
        subprocess.CalledProcessError: git does not know the revision.
    """
    pkg = dest / "cardhall"
    pkg.mkdir(parents=True)
    tree = Path(version)
    if all((tree / part).is_dir() for part in PARTS):
        for part in (*PARTS, *OPTIONAL_PARTS):
            if (tree / part).is_dir():
                shutil.copytree(tree / part, pkg / part, ignore=shutil.ignore_patterns(
                    "__pycache__", *EXTENSIONS))
    else:
        listed = subprocess.run(["git", "-C", str(ROOT), "ls-tree", "--name-only", version,
                                 *OPTIONAL_PARTS], check=True, capture_output=True).stdout
        tar = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", version,
                              *PARTS, *listed.decode().split()],
                             check=True, capture_output=True).stdout
        with tarfile.open(fileobj=io.BytesIO(tar)) as archive:
            archive.extractall(pkg, filter="data")
    # The harness that starts the server child (``python -m cardhall.bench.servers serve``) is
    # this tree's, whatever the version: only the version's server is under test.
    shutil.copytree(ROOT / "bench", pkg / "bench", dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns("__pycache__", *EXTENSIONS))
    (pkg / "__init__.py").write_text("")
    return dest


def label(version: str) -> str:
    """``version`` with its short commit hash (a folder as it is given; ``.``: the working
    tree).

    Raises:
        subprocess.CalledProcessError: git does not know the revision.
    """
    if version == ".":
        return ". (working tree)"
    if all((Path(version) / part).is_dir() for part in PARTS):
        return version
    sha = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", version],
                         check=True, capture_output=True).stdout.decode().strip()
    return version if version == sha else f"{version} ({sha})"
