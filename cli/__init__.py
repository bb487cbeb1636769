"""The ``cardhall`` command line (click): the one package that imports across the layers,
the server, the client and the harnesses (README "Layout").

:data:`main` is the ``cardhall`` group (the console script, ``python -m cardhall.cli``); its
commands live one module per concept: :mod:`.serve` (``serve``), :mod:`.play` (the client
commands ``play``, ``bots``, ``rooms``, ``verify``), :mod:`.admin` (``admin ...``, accounts
included), :mod:`.tools` (``simulate``, ``schema``, ``backup``, ``migrate``) and :mod:`.bench`
(``bench``, ``chaos``); what several share is in :mod:`.options`. The modules import the
server, client and harness modules a command needs only when it runs.
"""

from __future__ import annotations

import click

from . import admin, bench, play, rated, serve, tools

__all__ = ["main"]


def _version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``--version``: the version and the build (compiled or pure Python;
    :mod:`cardhall.server.build`)."""
    if not value or ctx.resilient_parsing:
        return
    from importlib.metadata import version

    from ..server import build

    click.echo(f"cardhall, version {version('cardhall')} ({build.describe()})")
    ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_version,
              help="Show the version and the build (compiled or pure Python), then exit.")
def main() -> None:
    """Cardhall: an open, authoritative card-game server with Skipper and four solo games."""


for _command in (serve.serve, play.play, play.bots, play.rooms, play.verify, rated.ratings,
                 admin.admin,
                 tools.simulate, tools.schema, tools.backup, tools.migrate, bench.bench,
                 bench.chaos):
    main.add_command(_command)
