"""Command line of ns-2.35 in the loop: ``hoptcp ns2 ...`` and ``hoptcp crosscheck``.

Registered on the main group by :func:`register` (two lines in ``hoptcp.cli``).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import click

from ..errors import SpecError


def parse_seeds(text: str) -> list[int]:
    """``"1-5"``, ``"1,3,7"`` or ``"1-3,10"`` as a list of distinct seeds."""
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        lo, dash, hi = part.partition("-")
        try:
            a = int(lo)
            b = int(hi) if dash else a
        except ValueError:
            raise SpecError(f"--seeds '{text}': expected seeds like 1-5 or 1,3,7") from None
        if a < 1 or b < a:
            raise SpecError(f"--seeds '{text}': '{part}' is not a range of seeds >= 1 (ns-2 needs seeds >= 1)")
        seeds += [s for s in range(a, b + 1) if s not in seeds]
    if not seeds:
        raise SpecError(f"--seeds '{text}': no seed given")
    return seeds


def _load(scenario: str, sets: tuple[str, ...]) -> Any:
    from ..overrides import parse_sets
    from ..scenario import Scenario

    return Scenario.load(scenario).with_raw(parse_sets(sets))


_set_option = click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
                           help="Override a scenario key (repeatable), e.g. --set tcp.max_window=3.")
_store_option = click.option("--store", type=click.Path(dir_okay=False), default=None,
                             help="Results store file (default: $HOPTCP_STORE, else results.db in the per-user "
                                  "data directory; see docs/campaigns.md).")
_ns_binary_option = click.option("--ns-binary", default=None, metavar="PATH",
                                 help="The ns-2.35 binary to run (default: $HOPTCP_NS, else `ns` on PATH); "
                                      "TCP-AP's ns-2-code variant needs one built by `hoptcp ns2 build`.")


def _use_ns_binary(path: str | None) -> None:
    if path is not None:
        from .run import use_binary

        use_binary(path)


_jobs_option = click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
                            help="Parallel runs on this machine (default: all cores).")


@click.group("ns2")
def ns2() -> None:
    """ns-2.35 in the loop: export scenarios, the validation suite, stored ns-2 results.

    \b
    hoptcp ns2 export examples/chain7.toml -o chain7.tcl && ns chain7.tcl out
    hoptcp crosscheck examples/chain7.toml --seeds 1-5
    hoptcp ns2 validate -j 2            # runs validation/ns2/, writes docs/validation.md
    hoptcp ns2 reproduce-data fu-window # stored ns-2 column of a reproduction report
    """


@ns2.command("export")
@click.argument("scenario", metavar="SCENARIO.toml")
@click.option("--seed", type=int, default=None, help="Random seed (default: the scenario's).")
@_set_option
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the Tcl script here (default: standard output).")
@click.option("--new-trace", "new_trace", is_flag=True,
              help="Trace every agent, routing and MAC event in ns-2's new wireless format (use-newtrace), "
                   "as hoptcp run --trace-ns2 writes it.")
@click.option("--static-routes", "static_routes", type=click.Choice(["auto", "agent", "dsdv"]), default=None,
              help="Static routing: Agent/StaticRoute (an ns built with --with-ports static-routes), frozen DSDV "
                   "(stock ns-2.35), or auto: the agent when the ns on PATH (or HOPTCP_NS) has it "
                   "[default: HOPTCP_NS2_STATIC_ROUTES, else auto].")
def export_cmd(scenario: str, seed: int | None, sets: tuple[str, ...], output: str | None, new_trace: bool,
               static_routes: str | None) -> None:
    """Write an ns-2.35 Tcl script equivalent to SCENARIO.

    Run it with `ns FILE.tcl [OUT]`; it writes OUT.tr, OUT.cwnd and OUT.stats, which
    `hoptcp crosscheck` parses. Keys ns-2.35 cannot express are refused with one error.
    """
    from .._bridge import check_output_file
    from .exporter import export

    if output is not None:
        check_output_file(output, "-o")
    exp = export(_load(scenario, sets), seed, new_trace=new_trace, static_routes=static_routes)
    if output is None:
        click.echo(exp.tcl, nl=False)
    else:
        Path(output).write_text(exp.tcl, encoding="utf-8")
        click.echo(f"wrote {output} (scenario time 0 = ns-2 time {exp.t0:g} s; run: ns {output} OUT)", err=True)
    for note in exp.notes:
        click.echo(f"note: {note}", err=True)


@ns2.command("build")
@click.option("--with-tcpap", "tcpap_dir", default=None, metavar="TCPAP_DIR",
              help="The authors' TCP-AP tree (tcp/tcp-ap.cc and tcp/tcp-ap.h), e.g. mahaicheng/tcpap.")
@click.option("--with-ports", "ports_spec", default=None, is_flag=False, flag_value="all", metavar="[NAMES]",
              help="The ns-2.35 ports of the cures (ns2/ports/): all of them, or a comma-separated list.")
@click.option("--aodv-hello", is_flag=True,
              help="ns-2.35's AODV in its HELLO build (link breaks from missed HELLOs, not MAC feedback).")
@click.option("--ns2-src", "ns2_dir", required=True, metavar="NS2_DIR",
              help="An ns-2.35 source tree (e.g. Debian's ns2_2.35+dfsg.orig.tar.xz unpacked).")
@click.option("--out", "out_dir", default=None, metavar="DIR",
              help="Build directory (default: ns-2.35-<what it holds> in the per-user data directory).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="make's parallel jobs.")
def build_cmd(tcpap_dir: str | None, ports_spec: str | None, aodv_hello: bool, ns2_dir: str, out_dir: str | None,
              jobs: int) -> None:
    """Build ns-2.35 with the authors' TCP-AP, the ports of the cures, or AODV's HELLO build.

    Copies NS2_DIR to DIR/src, adds what is asked (tcp-ap.cc/tcp-ap.h from TCPAP_DIR; each
    port's files and anchored insertions from ns2/ports/), patches the object list and the
    class defaults, configures against Debian's Tcl 8.6, OTcl and TclCL and compiles under
    nice. Run exports with the result: HOPTCP_NS=DIR/src/ns or --ns-binary DIR/src/ns.
    Details: docs/validation.md and ns2/ports/README.md.
    """
    from .build import build, check_sources
    from .ports import load, parse_names

    check_sources(tcpap_dir, ns2_dir)  # before choosing a directory: bad input is one line
    names = parse_names(ports_spec) if ports_spec is not None else []
    for n in names:
        load(n)
    if tcpap_dir is None and not names and not aodv_hello:
        raise click.UsageError("nothing to add: give --with-tcpap, --with-ports or --aodv-hello "
                               "(stock ns-2.35 is Debian's ns2 package)")
    if out_dir is None:
        from platformdirs import user_data_path

        what = "-".join((["tcpap"] if tcpap_dir else []) + (["ports"] if names else []) +
                        (["hello"] if aodv_hello else []))
        out_dir = str(user_data_path("hoptcp", appauthor=False) / f"ns-2.35-{what}")
    ns = build(tcpap_dir, ns2_dir, out_dir, jobs=jobs, ports=names, aodv_hello=aodv_hello,
               log=lambda m: click.echo(m, err=True))
    click.echo(str(ns))


@ns2.command("validate")
@click.option("--suite", "suite_path", type=click.Path(dir_okay=False), default="validation/ns2/suite.toml",
              show_default=True, help="The suite of matched cases.")
@click.option("--only", multiple=True, metavar="NAME", help="Only cases matching this name or glob (repeatable).")
@click.option("--seeds", "seeds_text", default=None, help="Seeds (default: the suite's), e.g. 1-5.")
@_jobs_option
@_store_option
@click.option("--results", type=click.Path(dir_okay=False), default="validation/ns2/results.json",
              show_default=True, help="Stored results of every run (read and updated).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default="docs/validation.md", show_default=True,
              help="The page to write.")
@click.option("--render-only", is_flag=True, help="Only render the page from the stored results (no simulator).")
@_ns_binary_option
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
def validate_cmd(suite_path: str, only: tuple[str, ...], seeds_text: str | None, jobs: int | None,
                 store: str | None, results: str, output: str, render_only: bool, ns_binary: str | None,
                 quiet: bool) -> None:
    """Run the validation suite in hoptcp and ns-2.35 and write docs/validation.md.

    Runs are cached in the results store; the compared metrics of every run are kept in
    validation/ns2/results.json, from which --render-only rebuilds the page.
    """
    from ..store import DEFAULT_STORE
    from .validation import load_results, load_suite, run_suite

    _use_ns_binary(ns_binary)
    suite = load_suite(suite_path)
    if render_only:
        data = load_results(results)
    else:
        seeds = parse_seeds(seeds_text) if seeds_text else None
        data = run_suite(suite, only=only, seeds=seeds, store=store or DEFAULT_STORE, jobs=jobs,
                         progress=not quiet, results=results,
                         on_case=None if quiet else lambda n: click.echo(f"case {n}", err=True))
    Path(output).write_text(_page(suite, suite_path, data, output), encoding="utf-8")
    click.echo(f"wrote {output} ({len(data.get('cases', {}))} cases; results in {results})", err=True)


def _page(suite: Any, suite_path: str, data: Any, output: str) -> str:
    """The validation page: the suite's tables, the CUBIC section, the ports' sections, and
    every section of the page already at ``output`` that none of these writes (e.g. "BBR
    against ns-3.37", which `hoptcp ns3 bbr-check`'s numbers fill by hand)."""
    from .cubic_check import SACK_RECOVERIES, load_features, section
    from .validation import keep_sections, render

    page = render(suite, data)
    if Path(suite_path).resolve() == Path("validation/ns2/suite.toml").resolve():
        from .validation import ports_section

        sec = section(suite, data, load_features(), load_features(SACK_RECOVERIES))
        page = page.rstrip("\n") + "\n\n" + sec.rstrip("\n")
        page = page.rstrip("\n") + "\n" + ports_section()
    old = Path(output).read_text(encoding="utf-8") if Path(output).is_file() else ""
    return keep_sections(old, page)


@ns2.command("cubic-check")
@click.option("--suite", "suite_path", type=click.Path(dir_okay=False), default="validation/ns2/suite.toml",
              show_default=True, help="The suite of matched cases.")
@click.option("--results", type=click.Path(dir_okay=False), default="validation/ns2/results.json",
              show_default=True, help="Stored results of every run (read).")
@click.option("--traces", is_flag=True,
              help="Run the CUBIC cases again in both simulators with cwnd traces and store their features "
                   "(validation/ns2/cubic/features.json).")
@click.option("--recoveries", is_flag=True,
              help="Run the CUBIC+SACK cases (cubic-sack-*) again in both simulators and store their recoveries per "
                   "run (validation/ns2/cubic/sack_recoveries.json).")
@click.option("--seeds", "seeds_text", default="1-20", show_default=True,
              help="Seeds of the trace and recovery runs.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default="docs/validation.md", show_default=True,
              help="The page to write.")
@_ns_binary_option
def cubic_check_cmd(suite_path: str, results: str, traces: bool, recoveries: bool, seeds_text: str, output: str,
                    ns_binary: str | None) -> None:
    """CUBIC against ns-2.35's TCP-Linux: each simulator's CUBIC against its NewReno, their
    paired differences against each other, and the cwnd trace's features; CUBIC with SACK
    against both, and its recoveries per run.

    Reads the cubic-* cases' runs that `hoptcp ns2 validate --only 'cubic-*'` stored, and
    rewrites docs/validation.md (its section "CUBIC against ns-2.35's TCP-Linux").
    """
    from .cubic_check import (
        FEATURES,
        SACK_RECOVERIES,
        bases,
        load_features,
        run_features,
        run_sack_recoveries,
        sack_bases,
        save_features,
    )
    from .validation import load_results, load_suite

    _use_ns_binary(ns_binary)
    suite = load_suite(suite_path)
    data = load_results(results)
    if traces:
        seeds = parse_seeds(seeds_text)
        by_name = {c.name: c for c in suite.cases}
        cases: dict[str, Any] = {}
        for b in bases([c.name for c in suite.cases]):
            click.echo(f"traces: cubic-{b}-cubic", err=True)
            cases[b] = run_features(by_name[f"cubic-{b}-cubic"].scenario, seeds)
        save_features({"seeds_text": seeds_text, "cases": cases})
        click.echo(f"wrote {FEATURES}", err=True)
    if recoveries:
        by_name = {c.name: c for c in suite.cases}
        recs: dict[str, Any] = {}
        for b in sack_bases([c.name for c in suite.cases]):
            click.echo(f"recoveries: cubic-sack-{b}", err=True)
            recs[b] = run_sack_recoveries(by_name[f"cubic-sack-{b}"].scenario, parse_seeds(seeds_text))
        save_features({"seeds_text": seeds_text, "cases": recs}, SACK_RECOVERIES)
        click.echo(f"wrote {SACK_RECOVERIES}", err=True)
    if not load_features():
        click.echo(f"no trace features in {FEATURES} (run with --traces)", err=True)
    Path(output).write_text(_page(suite, suite_path, data, output), encoding="utf-8")
    click.echo(f"wrote {output}", err=True)


@ns2.command("agreement-data")
@click.argument("entries", nargs=-1, required=True, metavar="ID...")
@_jobs_option
@_store_option
@_ns_binary_option
@click.option("--plan-only", is_flag=True, help="Print the plan (claims, margins, seeds per side) and stop.")
@click.option("--max-seeds", type=click.IntRange(min=10), default=None,
              help="Leave out claims whose planned seeds per side exceed this (they are listed, not run).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
def agreement_data_cmd(entries: tuple[str, ...], jobs: int | None, store: str | None, ns_binary: str | None,
                       plan_only: bool, max_seeds: int | None, quiet: bool) -> None:
    """Agreement sweeps for entries' failing claims (the verdicts' rule 5), run in ns-2.35.

    From the entry's hoptcp runs and its stored ns-2.35 runs (the pilot), fixes for every
    counted claim that misses the paper's value a margin below half the gap and the seeds per
    side (printed power calculation), then runs those seeds (from 1001 on) in ns-2.35 and writes
    hoptcp/reproduce/ns2data/ID@agreement.csv and .json. `hoptcp reproduce ID` runs hoptcp on the
    same seeds and tests each claim on its first n seeds.
    """
    from ..reproduce.agreement_sweep import plan
    from . import stored

    _use_ns_binary(ns_binary)
    for eid in entries:
        p = plan(eid, store=store, jobs=jobs, progress=not quiet, max_seeds=max_seeds)
        for name, c in p["claims"].items():
            click.echo(f"{eid}: {name}: {c['text']}", err=True)
        for name, c in p.get("not_run", {}).items():
            click.echo(f"{eid}: {name}: not run: {c['text']} (over --max-seeds {max_seeds})", err=True)
        if not p["claims"]:
            click.echo(f"{eid}: no counted claim misses the paper's value where ns-2.35's runs can measure it", err=True)
            continue
        if plan_only:
            continue
        path = stored.write_agreement(eid, p, store=store, jobs=jobs, progress=not quiet)
        click.echo(str(path))


@ns2.command("reproduce-data")
@click.argument("entries", nargs=-1, required=True, metavar="ID...|all")
@_jobs_option
@_store_option
@_ns_binary_option
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
def reproduce_data_cmd(entries: tuple[str, ...], jobs: int | None, store: str | None, ns_binary: str | None,
                       quiet: bool) -> None:
    """Run reproduction entries' sweeps in ns-2.35 and store the results with hoptcp.

    Writes hoptcp/reproduce/ns2data/ID.csv and ID.json (in the source tree), from which
    `hoptcp reproduce ID` draws its ns-2.35 column without running ns-2. Entries whose
    claims need numbers ns-2's traces do not give are skipped with the reason.
    """
    from ..reproduce.catalogue import catalogue
    from . import stored

    _use_ns_binary(ns_binary)
    ids = [e.id for e in catalogue()] if entries == ("all",) else list(entries)
    for eid in ids:
        plan = stored.plan_of(eid)
        if plan.unsupported:
            click.echo(f"{eid}: skipped: {plan.unsupported}", err=True)
            continue
        if plan.main:
            path = stored.generate(eid, store=store, jobs=jobs, progress=not quiet)
            click.echo(f"{eid}: wrote {path}", err=True)
        for side in plan.sides:
            path = stored.generate(eid, store=store, jobs=jobs, progress=not quiet, side=side)
            click.echo(f"{eid} side {side}: wrote {path}", err=True)


def _fmt_ms(mean: float, sd: float) -> str:
    if mean != mean:
        return "-"
    scale, unit = (1e3, "k") if abs(mean) >= 1e4 else (1.0, "")
    return f"{mean / scale:.4g}{unit} ± {sd / scale:.2g}{unit}"


@click.command("crosscheck")
@click.argument("scenario", metavar="SCENARIO.toml")
@click.option("--seeds", "seeds_text", default="1-5", show_default=True, help="Seeds, e.g. 1-5 or 1,3,7.")
@_set_option
@_jobs_option
@_store_option
@_ns_binary_option
@click.option("-m", "--metric", "metrics", multiple=True, help="Metric (or glob) to compare; repeatable.")
@click.option("--json", "as_json", is_flag=True, help="Print all runs and comparisons as JSON.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars.")
@click.option("--check", is_flag=True,
              help="Exit with status 1 unless ns-2.35 ran, used hoptcp's routes and the aggregate goodput "
                   "is within seed noise.")
def crosscheck_cmd(scenario: str, seeds_text: str, sets: tuple[str, ...], jobs: int | None, store: str | None,
                   ns_binary: str | None, metrics: tuple[str, ...], as_json: bool, quiet: bool, check: bool) -> None:
    """Run SCENARIO in hoptcp and ns-2.35 over seeds and compare them metric by metric.

    Means, standard deviations and Welch's t over the seeds, with one line per metric
    saying whether the difference is within seed noise: its p-value Holm-corrected over
    the metrics compared is >= 0.05 (about twenty tests: uncorrected, one would often
    fall below 0.05 by chance). Goodput also gets the equivalence test (TOST, ±10% of
    ns-2.35's mean) of the reproduction reports. Runs are cached in the results store.
    Without `ns` on PATH only hoptcp runs.
    """
    from .. import cli as main
    from ..store import DEFAULT_STORE
    from .compare import DEFAULT_METRICS, mean_sd, pick_metrics
    from .crosscheck import VERDICT_RULE, crosscheck, summary_lines, to_json

    _use_ns_binary(ns_binary)
    sc = _load(scenario, sets)
    cc = crosscheck(sc, parse_seeds(seeds_text), store=store or DEFAULT_STORE, jobs=jobs,
                    progress=not (quiet or as_json), metrics=list(metrics) or None)
    if as_json:
        click.echo(to_json(cc))
        return
    con = main._console()
    title = f"{sc.name}: {len(cc.seeds)} seeds"
    if cc.ns2_ran:
        rows = []
        for c in cc.comparisons:
            w = c.test
            d = w.rel_diff
            rows.append([c.metric, _fmt_ms(w.mean_a, w.sd_a), _fmt_ms(w.mean_b, w.sd_b),
                         f"{d * 100:+.1f}%" if d == d else "-",
                         "-" if w.t != w.t else ("inf" if math.isinf(w.t) else f"{w.t:+.2f}"),
                         "-" if w.p != w.p else f"{w.p:.2g}",
                         "-" if c.p_holm != c.p_holm else f"{c.p_holm:.2g}",
                         "yes" if c.within_noise else "NO"])
        title += "\n" + VERDICT_RULE.format(n=sum(1 for c in cc.comparisons if c.test.p == c.test.p))
        con.print(main._table(title, ["metric", "ns-2.35", "hoptcp", "diff", "Welch t", "p", "p Holm",
                                      "within noise"], rows, right_from=1))
    else:
        names = list(dict.fromkeys(k for r in cc.hoptcp for k in r if k != "seed"))
        chosen = pick_metrics(names, names, list(metrics) or DEFAULT_METRICS)
        rows = [[m, _fmt_ms(*mean_sd([r.get(m) for r in cc.hoptcp]))] for m in chosen]
        con.print(main._table(title, ["metric", "hoptcp"], rows, right_from=1))
    for line in summary_lines(cc):
        con.print(line, soft_wrap=True)
    if check:
        good = next((c for c in cc.comparisons if c.metric == "aggregate_goodput_bps"), None)
        if not (cc.ns2_ran and cc.routes_ok and good is not None and good.test.within_noise):
            click.echo("crosscheck: aggregate goodput not within seed noise of ns-2.35 (or ns-2 did not run)",
                       err=True)
            click.get_current_context().exit(1)


def register(group: click.Group) -> None:
    """Add ``ns2`` and ``crosscheck`` to the main command group."""
    group.add_command(ns2)
    group.add_command(crosscheck_cmd)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(ns2())
