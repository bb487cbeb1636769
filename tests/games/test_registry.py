"""One game registry (issue #42 item 4): the games are the packages of ``cardhall.games``
(``games.MODULES``), and everything else that knows the games comes from it: the server's
``list_games``, the wheel's packages (setup.py's ``packages()``), the web client's renderers
(loaded by name from ``server/static/js/games/``, with no table of games) and the terminal's
(``client/renderers/``). README "Add a game" lists the places a new game touches; these
tests fail when a registered game lacks one of them."""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import tomllib
from pathlib import Path

import pytest

from cardhall import games

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "server" / "static" / "js"


def missing_parts(game: str) -> list[str]:
    """What the registered game ``game`` lacks of the places README "Add a game" lists
    beside its package: a web renderer, a terminal renderer, a rules page."""
    missing = []
    if not (JS / "games" / f"{game}.js").is_file():
        missing.append(f"server/static/js/games/{game}.js")
    if importlib.util.find_spec(f"cardhall.client.renderers.{game}") is None:
        missing.append(f"client/renderers/{game}.py")
    if not (ROOT / "docs" / "rules" / f"{game}.md").is_file():
        missing.append(f"docs/rules/{game}.md")
    return missing


def test_the_registry_is_the_game_packages() -> None:
    folders = sorted(p.parent.name for p in (ROOT / "games").glob("*/__init__.py"))
    assert sorted(games.MODULES) == folders == games.names()
    assert all(games.MODULES[name] == name for name in folders)
    assert [g["game"] for g in games.catalog()] == folders  # what list_games serves


@pytest.mark.parametrize("game", games.names())
def test_every_registered_game_has_its_renderers_and_rules(game: str) -> None:
    assert missing_parts(game) == []
    renderer = importlib.import_module(f"cardhall.client.renderers.{game}")
    assert callable(renderer.render) and callable(renderer.describe)
    assert re.search(r"^export function render\b", (JS / "games" / f"{game}.js").read_text(),
                     re.MULTILINE)


def test_a_game_without_renderers_is_named() -> None:
    # The check above can fail: a registered game with none of the places is reported.
    assert missing_parts("nosuchgame") == ["server/static/js/games/nosuchgame.js",
                                           "client/renderers/nosuchgame.py",
                                           "docs/rules/nosuchgame.md"]


def test_the_web_client_keeps_no_table_of_games() -> None:
    # Renderers are loaded by the names the server's registry serves (renderers.js), so no
    # other module imports a game's renderer or guesses a game from a view's keys.
    for path in JS.glob("*.js"):
        text = path.read_text()
        imported = re.findall(r"""from\s+["']\./games/(\w+)\.js["']""", text)
        assert set(imported) <= {"generic"}, (path.name, imported)
        assert "guessGame" not in text, path.name
    loader = (JS / "renderers.js").read_text()
    assert "import(`./games/${name}.js`)" in loader


def test_the_wheel_packages_are_found_not_listed() -> None:
    # setup.py finds every package below the package-dir folders (each game's included):
    # a new game's package needs no edit of pyproject.toml.
    sys.path.insert(0, str(ROOT))
    try:
        setup = importlib.import_module("setup")
    finally:
        sys.path.remove(str(ROOT))
    found = setup.packages()
    for name in games.names():
        assert f"cardhall.games.{name}" in found
    on_disk = {"cardhall." + ".".join(p.parent.relative_to(ROOT).parts)
               for folder in setup.parts().values()
               for p in (ROOT / folder).rglob("__init__.py")}
    assert set(found) == on_disk
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "packages" not in config["tool"]["setuptools"]  # no list to keep
