"""The ``validation/ns2/`` suite: matched cases in hoptcp and ns-2.35, and ``docs/validation.md``.

``hoptcp ns2 validate`` crosschecks every case (cached in the results store), keeps the
compared metrics of every run in ``validation/ns2/results.json`` and renders the page
from that file, so the page can be regenerated without either simulator
(``--render-only``).
"""

from __future__ import annotations

import datetime as _dt
import fnmatch
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import _toml
from ..errors import SpecError
from ..scenario import Scenario
from ..store import DEFAULT_STORE, Store
from .compare import MetricComparison, compare, mean_sd

#: the suite shipped with hoptcp's sources
SUITE = Path("validation/ns2/suite.toml")
RESULTS = Path("validation/ns2/results.json")
PAGE = Path("docs/validation.md")

#: metrics shown in the page's tables (and checked for the "outside seed noise" list)
HEADLINE = ("aggregate_goodput_bps", "drops.total", "drops.queue_overflow", "drops.mac_rts_retry",
            "drops.mac_data_retry", "flow.*.timeouts", "flow.*.retransmissions", "flow.*.avg_cwnd_traced",
            "flow.*.goodput_bps", "fairness_jain", "node.*.mac_drops",
            # AODV's (absent from static-routing runs)
            "routing.route_breaks", "drops.no_route", "drops.route_discovery_failed", "drops.link_failure_flush",
            "drops.route_buffer_overflow",
            # Link RED and adaptive pacing's (the lred-pacing port)
            "node.*.lred_marks", "node.*.lred_drops", "node.*.lred_avg_retry", "node.*.pacing_backoffs",
            "node.*.pacing_extra_s", "drops.link_red", "flow.*.ecn_reductions",
            # Low Delay Marking's (the ldm port; its scripts also trace RTT samples)
            "flow.*.avg_rtt_s", "node.*.ldm_marks", "node.*.ldm_drops", "node.*.ldm_packets",
            # HTTP pages' (the aodv-bs port's Application/HttpPages)
            "flow.*.http.mean_page_goodput_bps", "flow.*.http.mean_page_time_s", "flow.*.http.pages_completed",
            # SACK's (Agent/TCP/Sack1: recoveries read from its cwnd_ trace)
            "flow.*.sack.recoveries", "flow.*.sack.recoveries_completed")


@dataclass(frozen=True)
class Case:
    name: str
    group: str
    what: str
    scenario: Scenario
    #: seeds of this case (None: the suite's)
    seeds: tuple[int, ...] | None = None
    #: the case this one is compared against seed by seed (its variant's difference from that
    #: case's, in each simulator: :mod:`hoptcp.ns2.versus`)
    versus: str | None = None


@dataclass(frozen=True)
class Diagnosis:
    case: str
    metric: str
    text: str


@dataclass
class Suite:
    path: Path
    seeds: list[int]
    cases: list[Case]
    diagnoses: list[Diagnosis] = field(default_factory=list)

    def diagnosis(self, case: str, metric: str) -> str | None:
        for d in self.diagnoses:
            if fnmatch.fnmatchcase(case, d.case) and fnmatch.fnmatchcase(metric, d.metric):
                return d.text
        return None


def _req(where: str, table: Mapping[str, Any], key: str) -> Any:
    if key not in table:
        raise SpecError(f"{where}: missing key '{key}'")
    return table[key]


def load_suite(path: str | Path = SUITE) -> Suite:
    p = Path(path)
    doc = _toml.loads(_toml.read_file(p, "validation suite", SpecError))
    unknown = set(doc) - {"seeds", "case", "diagnosis"}
    if unknown:
        raise SpecError(f"{p}: unknown key '{sorted(unknown)[0]}' (allowed: seeds, case, diagnosis)")
    cases: list[Case] = []
    for i, c in enumerate(doc.get("case", [])):
        where = f"{p}: case {i}"
        bad = set(c) - {"name", "group", "what", "scenario", "toml", "like", "set", "seeds", "versus"}
        if bad:
            raise SpecError(f"{where}: unknown key '{sorted(bad)[0]}'")
        name = _req(where, c, "name")
        if sum(k in c for k in ("scenario", "toml", "like")) != 1:
            raise SpecError(f"{p}: case '{name}': give one of scenario (a file), toml (inline) or like (an "
                            "earlier case's scenario, its set included)")
        if "scenario" in c:
            sc = Scenario.load(p.parent / c["scenario"])
        elif "toml" in c:
            sc = Scenario.from_toml(c["toml"], base_dir=p.parent, name=name, origin=f"{p}: case '{name}'")
        else:
            base = next((b for b in cases if b.name == c["like"]), None)
            if base is None:
                raise SpecError(f"{p}: case '{name}': like = '{c['like']}' names no earlier case")
            sc = base.scenario
        sc = Scenario(sc.toml, sc.overrides if "like" in c else (), sc.base_dir, name).with_overrides(
            _toml.flatten(c.get("set", {})))
        seeds = tuple(int(x) for x in c["seeds"]) if "seeds" in c else None
        cases.append(Case(name, c.get("group", ""), c.get("what", ""), sc, seeds, c.get("versus")))
    names = [c.name for c in cases]
    if len(set(names)) != len(names):
        raise SpecError(f"{p}: case names must be unique")
    for c in cases:
        if c.versus is not None and c.versus not in names:
            raise SpecError(f"{p}: case '{c.name}': versus = '{c.versus}' names no case")
    diags = []
    for d in doc.get("diagnosis", []):
        where = f"{p}: diagnosis"
        diags.append(Diagnosis(_req(where, d, "case"), _req(where, d, "metric"), _req(where, d, "text")))
    return Suite(p, [int(s) for s in doc.get("seeds", [1, 2, 3, 4, 5])], cases, diags)


# --- running ---------------------------------------------------------------------------------

def run_suite(suite: Suite, *, only: Sequence[str] = (), seeds: Sequence[int] | None = None,
              store: str | Path | Store = DEFAULT_STORE, jobs: int | None = None, progress: bool = True,
              results: str | Path = RESULTS, on_case: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Crosscheck the cases (``only``: glob patterns of names) and merge them into ``results``."""
    from .. import _bridge
    from .crosscheck import crosscheck
    from .exporter import Ns2Unsupported
    from .run import ns2_version

    chosen = [c for c in suite.cases if not only or any(fnmatch.fnmatchcase(c.name, o) for o in only)]
    if not chosen:
        raise SpecError(f"no case of {suite.path} matches {', '.join(only)}")
    data = load_results(results) if Path(results).is_file() else {"cases": {}}
    db = store if isinstance(store, Store) else Store(store)
    try:
        for case in chosen:
            if on_case:
                on_case(case.name)
            try:
                cc = crosscheck(case.scenario, list(seeds or case.seeds or suite.seeds), store=db, jobs=jobs,
                                progress=progress,
                                metrics=HEADLINE, name=f"validation-{case.name}")
            except Ns2Unsupported as exc:
                data["cases"][case.name] = {"unsupported": str(exc)}
                continue
            if not cc.ns2_ran:
                raise SpecError("ns-2 is not installed (no `ns` on PATH); --render-only renders the stored results")
            keep = {c.metric for c in cc.comparisons}
            data["cases"][case.name] = {
                "seeds": cc.seeds,
                "ns2": [{k: r[k] for k in sorted(keep) if k in r} for r in cc.ns2],
                "hoptcp": [{k: r[k] for k in sorted(keep) if k in r} for r in cc.hoptcp],
                "route_problems": {str(k): v for k, v in cc.route_problems.items() if v},
                "notes": cc.notes,
                "versions": [_bridge.version(), ns2_version()],
            }
    finally:
        if not isinstance(store, Store):
            db.close()
    data["hoptcp_version"] = _bridge.version()
    data["ns2_version"] = ns2_version()
    data["generated"] = _dt.date.today().isoformat()
    save_results(data, results)
    return data


def load_results(path: str | Path = RESULTS) -> dict[str, Any]:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SpecError(f"no stored validation results at {path}; run `hoptcp ns2 validate` first") from None


def save_results(data: Mapping[str, Any], path: str | Path = RESULTS) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(data, indent=1, sort_keys=True, default=_jsonable) + "\n", encoding="utf-8")


def _jsonable(v: Any) -> Any:
    return None if isinstance(v, float) and math.isnan(v) else float(v)


# --- the page --------------------------------------------------------------------------------

def _cmp(entry: Mapping[str, Any]) -> list[MetricComparison]:
    return compare(entry["ns2"], entry["hoptcp"], HEADLINE)


def _find(cs: Sequence[MetricComparison], metric: str) -> MetricComparison | None:
    return next((c for c in cs if c.metric == metric), None)


def _nan(x: float) -> bool:
    return math.isnan(x)


def _kbps(x: float) -> str:
    return "-" if _nan(x) else f"{x / 1e3:.1f}"


def _num(x: float, digits: int = 3) -> str:
    if _nan(x):
        return "-"
    return f"{x:.{digits}g}" if abs(x) < 1000 else f"{x:.0f}"


def _ms(rows: Sequence[Mapping[str, Any]], metric: str, fmt: Callable[[float], str] = _num) -> str:
    m, s = mean_sd([r.get(metric) for r in rows])
    return "-" if _nan(m) else f"{fmt(m)} ± {fmt(s)}"


def _verdict(c: MetricComparison | None) -> str:
    if c is None:
        return "-"
    d = c.test.rel_diff
    diff = f"{d * 100:+.1f}%" if not _nan(d) else f"{c.test.mean_b - c.test.mean_a:+.3g}"
    p = c.test.p
    return f"{diff} | {'-' if _nan(p) else f'{p:.2g}'} | {'yes' if c.test.within_noise else '**no**'}"


def _tost(entry: Mapping[str, Any], metric: str = "aggregate_goodput_bps") -> str:
    """The equivalence test of :mod:`hoptcp.reproduce.agreement` on a case's per-seed values,
    margin ±10% of hoptcp's mean: agree / differ / undecided."""
    from ..reproduce.agreement import DEFAULT_MARGIN_PCT, margin_for, tost

    a = [float(r[metric]) for r in entry["ns2"] if r.get(metric) is not None]
    b = [float(r[metric]) for r in entry["hoptcp"] if r.get(metric) is not None]
    if not a or not b:
        return "-"
    ours = sum(b) / len(b)
    if ours == 0:
        return "-"
    t = tost(a, b, margin_for(None, ours, f"{DEFAULT_MARGIN_PCT}%"))
    return t.verdict if t.verdict == "agree" else f"**{t.verdict}**"


#: equivalence margin of the AODV table, % of ns-2.35's mean
AODV_MARGIN_PCT = 3.0


def aodv_figures(ns2: Sequence[Mapping[str, Any]], hop: Sequence[Mapping[str, Any]]
                 ) -> list[tuple[str, list[float], list[float]]]:
    """The AODV table's per-run figures of one case: (label, ns-2.35's values, hoptcp's)."""
    def col(rows: Sequence[Mapping[str, Any]], *keys: str, scale: float = 1.0) -> list[float]:
        return [sum(float(r.get(k) or 0) for k in keys) * scale for r in rows]

    return [
        ("goodput (kb/s)", col(ns2, "aggregate_goodput_bps", scale=1e-3), col(hop, "aggregate_goodput_bps", scale=1e-3)),
        ("route breaks", col(ns2, "routing.route_breaks"), col(hop, "routing.route_breaks")),
        ("queued packets flushed after a break", col(ns2, "drops.link_failure_flush"),
         col(hop, "drops.link_failure_flush")),
        ("drops without a route", col(ns2, "drops.no_route", "drops.route_discovery_failed"),
         col(hop, "drops.no_route", "drops.route_discovery_failed")),
        ("Jain's index", col(ns2, "fairness_jain"), col(hop, "fairness_jain")),
    ]


def aodv_row(case: str, seeds: int, label: str, a: Sequence[float], b: Sequence[float]) -> str:
    """One row of the AODV table: means ± sd, the difference and the equivalence test."""
    from ..reproduce.agreement import tost

    ma, sa = mean_sd(list(a))
    mb, sb = mean_sd(list(b))
    t = tost(a, b, abs(ma) * AODV_MARGIN_PCT / 100)
    rel = (lambda x: f"{x / ma * 100:+.1f} %") if ma else (lambda x: f"{x:+.3g}")
    interval = "-" if _nan(t.low90) else f"[{rel(t.low90)}, {rel(t.high90)}]"
    return (f"| {case} | {seeds} | {label} | {_num(ma, 4)} ± {_num(sa, 3)} | {_num(mb, 4)} ± {_num(sb, 3)} | "
            f"{rel(t.difference)} | {interval} | {t.verdict} |")


def render(suite: Suite, data: Mapping[str, Any]) -> str:
    """docs/validation.md from the suite and its stored results."""
    cases = [c for c in suite.cases if c.name in data.get("cases", {})]
    out: list[str] = []
    w = out.append
    n_runs = sum(len(data["cases"][c.name].get("seeds", [])) for c in cases)
    w("# Validation against ns-2.35")
    w("")
    w("<!-- Generated by `hoptcp ns2 validate` from validation/ns2/suite.toml and results.json; do not edit. -->")
    w("")
    w("hoptcp's default model is ns-2.35's wireless model, the simulator behind the papers it reproduces. "
      f"This page checks that claim against ns-2.35 itself (Debian's `ns2`): {len(cases)} matched cases, "
      f"each run in both simulators with seeds {', '.join(map(str, suite.seeds))} (more for some) "
      f"({n_runs} runs per simulator). Every case is a hoptcp scenario exported with "
      "`hoptcp ns2 export` and compared with `hoptcp crosscheck`; the cases are in "
      "[validation/ns2/suite.toml](../validation/ns2/suite.toml), the numbers of every run in "
      "[validation/ns2/results.json](../validation/ns2/results.json).")
    w("")
    w("How the scenarios are matched (details in `python/hoptcp/ns2/exporter.py` and in the exported scripts): "
      "radio thresholds from the tx and carrier-sense ranges by the same two-ray formula, capture "
      "threshold, 802.11 rates, retry limits, RTS threshold, queue limits, TCP variant and variables "
      "(window_, packetSize_, windowInit_, ssthresh_, minrto_), sinks, CBR sizes and ns-2's `random_`. "
      "Stock ns-2.35 has no static routing for wireless nodes: there, hoptcp's static routes are expressed "
      "with DSDV that converges before the flows start and then stays frozen, and the routes it froze are "
      "read back from its trace and checked against hoptcp's in every run (with our static-route agent, "
      "`ns2/ports/static-routes`, the routes are hoptcp's own: the section on the ports below). DSDV adds a 20-byte IP header to the "
      "packets it originates: TCP header, ACK and CBR sizes are reduced so that frames on the air have "
      "hoptcp's sizes. ARP, which hoptcp does not model, is resolved by a ping over every link a flow uses "
      "before the flows start. ns-2's goodput is counted from the TCP sink's in-order bytes "
      "(the LossMonitor's packets for CBR), over the same period as hoptcp's.")
    w("")
    w("Hybrid scenarios (a `[wired]` table) use ns-2's wired-cum-wireless setup: hierarchical addresses "
      "(wired nodes in one domain, the wireless ones in another), the gateway a base station "
      "(`-wiredRouting ON`) that every mobile node names as its `base-station`, and duplex DropTail links "
      "with the scenario's bandwidth, delay and queue limit. ns-2 builds hierarchical routes only over the "
      "nodes it registered for wired routing and fails on a gap in their ids, so wired nodes and the "
      "gateway are created first; the script records each node's ns-2 id and address and the parser "
      "translates them back to hoptcp's. In stock ns-2.35 only DSDV forwards to a base station (its AODV has "
      "no such code), so there hybrid scenarios need `routing.protocol = \"static\"`; packets a wired node "
      "originates pass no routing agent, so their header sizes are not reduced. AODV to a base station and "
      "TCP-GAP's gateway (pacing and Goodput Control) exist only in our ns-2.35 ports (`ns2/ports/aodv-bs`, "
      "`ns2/ports/tcp-gap`: the section on the ports below); stock ns refuses such scripts in one line.")
    w("")
    w("**ns-2.35 with the authors' TCP-AP.** ElRakabawy et al. published TCP-AP's ns-2 code "
      "(`tcp/tcp-ap.cc`, `tcp/tcp-ap.h`: `Agent/TCP/Newreno/AP`, for ns-2.29; repository "
      "`mahaicheng/tcpap`). `hoptcp ns2 build --with-tcpap TCPAP_DIR --ns2-src NS2_DIR [--out DIR]` "
      "builds a stock ns-2.35 tree with those two files added (the runs here: Debian's "
      "`ns2_2.35+dfsg.orig.tar.xz`, from `apt-get source ns2` with a deb-src line, the source of the "
      "`ns` the other cases run; the repository `hbatmit/ns2.35` is a research fork that changes 61 "
      "files of it, `mac-802_11.cc`, `agent.cc` and `packet.h` among them, and needs protobuf); neither project's code is in this "
      "repository, only the steps (`python/hoptcp/ns2/build.py`): copy the tree to DIR/src and the two "
      "files into its `tcp/`; add `tcp/tcp-ap.o` after `tcp/tcp-newreno.o` in `Makefile.in`; give the "
      "class's bound variables their constructor values in `tcl/lib/ns-default.tcl` (n_factor_ 4, "
      "history_ 50, delaybound_ 0.5, alpha_ 0.7, rate_interval_ 0.05, ll_bandwidth_ 2e6, and 0 for the "
      "estimator's state), which the authors' tree leaves to ns-2's 'no class variable' warnings; point "
      "`configure` at Debian's Tcl/Tk 8.6, OTcl and TclCL through a staging directory (`tclInt.h` from "
      "`/usr/include/tcl8.6/tcl-private`, `init.tcl` and `http1.0/http.tcl` from "
      "`/usr/share/tcltk/tcl8.6`, Tk's from `/usr/share/tcltk/tk8.6`; packages `tcl8.6-dev tk8.6-dev "
      "libotcl1-dev libtclcl1-dev tclcl`); undefine `HAVE_INT64` in the generated `autoconf.h` (Debian's "
      "TclCL is built without `TclObject::bind(const char*, int64_t*)`, so ns would not link; its queue "
      "monitors then count in `int`, as Debian's own `ns` does); compile with `g++ -std=gnu++98 "
      "-fpermissive -DUSE_INTERP_RESULT` (Tcl 8.6 hides `interp->result` without it) under "
      "`nice -n 10 make -j1`, and check that the binary creates the agent with those defaults. A "
      "scenario whose flows use TCP-AP's ns-2-code variant (`tcp.ap.profile = \"ns2\"`) is exported as "
      "`Agent/TCP/Newreno/AP` with `n_factor_`, `history_`, `alpha_`, `delaybound_`, `rate_interval_` "
      "from `tcp.ap` and `ll_bandwidth_` = the radio's data rate; keys the code compiles in (mean "
      "absolute deviation, the one-hop delay below `n_factor_` hops, 112 bytes of overhead, the "
      "free-running pace timer, no RTO back-off, the pacer flushed on a fast retransmission) must have "
      "its values. Run such cases with `--ns-binary DIR/src/ns` or `HOPTCP_NS=DIR/src/ns`; an `ns` "
      "without the class fails with one line saying so. The patched binary runs every other case as "
      "Debian's `ns` does.")
    w("")
    w("**Reading the tables.** Means ± standard deviations over the seeds; *diff* is hoptcp relative "
      "to ns-2.35; *p* is the two-sided p-value of Welch's t test of equal means; *within noise* is "
      "p ≥ 0.05; *TOST* is the project's equivalence test (`hoptcp.reproduce.agreement`: the 90% "
      "interval of the difference inside ±10% of hoptcp's mean: *agree*; else the 95% interval "
      "excludes 0: *differ*; else *undecided*). Two simulators of the same model still differ run by run (their random numbers "
      "differ), and about one comparison in twenty of identical distributions falls outside "
      "p ≥ 0.05 by chance.")
    w("")
    good = [c for c in cases if "ns2" in data["cases"][c.name]]
    cmps = {c.name: _cmp(data["cases"][c.name]) for c in good}
    routes_bad = [c.name for c in good if data["cases"][c.name].get("route_problems")]
    alike = [c for c in good if c.name not in routes_bad]
    within = sum(1 for c in alike if (g := _find(cmps[c.name], "aggregate_goodput_bps")) and g.test.within_noise)
    w("## Summary")
    w("")
    w(f"- Goodput within seed noise in {within} of the {len(alike)} cases where both simulators used the "
      "same routes.")
    devs = [abs(g.test.rel_diff) for c in alike if (g := _find(cmps[c.name], "aggregate_goodput_bps"))
            and not _nan(g.test.rel_diff)]
    if devs:
        w(f"- Largest goodput difference {max(devs) * 100:.1f}%, median {sorted(devs)[len(devs) // 2] * 100:.1f}%.")
    if routes_bad:
        w(f"- DSDV froze routes other than hoptcp's in: {', '.join(routes_bad)}: not like for like, left out "
          "of the comparison (see Routes).")
    unsupported = [c.name for c in cases if "unsupported" in data["cases"][c.name]]
    if unsupported:
        w(f"- Not expressible in ns-2.35: {', '.join(unsupported)}.")
    w("")
    w("## Goodput")
    w("")
    w("| case | what | ns-2.35 (kb/s) | hoptcp (kb/s) | diff | p | within noise | TOST |")
    w("|---|---|---:|---:|---:|---:|:---:|:---:|")
    for c in good:
        e = data["cases"][c.name]
        routes = " (routes differ)" if e.get("route_problems") else ""
        w(f"| {c.name} | {c.what}{routes} | {_ms(e['ns2'], 'aggregate_goodput_bps', _kbps)} | "
          f"{_ms(e['hoptcp'], 'aggregate_goodput_bps', _kbps)} | "
          f"{_verdict(_find(cmps[c.name], 'aggregate_goodput_bps'))} | {_tost(e)} |")
    w("")
    w("## Losses and windows")
    w("")
    w("Drops summed over the run (all causes: queue overflow and MAC retry limits), TCP timeouts and "
      "the average of ns-2's traced `cwnd_` (window without fast-recovery inflation, capped at MaxWin), "
      "summed / averaged over the flows.")
    w("")
    w("| case | drops ns-2.35 | drops hoptcp | p | timeouts ns-2.35 | timeouts hoptcp | p | cwnd_ ns-2.35 | cwnd_ hoptcp | p |")
    w("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in good:
        e = data["cases"][c.name]
        row = [c.name]
        for metric in ("drops.total", "flow.0.timeouts", "flow.0.avg_cwnd_traced"):
            cm = _find(cmps[c.name], metric)
            if cm is None:
                row += ["-", "-", "-"]
                continue
            p = cm.test.p
            row += [_ms(e["ns2"], metric), _ms(e["hoptcp"], metric),
                    ("-" if _nan(p) else f"{p:.2g}") + ("" if cm.test.within_noise else " **\\***")]
        w("| " + " | ".join(row) + " |")
    w("")
    w("Timeouts and cwnd_ are those of the first flow; \\* marks p < 0.05.")
    w("")
    aodv = [c for c in good if any("routing.route_breaks" in r for r in data["cases"][c.name]["ns2"])]
    if aodv:
        w("## AODV")
        w("")
        w(f"Cases over AODV (ns-2.35's build: link breaks from MAC retry-limit drops, local repair). Per run, "
          f"means ± standard deviations over the seeds; *agreement* is the equivalence test of "
          f"`hoptcp.reproduce.agreement` within ±{AODV_MARGIN_PCT:g} % of ns-2.35's mean (two one-sided Welch "
          "tests at 5 %; the 90 % interval of the difference must lie inside the margin). Drops without a "
          "route add hoptcp's `route_discovery_failed` to its `no_route`, as ns-2.35 traces both as NRTE.")
        w("")
        w("| case | seeds | figure | ns-2.35 | hoptcp | diff | 90 % interval | agreement |")
        w("|---|---:|---|---:|---:|---:|---:|---|")
        for c in aodv:
            e = data["cases"][c.name]
            for label, a, b in aodv_figures(e["ns2"], e["hoptcp"]):
                w(aodv_row(c.name, len(e["seeds"]), label, a, b))
        w("")
    from . import versus
    for group, (variant, metrics) in versus.SECTIONS.items():
        members = [c for c in suite.cases if c.group == group]
        if members:
            w(f"## {group}")
            w("")
            out.extend(versus.section(members, data, metrics, variant))
    w("## Differences beyond seed noise")
    w("")
    w("Every comparison of the cases above with p < 0.05, with its diagnosis, or *open* where none is "
      "established. Per-node MAC retry drops (`node.N.mac_drops`) are compared for cases with up to 8 nodes.")
    w("")
    listed = 0
    for c in good:
        if c.name in routes_bad:
            continue  # not like for like: see Routes
        outside = [m for m in cmps[c.name] if not m.test.within_noise]
        if not outside:
            continue
        w(f"**{c.name}** ({c.what}):")
        w("")
        for m in outside:
            t = m.test
            d = t.rel_diff
            diff = f"{d * 100:+.1f}%" if not _nan(d) else f"{t.mean_b - t.mean_a:+.3g}"
            diag = suite.diagnosis(c.name, m.metric)
            w(f"- `{m.metric}`: ns-2.35 {_num(t.mean_a, 4)}, hoptcp {_num(t.mean_b, 4)} ({diff}, p = {t.p:.2g}). "
              + (diag if diag else "*Open.*"))
            listed += 1
        w("")
    if not listed:
        w("None.")
        w("")
    if routes_bad:
        w("## Routes")
        w("")
        for name in routes_bad:
            probs = data["cases"][name]["route_problems"]
            seed, lines = next(iter(probs.items()))
            w(f"- {name}: in {len(probs)} of {len(data['cases'][name]['seeds'])} seeds; seed {seed}: {lines[0]}")
        w("")
    w("## What ns-2.35 cannot express")
    w("")
    w("`hoptcp ns2 export` refuses, with one error naming the key: `routing.protocol = \"aodv\"` and "
      "`wired.tcp_gap.enabled = true` with `[wired]`, TCP-AP configurations the authors' code cannot run "
      "(`tcp.ap.*`), `radio.standard = \"ofdm\"` (ns-2.35's "
      "802.11 times every frame with the DSSS PLCP), `mac.frame_format = \"standard\"`, explicit flow "
      "routes (`flows.N.route`: no static routing), CBR jitter other than 0 or 0.5 (ns-2's `random_` is 0 "
      "or 1), paths of 32 hops or more (TTL 32), and AODV constants other than ns-2.35's compiled-in "
      "ones. Where hoptcp's shortest path between two nodes is one of several (grids, random "
      "topologies), DSDV may freeze another one, or a longer one when a fresher sequence number reached "
      "a node first over a longer path; the export says so, and the route check of every run tells "
      "whether the comparison is like for like. Chains and Fu's 13-node cross have unique shortest "
      "paths and DSDV freezes hoptcp's routes there.")
    w("")
    versions = sorted({tuple(data["cases"][c.name].get("versions") or (data.get("hoptcp_version", "?"),
                                                                     data.get("ns2_version", "?")))
                       for c in cases})
    w(f"Generated {data.get('generated', '?')} with "
      + "; ".join(f"hoptcp core {h} and {n}" for h, n in versions) + ".")
    return "\n".join(out) + "\n"


def keep_sections(old: str, new: str) -> str:
    """``new`` with every ``## `` section of ``old`` whose heading ``new`` lacks appended, in
    ``old``'s order: sections written by other commands survive a re-render."""
    def split(page: str) -> list[tuple[str, str]]:
        parts = ("\n" + page).split("\n## ")
        return [(p.split("\n", 1)[0].strip(), "## " + p.rstrip("\n") + "\n") for p in parts[1:]]

    have = {h for h, _ in split(new)}
    extra = [text for h, text in split(old) if h not in have]
    return new if not extra else new.rstrip("\n") + "\n\n" + "\n".join(extra)


#: where the ports' validation suites live (``<port>.toml`` with ``<port>-results.json``, the
#: disagreements found in ``<port>-disagreements.md``)
PORTS_DIR = Path("validation/ns2/ports")


def _sections(page: str, names: Sequence[str]) -> str:
    """The ``## NAME`` sections of a rendered page, headings demoted two levels."""
    out, keep = [], False
    for line in page.splitlines():
        if line.startswith("## "):
            keep = line[3:].strip() in names
            if keep:
                out.append("#" + "#" + line)
            continue
        if keep:
            out.append(line)
    return "\n".join(out).strip()


def ports_section(ports_dir: str | Path = PORTS_DIR) -> str:
    """docs/validation.md's part on the ns-2.35 ports of the cures: per port suite, its summary and
    goodput table (from its stored results) and the first disagreements its comparison found."""
    d = Path(ports_dir)
    suites = sorted(p for p in d.glob("*.toml")) if d.is_dir() else []
    if not suites:
        return ""
    out = ["", "## The ns-2.35 ports of the cures", "",
           "Each cure of the papers written a second time into ns-2.35, in a clean room (from the papers and "
           "ns-2.35's code only; `ns2/ports/<port>/`, built by `hoptcp ns2 build --with-ports`), and compared "
           "with hoptcp on matched cases under the same rules as above. Each port's choices the text leaves open "
           "(`CHOICES.md`) were committed before its first comparison. Every disagreement found is listed with "
           "its cause, the sentence of the paper that decides it and the fix; the full pages are linked. Cases "
           "run before a change to hoptcp's core keep that core's numbers until they are run again (each "
           "page's results file names the build of every run)."]
    for suite_path in suites:
        port = suite_path.stem
        results = d / f"{port}-results.json"
        if not results.is_file():
            continue
        data = load_results(results)
        page = render(load_suite(suite_path), data)
        builds: dict[str, int] = {}
        for case in data.get("cases", {}).values():
            v = (case.get("versions") or [data.get("hoptcp_version", "?")])[0]
            builds[v] = builds.get(v, 0) + 1
        ran = "; ".join(f"`{b}` ({n} case{'s' if n != 1 else ''})" for b, n in sorted(builds.items()))
        out += ["", f"### `{port}`", "",
                f"Cases: [{suite_path.as_posix()}](../{suite_path.as_posix()}); the full page: "
                f"[{port}.md](../{(d / f'{port}.md').as_posix()}); hoptcp's core: {ran}.", ""]
        out.append(_sections(page, ["Summary", "Goodput"]))
        dis = d / f"{port}-disagreements.md"
        if dis.is_file():
            heads = [ln[3:].strip() for ln in dis.read_text(encoding="utf-8").splitlines() if ln.startswith("## ")]
            out += ["", f"Disagreements ([{dis.name}](../{dis.as_posix()})):", ""]
            out += [f"- {h}" for h in heads] or ["- none recorded"]
    return "\n".join(out) + "\n"
