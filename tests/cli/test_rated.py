"""``cardhall bots --rated`` and ``cardhall ratings`` (issue #45 items 4 and 5), the issue's
"done when": four bots (``greedy,greedy,random,random``) play 12 rated Skipper multi games
through the queue of a real ``cardhall serve`` child (SQLite), then ``cardhall ratings
--json`` ranks both greedy accounts above both random ones. On the old code ``--rated`` is
no option of ``bots`` and ``ratings`` no command."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from cardhall.cli.rated import ratings, ratings_url
from cardhall.server import rated
from cardhall.server.ratings import RatedGame, RatedSeat

from ..conftest import ServeProcess, ServerFactory, run_cli


def test_ratings_url_speaks_http_to_the_websocket_port() -> None:
    assert ratings_url("ws://127.0.0.1:8765", "skipper", "multi", 5) == (
        "http://127.0.0.1:8765/ratings?game=skipper&mode=multi&limit=5")
    assert ratings_url("wss://h:1/", "skipper", "race", 1).startswith("https://h:1/ratings?")
    assert ratings_url("ws://h:1", "skipper", "multi", 5, ["a b", "bot:greedy"]) == (
        "http://h:1/ratings?game=skipper&mode=multi&key=a+b&key=bot%3Agreedy")


@pytest.mark.parametrize("store_kind", ["memory"])
async def test_ratings_of_given_keys(make_server: ServerFactory,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """``cardhall ratings --key K`` prints the ratings of those keys whatever their rank (the
    list's limit patched to 1); a key never rated prints nothing. On the old code --key is no
    option (exit 2)."""
    server = await make_server()
    await server.ratings.rate(RatedGame("g1", "skipper:multi", (
        RatedSeat("top", "Topa"), RatedSeat("low", "Lowe")), (1, 2)))
    monkeypatch.setattr(rated, "LIST_LIMIT", 1)
    args = ["--url", server.url, "--json"]
    listed = await asyncio.to_thread(CliRunner().invoke, ratings, args)
    assert [e["name"] for e in json.loads(listed.stdout)] == ["Topa"], listed.output
    got = await asyncio.to_thread(CliRunner().invoke, ratings,
                                  [*args, "--key", "nobody", "--key", "low"])
    assert got.exit_code == 0, got.output
    low = (await server.ratings.ratings("skipper:multi", ["low"]))["low"]
    assert [(e["name"], e["rating"]) for e in json.loads(got.stdout)] == [("Lowe", low.shown)]
    text = await asyncio.to_thread(CliRunner().invoke, ratings,
                                   ["--url", server.url, "--key", "low"])
    assert "Lowe" in text.stdout and "Topa" not in text.stdout
    refused = await asyncio.to_thread(CliRunner().invoke, ratings, [*args, "--key", ""])
    assert refused.exit_code == 1 and "key: 1 to" in refused.output


@pytest.mark.timeout(600)
def test_greedy_bots_rank_above_random_ones(tmp_path: Path) -> None:
    server = ServeProcess(tmp_path, "--msg-rate", "0", "--rooms-per-minute", "0",
                          "--queue-wave-seconds", "0.2", "--public-turn-seconds", "0")
    try:
        played = run_cli("bots", "--url", server.url, "--game", "skipper", "--mode", "multi",
                         "--players", "4", "--games", "12", "--rated", "--strategies",
                         "greedy,greedy,random,random", "--seed", "7", timeout=540)
        assert played.returncode == 0, played.stderr
        assert played.stdout.count("game ") == 12
        listed = run_cli("ratings", "--url", server.url, "--game", "skipper", "--mode",
                         "multi", "--json")
        assert listed.returncode == 0, listed.stderr
        entries = json.loads(listed.stdout)
        order = [e["name"] for e in entries]
        assert sorted(order) == ["greedy-0", "greedy-1", "random-2", "random-3"]
        assert set(order[:2]) == {"greedy-0", "greedy-1"}, entries
        assert all(e["games"] == 12 for e in entries)
        text = run_cli("ratings", "--url", server.url)
        assert text.returncode == 0 and "greedy-0" in text.stdout and "mu" in text.stdout
        refused = run_cli("ratings", "--url", server.url, "--mode", "solo")
        assert refused.returncode == 1 and "not rated" in refused.stderr
    finally:
        server.stop()
