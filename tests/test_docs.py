"""The docs say what is true and stand on their own (issue #21): every rules page carries the
text of each ruling it cites, benchmarks/README.md describes every script, and the deploy
files install from a checkout (Cardhall is not on PyPI); the README's Quick start is two
commands that install into a venv of their own (issue #33)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from cardhall import protocol as p
from cardhall.client.client import Client, ServerError
from cardhall.server.app import Server
from cardhall.server.config import Settings

ROOT = Path(__file__).resolve().parent.parent
PAGES = {"skipper": "K", "shop": "S", "shah": "H", "thirtysix": "T", "shufflejack": "J"}
SECTION = "## The rulings, in full"
#: The project's rulings file lives outside the repository (beside it in CI, when present).
RULINGS = [p for p in (ROOT.parent / "shared" / "RULINGS.md", Path("/work/shared/RULINGS.md"))
           if p.is_file()]


def ruling_ids(text: str, letter: str) -> set[str]:
    """Ruling ids of one game (``K6m``, ``S12``...) cited in ``text``."""
    return set(re.findall(rf"\b{letter}\d+m?\b", text))


@pytest.mark.parametrize("game", sorted(PAGES))
def test_rules_page_carries_every_ruling_it_cites(game: str) -> None:
    text = (ROOT / "docs" / "rules" / f"{game}.md").read_text(encoding="utf-8")
    assert "RULINGS.md" not in text  # the file is not in the repository
    assert text.count(SECTION) == 1
    body, rulings = text.split(SECTION)
    stated = set(re.findall(rf"\*\*({PAGES[game]}\d+m?)\*\*", rulings))
    cited = ruling_ids(body, PAGES[game])
    assert cited, "the page cites no ruling"
    assert cited <= stated, f"cited but not stated: {sorted(cited - stated)}"


@pytest.mark.skipif(not RULINGS, reason="RULINGS.md is not beside the repository")
@pytest.mark.parametrize("game", sorted(PAGES))
def test_rules_page_states_every_ruling_of_its_game(game: str) -> None:
    text = (ROOT / "docs" / "rules" / f"{game}.md").read_text(encoding="utf-8")
    rulings = text.split(SECTION)[1]
    stated = set(re.findall(rf"\*\*({PAGES[game]}\d+m?)\*\*", rulings))
    source = RULINGS[0].read_text(encoding="utf-8")
    assert ruling_ids(source, PAGES[game]) <= stated


def test_benchmarks_readme_describes_every_script() -> None:
    readme = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    scripts = sorted(p.name for p in (ROOT / "benchmarks").glob("*.py"))
    assert scripts
    for name in scripts:
        assert f"python benchmarks/{name}" in readme, f"no example run of {name}"
        assert f"[`{name}`]({name})" in readme, f"{name} missing from the table"
    for internal in ("session ", "the issue", "helper"):
        assert internal not in readme.lower()


def test_deploy_files_install_from_a_checkout() -> None:
    for path in (ROOT / "deploy").rglob("*"):
        if not path.is_file():
            continue
        text = path.read_text(encoding="utf-8")
        assert "pip install cardhall" not in text, path.name
    unit = (ROOT / "deploy" / "cardhall.service").read_text(encoding="utf-8")
    assert "not published on PyPI" in unit
    assert "ln -s /opt/cardhall/bin/cardhall /usr/local/bin/cardhall" in unit
    assert "ExecStart=/usr/local/bin/cardhall serve" in unit


# -- issue #33: the Quick start on an externally managed Python --------------------------------

def quick_start() -> list[str]:
    """The commands of README.md's Quick start: the lines of its ``sh`` blocks."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", section, re.DOTALL)
    return [line for block in blocks for line in block.splitlines() if line.strip()]


def test_quick_start_is_two_commands_that_install_into_their_own_venv() -> None:
    serve, test = quick_start()  # exactly two commands
    # Issue #34: the server is installed (the compiled core where a C compiler is present),
    # the tests run on an editable install (pure Python: edits take effect at once). Issue
    # #41: each in a venv of its own, so the second never turns the first's compiled install
    # into an editable pure one.
    venvs = {serve: ".venv", test: ".venv-test"}
    installs = {serve: ".venv/bin/pip install .", test: '.venv-test/bin/pip install -e ".[test]"'}
    for command in (serve, test):
        steps = [step.strip() for step in command.split("&&")]
        # PEP 668 (Debian 12: error: externally-managed-environment): nothing is installed
        # into the system's Python; the command makes (or reuses) a venv, then uses only it.
        assert steps[0] == f"python3 -m venv {venvs[command]}", command
        assert steps[1] == installs[command], command
        for step in steps[1:]:
            assert step.split()[0].startswith(f"{venvs[command]}/bin/"), step
    assert serve.endswith(".venv/bin/cardhall serve")
    assert test.endswith(".venv-test/bin/python -m pytest -q")
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    assert ".venv/" in ignored and ".venv-test/" in ignored


def ci_extract(name: str) -> str:
    """What ``.ci/run``'s ``NAME=$(awk ...)`` line extracts from README.md, run by bash."""
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    (extract,) = re.findall(rf"^{name}=(\$\(awk .*\))$", script, re.MULTILINE)
    return subprocess.run(["bash", "-c", f"echo {extract}"], cwd=ROOT, capture_output=True,
                          text=True, check=True, timeout=30).stdout.strip()


def test_ci_runs_the_quick_starts_test_command_verbatim() -> None:
    assert ci_extract("test_cmd") == quick_start()[1]


def test_ci_installs_as_the_quick_starts_first_command_does_and_requires_it_compiled() -> None:
    # Issue #41 item 11: CI builds exactly as a user does (a fresh clone, a new venv,
    # `pip install .` with build isolation), checks `cardhall --version` says compiled when a
    # C compiler is present, and runs the compiled smoke on that install.
    serve = ci_extract("serve_cmd")
    assert serve == quick_start()[0]
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'user_install=${serve_cmd%%&& .venv/bin/cardhall serve*}' in script
    assert 'git clone -q . "$work/user"' in script
    assert 'bash -c "$user_install"' in script
    assert '"$work/user/.venv/bin/cardhall" --version' in script
    assert '*"compiled with mypyc"*' in script
    assert '"$work/user/.venv/bin/python" -m pytest' in script
    assert "--no-build-isolation" not in script and "bench.builds" not in script


async def test_the_protocol_spec_says_a_full_room_starts_itself_and_it_does() -> None:
    spec = (ROOT / "protocol" / "README.md").read_text(encoding="utf-8")
    assert "**A room starts itself when its last seat fills.**" in spec
    async with Server(Settings(host="127.0.0.1", port=0)) as server, \
            Client(server.url, name="host") as host, Client(server.url, name="bot") as bot:
        created = await host.create_room("skipper", mode="multi", seats=2)
        await host.join(created.room)
        await bot.join(created.room)  # the last seat: the game begins without a start
        started = await anext(m async for m in bot.updates() if isinstance(m, p.Started))
        assert started.room == created.room and started.re is None
        with pytest.raises(ServerError, match="room/already_started"):
            await host.start(created.room)


#: File names a docstring or comment may cite although the repository has no such file, each
#: with why. Everything else cited (``base.py``, ``server/room/driver.py``,
#: ``docs/operations.md``...) must be a file of the repository.
CITED_ELSEWHERE = {
    # The peers harness (``benchmarks/peers.py --peers DIR``) lives outside the repository.
    "loadgen.js": "peers", "colyseus_server.js": "peers", "setup.sh": "peers",
    "../shared/peers/setup.sh": "peers",
    # Files written at run time, in the user's state folder.
    "seats.json": "client", "account.json": "client",
    # A user's own strategy file (``--strategy path/to/file.py:function``).
    "path/to/file.py": "example", "file.py": "example",
    # Unicode's own files: server/accounts/names.py reduces the first to data/confusables.tsv.
    "confusables.txt": "unicode", "PATH/confusables.txt": "unicode",
    "DerivedCoreProperties.txt": "unicode",
    # The model codebases DESIGN.md holds up (h11's transition table).
    "_state.py": "h11",
}
#: A cited file name: a path of word characters ending in one of these extensions.
CITATION = re.compile(r"(?<![\w./-])((?:\.\./|[\w.-]+/)*[\w-]+\."
                      r"(?:py|md|js|json|toml|sh|yml|yaml|html|css|txt|tsv))\b")


def _cited_files(path: Path) -> list[tuple[int, str]]:
    """``(line, file name)`` for every file name cited in the docstrings and comments of the
    Python file ``path``."""
    import ast
    import io
    import tokenize

    text = path.read_text(encoding="utf-8")
    found = [(node.body[0].lineno, doc) for node in ast.walk(ast.parse(text))
             if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                  ast.AsyncFunctionDef))
             and (doc := ast.get_docstring(node, clean=False))]
    found += [(tok.start[0], tok.string)
              for tok in tokenize.generate_tokens(io.StringIO(text).readline)
              if tok.type == tokenize.COMMENT]
    return [(line, m.group(1)) for line, words in found for m in CITATION.finditer(words)]


def test_no_docstring_or_comment_cites_a_file_not_in_the_repository() -> None:
    """Issue #31 ("Done when"): a file name cited in a docstring or comment of any Python
    file of the repository names a file of it: from the repository's root, from the citing
    file's folder, or (a module cited by its name) as the end of some file's path. A word in
    capitals (``docs/rules/GAME.md``, ``test_NAME.py``) stands for any name.
    :data:`CITED_ELSEWHERE` lists the files outside the repository a docstring may name."""
    import fnmatch

    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    files = sorted(set(listed.split()))
    stale = []
    for name in (f for f in files if f.endswith(".py") and (ROOT / f).is_file()):
        folder = Path(name).parent
        for line, cited in _cited_files(ROOT / name):
            if cited in CITED_ELSEWHERE:
                continue
            pattern = re.sub(r"(?<![A-Za-z])[A-Z][A-Z]+(?![A-Za-z])", "*", cited)
            candidates = {pattern, (folder / pattern).as_posix(), f"*/{pattern}"}
            if not any(fnmatch.filter(files, c) for c in candidates):
                stale.append(f"{name}:{line}: {cited}")
    assert not stale, "\n".join(stale)


def test_readme_layout_picture_names_every_module() -> None:
    """Issue #31 ("Done when"): the README's layout picture describes the tree: every
    module and sub-package of the packages (``cli``, ``bench``, ``server``, ``client``,
    ``games``, ``protocol``) and of each game's package is named in it."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    layout = text[text.index("## Layout"):text.index("## Operating a lobby")]
    named = set(re.findall(r"\b\w+\b", "".join(layout.split("```")[1::2])))
    folders = [ROOT / pkg for pkg in ("cli", "bench", "server", "client", "games", "protocol")]
    folders += [path.parent for path in (ROOT / "games").glob("*/__init__.py")]
    missing = sorted(f"{path.relative_to(ROOT)}" for folder in folders
                     for path in folder.iterdir()
                     if path.stem not in named and path.name not in ("__init__.py", "__main__.py")
                     and (path.suffix == ".py" or (path / "__init__.py").is_file()))
    assert not missing, missing


def test_connection_session_peer_and_hub_have_one_meaning_each() -> None:
    """Issue #31, item 7: the README says what each of the four words means, and the code
    keeps to it: no module imports one of ``Connection``, ``Session``, ``Peer``, ``Hub``
    under another of these names (lobby.py once called the room's ``Peer`` ``Session``) or
    names one after another (the fan-out module had ``Connection = Peer``),
    every ``Hub`` is a Protocol (the server as a lower module needs it), and the protocol
    package, which knows no rooms, never calls the other end "the peer"."""
    import ast

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "### Words: one meaning each" in text, "README has no glossary"
    words = text[text.index("### Words: one meaning each"):text.index("## Operating a lobby")]
    problems = [f"README: no entry for {w}" for w in ("connection", "session", "peer", "hub")
                if f"- **{w}**:" not in words]
    names = {"Connection", "Session", "Peer", "Hub"}
    for pkg in ("cli", "bench", "server", "client", "games", "protocol"):
        for path in (ROOT / pkg).rglob("*.py"):
            where = path.relative_to(ROOT)
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom):
                    problems += [f"{where}: imports {a.name} as {a.asname}" for a in node.names
                                 if a.name in names and a.asname in names - {a.name}]
                elif (isinstance(node, ast.Assign) and isinstance(node.value, ast.Name)
                      and node.value.id in names):
                    problems += [f"{where}: calls {node.value.id} {t.id}" for t in node.targets
                                 if isinstance(t, ast.Name) and t.id in names - {node.value.id}]
                elif isinstance(node, ast.ClassDef) and node.name == "Hub":
                    if "Protocol" not in ast.unparse(node):
                        problems.append(f"{where}: Hub is not a Protocol")
    for path in [*(ROOT / "protocol").rglob("*.py"), ROOT / "protocol" / "README.md"]:
        if re.search(r"\bpeers?\b", path.read_text(encoding="utf-8"), re.IGNORECASE):
            problems.append(f"{path.relative_to(ROOT)} says 'peer'")
    assert not problems, problems


#: How an account's sign-in was once called a "session" (issue #31, item 7): its proof is the
#: *access token* (with the refresh token, as OAuth 2.0 names them) and what ``logout`` ends
#: is a *sign-in*. The patterns avoid matching their own source text.
_SIGN_IN_AS_SESSION = re.compile(
    r"session\s+tokens?|session\s+(?:and|or)\s+refresh|every\s+session\s+of|"
    r"(?:its|their|account's)\s+sessions\b|sessions?\s+(?:dropped|revoked)|"
    r"session\s+resume|auth_session_second[s]|\bSESSION_KEY\b", re.IGNORECASE)


def test_session_never_means_an_accounts_sign_in() -> None:
    """Issue #31, item 7: "session" is a client as the server serves it, never an account's
    sign-in: no "session" and "token" in a row (nor the other old phrasings of
    :data:`_SIGN_IN_AS_SESSION`) in the docs, the code, the web client or the JSON Schemas
    (``benchmarks/RESULTS.md`` is the record of past runs, left as written)."""
    suffixes = {".py", ".md", ".js", ".mjs", ".html", ".json", ".toml", ".yaml", ".yml", ".sh"}
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    problems = []
    for name in tracked:
        path = ROOT / name
        if path.suffix not in suffixes or name == "benchmarks/RESULTS.md" or not path.is_file():
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            problems += [f"{name}:{n}: {m.group(0)!r}" for m in _SIGN_IN_AS_SESSION.finditer(line)]
    assert not problems, "\n".join(problems)


def test_no_attribute_named_session_holds_an_id() -> None:
    """Issue #31, item 7: a session's id is its ``session_id`` (server ``Session``,
    ``Connection``, ``cluster.RemotePeer``, ``fanout.Peer``, the client's ``Connection``), so
    that ``session.session`` does not exist: nothing assigns an attribute ``session``, and no
    class declares one, except the protocol's message classes (``welcome.session`` is a wire
    field, which keeps its name)."""
    import ast

    problems = []
    for folder in ("cli", "bench", "server", "client", "games", "protocol", "tests",
                   "benchmarks", "examples"):
        for path in (ROOT / folder).rglob("*.py"):
            where = path.relative_to(ROOT)
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.Attribute) and node.attr == "session" and isinstance(
                        node.ctx, ast.Store):
                    problems.append(f"{where}:{node.lineno}: assigns .session")
                if isinstance(node, ast.ClassDef) and not any(
                        "message" in ast.unparse(d) for d in node.decorator_list):
                    for stmt in node.body:
                        target = (stmt.target if isinstance(stmt, ast.AnnAssign) else
                                  stmt.targets[0] if isinstance(stmt, ast.Assign) else None)
                        if isinstance(target, ast.Name) and target.id == "session":
                            problems.append(f"{where}:{stmt.lineno}: class {node.name} "
                                            "declares session")
    assert not problems, "\n".join(problems)


def test_every_test_file_ci_names_exists() -> None:
    """.ci/run's compiled smoke names test files one by one: a file renamed or removed would
    stop the smoke with "file or directory not found" only in CI."""
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    named = re.findall(r"\btests/[\w/]+\.py\b", script)
    assert named and [n for n in named if not (ROOT / n).is_file()] == []
    # A test named by its id (file::function) is defined in that file.
    cases = re.findall(r"\b(tests/[\w/]+\.py)::(\w+)", script)
    assert [f"{path}::{name}" for path, name in cases if not re.search(
        rf"^(async )?def {name}\(", (ROOT / path).read_text(encoding="utf-8"), re.M)] == []
