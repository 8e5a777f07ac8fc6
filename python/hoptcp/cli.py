"""The ``hoptcp`` command line.

Every user error (bad TOML, unknown key, missing file, bad ``--set``) ends with
exit status 2 and one line on stderr; heavy libraries are imported per command.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Sequence

import click

from .errors import CoreUnavailableError, ScenarioError, SpecError

EXIT_USER = 2


# --- output helpers ---------------------------------------------------------------------

def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    wide = None if stream.isatty() else 200  # files and pipes: do not squeeze tables to 80 columns
    return Console(file=stream, highlight=False, width=wide, soft_wrap=False)


def _fmt(v: Any, digits: int = 4) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if v != v:
            return "-"
        if v != 0 and (abs(v) >= 1e6 or abs(v) < 1e-3):
            return f"{v:.{digits}g}"
        return f"{v:,.{digits}g}" if abs(v) >= 1e4 else f"{v:.{digits}g}"
    if isinstance(v, int):
        return f"{v:,}" if abs(v) >= 10_000 else str(v)
    return str(v)


def _table(title: str | None, headers: Sequence[str], rows: Sequence[Sequence[Any]], *,
           right_from: int = 0, wrap: Sequence[int] = ()) -> Any:
    """A table; columns listed in ``wrap`` may wrap (the others never do)."""
    from rich.table import Table

    t = Table(title=title, title_justify="left", title_style="bold", show_edge=False, pad_edge=False,
              header_style="bold")
    for i, h in enumerate(headers):
        t.add_column(h, justify="right" if i >= right_from else "left", no_wrap=i not in wrap,
                     overflow="fold" if i in wrap else "ellipsis")
    for r in rows:
        t.add_row(*[x if isinstance(x, str) else _fmt(x) for x in r])
    return t


def _parse_sets(sets: Sequence[str]) -> list[tuple[str, str]]:
    pairs = []
    for s in sets:
        key, eq, value = s.partition("=")
        key = key.strip()
        if not eq or not key or " " in key:
            raise SpecError(f"--set '{s}': expected KEY=VALUE with a dotted key, e.g. --set tcp.max_window=3")
        pairs.append((key, value.strip()))
    return pairs


# --- the command group ----------------------------------------------------------------

def _print_version(ctx: click.Context, _param: Any, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    import hoptcp
    from . import _bridge

    core = _bridge.version() if _bridge.available() else "not built"
    click.echo(f"hoptcp {hoptcp.__version__} (core {core}, Python {sys.version.split()[0]})")
    ctx.exit(0)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the package and core versions.")
def cli() -> None:
    """hoptcp: fast simulation of TCP over multihop IEEE 802.11 networks.

    \b
    hoptcp run examples/chain7.toml --set tcp.max_window=3 --seed 4
    hoptcp sweep experiments/window.toml -j 8
    hoptcp results show --sweep window
    hoptcp reproduce --list
    hoptcp model wstar --topology chain --hops 7
    """


# --- run ------------------------------------------------------------------------------

@cli.command()
@click.argument("scenario", metavar="SCENARIO.toml")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="Override a scenario key (repeatable), e.g. --set tcp.max_window=3.")
@click.option("--seed", type=int, default=None, help="Random seed (default: the scenario's).")
@click.option("--json", "as_json", is_flag=True, help="Print the full result as one JSON document.")
@click.option("--pcap", type=click.Path(dir_okay=False), default=None, help="Write a packet trace.")
def run(scenario: str, sets: tuple[str, ...], seed: int | None, as_json: bool, pcap: str | None) -> None:
    """Run one simulation and print its summary tables."""
    from . import _bridge
    from .scenario import Scenario

    sc = Scenario.load(scenario).with_raw(_parse_sets(sets))
    with _RunProgress(sc.name, enabled=not as_json) as bar:
        text = _bridge.run_json(sc.toml, sc.overrides, seed, pcap, progress=bar.update)
    if as_json:
        click.echo(text)
        return
    _print_run(json.loads(text), sc, pcap)


class _RunProgress:
    """A transient progress bar for one long run, shown from the core's first
    progress report (runs under a quarter of a second never show one)."""

    def __init__(self, name: str, enabled: bool = True) -> None:
        self.name, self.enabled, self.progress, self.task = name, enabled and sys.stderr.isatty(), None, None

    def __enter__(self) -> "_RunProgress":
        return self

    def update(self, fraction: float) -> None:
        if not self.enabled:
            return
        if self.progress is None:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            self.progress = Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
                                     TimeRemainingColumn(), console=Console(stderr=True), transient=True)
            self.progress.start()
            self.task = self.progress.add_task(f"simulating {self.name}", total=1.0)
        self.progress.update(self.task, completed=fraction)

    def __exit__(self, *exc: Any) -> None:
        if self.progress is not None:
            self.progress.stop()


#: columns of the run summary: (key, header, scale); the full set is in --json
_FLOW_COLUMNS = (("hops", "hops", 1), ("packets_sent", "sent", 1), ("packets_delivered", "delivered", 1),
                 ("goodput_bps", "goodput kb/s", 1e-3))
_TCP_COLUMNS = (("avg_cwnd", "avg cwnd", 1), ("avg_rtt_s", "avg RTT ms", 1e3), ("retransmissions", "retx", 1),
                ("timeouts", "RTOs", 1), ("fast_retransmits", "fast retx", 1))
_NODE_COLUMNS = (("rts_sent", "RTS", 1), ("cts_timeouts", "CTS t/o", 1), ("ack_timeouts", "ACK t/o", 1),
                 ("rx_collisions", "rx coll", 1), ("cts_withheld", "CTS withheld", 1), ("mac_drops", "MAC drops", 1),
                 ("queue_max", "queue max", 1), ("queue_avg", "queue avg", 1), ("backlog_frac", "busy %", 100))
MAX_ROWS = 40


def _columns_table(title: str, records: list[dict[str, Any]], first: list[tuple[str, Any]],
                   columns: Sequence[tuple[str, str, float]]) -> Any:
    """A table with the given columns; rows past MAX_ROWS are summarised in the caption."""
    cols = [c for c in columns if any(c[0] in r for r in records)]
    rows = []
    for r, lead in zip(records[:MAX_ROWS], first):
        cells = [r.get(k) * sc if isinstance(r.get(k), (int, float)) and sc != 1 else r.get(k) for k, _, sc in cols]
        rows.append([*lead, *cells])
    lead_headers = [h for h, _ in first[0]] if first else []
    t = _table(title, [*lead_headers, *[h for _, h, _ in cols]], [[v for _, v in lr[:len(lead_headers)]]
                                                                  + lr[len(lead_headers):] for lr in rows],
               right_from=len(lead_headers))
    if len(records) > MAX_ROWS:
        t.caption = f"{len(records) - MAX_ROWS} more rows: use --json or hoptcp.run() for all"
    return t


def _print_run(raw: dict[str, Any], sc: Any, pcap: str | None) -> None:
    from .results import RunResult, drop_rows

    con = _console()
    s = RunResult(raw).summary
    speed = f", {s['speedup']:.0f}x real time" if s.get("speedup") else ""
    con.print(f"[bold]{sc.name}[/bold]  seed {s['seed']}, {_fmt(s['duration_s'])} s simulated, "
              f"{_fmt(s['events'])} events in {_fmt(s['wall_time_s'], 3)} s{speed}  (hoptcp {s['hoptcp_version']})")
    if sc.overrides:
        con.print("overrides: " + ", ".join(f"{k}={v}" for k, v in sc.overrides))
    con.print()
    flows = raw.get("flows") or []
    if flows:
        cols = _FLOW_COLUMNS + (_TCP_COLUMNS if any(f.get("transport") == "tcp" for f in flows) else ())
        lead = [[("flow", str(f.get("id"))), ("route", f"{f.get('src')} → {f.get('dst')}"),
                 ("type", f"{f.get('transport')}/{f.get('app')}")] for f in flows]
        con.print(_columns_table("Flows", flows, lead, cols))
        con.print()
    nodes = raw.get("nodes") or []
    # Only nodes that did something at the MAC: idle nodes of big topologies add nothing.
    active = [n for n in nodes if (n.get("mac_packets") or 0) + (n.get("cts_sent") or 0) > 0]
    if active:
        title = "Nodes (MAC and interface queue)" + (f", {len(active)} of {len(nodes)} active" if len(active) < len(nodes) else "")
        lead = [[("node", str(n.get("id"))), ("x, y (m)", f"{_fmt(n.get('x'))}, {_fmt(n.get('y'))}")] for n in active]
        con.print(_columns_table(title, active, lead, _NODE_COLUMNS))
        con.print()
    rows = drop_rows(raw.get("drops") or {})
    if rows:
        kinds = [k for k in dict.fromkeys(k for _, k, _ in rows) if k != "all"]
        causes = list(dict.fromkeys(c for c, _, _ in rows))
        cell = {(c, k): n for c, k, n in rows}
        table_rows = [[c, cell.get((c, "all"), 0), *[cell.get((c, k), 0) for k in kinds]] for c in causes]
        con.print(_table("Drops by cause and packet kind", ["cause", "total", *kinds], table_rows, right_from=1))
        con.print()
    con.print(f"aggregate goodput [bold]{_fmt((s['aggregate_goodput_bps'] or 0) / 1e3)} kb/s[/bold]   "
              f"Jain fairness [bold]{_fmt(s['fairness_jain'])}[/bold]   drops {_fmt(s['drops'])}")
    if pcap:
        con.print(f"packet trace written to {pcap}")


# --- sweep ----------------------------------------------------------------------------

def _jobs_option(f: Any) -> Any:
    return click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
                        help="Parallel runs on this machine (default: all cores).")(f)


def _store_option(f: Any) -> Any:
    return click.option("--store", type=click.Path(dir_okay=False), default=None,
                        help="Results store file (default: ./hoptcp-results.db).")(f)


@cli.command()
@click.argument("spec", metavar="SPEC.toml")
@_jobs_option
@click.option("--dask", "dask_addr", metavar="ADDR", default=None,
              help="Send runs to a Dask scheduler, e.g. tcp://host:8786.")
@_store_option
@click.option("-q", "--quiet", is_flag=True, help="No progress bar or summary.")
def sweep(spec: str, jobs: int | None, dask_addr: str | None, store: str | None, quiet: bool) -> None:
    """Run a parameter sweep; only runs missing from the store are simulated."""
    from .store import DEFAULT_STORE
    from .sweep import SweepSpec, run_sweep

    the_spec = SweepSpec.load(spec)
    df = run_sweep(the_spec, store=store or DEFAULT_STORE, jobs=jobs, dask=dask_addr, progress=not quiet)
    if not quiet:
        _print_summary(df, the_spec.metrics)
        click.echo(f"\n{len(df)} runs in sweep '{the_spec.name}' (store {df.attrs['store']}); "
                   f"see: hoptcp results show --sweep {the_spec.name}")


def _default_metrics(df: Any, wanted: Sequence[str] | None) -> list[str]:
    metrics = list(df.attrs.get("metrics", []))
    if wanted is not None:
        return metrics[:6]
    pref = [m for m in ("aggregate_goodput_bps", "fairness_jain") if m in metrics]
    return pref or metrics[:2]


def _print_summary(df: Any, wanted: Sequence[str] | None, metrics: Sequence[str] | None = None) -> None:
    from .stats import summarize

    if df.empty:
        click.echo("no finished runs")
        return
    metrics = list(metrics) if metrics else _default_metrics(df, wanted)
    summ = summarize(df, metrics=metrics)
    by = summ.attrs["by"]
    headers = [*by, "n", *[f"{m} (mean ± 95% CI)" for m in metrics]]
    rows = []
    for _, r in summ.head(MAX_ROWS).iterrows():
        rows.append([_fmt(r[b]) for b in by] + [_fmt(int(r["n"]))] +
                    [f"{_fmt(r[m])} ± {_fmt(r[m + '_ci'], 3)}" for m in metrics])
    t = _table(None, headers, rows, right_from=len(by))
    if len(summ) > MAX_ROWS:
        t.caption = f"{len(summ) - MAX_ROWS} more rows: hoptcp results export"
    _console().print(t)


# --- results --------------------------------------------------------------------------

@cli.group()
def results() -> None:
    """Inspect and export the results store."""


def _open_store(store: str | None) -> Any:
    from .store import DEFAULT_STORE, Store

    path = store or DEFAULT_STORE
    if not Path(path).is_file():
        raise SpecError(f"store not found: {path} (run a sweep first, or pass --store FILE)")
    return Store(path)


def _pick_sweep(db: Any, sweep: str | None) -> str | None:
    names = db.sweep_names()
    if sweep is not None:
        if sweep not in names:
            raise SpecError(f"--sweep {sweep}: not in store {db.path}; sweeps there: {', '.join(names) or 'none'}")
        return sweep
    if len(names) == 1:
        return names[0]
    if not names:
        raise SpecError(f"store {db.path} holds no sweeps")
    return None


@results.command("list")
@_store_option
def results_list(store: str | None) -> None:
    """List the sweeps in the store."""
    with _open_store(store) as db:
        sweeps = db.sweeps()
        total = db.count()
    rows = [[s["sweep"], f"{s['done']}/{s['planned']}", s["points"], s["seeds"], s["versions"] or "-",
             _fmt(s["cpu_time_s"], 3), s["updated_at"]] for s in sweeps]
    _console().print(_table(None, ["sweep", "runs done", "points", "seeds", "hoptcp", "sim wall s", "updated"],
                            rows, right_from=1))
    click.echo(f"{total} runs stored in {db.path}")


@results.command("show")
@_store_option
@click.option("--sweep", default=None, help="Sweep name (default: the only one).")
@click.option("-m", "--metric", "metrics", multiple=True, help="Metric (or glob) to show; repeatable.")
def results_show(store: str | None, sweep: str | None, metrics: tuple[str, ...]) -> None:
    """Mean ± 95% CI per sweep point."""
    with _open_store(store) as db:
        name = _pick_sweep(db, sweep)
        if name is None:
            raise SpecError(f"store {db.path} holds several sweeps ({', '.join(db.sweep_names())}); pick one with --sweep")
        df = db.frame(name)
    from .store import select_metrics

    chosen = select_metrics(df.attrs["metrics"], list(metrics)) if metrics else None
    click.echo(f"sweep '{name}': {len(df)} runs")
    _print_summary(df, None, chosen)


@results.command("export")
@_store_option
@click.option("--sweep", default=None, help="Sweep name (default: all runs).")
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet"]), default=None,
              help="Output format (default: from the -o suffix, else csv).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Output file (default: CSV on stdout).")
def results_export(store: str | None, sweep: str | None, fmt: str | None, output: str | None) -> None:
    """Export one row per run (params, seed, metrics)."""
    if fmt is None:
        fmt = "parquet" if output and output.endswith((".parquet", ".pq")) else "csv"
    if fmt == "parquet" and not output:
        raise SpecError("--format parquet needs -o FILE")
    with _open_store(store) as db:
        if sweep is not None:
            _pick_sweep(db, sweep)
        df = db.frame(sweep)
    if fmt == "csv":
        if output:
            df.to_csv(output, index=False)
        else:
            df.to_csv(sys.stdout, index=False)
            return
    else:
        try:
            df.to_parquet(output, index=False)
        except ImportError:
            raise SpecError("parquet export needs pyarrow: pip install pyarrow") from None
    click.echo(f"wrote {len(df)} runs to {output}", err=True)


# --- plot -----------------------------------------------------------------------------

@cli.command()
@_store_option
@click.option("--sweep", default=None, help="Sweep name (default: the only one).")
@click.option("-x", "x", required=True, help="Column on the x axis (a sweep parameter).")
@click.option("-y", "y", required=True, help="Metric on the y axis (mean with 95% CI).")
@click.option("--hue", default=None, help="Parameter drawn as separate lines.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, help="Image file (.png, .pdf, .svg).")
def plot(store: str | None, sweep: str | None, x: str, y: str, hue: str | None, output: str | None) -> None:
    """Plot a metric against a parameter: mean with 95% CI error bars."""
    with _open_store(store) as db:
        name = _pick_sweep(db, sweep)
        if name is None:
            raise SpecError(f"store {db.path} holds several sweeps ({', '.join(db.sweep_names())}); pick one with --sweep")
        df = db.frame(name)
    from .plotting import save_sweep_plot

    out = output or f"{name.replace('/', '_')}-{y.replace('*', 'x')}.png"
    save_sweep_plot(df, out, x=x, y=y, hue=hue, title=name)
    click.echo(f"wrote {out}")


# --- model ----------------------------------------------------------------------------

@cli.group()
def model() -> None:
    """The papers' analytic models (W*, Bianchi, single-hop saturation, link-drop)."""


def _parse_params(params: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in params:
        key, eq, value = p.partition("=")
        if not eq or not key.strip():
            raise SpecError(f"--param '{p}': expected KEY=VALUE, e.g. -p window=4")
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out


def _model_runs(name: str, params: dict[str, Any], list_key: str | None, as_json: bool) -> None:
    from .models import model as evaluate

    values = params.pop(list_key) if list_key and list_key in params else None
    variants = [dict(params, **{list_key: v}) for v in values] if values is not None else [params]
    try:
        out = [evaluate(name, **{k: v for k, v in p.items() if v is not None}) for p in variants]
    except ValueError as exc:
        raise SpecError(f"model {name}: {exc}") from None
    if as_json:
        click.echo(json.dumps(out[0] if len(out) == 1 else out, sort_keys=True))
        return
    from .results import flatten_metrics

    flat = [{**{k: v for k, v in r.items() if isinstance(v, str)}, **flatten_metrics(r)} for r in out]
    if len(flat) == 1:
        _console().print(_table(f"model {name}", ["quantity", "value"], [[k, v] for k, v in flat[0].items()],
                                right_from=1))
    else:
        keys = list(dict.fromkeys(k for f in flat for k in f))
        _console().print(_table(f"model {name}", keys, [[f.get(k) for k in keys] for f in flat]))


def _int_list(_ctx: Any, param: Any, value: str | None) -> list[int] | None:
    if value is None:
        return None
    try:
        vals = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise click.BadParameter(f"'{value}': expected an integer or a comma-separated list like 5,10,20") from None
    if not vals:
        raise click.BadParameter("expected at least one integer")
    return vals


_common_model_options = [
    click.option("-p", "--param", "extra", multiple=True, metavar="KEY=VALUE", help="Any other model parameter."),
    click.option("--json", "as_json", is_flag=True, help="Print the model's JSON."),
]
_mac_model_options = [
    click.option("--payload-bytes", type=int, default=None, help="Payload bytes per packet."),
    click.option("--data-rate-mbps", type=float, default=None, help="Data rate (Mb/s)."),
    click.option("--basic-rate-mbps", type=float, default=None, help="Basic (control) rate (Mb/s)."),
    click.option("--access", type=click.Choice(["rts_cts", "basic"]), default=None,
                 help="RTS/CTS before DATA (ns-2 default) or basic access."),
    click.option("--transport", type=click.Choice(["udp", "tcp"]), default=None,
                 help="Headers on the payload: UDP/IP 28 B or TCP/IP 40 B."),
    click.option("--standard", type=click.Choice(["dsss", "ofdm"]), default=None, help="PHY timing set."),
]


def _with(options: list[Any]) -> Any:
    def deco(f: Any) -> Any:
        for o in reversed(options):
            f = o(f)
        return f
    return deco


@model.command("wstar")
@click.option("--topology", type=click.Choice(["chain", "cross", "grid"]), default="chain", show_default=True)
@click.option("--hops", callback=_int_list, required=True, help="Hop count, or a list like 4,7,15.")
@_with(_common_model_options)
def model_wstar(topology: str, hops: list[int], extra: tuple[str, ...], as_json: bool) -> None:
    """Optimal TCP window W* (Fu et al.): chain h/4, cross, grid."""
    _model_runs("wstar", {"topology": topology, "hops": hops, **_parse_params(extra)}, "hops", as_json)


@model.command("bianchi")
@click.option("-n", "--n", "n", callback=_int_list, required=True, help="Stations, or a list like 5,10,20,50.")
@_with(_mac_model_options)
@_with(_common_model_options)
def model_bianchi(n: list[int], extra: tuple[str, ...], as_json: bool, **mac: Any) -> None:
    """Bianchi's saturation throughput of 802.11 DCF with n stations."""
    _model_runs("bianchi", {"stations": n, **mac, **_parse_params(extra)}, "stations", as_json)


@model.command("single-hop")
@_with(_mac_model_options)
@_with(_common_model_options)
def model_single_hop(extra: tuple[str, ...], as_json: bool, **mac: Any) -> None:
    """Saturation goodput of one sender to one receiver (no contention)."""
    _model_runs("single_hop", {**mac, **_parse_params(extra)}, None, as_json)


@model.command("linkdrop")
@_with(_common_model_options)
def model_linkdrop(extra: tuple[str, ...], as_json: bool) -> None:
    """Fu et al.'s link-drop Markov model (parameters with -p KEY=VALUE)."""
    _model_runs("linkdrop", _parse_params(extra), None, as_json)


# --- reproduce ------------------------------------------------------------------------

@cli.command()
@click.argument("entry", required=False, metavar="ID|all")
@click.option("--list", "list_", is_flag=True, help="List the catalogue.")
@click.option("--quick", is_flag=True, help="Few seeds and short runs (for CI and a first look).")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Output directory (default: ./hoptcp-reproduce[/ID]).")
@_jobs_option
@click.option("--dask", "dask_addr", metavar="ADDR", default=None, help="Send runs to a Dask scheduler.")
@_store_option
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
def reproduce(entry: str | None, list_: bool, quick: bool, out: str | None, jobs: int | None,
              dask_addr: str | None, store: str | None, quiet: bool) -> None:
    """Reproduce a paper's figure or table: runs, plots, paper-vs-hoptcp report."""
    from . import reproduce as rep
    from .store import DEFAULT_STORE

    if list_:
        entries = rep.catalogue()
        rows = [[e.id, e.title, e.paper, e.where, e.run_count(quick=True), e.run_count(quick=False)]
                for e in entries]
        _console().print(_table(None, ["id", "title", "paper", "figure/table", "quick runs", "full runs"], rows,
                                right_from=4, wrap=(1, 2, 3)))
        return
    if not entry:
        raise SpecError("reproduce: give an entry id, 'all', or --list")
    kw = dict(quick=quick, store=store or DEFAULT_STORE, jobs=jobs, dask=dask_addr, progress=not quiet)
    if entry == "all":
        index = rep.reproduce_all(Path(out or "hoptcp-reproduce"), **kw)
        click.echo(f"wrote {index}")
        return
    result = rep.reproduce(entry, Path(out or Path("hoptcp-reproduce") / entry), **kw)
    for c in result.claims:
        click.echo(f"{c.verdict:>8}  {c.claim.name}: {c.summary}")
    click.echo(f"wrote {result.report}")


# --- bench ----------------------------------------------------------------------------

@cli.command()
@click.option("--only", multiple=True, metavar="NAME", help="Time only these scenarios (e.g. chain7-tcp).")
@click.option("--repeats", type=click.IntRange(min=1), default=3, show_default=True, help="Runs per scenario (best kept).")
@click.option("--sweep-jobs", default="1,2", show_default=True, help="Worker counts for the sweep-throughput row ('' to skip).")
@click.option("--markdown", "md_out", type=click.Path(dir_okay=False), default=None,
              help="Also write the results as a Markdown table to this file.")
def bench(only: tuple[str, ...], repeats: int, sweep_jobs: str, md_out: str | None) -> None:
    """Time fixed scenarios (events/s, simulated seconds per wall second, memory) and sweep throughput."""
    from . import _bridge, bench as b

    con = _console()
    note = lambda msg: con.print(f"[dim]{msg}[/dim]")  # noqa: E731
    rows = b.run_scenarios(only or None, repeats, progress=note)
    jobs = [int(j) for j in sweep_jobs.split(",") if j.strip()]
    sweeps = b.sweep_throughput(jobs, progress=note) if jobs and not only else []
    table_rows = [[t.name, t.nodes, t.flows, t.sim_s, t.events, t.wall_s, t.speedup, t.events_per_s / 1e6, t.rss_mb,
                   "-" if t.target_s is None else f"<= {t.target_s:g} s"] for t in rows]
    con.print(_table("hoptcp bench", ["scenario", "nodes", "flows", "sim s", "events", "wall s", "sim s/wall s",
                                      "M events/s", "peak MB", "target"], table_rows, right_from=1))
    if sweeps:
        con.print(_table("sweep throughput (7-hop TCP chain, 30 s runs)", ["workers", "runs", "runs/s"],
                         [[j, n, r] for j, n, r in sweeps], right_from=0))
    if md_out:
        Path(md_out).write_text(b.markdown(rows, sweeps, b.baseline_rss_mb(), _bridge.version()))
        con.print(f"wrote {md_out}")


from .ns2.cli import register as _register_ns2  # noqa: E402  (hoptcp ns2 ..., hoptcp crosscheck)

_register_ns2(cli)


# --- entry point ------------------------------------------------------------------------

def _err(message: str) -> None:
    first = " ".join(str(message).split("\n")[0].split()) or "error"
    print(f"hoptcp: error: {first}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Console entry point; returns the exit status."""
    from .runner import RunError

    try:
        rv = cli.main(args=list(argv) if argv is not None else None, prog_name="hoptcp", standalone_mode=False)
        return rv if isinstance(rv, int) else 0
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except click.exceptions.Abort:
        print("hoptcp: aborted", file=sys.stderr)
        return 130
    except click.UsageError as exc:
        cmd = exc.ctx.command_path if exc.ctx else "hoptcp"
        _err(f"{exc.format_message()} (see: {cmd} --help)")
        return EXIT_USER
    except click.ClickException as exc:
        _err(exc.format_message())
        return EXIT_USER
    except (ScenarioError, SpecError) as exc:
        _err(str(exc))
        return EXIT_USER
    except CoreUnavailableError as exc:
        _err(str(exc))
        return 1
    except RunError as exc:
        _err(str(exc))
        return 1
    except KeyboardInterrupt:
        print("hoptcp: interrupted (finished runs are stored; run the same command again to resume)",
              file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
