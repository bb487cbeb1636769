"""Tests of ``cardhall bench``'s settings (``cardhall.bench.config``): a default
:class:`BenchConfig` is what ``cardhall bench`` runs with no options."""

from __future__ import annotations

import dataclasses

import click
from cardhall.bench.config import BenchConfig
from cardhall.cli.bench import bench

#: BenchConfig field -> the command-line option that sets it, where the names differ.
OPTION_OF = {"latency_seconds": "seconds", "throughput_seconds": "seconds",
             "redis": "redis_mode"}


def test_every_field_has_an_option_with_the_same_default() -> None:
    """A field whose default drifted from its option's would make the harnesses that build a
    BenchConfig() measure something other than the documented command."""
    options = {p.name: p for p in bench.params if isinstance(p, click.Option)}
    for field in dataclasses.fields(BenchConfig):
        option = options[OPTION_OF.get(field.name, field.name)]
        assert option.default == field.default, field.name


def test_the_sqlite_commit_modes_are_the_options_choices() -> None:
    """The docstring's modes (auto, tick, each, adaptive) are what the option accepts."""
    options = {p.name: p for p in bench.params}
    choice = options["sqlite_commit"].type
    assert isinstance(choice, click.Choice)
    assert set(choice.choices) == {"auto", "tick", "each", "adaptive"}
    assert all(f"``\"{mode}\"``" in (BenchConfig.__doc__ or "") for mode in choice.choices)
