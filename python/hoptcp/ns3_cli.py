"""``hoptcp ns3 ...``: checks against ns-3.37 that need ns-3 installed.

Kept outside :mod:`hoptcp.peers` so that registering the command loads nothing of the peers
(``hoptcp --help`` and ``hoptcp run`` stay light: tests/python/test_start.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

import click

#: where the check's scenarios and results live
VALIDATION = Path("validation") / "ns3"


@click.group("ns3")
def ns3() -> None:
    """Checks against ns-3.37 (Debian: apt-get install libns3-dev)."""


def _seeds_and_dir(seeds: int, seeds_help: str, dir_help: str) -> Callable[[Callable[..., None]], Any]:
    """A check's --seeds and --dir options."""
    def wrap(f: Callable[..., None]) -> Any:
        f = click.option("--dir", "directory", type=click.Path(file_okay=False), default=str(VALIDATION),
                         show_default=True, help=dir_help)(f)
        return click.option("--seeds", type=click.IntRange(3, 1000), default=seeds, show_default=True,
                            help=seeds_help)(f)
    return wrap


def _need_ns3(command: str) -> None:
    from .errors import SpecError
    from .peers.ns3 import available

    if not available():
        raise SpecError(f"ns3 {command}: ns-3 is not installed (Debian: apt-get install libns3-dev)")


@ns3.command("bbr-check")
@_seeds_and_dir(30, "Seeds of the agreement test (runs 1..N of each simulator).",
                "Where bbr-wired.toml and bbr-wired-cross.toml are; bbr-results.json is written there.")
def bbr_check(seeds: int, directory: str) -> None:
    """BBR against ns-3.37's TcpBbr on a wired path: trajectories point by point on the
    deterministic path, then agreement over seeds with random cross traffic."""
    from .peers.ns3.bbr_check import check
    from .scenario import Scenario

    _need_ns3("bbr-check")
    d = Path(directory)
    result = check(Scenario.load(d / "bbr-wired.toml"), Scenario.load(d / "bbr-wired-cross.toml"),
                   list(range(1, seeds + 1)))
    out = d / "bbr-results.json"
    out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    dev = result["trajectory"]["deviation"]
    for m in ("btl_bw_pps", "rt_prop_s", "pacing_rate_pps", "pacing_rate_pps_same_gain"):
        click.echo(f"{m}: largest deviation {dev[m]['rel']:.3%} at {dev[m]['at_s']} s")
    click.echo(f"state: differs at {dev['state']['acks_differing']} of {dev['state']['acks']} ACKs; "
               f"pacing gain at {dev['pacing_gain']['acks_differing']}")
    for m, v in result["agreement"]["verdicts"].items():
        click.echo(f"{m}: {v['text']}")
    click.echo(f"wrote {out}")


@ns3.command("bbr-wireless")
@_seeds_and_dir(20, "Seeds of each scenario (runs 1..N of each simulator and variant).",
                "Where bbr-chain7.toml and bbr-cross.toml are; bbr-wireless-results.json is written there.")
def bbr_wireless(seeds: int, directory: str) -> None:
    """BBR against NewReno on the 7-hop chain and the cross, in hoptcp and in ns-3.37, as
    ratios BBR / NewReno per seed; agreement of the two simulators' ratios. Runs finished
    are kept in .bbr-wireless-partial.jsonl there, so an interrupted run resumes."""
    from .peers.ns3.bbr_wireless import compare
    from .scenario import Scenario

    _need_ns3("bbr-wireless")
    d = Path(directory)
    partial = d / ".bbr-wireless-partial.jsonl"
    result = {name: compare(Scenario.load(d / f"bbr-{name}.toml"), list(range(1, seeds + 1)), partial,
                            progress=lambda line: click.echo(line, err=True))
              for name in ("chain7", "cross")}
    out = d / "bbr-wireless-results.json"
    out.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    partial.unlink()
    for name, r in result.items():
        for ratio, v in r["ratios"].items():
            click.echo(f"{name} {ratio}: ns-3 {_ci(v['ns3'])}, hoptcp {_ci(v['hoptcp'])}; {v['text']}")
    click.echo(f"wrote {out}")


def _ci(v: dict) -> str:
    if v["mean"] is None:
        return "n/a"
    if v["low95"] is None:
        return f"{v['mean']:.3f} (n = {v['n']})"
    return f"{v['mean']:.3f} [{v['low95']:.3f}, {v['high95']:.3f}] (n = {v['n']})"


def register(group: click.Group) -> None:
    group.add_command(ns3)
