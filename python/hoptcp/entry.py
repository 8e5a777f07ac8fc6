"""The ``hoptcp`` command. ``hoptcp run SCENARIO --json`` (with ``--set`` and
``--seed``: what scripts and shell sweeps call) goes straight to the core,
without importing the command line's libraries (click, rich): start-up is then
the interpreter and the core's module, about a third of the full command
line's. Everything else goes to :mod:`hoptcp.cli`: other commands and options,
and any mistake found before the simulation starts, which the full command
line reads again and words in its one line."""

from __future__ import annotations

import re
import sys
from typing import Sequence

_SEED = re.compile(r"[0-9]+")


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point; returns the exit status."""
    from .progress import keep_ctrl_c

    keep_ctrl_c()
    args = list(argv) if argv is not None else sys.argv[1:]
    request = fast_run_request(args)
    if request is not None:
        status = _fast_run(*request)
        if status is not None:
            return status
    from .cli import main as cli_main

    return cli_main(args)


def fast_run_request(args: Sequence[str]) -> tuple[str, list[str], int | None] | None:
    """``(scenario, --set words, seed)`` if ``args`` are ``run SCENARIO --json``
    with nothing but ``--set KEY=VALUE`` and ``--seed N`` besides, else None.
    Options are read as click reads them: ``--opt VALUE`` or ``--opt=VALUE``,
    the last ``--seed`` wins."""
    if not args or args[0] != "run":
        return None
    scenario: str | None = None
    sets: list[str] = []
    seed: int | None = None
    as_json = False
    words = iter(args[1:])
    for word in words:
        name, eq, value = word.partition("=")
        if word == "--json":
            as_json = True
        elif name in ("--set", "--seed"):
            if not eq:
                given = next(words, None)
                if given is None:
                    return None
                value = given
            if name == "--set":
                sets.append(value)
            elif _SEED.fullmatch(value):
                seed = int(value)
            else:
                return None
        elif word.startswith("-") or scenario is not None:
            return None
        else:
            scenario = word
    if scenario is None or not as_json:
        return None
    return scenario, sets, seed


def _fast_run(scenario: str, sets: list[str], seed: int | None) -> int | None:
    """Run and print the result JSON; None if the full command line must take over."""
    import os

    from . import _toml
    from .errors import ScenarioError, SpecError
    from .overrides import merged, parse_sets
    from .progress import run_with_progress

    try:
        text = _toml.read_file(scenario, "scenario file", ScenarioError)
        # Python's TOML parser too, as the full command line: the core's also takes
        # TOML 1.1's additions (and a byte-order mark), which tomllib refuses.
        _toml.loads(text)
        overrides = merged((), parse_sets(sets))
    except ValueError:  # ScenarioError, SpecError, TOMLDecodeError
        return None
    name = os.path.splitext(os.path.basename(scenario))[0]
    try:
        print(run_with_progress(name, text, overrides, seed, show=False), flush=True)
    except (ScenarioError, SpecError):
        return None  # found before the simulation: the full command line words it
    except (Exception, KeyboardInterrupt) as exc:  # Ctrl-C, a failed run, a closed pipe
        from .cli import ended_by

        return ended_by(exc)
    return 0
