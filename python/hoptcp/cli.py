"""The ``hoptcp`` command line.

Every user error (bad TOML, unknown key, missing file, bad ``--set``) ends with
exit status 2 and one line on stderr; Ctrl-C ends with status 130 and one line
saying what was kept; heavy libraries are imported per command. Errors are
mapped to exit statuses in one place, :func:`main`: commands just raise.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

import click

from .errors import CoreUnavailableError, Interrupted, RunError, ScenarioError, SpecError
from .overrides import parse_sets
from .progress import keep_ctrl_c, run_with_progress

EXIT_USER = 2
EXIT_INTERRUPTED = 130


# --- output helpers ---------------------------------------------------------------------

def _console(stderr: bool = False, width: int | None = None) -> Any:
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    if width is None and not stream.isatty():
        width = 200  # files and pipes: do not squeeze tables to 80 columns
    con = Console(file=stream, highlight=False, width=width, soft_wrap=False)
    con.on_broken_pipe = _broken_pipe  # type: ignore[method-assign]  # rich would exit 1; main() ends quietly
    return con


def _broken_pipe() -> None:
    raise BrokenPipeError(32, "Broken pipe")


def _fmt(v: Any, digits: int = 4) -> str:
    """One convention for every number in a table: thousands separated by commas
    from 1,000 to below 10^15 (floats that large rounded to integers), else
    ``digits`` significant digits (scientific notation below 0.001)."""
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if hasattr(v, "item") and not isinstance(v, (int, float, str)):  # numpy scalar
        v = v.item()
    if isinstance(v, float):
        if v != v:
            return "-"
        if v in (float("inf"), float("-inf")):
            return "∞" if v > 0 else "-∞"
        if 1e3 <= abs(v) < 1e15:
            return f"{v:,.0f}"
        return f"{v:.{digits}g}"
    if isinstance(v, int):
        return f"{v:,}" if abs(v) < 10**15 else f"{v:.{digits}e}"
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
    from rich.text import Text

    for r in rows:  # Text: a cell such as "[1, 2]" or "[ip.ldm]" is shown as written, not read as markup
        t.add_row(*[Text(x if isinstance(x, str) else _fmt(x)) for x in r])
    return t


# --- the command group ----------------------------------------------------------------

def _print_version(ctx: click.Context, _param: Any, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    import hoptcp

    from . import _bridge

    core = _bridge.describe() if _bridge.available() else "not built"
    click.echo(f"hoptcp {hoptcp.__version__} (core {core}, Python {sys.version.split()[0]})")
    ctx.exit(0)


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the package and core versions.")
def cli() -> None:
    """hoptcp: fast simulation of TCP over multihop IEEE 802.11 networks.

    \b
    hoptcp run examples/chain7.toml --set tcp.max_window=3 --seed 4
    hoptcp scenario show examples/chain7.toml
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
@click.option("--seed", type=int, default=None, help="Random seed, 0 to 2^63-1 (default: the scenario's).")
@click.option("--json", "as_json", is_flag=True, help="Print the full result as one JSON document.")
@click.option("--pcap", type=click.Path(dir_okay=False), default=None,
              help="Write a packet trace (pcapng, interface i = node i) for Wireshark: by default the "
                   "sources' view, each flow's frames at the node that sends it, which Wireshark's TCP "
                   "analysis reads right.")
@click.option("--pcap-view", "pcap_view", type=click.Choice(["sources", "network"]), default="sources",
              show_default=True,
              help="With --pcap: 'network' writes every node's frames (each segment once per node that sent "
                   "or received it: for timing and MAC questions, not for TCP analysis).")
@click.option("--pcap-node", "pcap_node", type=click.IntRange(min=0), default=None, metavar="N",
              help="With --pcap: node N's frames alone, on one interface (docs/testing.md, Wireshark).")
@click.option("--series", "series", multiple=True, metavar="KIND",
              help="Also record time series (repeatable or comma-separated): per flow cwnd, ssthresh, rtt, rto, "
                   "goodput; per node queue, mac; air (every frame on the air); gateway (TCP-GAP's estimate), "
                   "tcp_ap (TCP-AP senders'). In the --json result; draw them with hoptcp plot-run.")
@click.option("--trace-ns2", "trace_ns2", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Also write ns-2's new wireless trace (use-newtrace format: AGT, RTR and MAC events, drops) "
                   "to FILE, for the awk scripts and analysers written for ns-2 (docs/viewer.md).")
def run(scenario: str, sets: tuple[str, ...], seed: int | None, as_json: bool, pcap: str | None,
        pcap_view: str, pcap_node: int | None, series: tuple[str, ...], trace_ns2: str | None) -> None:
    """Run one simulation and print its summary tables."""
    from . import _bridge
    from .pcap_view import check_view, wants_air, with_air
    from .scenario import Scenario

    if pcap_node is not None and pcap is None:
        raise SpecError(f"--pcap-node {pcap_node}: give the trace file with --pcap FILE")
    if pcap_view != "sources" and pcap is None:
        raise SpecError(f"--pcap-view {pcap_view}: give the trace file with --pcap FILE")
    check_view(pcap_view, pcap_node)
    sc = Scenario.load(scenario).with_raw(parse_sets(sets))
    kinds = [k.strip() for item in series for k in item.split(",") if k.strip()]
    if trace_ns2 is not None:
        _bridge.check_output_file(trace_ns2, "--trace-ns2")
        if "air" not in kinds:
            kinds.append("air")  # the trace is written from the air trace
    if kinds:
        from .runner import with_series  # the runner (and its imports) only when series are asked for

        sc = with_series(sc, kinds)
    asked_air = any(k == "air" for item in series for k in item.split(","))
    if wants_air(pcap, pcap_node, pcap_view):
        sc = with_air(sc)  # the sources' view is written from the air trace
    text = run_with_progress(sc.name, sc.toml, sc.overrides, seed, show=not as_json, pcap=pcap, pcap_node=pcap_node,
                             pcap_view=pcap_view, keep_air=asked_air or trace_ns2 is not None)
    if trace_ns2 is not None:
        from .ns2.newtrace import write as write_ns2_trace

        doc = json.loads(text)
        n = write_ns2_trace(doc, trace_ns2)
        if not asked_air:
            doc.pop("air", None)  # asked for the trace, not the air trace in the result
            text = json.dumps(doc)
        if not as_json:
            click.echo(f"wrote {trace_ns2} ({n:,} lines, ns-2 new wireless trace format)", err=True)
    if as_json:
        click.echo(text)
        return
    _print_run(json.loads(text), sc, pcap, pcap_node, pcap_view)


#: columns of the run summary: (key, header, scale); the full set is in --json
_FLOW_COLUMNS = (("hops", "hops", 1), ("packets_sent", "sent", 1), ("packets_delivered", "delivered", 1),
                 ("goodput_bps", "goodput kb/s", 1e-3))
_TCP_COLUMNS = (("avg_cwnd", "avg cwnd", 1), ("avg_rtt_s", "avg RTT ms", 1e3), ("retransmissions", "retx", 1),
                ("timeouts", "RTOs", 1), ("fast_retransmits", "fast retx", 1))
_FLOW_ROUTING_COLUMNS = (("route_breaks", "route breaks", 1), ("route_discoveries", "discoveries", 1))
_NODE_ROUTING_COLUMNS = (("rreq_sent", "RREQ sent", 1), ("rreq_forwarded", "RREQ fwd", 1), ("rrep_sent", "RREP sent", 1),
                         ("rrep_forwarded", "RREP fwd", 1), ("rerr_sent", "RERR sent", 1),
                         ("rerr_forwarded", "RERR fwd", 1), ("route_breaks", "route breaks", 1),
                         ("local_repairs", "local repairs", 1), ("route_discoveries", "discoveries", 1))
_NODE_COLUMNS = (("rts_sent", "RTS", 1), ("cts_timeouts", "CTS t/o", 1), ("ack_timeouts", "ACK t/o", 1),
                 ("rx_collisions", "rx coll", 1), ("cts_withheld", "CTS withheld", 1), ("mac_drops", "MAC drops", 1),
                 ("queue_max", "queue max", 1), ("queue_avg", "queue avg", 1), ("backlog_frac", "busy %", 100),
                 ("lred_marks", "LRED marks", 1), ("lred_drops", "LRED drops", 1),
                 ("lred_avg_retry", "avg retry", 1), ("pacing_active_s", "pacing on s", 1))
MAX_ROWS = 40


def _columns_table(title: str, records: list[dict[str, Any]], first: list[list[tuple[str, str]]],
                   columns: Sequence[tuple[str, str, float]]) -> Any:
    """A table with the given columns; rows past MAX_ROWS are summarised in the caption."""
    cols = [c for c in columns if any(c[0] in r for r in records)]
    rows: list[list[Any]] = []
    for r, lead in zip(records[:MAX_ROWS], first):
        cells = [_scaled(r.get(k), sc) for k, _, sc in cols]
        rows.append([*lead, *cells])
    lead_headers = [h for h, _ in first[0]] if first else []
    t = _table(title, [*lead_headers, *[h for _, h, _ in cols]], [[v for _, v in lr[:len(lead_headers)]]
                                                                  + lr[len(lead_headers):] for lr in rows],
               right_from=len(lead_headers))
    if len(records) > MAX_ROWS:
        t.caption = f"{len(records) - MAX_ROWS} more rows: use --json or hoptcp.run() for all"
    return t


def _scaled(v: Any, scale: float) -> Any:
    return v * scale if isinstance(v, (int, float)) and not isinstance(v, bool) and scale != 1 else v


def _print_run(raw: dict[str, Any], sc: Any, pcap: str | None, pcap_node: int | None = None,
               pcap_view: str = "sources") -> None:
    from .results import RunResult, drop_rows

    con = _console()
    s = RunResult(raw).summary
    speed = f", {s['speedup']:.0f}x real time" if s.get("speedup") else ""
    from rich.markup import escape

    con.print(f"[bold]{escape(sc.name)}[/bold]  seed {s['seed']}, {_fmt(s['duration_s'])} s simulated, "
              f"{_fmt(s['events'])} events in {_fmt(s['wall_time_s'], 3)} s{speed}  (hoptcp {s['hoptcp_version']})")
    if sc.overrides:
        con.print(escape("overrides: " + ", ".join(f"{k}={v}" for k, v in sc.overrides)))
    con.print()
    flows = raw.get("flows") or []
    if flows:
        cols = _FLOW_COLUMNS + (_TCP_COLUMNS if any(f.get("transport") == "tcp" for f in flows) else ()) \
            + _FLOW_ROUTING_COLUMNS
        lead = [[("flow", str(f.get("id"))), ("route", f"{f.get('src')} → {f.get('dst')}"),
                 ("type", f"{f.get('transport')}/{f.get('app')}")] for f in flows]
        con.print(_columns_table("Flows", flows, lead, cols))
        con.print()
    nodes = raw.get("nodes") or []
    # Only nodes that did something at the MAC: idle nodes of big topologies add nothing.
    active = [n for n in nodes if (n.get("mac_packets") or 0) + (n.get("cts_sent") or 0) > 0]
    total = raw.get("node_count", len(nodes))  # the report lists only the nodes that took part
    if active:
        title = "Nodes (MAC and interface queue)" + (f", {len(active)} of {total} active" if len(active) < total else "")
        lead = [[("node", str(n.get("id"))), ("x, y (m)", f"{_fmt(n.get('x'))}, {_fmt(n.get('y'))}")] for n in active]
        con.print(_columns_table(title, active, lead, _NODE_COLUMNS))
        con.print()
    routing = raw.get("routing")
    if routing:
        _print_routing(con, routing, nodes)
    if raw.get("wired"):
        _print_wired(con, raw["wired"])
    rows = drop_rows(raw.get("drops") or {}, nonzero=True)
    if rows:
        # Packet kinds that were never dropped get no column (e.g. aodv under static routing).
        kinds = [k for k in dict.fromkeys(k for _, k, n in rows if n) if k != "all"]
        causes = list(dict.fromkeys(c for c, _, _ in rows))
        cell = {(c, k): n for c, k, n in rows}
        table_rows = [[c, cell.get((c, "all"), 0), *[cell.get((c, k), 0) for k in kinds]] for c in causes]
        con.print(_table("Drops by cause and packet kind", ["cause", "total", *kinds], table_rows, right_from=1))
        con.print()
    elif raw.get("drops"):
        con.print("Drops by cause: none\n")
    con.print(f"aggregate goodput [bold]{_fmt((s['aggregate_goodput_bps'] or 0) / 1e3)} kb/s[/bold]   "
              f"Jain fairness [bold]{_fmt(s['fairness_jain'])}[/bold]   drops {_fmt(s['drops'])}")
    for f in flows:
        if f.get("pacing"):
            p = f["pacing"]
            con.print(f"flow {f.get('id')} TCP-AP: rate {_fmt(p.get('rate_pps'))} pkt/s, FHD^ "
                      f"{_fmt((p.get('fhd_s') or 0) * 1e3)} ms, variation {_fmt(p.get('variation'))}, "
                      f"mean pacing delay {_fmt((p.get('mean_pacing_delay_s') or 0) * 1e3)} ms")
        if f.get("http"):
            h = f["http"]
            con.print(f"flow {f.get('id')} HTTP: {h.get('pages_completed')} pages, mean transfer "
                      f"{_fmt((h.get('mean_page_time_s') or 0) * 1e3)} ms, mean page goodput "
                      f"{_fmt((h.get('mean_page_goodput_bps') or 0) / 1e3)} kb/s")
    bm = raw.get("batch_means")
    if bm:
        agg, jain = bm["aggregate_goodput_bps"], bm["fairness_jain"]
        ci = f" ± {_fmt((agg.get('ci') or 0) / 1e3)}" if agg.get("ci") is not None else ""
        state = "complete" if bm.get("complete") else "incomplete: duration_s reached first"
        con.print(f"batch means ({bm['completed']} of {bm['batches']} batches of {bm['batch_packets']} packets, "
                  f"{bm['discarded']} discarded, {state}): aggregate [bold]{_fmt((agg.get('mean') or 0) / 1e3)}"
                  f"{ci} kb/s[/bold]   Jain {_fmt(jain.get('mean'))}   stopped at {_fmt(bm.get('end_s'))} s")
    if pcap:
        from .pcap_view import describe

        con.print(escape(f"packet trace written to {pcap}: {describe(raw, pcap_node, pcap_view)}"))
    from rich.markup import escape  # warnings name sections like [ip.ldm]: text, not markup

    for w in raw.get("warnings") or []:
        con.print(f"[bold yellow]warning:[/bold yellow] {escape(w)}", highlight=False)


def _print_wired(con: Any, wired: dict[str, Any]) -> None:
    """Wired links (both directions) and TCP-GAP's gateway flows."""
    rows, idle = [], 0
    for link in wired.get("links") or []:
        for a, b, d in ((link["a"], link["b"], link["a_to_b"]), (link["b"], link["a"], link["b_to_a"])):
            if not d["packets_sent"] and not d["drops"]:
                idle += 1  # as the node table lists only active nodes: thousands of idle links say nothing
                continue
            rows.append([f"{a} → {b}", _fmt(link["bandwidth_bps"] / 1e6), _fmt(link["delay_s"] * 1e3),
                         d["packets_sent"], d["drops"], d["queue_max"], _fmt(d["busy_s"])])
    con.print(_table(f"Wired links (gateway {wired.get('gateway')})" + (f", {idle} idle directions not shown" if idle else ""),
                     ["link", "Mb/s", "delay ms", "packets", "drops", "queue max", "busy s"], rows, right_from=1))
    gap = wired.get("tcp_gap")
    if gap:
        grows = [[f"{f['key']['src']} → {f['key']['dst']}", f["direction"], "yes" if f["paced"] else "no",
                  f["data_packets"], f["rtt_samples"], f["queue_drops"], _fmt(f.get("rate_pps")), f["throttles"]]
                 for f in gap.get("flows") or []]
        con.print(_table(f"TCP-GAP gateway ({gap['control_periods']} goodput-control periods, "
                         f"{gap['throttles']} throttles, {gap['cancels']} cancels)",
                         ["flow", "direction", "paced", "data", "RTT samples", "queue drops", "rate pkt/s",
                          "throttles"], grows, right_from=3))
    con.print()


def _print_routing(con: Any, routing: dict[str, Any], nodes: list[dict[str, Any]]) -> None:
    """The routing protocol's activity: totals, then the nodes that took part."""
    name = str(routing.get("protocol", "routing")).upper()
    msgs = [[m.upper(), routing.get(f"{m}_sent"), routing.get(f"{m}_forwarded"), routing.get(f"{m}_received")]
            for m in ("rreq", "rrep", "rerr")]
    con.print(_table(f"{name} messages", ["message", "sent", "forwarded", "received"], msgs, right_from=1))
    con.print(f"route breaks {_fmt(routing.get('route_breaks'))} (local repairs {_fmt(routing.get('local_repairs'))}), "
              f"discoveries {_fmt(routing.get('route_discoveries'))} (failed {_fmt(routing.get('discoveries_failed'))}), "
              f"routes invalidated {_fmt(routing.get('routes_invalidated'))}, expired {_fmt(routing.get('routes_expired'))}")
    con.print()
    active = [n for n in nodes if any(n.get(k) for k, _, _ in _NODE_ROUTING_COLUMNS)]
    if active:
        lead = [[("node", str(n.get("id")))] for n in active]
        title = f"Nodes ({name})" + (f", {len(active)} of {len(nodes)} active" if len(active) < len(nodes) else "")
        con.print(_columns_table(title, active, lead, _NODE_ROUTING_COLUMNS))
        con.print()


# --- sweep ----------------------------------------------------------------------------

def _jobs_option(f: Any) -> Any:
    return click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
                        help="Parallel runs on this machine (default: all cores).")(f)


def _store_option(f: Any) -> Any:
    return click.option("--store", type=click.Path(dir_okay=False), default=None,
                        help="Results store file (default: $HOPTCP_STORE, else results.db in the per-user "
                             "data directory; see docs/campaigns.md).")(f)


@cli.command()
@click.argument("spec", metavar="SPEC.toml")
@_jobs_option
@click.option("--dask", "dask_addr", metavar="ADDR", default=None,
              help="Send runs to a Dask scheduler, e.g. tcp://host:8786.")
@_store_option
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="Override a scenario key at every point (repeatable), e.g. --set mac.queue_limit=5; "
                   "it replaces the spec's [set] value, and a key the sweep varies is refused.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar or summary.")
def sweep(spec: str, jobs: int | None, dask_addr: str | None, store: str | None, sets: tuple[str, ...],
          quiet: bool) -> None:
    """Run a parameter sweep; only runs missing from the store are simulated."""
    from .runner import check_dask_address
    from .store import DEFAULT_STORE
    from .sweep import SweepSpec, run_sweep

    if dask_addr is not None:
        check_dask_address(dask_addr)
    the_spec = SweepSpec.load(spec)
    if sets:
        the_spec = the_spec.with_set(parse_sets(sets))
    df = run_sweep(the_spec, store=store or DEFAULT_STORE, jobs=jobs, dask=dask_addr, progress=not quiet)
    if not quiet:
        _print_summary(df, list(df.attrs["metrics"]) if the_spec.metrics else None, patterns=the_spec.metrics)
        click.echo(f"\n{len(df)} runs in sweep '{the_spec.name}' (store {df.attrs['store']}); "
                   f"see: hoptcp results show --sweep {the_spec.name}")


def _default_metrics(df: Any) -> list[str]:
    metrics = list(df.attrs.get("metrics", []))
    pref = [m for m in ("aggregate_goodput_bps", "fairness_jain") if m in metrics]
    return pref or metrics[:2]


def _zero_glob_matches(df: Any, metrics: Sequence[str], patterns: Sequence[str] | None) -> list[str]:
    """Metrics picked by a glob (``drops.*``) that are zero in every run: a spec asks
    for a family, and the members that never happened only bury the others."""
    import fnmatch

    globs = [p for p in patterns or () if any(c in p for c in "*?[")]
    exact = set(patterns or ()) - set(globs)
    return [m for m in metrics if m not in exact and any(fnmatch.fnmatchcase(m, g) for g in globs)
            and m in df.columns and df[m].fillna(0).eq(0).all()]


def _print_summary(df: Any, metrics: Sequence[str] | None = None, console: Any = None,
                   patterns: Sequence[str] | None = None) -> None:
    """Mean ± CI per sweep point. Parameter columns are never squeezed: metrics
    that do not fit the width are left out (and named in the caption), and so are
    metrics a glob in ``patterns`` picked that are zero in every run (counted)."""
    from rich.cells import cell_len

    from .stats import summarize

    if df.empty:
        click.echo("no finished runs")
        return
    con = console or _console()
    metrics = list(metrics) if metrics else _default_metrics(df)
    zero = _zero_glob_matches(df, metrics, patterns)
    if zero and len(zero) < len(metrics):
        metrics = [m for m in metrics if m not in zero]
    else:
        zero = []
    summ = summarize(df, metrics=metrics)
    by = list(summ.attrs["by"])
    head = summ.head(MAX_ROWS)
    lead = [[_fmt(r[b]) for b in by] + [_fmt(int(r["n"]))] for _, r in head.iterrows()]
    cells = {m: [f"{_fmt(r[m])} ± {_fmt(r[m + '_ci'], 3)}" for _, r in head.iterrows()] for m in metrics}
    lead_headers = [*by, "n"]
    widths = [max([cell_len(h), *(cell_len(row[i]) for row in lead)]) for i, h in enumerate(lead_headers)]
    used = sum(widths) + 2 * len(widths)
    shown: list[str] = []
    for m in metrics:
        w = max([len(x) for x in cells[m]] + [min(len(m), 12)])
        if shown and used + w + 2 > con.width:
            break
        shown.append(m)
        used += w + 2
    from rich.table import Table

    t = Table(show_edge=False, pad_edge=False, header_style="bold")
    for i, h in enumerate(lead_headers):
        t.add_column(h, justify="left" if i < len(by) else "right", no_wrap=True, min_width=widths[i])
    for m in shown:
        t.add_column(f"{m} (mean ± 95% CI)", justify="right", overflow="fold",
                     min_width=max(len(x) for x in cells[m]))
    from rich.text import Text

    for i, row in enumerate(lead):
        t.add_row(*map(Text, row), *[Text(cells[m][i]) for m in shown])
    notes = []
    if len(summ) > MAX_ROWS:
        notes.append(f"{len(summ) - MAX_ROWS} more rows: hoptcp results export")
    if len(shown) < len(metrics):
        notes.append(f"not shown for width: {', '.join(metrics[len(shown):])} (pick with -m, or widen the terminal)")
    if zero:
        notes.append(f"{len(zero)} metrics zero in every run not shown (e.g. {zero[0]}; name one with -m to see it)")
    if notes:
        t.caption = "; ".join(notes)
    con.print(t)


# --- scenario -------------------------------------------------------------------------

@cli.group("scenario")
def scenario_group() -> None:
    """Show a scenario as it will run, and the keys a scenario file takes."""


@scenario_group.command("show")
@click.argument("file", metavar="SCENARIO.toml")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="Override a scenario key (repeatable), e.g. --set tcp.max_window=3.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of TOML.")
@click.option("--positions", is_flag=True,
              help="Print where each node is (id, x, y in metres) and each flow's path instead, as the run "
                   "builds them (docs/topologies.md).")
@click.option("--seed", type=int, default=None,
              help="With --positions: the run seed (a random topology without topology_seed is drawn from it).")
def scenario_show(file: str, sets: tuple[str, ...], as_json: bool, positions: bool, seed: int | None) -> None:
    """Print the resolved scenario: every default filled in, overrides applied.

    The TOML printed loads back to the same scenario; keys left unset on purpose
    follow as comments saying what their absence means.
    """
    from .scenario import Scenario
    from .scenario_reference import show_json, show_toml

    if seed is not None and not positions:
        raise SpecError(f"--seed {seed}: only with --positions (the scenario shown is the same for every seed)")
    sc = Scenario.load(file).with_raw(parse_sets(sets))
    if positions:
        _show_positions(sc, seed, as_json)
        return
    click.echo(show_json(sc) if as_json else show_toml(sc), nl=as_json)


def _show_positions(sc: Any, seed: int | None, as_json: bool) -> None:
    """Node positions and flow paths of the network a run of ``sc`` builds."""
    from . import _bridge

    plan = json.loads(_bridge.plan_json(sc.toml, sc.overrides, seed))
    pos = plan["positions"]
    resolved = sc.resolved()
    wired = resolved.get("wired") or {}
    gateway = plan.get("gateway", wired.get("gateway"))
    flows = [{"id": f["id"], "src": f["src"], "dst": f["dst"], "path": f.get("path") or []}
             for f in plan.get("flows") or []]
    if as_json:
        click.echo(json.dumps({"topology": resolved["topology"]["kind"],
                               "nodes": [{"id": i, "x": x, "y": y} for i, (x, y) in enumerate(pos)],
                               "flows": flows}))
        return
    role: dict[int, list[str]] = {}
    for f in flows:
        role.setdefault(int(f["src"]), []).append(f"flow {f['id']} source")
        role.setdefault(int(f["dst"]), []).append(f"flow {f['id']} destination")
    if isinstance(gateway, int):
        role.setdefault(gateway, []).append("gateway")
    click.echo(f"# {sc.name}: {resolved['topology']['kind']}, {len(pos)} wireless nodes (x, y in m)")
    click.echo("node\tx\ty\trole")
    for i, (x, y) in enumerate(pos):
        click.echo(f"{i}\t{x:g}\t{y:g}\t{', '.join(role.get(i, []))}")
    for i in range(len(pos), len(pos) + int(wired.get("nodes") or 0)):  # wired nodes: no position
        click.echo(f"{i}\t-\t-\t{', '.join(['wired node', *role.get(i, [])])}")
    for f in flows:
        path = " ".join(map(str, f["path"])) if f["path"] else "found by the routing protocol during the run"
        click.echo(f"# flow {f['id']}: {f['src']} -> {f['dst']}, path {path}")


def _generated_options(what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`-o FILE` and `--check` of a command that writes a generated document."""
    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        fn = click.option("--check", is_flag=True,
                          help="With -o: write nothing; fail if FILE differs from what would be written.")(fn)
        return click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, metavar="FILE",
                            help=f"Write the {what} to FILE (default: print it).")(fn)
    return wrap


@scenario_group.command("reference")
@_generated_options("reference")
def scenario_reference(output: str | None, check: bool) -> None:
    """The reference of every scenario key (type, default, allowed, unit, meaning),
    generated from the core's declarations (docs/scenario-reference.md)."""
    from .scenario_reference import COMMAND, reference_markdown

    _generated(reference_markdown(), output, check, COMMAND, "reference")


@scenario_group.command("schema")
@_generated_options("schema")
def scenario_schema(output: str | None, check: bool) -> None:
    """The scenario file's JSON Schema (draft-07) from the core's declarations, for editors:
    a TOML file starting `#:schema ./scenario.schema.json` gets completion and its misspelt keys
    flagged (taplo, VS Code's Even Better TOML). A subset of hoptcp's validation: rules between
    keys stay with `hoptcp scenario show` and `hoptcp run` (docs/scenario-reference.md)."""
    from .scenario_reference import SCHEMA_COMMAND, schema_json

    _generated(schema_json(), output, check, SCHEMA_COMMAND, "schema")


def _generated(text: str, output: str | None, check: bool, command: str, what: str) -> None:
    """Print `text`, write it to `output`, or (--check) fail if `output` differs from it."""
    from . import _bridge

    if output is None:
        if check:
            raise SpecError("--check compares with a file: give it with -o FILE")
        click.echo(text, nl=False)
        return
    path = Path(output)
    if check:
        current = path.read_text(encoding="utf-8") if path.is_file() else None
        if current != text:
            state = "is missing" if current is None else "is out of date"
            raise SpecError(f"{output} {state}: regenerate it with `{command}`")
        return
    _bridge.check_output_file(output, what)
    path.write_text(text, encoding="utf-8")


# --- results --------------------------------------------------------------------------

@cli.group()
def results() -> None:
    """Inspect and export the results store."""


def _open_store(store: str | None) -> Any:
    from .store import DEFAULT_STORE, Store

    path = store or DEFAULT_STORE
    if not Path(path).is_file():
        raise SpecError(f"store not found: {path} (run a sweep first, or pass --store FILE)")
    return Store(path, read_only=True)


def _select_one_sweep(db: Any, sweep: str | None) -> str:
    name = _pick_sweep(db, sweep)
    if name is None:
        raise SpecError(f"store {db.path} holds several sweeps ({', '.join(db.sweep_names())}); pick one with --sweep")
    return name


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


def _no_column(flag: str, col: str, columns: Sequence[str], sweep: str) -> str:
    """One short line for a column a sweep does not have: the closest names, and the command
    that lists every one (a sweep has thousands of per-flow and per-node columns)."""
    import difflib

    close = difflib.get_close_matches(col, columns, n=3, cutoff=0.6)
    if not close:
        word = col.lower().split(".")[-1]
        close = [c for c in columns if word and word in c.lower()][:3]
    hint = f"; closest: {', '.join(close)}" if close else ""
    return (f"{flag} {col}: sweep '{sweep}' has no such column{hint} "
            f"(all of them: hoptcp results columns --sweep {sweep})")


@results.command("columns")
@_store_option
@click.option("--sweep", default=None, help="Sweep name (default: the only one).")
@click.argument("pattern", required=False, default=None, metavar="[GLOB]")
def results_columns(store: str | None, sweep: str | None, pattern: str | None) -> None:
    """The columns of a sweep, one per line: its parameters, then its metrics (what plot -x,
    -y, --hue and --where take); GLOB keeps the matching ones, e.g. 'flow.0.*'."""
    import fnmatch

    with _open_store(store) as db:
        name = _select_one_sweep(db, sweep)
        df = db.frame(name)
    params = [str(p) for p in df.attrs.get("params", [])]
    metrics = [str(m) for m in df.attrs.get("metrics", []) if str(m) not in params]
    for kind, cols in (("parameter", params), ("metric", metrics)):
        for c in cols:
            if pattern is None or fnmatch.fnmatchcase(c, pattern):
                click.echo(f"{c}\t{kind}")


@results.command("show")
@_store_option
@click.option("--sweep", default=None, help="Sweep name (default: the only one).")
@click.option("-m", "--metric", "metrics", multiple=True, help="Metric (or glob) to show; repeatable.")
def results_show(store: str | None, sweep: str | None, metrics: tuple[str, ...]) -> None:
    """Mean ± 95% CI per sweep point (the metrics of the sweep spec unless -m is given)."""
    with _open_store(store) as db:
        name = _select_one_sweep(db, sweep)
        df = db.frame(name)
        spec_metrics = (db.sweep_spec(name) or {}).get("metrics")
    from .store import select_metrics

    wanted = list(metrics) or spec_metrics
    chosen = select_metrics(df.attrs["metrics"], list(wanted)) if wanted else None
    click.echo(f"sweep '{name}': {len(df)} runs")
    _print_summary(df, chosen, patterns=wanted)


#: export formats by file suffix
_EXPORT_SUFFIXES = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet", ".json": "json"}


def _export_format(output: str | None, fmt: str | None, force: bool) -> str:
    """The format of ``results export``: from the -o suffix (an unknown suffix is
    refused rather than filled with CSV), or --format, which must agree with it."""
    if output is None:
        if fmt == "parquet":
            raise SpecError("--format parquet needs -o FILE")
        return fmt or "csv"
    from . import _bridge

    suffix = Path(output).suffix.lower()
    known = ", ".join(_EXPORT_SUFFIXES)
    by_suffix = _EXPORT_SUFFIXES.get(suffix)
    if by_suffix is None:
        raise SpecError(f"-o {output}: unknown export format '{suffix or '(no suffix)'}'; give a file ending "
                        f"in {known}")
    if fmt is not None and fmt != by_suffix:
        raise SpecError(f"-o {output} with --format {fmt}: the file name says {by_suffix}; make them agree")
    _bridge.check_output_file(output, "-o")
    if Path(output).exists() and not force:
        raise SpecError(f"-o {output}: the file exists; add --force to overwrite it")
    return by_suffix


@results.command("export")
@_store_option
@click.option("--sweep", default=None, help="Sweep name (default: all runs).")
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet", "json"]), default=None,
              help="Output format (default: from the -o suffix: .csv, .parquet/.pq, .json; CSV on stdout).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Output file (default: standard output). An existing file is kept unless --force.")
@click.option("--force", is_flag=True, help="Overwrite the -o file if it exists.")
def results_export(store: str | None, sweep: str | None, fmt: str | None, output: str | None, force: bool) -> None:
    """Export one row per run (params, seed, metrics)."""
    fmt = _export_format(output, fmt, force)
    with _open_store(store) as db:
        if sweep is not None:
            _pick_sweep(db, sweep)
        df = db.frame(sweep)
    if fmt in ("csv", "json"):
        write = (lambda f: df.to_csv(f, index=False)) if fmt == "csv" else (
            lambda f: df.to_json(f, orient="records", indent=1))
        if output:
            write(output)
        else:
            write(sys.stdout)
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
@click.option("-x", "x", default=None, help="Column on the x axis (a sweep parameter).")
@click.option("-y", "y", default=None, help="Metric on the y axis (mean with 95% CI).")
@click.option("--hue", default=None, help="Parameter drawn as separate lines.")
@click.option("--where", "where", multiple=True, metavar="KEY=VALUE",
              help="Keep only runs with this parameter value (repeatable), e.g. --where mac.queue_limit=50.")
@click.option("--logx", is_flag=True, help="Logarithmic x axis.")
@click.option("--ymin", type=float, default=None, help="Lower end of the y axis (e.g. 0).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, help="Image file (.png, .pdf, .svg).")
@click.option("--run", "runs", multiple=True, metavar="RESULT.json",
              help="Draw the time series of a run instead (hoptcp run --series KIND --json > RESULT.json); "
                   "repeatable, or LABEL=RESULT.json to name it in the legend.")
@click.option("--series", "kind", default=None, metavar="KIND",
              help="With --run: which series (gateway or tcp_ap; default: every one the runs hold).")
@click.option("-m", "--metric", "metrics", multiple=True,
              help="With --run: a metric to draw (repeatable; default rtt_wireless_s, variation, rate_pps, queue).")
@click.option("--flow", "flows", multiple=True, type=int, help="With --run: only this flow id (repeatable).")
@click.option("--xmin", type=float, default=None, help="With --run: start of the time axis (s).")
@click.option("--xmax", type=float, default=None, help="With --run: end of the time axis (s).")
@click.option("--logy", is_flag=True, help="With --run: logarithmic y axes.")
def plot(store: str | None, sweep: str | None, x: str | None, y: str | None, hue: str | None,
         where: tuple[str, ...], logx: bool, ymin: float | None, output: str | None, runs: tuple[str, ...],
         kind: str | None, metrics: tuple[str, ...], flows: tuple[int, ...], xmin: float | None,
         xmax: float | None, logy: bool) -> None:
    """Plot a metric against a parameter (mean with 95% CI error bars), or with --run the
    time series a run recorded (one panel per metric, one line per run, series and flow)."""
    from .plotting import check_image_path, save_sweep_plot, select_rows

    if output is not None:
        from . import _bridge

        check_image_path(output)
        _bridge.check_output_file(output, "-o")  # a missing directory is an error, not created
    if runs:
        if x is not None or y is not None or hue is not None or sweep is not None or where:
            raise SpecError("--run draws a run's time series: -x, -y, --hue, --sweep and --where are for sweeps")
        from .plotting import save_time_series_plot

        out = output or "time-series.png"
        save_time_series_plot(_load_runs(runs), out, kind=kind, metrics=list(metrics) or None,
                              flows=list(flows) or None, xlim=(xmin, xmax), logy=logy, ymin=ymin)
        click.echo(f"wrote {out}")
        return
    if x is None or y is None:
        raise SpecError("hoptcp plot needs -x and -y (a sweep), or --run RESULT.json (a run's time series)")
    conditions = _parse_where(where)
    with _open_store(store) as db:
        name = _select_one_sweep(db, sweep)
        df = db.frame(name)
    for flag, col in (("-x", x), ("-y", y), ("--hue", hue)):
        if col is not None and col not in df.columns:
            raise SpecError(_no_column(flag, col, [str(c) for c in df.columns], name))
    df = select_rows(df, conditions)
    out = output or f"{name.replace('/', '_')}-{y.replace('*', 'x')}.png"
    save_sweep_plot(df, out, x=x, y=y, hue=hue, title=name, logx=logx, ymin=ymin)
    click.echo(f"wrote {out}")


@cli.command()
@click.argument("scenario", metavar="SCENARIO.toml")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Override a scenario key (repeatable).")
@click.option("--seed", type=int, default=None, help="Random seed (default: the scenario's).")
@click.option("--from", "t_from", type=float, default=None, help="Start of the replayed window (s; default 0).")
@click.option("--to", "t_to", type=float, default=None, help="End of the replayed window (s; default the end).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="The HTML file (default SCENARIO's name + .html).")
def view(scenario: str, sets: tuple[str, ...], seed: int | None, t_from: float | None, t_to: float | None,
         output: str | None) -> None:
    """Run a scenario and write ONE self-contained HTML file that replays it: the topology to
    scale, frames on the air with collisions and retry-limit drops, queues and MAC states, and
    a linked plot (cwnd, queue, goodput). Opens in any browser, offline; see docs/viewer.md."""
    from . import _bridge
    from .runner import run as run_scenario
    from .scenario import Scenario
    from .viewer import render_html, view_scenario

    if t_from is not None and t_from < 0:
        raise SpecError(f"--from {t_from}: must be >= 0 seconds")
    if t_from is not None and t_to is not None and not t_to > t_from:
        raise SpecError(f"--from {t_from} --to {t_to}: the window must have to > from")
    out = Path(output or f"{Path(scenario).stem}.html")
    _bridge.check_output_file(str(out), "-o")
    sc = view_scenario(Scenario.load(scenario).with_raw(parse_sets(sets)), t_from, t_to, seed)
    r = run_scenario(sc, seed=seed)
    out.write_text(render_html(r.raw, sc.resolved(), t_from, t_to), encoding="utf-8")
    click.echo(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")


@cli.command("plot-run")
@click.argument("run_file", metavar="RUN")
@click.option("--series", "panels", multiple=True, metavar="KIND",
              help="Panels, top to bottom (repeatable or comma-separated): cwnd, ssthresh, rtt, rto, goodput, "
                   "queue, mac. Default: cwnd and queue.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
              help="When RUN is a scenario: override a key (repeatable).")
@click.option("--seed", type=int, default=None, help="When RUN is a scenario: the seed.")
@click.option("--window", type=click.Choice(["effective", "cwnd", "cwnd_traced"]), default="effective",
              show_default=True,
              help="The cwnd panel's window: effective = min(cwnd, MaxWin), whose time average is the report's "
                   "avg_cwnd (the papers' window size), each flow's MaxWin dashed; cwnd = with fast-recovery "
                   "inflation (can exceed MaxWin); cwnd_traced = ns-2's cwnd_.")
@click.option("--flow", "flows", multiple=True, type=int, help="Only this flow id (repeatable).")
@click.option("--node", "nodes", multiple=True, type=int, help="Only this node in queue/mac maps (repeatable).")
@click.option("--from", "t_from", type=float, default=None, help="Start of the time axis (s).")
@click.option("--to", "t_to", type=float, default=None, help="End of the time axis (s).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Image file (.png, .pdf, .svg; default RUN's name + .png).")
def plot_run(run_file: str, panels: tuple[str, ...], sets: tuple[str, ...], seed: int | None, window: str,
             flows: tuple[int, ...], nodes: tuple[int, ...], t_from: float | None, t_to: float | None,
             output: str | None) -> None:
    """Draw a run's time series: cwnd per flow against time, queue length per node along a
    chain, and the other kinds. RUN is a result (hoptcp run --series cwnd,queue --json >
    RUN.json) or a scenario (.toml), which is run here with the series the panels need."""
    from .plotting import RUN_PANELS, check_image_path, save_run_plot
    from .results import RunResult

    kinds = [k.strip() for item in panels for k in item.split(",") if k.strip()] or ["cwnd", "queue"]
    for k in kinds:
        if k not in RUN_PANELS:
            raise SpecError(f"--series {k}: unknown; plot-run draws {', '.join(RUN_PANELS)}")
    path = Path(run_file)
    if not path.is_file():
        raise SpecError(f"RUN {run_file}: no such file (a result of hoptcp run --json, or a scenario .toml)")
    if path.suffix == ".toml":
        from . import runner
        from .scenario import Scenario

        sc = Scenario.load(path).with_raw(parse_sets(sets))
        r = runner.run(sc, seed=seed, series=kinds)
    else:
        if sets or seed is not None:
            raise SpecError("--set and --seed apply when RUN is a scenario (.toml), not a stored result")
        try:
            r = RunResult(path.read_text())
        except ValueError as exc:
            raise SpecError(f"RUN {run_file}: not a run result (JSON of hoptcp run --json): {exc}") from None
    out = output or f"{path.stem}.png"
    check_image_path(out)
    save_run_plot(r, out, kinds, flows=list(flows) or None, nodes=list(nodes) or None, xlim=(t_from, t_to),
                  window=window)
    click.echo(f"wrote {out}")


def _load_runs(items: Sequence[str]) -> list[tuple[str, Any]]:
    """(label, RunResult) per --run [LABEL=]RESULT.json."""
    from .results import RunResult

    out = []
    for item in items:
        label, sep, path = item.partition("=")
        if not sep:
            label, path = Path(item).stem, item
        p = Path(path)
        if not p.is_file():
            raise SpecError(f"--run {path}: no such file (write one with hoptcp run ... --series KIND --json > FILE)")
        try:
            out.append((label, RunResult(p.read_text())))
        except ValueError as exc:
            raise SpecError(f"--run {path}: not a run result (JSON of hoptcp run --json): {exc}") from None
    return out


def _parse_where(items: Sequence[str]) -> list[tuple[str, Any]]:
    from . import _toml

    out = []
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise SpecError(f"--where '{item}': expected KEY=VALUE, e.g. --where mac.queue_limit=50")
        try:
            parsed = _toml.loads(f"v = {value.strip()}")["v"]
        except _toml.TOMLDecodeError:
            parsed = value.strip()
        out.append((key.strip(), parsed))
    return out


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
    variants = [{**params, str(list_key): v} for v in values] if values is not None else [params]
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
        return
    # Several variants: one row each, with the quantities that matter (all of them: --json).
    columns = _MODEL_COLUMNS.get(name) or [(k, k, 1.0) for k in dict.fromkeys(k for f in flat for k in f)]
    columns = [c for c in columns if any(c[0] in f for f in flat)]
    t = _table(f"model {name}", [h for _, h, _ in columns],
               [[_scaled(f.get(k), sc) for k, _, sc in columns] for f in flat], right_from=0)
    if name in _MODEL_COLUMNS:
        t.caption = _MODEL_NOTES.get(name, "") + "every quantity: --json"
    _console().print(t)


_MODEL_NOTES = {"bianchi": "τ: transmission probability per slot, p: conditional collision probability, "
                           "S: normalized throughput; "}

#: the columns of a multi-row model table: (key, header, scale)
_MODEL_COLUMNS: dict[str, list[tuple[str, str, float]]] = {
    "bianchi": [("stations", "n", 1), ("tau", "τ", 1), ("p", "p", 1), ("p_tr", "P_tr", 1), ("p_s", "P_s", 1),
                ("mean_slot_s", "slot µs", 1e6), ("normalized", "S", 1), ("goodput_bps", "Mb/s", 1e-6),
                ("per_station_bps", "kb/s each", 1e-3), ("drop_probability", "P drop", 1)],
    "wstar": [("topology", "topology", 1), ("hops", "hops", 1), ("wstar.exact", "W* exact", 1),
              ("wstar.rounded", "W* (packets)", 1)],
}


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
    click.option("--standard", type=click.Choice(["dsss", "ofdm", "erp", "ns2_g"]), default=None,
                 help="PHY timing set: 802.11b as ns-2, 802.11a, 802.11g ERP, or ns-2's 802.11g."),
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
@click.argument("entry", required=False, metavar="ID|all|index")
@click.option("--list", "list_", is_flag=True, help="List the catalogue.")
@click.option("--quick", is_flag=True, help="Few seeds and short runs (for CI and a first look).")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Output directory (default: ./hoptcp-reproduce[/ID]).")
@_jobs_option
@click.option("--dask", "dask_addr", metavar="ADDR", default=None, help="Send runs to a Dask scheduler.")
@_store_option
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
@click.option("--check", is_flag=True, help="Exit with status 1 if any claim's verdict is \"fail\".")
@click.option("--only", default=None, metavar="ID,ID",
              help="With 'all': only these entries (comma-separated).")
@click.option("--readme", type=click.Path(dir_okay=False), default=None,
              help="With 'index': the README whose generated tables to rewrite (default: ./README.md if present).")
def reproduce(entry: str | None, list_: bool, quick: bool, out: str | None, jobs: int | None,
              dask_addr: str | None, store: str | None, quiet: bool, check: bool, only: str | None,
              readme: str | None) -> int:
    """Reproduce a paper's figure or table: runs, plots, paper-vs-hoptcp report.

    'all' reproduces every entry from this build (resuming from the store); 'index' rewrites
    index.md and headlines.md in --out (default docs/reproductions) and the README's generated
    tables from the written reports.
    """
    from . import reproduce as rep
    from .store import DEFAULT_STORE

    if list_:
        entries = rep.catalogue()
        rows = [[e.id, e.title, e.paper, e.where, e.run_count(quick=True), e.run_count(quick=False)]
                for e in entries]
        _console().print(_table(None, ["id", "title", "paper", "figure/table", "quick runs", "full runs"], rows,
                                right_from=4, wrap=(1, 2, 3)))
        return 0
    if not entry:
        raise SpecError("reproduce: give an entry id, 'all', 'index', or --list")
    if only is not None and entry != "all":
        raise SpecError(f"--only {only}: only with 'all'")
    if readme is not None and entry != "index":
        raise SpecError(f"--readme {readme}: only with 'index'")
    if entry == "index":
        from .reproduce.index import write_index

        reports = Path(out or "docs/reproductions")
        if not reports.is_dir():
            raise SpecError(f"reproduce index: --out {reports}: no such directory of reports")
        readme_path = Path(readme) if readme else (Path("README.md") if Path("README.md").is_file() else None)
        for path in write_index(reports, readme_path):
            click.echo(f"wrote {path}")
        return 0
    if dask_addr is not None:
        from .runner import check_dask_address

        check_dask_address(dask_addr)
    kw: dict[str, Any] = dict(quick=quick, store=store or DEFAULT_STORE, jobs=jobs, dask=dask_addr,
                              progress=not quiet)
    if entry == "all":
        if check:
            raise SpecError("--check needs one entry id (run each entry with --check), not 'all'")
        ids = [i.strip() for i in only.split(",") if i.strip()] if only is not None else None
        if ids is not None and not ids:
            raise SpecError(f"--only {only!r}: expected entry ids separated by commas")
        index = rep.reproduce_all(Path(out or "hoptcp-reproduce"), only=ids, **kw)
        click.echo(f"wrote {index}")
        return 0
    result = rep.reproduce(entry, Path(out or Path("hoptcp-reproduce") / entry), **kw)
    for c in result.claims:
        click.echo(f"{c.verdict:>8}  {c.claim.name}: {c.summary}")
    click.echo(f"wrote {result.report}")
    click.echo(result.run_line())
    failed = [c.claim.name for c in result.claims if c.verdict == "fail"]
    if check and failed:
        print(f"hoptcp: check failed: {entry}: {len(failed)} claim(s) fail: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


# --- bench ----------------------------------------------------------------------------

def _worker_counts(option: str, text: str) -> list[int]:
    try:
        counts = [int(j) for j in text.split(",") if j.strip()]
    except ValueError:
        raise SpecError(f"{option} '{text}': expected worker counts like 1,2 (or '' to skip)") from None
    if any(j < 1 for j in counts):
        raise SpecError(f"{option} '{text}': worker counts must be >= 1")
    return counts


@cli.command()
@click.option("--only", multiple=True, metavar="NAME", help="Time only these scenarios (e.g. chain7-tcp).")
@click.option("--repeats", type=click.IntRange(min=1), default=3, show_default=True,
              help="Runs per scenario (best kept); pairs per scenario with --peers; rounds of the sweeps (medians).")
@click.option("--sweep-jobs", default="1,2", show_default=True, help="Worker counts for the sweep-throughput row ('' to skip).")
@click.option("--peers", is_flag=True,
              help="Also run the chain scenarios whole-process in ns-2.35 and ns-3 and the grid in ns-2.35 "
                   "(in ns-3 too when named with --only: about 8 minutes of CPU a run), where installed, alternating "
                   "with hoptcp: times, goodputs and the paired ratio.")
@click.option("--peer", "peer_only", multiple=True, type=click.Choice(["ns-2.35", "ns-3"]),
              help="With --peers: only this peer (repeatable; default: every one installed).")
@click.option("--peer-duration", type=click.FloatRange(min=0, min_open=True), default=None, metavar="SECONDS",
              help="With --peers: simulate SECONDS on both sides instead of each scenario's duration (the 1,000-node "
                   "scenarios, named with --only, cost ns-2.35 seconds of CPU per simulated second).")
@click.option("--ns-binary", default=None, metavar="PATH",
              help="With --peers: the ns-2.35 to run (default: HOPTCP_NS, else ns on PATH), e.g. one built with "
                   "the static-routes port for random1000-tcp.")
@click.option("--dask-jobs", default="", metavar="N,N",
              help="Also time the sweep on a Dask LocalCluster of these numbers of worker processes, beside the "
                   "local pool (needs dask[distributed]; runs the sweep rows even with --only).")
@click.option("--huge", "huge_s", type=click.FloatRange(min=0, min_open=True, max=300), default=None, metavar="SECONDS",
              help="Also run 10,000 random nodes with 1,000 TCP flows for SECONDS (300 is the target's run; "
                   "less is extrapolated to 300 s).")
@click.option("--memory-nodes", type=click.IntRange(min=100), default=None, metavar="N",
              help="Also measure the peak memory of N random nodes (the bench density) with 1,000 TCP flows over "
                   "a short run, and the memory per node.")
@click.option("--markdown", "md_out", type=click.Path(dir_okay=False), default=None,
              help="Also write the tables to this file: between its generated-tables markers if it has them "
                   "(docs/performance.md), else the whole file.")
def bench(only: tuple[str, ...], repeats: int, sweep_jobs: str, peers: bool, peer_only: tuple[str, ...],
          peer_duration: float | None,
          ns_binary: str | None, dask_jobs: str, huge_s: float | None, memory_nodes: int | None,
          md_out: str | None) -> None:
    """Time fixed scenarios (events/s, simulated seconds per wall second, memory), cost per event
    against network size, start-up and sweep throughput."""
    from . import _bridge
    from . import bench as b

    names = [f.removesuffix(".toml") for f, _, _ in b.SCENARIOS]
    for name in only:
        if name not in names:
            raise SpecError(f"--only {name}: no such bench scenario; allowed: {', '.join(names)}")
    jobs = _worker_counts("--sweep-jobs", sweep_jobs)
    djobs = _worker_counts("--dask-jobs", dask_jobs)
    if djobs:
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise SpecError("--dask-jobs needs the 'distributed' package: pip install 'dask[distributed]'") from None
    for option, given in (("--peer", peer_only), ("--peer-duration", peer_duration is not None),
                          ("--ns-binary", ns_binary is not None)):
        if given and not peers:
            raise SpecError(f"{option}: only with --peers")
    if ns_binary is not None:
        from .ns2.run import use_binary

        use_binary(ns_binary)
    if md_out:
        _bridge.check_output_file(md_out, "--markdown")
        b.check_markdown_target(Path(md_out))
    peer_names, skipped = b.installed_peers() if peers else ([], [])
    if peers and not peer_names:
        raise SpecError("--peers needs ns-2.35 or ns-3 and neither is installed "
                        "(Debian/Ubuntu: apt-get install ns2 libns3-dev)")
    if peer_only:
        for name in peer_only:
            if name not in peer_names:
                raise SpecError(f"--peer {name}: not installed here (installed: {', '.join(peer_names)})")
        peer_names, skipped = [n for n in peer_names if n in peer_only], []
    con = _console()

    def note(msg: str) -> None:
        con.print(f"[dim]{msg}[/dim]")

    load_start = os.getloadavg()[0]
    if "ns-3" in peer_names and any(b.ns3_runs(n, only) for n, _ in b.peer_scenarios(only or None)):
        from .peers import ns3

        note("building the ns-3 scenario program (once per source, ns-3 version and compiler)")
        ns3.build()  # before anything is timed: a failed build ends the command at once
    rows = b.run_scenarios(only or None, repeats, progress=note)
    base_mb = b.baseline_rss_mb()
    scale = [] if only else b.cost_per_event(repeats, progress=note, base_mb=base_mb)
    huge = b.time_huge(huge_s, progress=note) if huge_s else None
    memory = b.time_memory(memory_nodes, progress=note, base_mb=base_mb) if memory_nodes else None
    start_up = [] if only else b.time_start_up()
    sweeps = (b.sweep_throughput(jobs, progress=note, dask_jobs=djobs, rounds=repeats)
              if (jobs or djobs) and (djobs or not only) else [])
    peer_rows = (b.time_peers(only or None, repeats, progress=note, peers=peer_names, duration=peer_duration)
                 if peers else [])
    table_rows = [[t.name, t.nodes, t.flows, t.sim_s, "-" if t.events_before is None else t.events_before, t.events,
                   "-" if t.queue_entries is None else t.queue_entries, t.wall_s, t.speedup, t.events_per_s / 1e6, t.rss_mb,
                   "-" if t.target_s is None else f"<= {t.target_s:g} s"] for t in rows]
    if huge:
        table_rows.append(["random10000 x 1000 flows", 10_000, 1000, huge.sim_s, "-", huge.events, "-", huge.wall_s,
                           huge.sim_s / huge.wall_s, huge.events / huge.wall_s / 1e6, huge.rss_mb,
                           f"300 s <= {b.HUGE_TARGET_S:g} s"])
    con.print(_table("hoptcp bench", ["scenario", "nodes", "flows", "sim s", "events before", "events", "queue entries", "wall s",
                                      "sim s/wall s", "M events/s", "peak MB", "target"], table_rows, right_from=1))
    if huge and huge.sim_s < b.HUGE_SECONDS:
        con.print(f"huge: {huge.sim_s:g} s simulated in {huge.total_s:.1f} s; 300 s extrapolated: "
                  f"{huge.extrapolated_s:.0f} s (target {b.HUGE_TARGET_S:g} s)")
    if scale:
        con.print(_table(f"cost per event against network size (random nodes, same density, {b.SCALE_SECONDS} s)",
                         ["nodes", "flows", "events", "wall s", "M events/s", "ns/event", "peak MB", "KB/node"],
                         [[r.nodes, r.flows, r.events, r.wall_s, r.events_per_s / 1e6, r.ns_per_event, r.rss_mb,
                           r.kb_per_node] for r in scale], right_from=0))
    for u in start_up:
        con.print(f"start-up: {u.command}: best {u.best_s * 1e3:.0f} ms, median "
                  f"{u.median_s * 1e3:.0f} ms of {u.runs} runs (whole process)")
    if memory:
        con.print(f"memory: {memory.nodes:,} random nodes, {memory.flows:,} TCP flows, {memory.sim_s:g} s: peak RSS "
                  f"{memory.rss_mb:.0f} MB ({memory.base_mb:.0f} MB of it the interpreter with the core), "
                  f"{memory.kb_per_node:.2f} KB per node; {memory.events:,} events in {memory.wall_s:.1f} s")
    if sweeps:
        con.print(_table("sweep throughput (7-hop TCP chain, 30 s runs)",
                         ["executor", "workers", "runs", "runs/s", f"ms/run, {b.EMPTY_RUNS} runs of 0.001 s"],
                         [[w.executor, w.workers, w.runs, w.runs_per_s,
                           "-" if w.empty_run_s is None else w.empty_run_s * 1e3] for w in sweeps], right_from=1))
    if peer_rows:
        con.print(_table("same work, whole process (alternating pairs)",
                         ["scenario", "peer", "pairs", "hoptcp s", "peer s", "peer/hoptcp", "hoptcp kb/s", "peer kb/s"],
                         [[p.name, p.peer, len(p.ratios), p.hoptcp_median_s, p.peer_median_s, f"{p.ratio:.1f}x", p.hoptcp_goodput_bps / 1e3,
                           p.peer_goodput_bps / 1e3] for p in peer_rows], right_from=2))
        con.print(_table("same runs: CPU, memory, routing",
                         ["scenario", "peer", "hoptcp CPU s", "peer CPU s", "peer/hoptcp CPU", "hoptcp peak MB",
                          "peer peak MB", "hoptcp routing pkts", "peer routing pkts", "peer warm-up s", "of which CPU s"],
                         [[p.name, p.peer, p.hoptcp_cpu_median_s, p.peer_cpu_median_s,
                           f"{p.cpu_ratio:.1f}x", max(p.hoptcp_rss_mb), max(p.peer_rss_mb),
                           "-" if p.hoptcp_routing is None else p.hoptcp_routing,
                           "-" if p.peer_routing is None else p.peer_routing, p.peer_warmup_s,
                           "-" if p.peer_warmup_cpu_s is None else p.peer_warmup_cpu_s] for p in peer_rows],
                         right_from=2))
        for p in peer_rows:
            if p.peer_problem:
                con.print(f"{p.name}: the {p.peer} run is not the same work: {p.peer_problem}")
    for line in skipped:
        con.print(line)
    if md_out:
        argv = ["hoptcp bench", *[f"--only {n}" for n in only], *([f"--repeats {repeats}"] if repeats != 3 else []),
                *(["--peers"] if peers else []), *[f"--peer {n}" for n in peer_only],
                *([f"--peer-duration {peer_duration:g}"] if peer_duration is not None else []),
                *(["--ns-binary NS"] if ns_binary is not None else []),
                *([f"--dask-jobs {dask_jobs}"] if djobs else []), *([f"--huge {huge_s:g}"] if huge_s else []),
                *([f"--memory-nodes {memory_nodes}"] if memory_nodes else []), "--markdown"]
        tables = b.markdown(rows, sweeps, base_mb, _bridge.describe(), start_up, peer_rows, scale, huge, skipped,
                            repeats, (load_start, os.getloadavg()[0]), memory)
        b.write_markdown(Path(md_out), tables, " ".join(argv))
        con.print(f"wrote {md_out}")


from .ns2.cli import register as _register_ns2  # noqa: E402  (hoptcp ns2 ..., hoptcp crosscheck)

_register_ns2(cli)

from .ns3_cli import register as _register_ns3  # noqa: E402  (hoptcp ns3 ...)

_register_ns3(cli)


# --- entry point ------------------------------------------------------------------------

def _exit_status(exc: BaseException) -> tuple[int, str | None]:
    """(exit status, one line for stderr) for an exception that ended a command."""
    if isinstance(exc, click.exceptions.Exit):
        return exc.exit_code, None
    if isinstance(exc, click.exceptions.Abort):
        return EXIT_INTERRUPTED, "hoptcp: aborted"
    if isinstance(exc, click.UsageError):
        cmd = exc.ctx.command_path if exc.ctx else "hoptcp"
        return EXIT_USER, _line(f"{exc.format_message()} (see: {cmd} --help)")
    if isinstance(exc, click.ClickException):
        return EXIT_USER, _line(exc.format_message())
    if isinstance(exc, (ScenarioError, SpecError)):
        return EXIT_USER, _line(str(exc))
    if isinstance(exc, (CoreUnavailableError, RunError)):
        return 1, _line(str(exc))
    if isinstance(exc, Interrupted):
        return EXIT_INTERRUPTED, f"hoptcp: interrupted: {' '.join(str(exc).split())}"
    if isinstance(exc, KeyboardInterrupt):
        return EXIT_INTERRUPTED, "hoptcp: interrupted (finished runs are stored; run the same command again to resume)"
    if isinstance(exc, BrokenPipeError):
        return 0, None
    if isinstance(exc, OSError):  # disk full, permissions, ...: the system's words, one line
        where = f" ({exc.filename})" if exc.filename else ""
        return 1, _line(f"{exc.strerror or exc}{where}")
    import sqlite3

    if isinstance(exc, sqlite3.Error):  # e.g. the store's disk filled up during a sweep
        return 1, _line(f"results store: {exc}")
    raise exc


def _discard_stdout() -> None:
    """The reader of our output went away (``hoptcp ... | head``): like a Unix tool,
    stop quietly; what Python still holds for stdout goes nowhere, not to a
    second error at exit."""
    import os

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (tests capture it)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def _line(message: str) -> str:
    first = " ".join(str(message).split("\n")[0].split()) or "error"
    return f"hoptcp: error: {first}"


def main(argv: Sequence[str] | None = None) -> int:
    """Every command but the fast lane of :mod:`hoptcp.entry`; returns the exit status."""
    keep_ctrl_c()
    try:
        args = list(argv) if argv is not None else sys.argv[1:]
        # Not cli.main(): it turns Ctrl-C into a bare Abort and loses what was kept.
        with cli.make_context("hoptcp", args) as ctx:
            rv = cli.invoke(ctx)
        return rv if isinstance(rv, int) else 0
    except (Exception, KeyboardInterrupt) as exc:
        return ended_by(exc)


def ended_by(exc: BaseException) -> int:
    """The exit status of a command ended by ``exc``, its one line printed on stderr."""
    if isinstance(exc, BrokenPipeError):
        _discard_stdout()
    code, line = _exit_status(exc)
    if line:
        print(line, file=sys.stderr)
    return code


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
