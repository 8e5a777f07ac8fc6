"""TCP-GAP's gateway in exported ns-2.35 scripts: ns-2.35 built with the ``tcp-gap`` port
(``Connector/TcpGap``, ``ns2/ports/tcp-gap``).

hoptcp's ``[wired.tcp_gap]`` (with the scenario's ``[tcp.ap]`` for the pacing rate) maps onto
the port's Tcl names (``ns2/ports/tcp-gap/INTERFACE.md``):

=====================================  ==========================================================
hoptcp key                             ns-2.35 (``$gap`` = ``[$node_(GATEWAY) tcp-gap]``)
=====================================  ==========================================================
``wired.tcp_gap.enabled``              the gateway object exists (after the wired links)
``wired.tcp_gap.goodput_control``      ``gc_``
``wired.tcp_gap.threshold``            ``gc_threshold_`` (S)
``wired.tcp_gap.period_s``             ``gc_interval_``
``wired.tcp_gap.aging``                ``gc_aging_`` (the aging's coefficient, Fig. 7's 1.1)
``wired.tcp_gap.aging_rule``           ``gc_aging_kind_`` (additive 0: cap += aging x deviation
                                       pkt/s per period, Fig. 7 as written; multiplicative 1)
``wired.tcp_gap.flow_timeout_s``       ``flow_timeout_``
``wired.tcp_gap.buffer_packets``       ``qlimit_ 0`` (per-flow queues unbounded) when the buffer
                                       holds every flow's window, else refused
``tcp.ap.alpha``                       ``alpha_``
``tcp.ap.hop_factor``                  ``hop_factor_``
``tcp.ap.short_path``                  ``short_path_`` (h_hop 0, one_hop 1)
``tcp.ap.history``                     ``cov_history_``
``tcp.ap.variation``                   ``cov_kind_`` (cov 0, mad 1)
``tcp.ap.overhead_bytes``              ``overhead_bytes_`` = overhead - 40 (ns-2's packets at the
                                       gateway already carry the 40-byte TCP/IP header)
``tcp.ap.delay_bound_s``               ``fhd_bound_`` (0: none)
``tcp.ap.timer``                       ``timer_`` (on_demand 0, free_running 1)
``tcp.ap.initial_interval_s``          ``initial_gap_`` (0: unpaced before the first sample)
``radio.data_rate_mbps``               ``bandwidth_`` (taken from ``Mac/802_11 dataRate_``)
=====================================  ==========================================================

A wireless sender of variant ``tcp_ap`` behind a TCP-GAP gateway is
``Agent/TCP/Newreno/AP/Gap`` (the authors' TCP-AP with the gateway's RTT_wired taken off).

At the end the script records the gateway's per-flow counters in its stats file as
``-39 <flow>.<counter> <value>`` (``flow`` = hoptcp's flow id, matched by the flow's source node
and port); :func:`add_gateway` puts them in the ns-2 report as ``wired.tcp_gap`` with
hoptcp's key names where they exist (``rate_pps``, ``fhd_s``, ``variation``, ``throttles``,
``throttle_pps``, ``paced_packets``...), in hoptcp's flow order, and the time averages
(``rate_avg_pps``, ``cap_avg_pps``) the port keeps. :func:`hoptcp_gateway` computes the same
time averages from hoptcp's ``gateway`` series.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

#: the gateway's class (ns2/ports/tcp-gap)
GATEWAY_CLASS = "Connector/TcpGap"
SENDER_CLASS = "Agent/TCP/Newreno/AP/Gap"
#: the first line of a script that needs the port: one clear line on a stock ns-2.35
GUARD = ('if {[catch {Connector/TcpGap info class}]} {puts stderr "needs ns-2.35 built with hoptcp\'s ports '
         '(hoptcp ns2 build --with-ports tcp-gap): no class Connector/TcpGap"; exit 1}')
#: the stats-file id of the gateway's counters
STATS_ID = -39
#: the TCP/IP header ns-2's packets carry at the gateway (hoptcp's tcp.ap.overhead_bytes counts it)
TCPIP_HEADER = 40
#: the port's counters recorded per flow (INTERFACE.md)
COUNTERS = ("data_in", "paced", "qdrops", "qmax", "acks", "dupacks", "rtt_samples", "rtt_mean", "hops", "fhd",
            "cov", "rate", "rate_avg", "cap", "cap_avg", "throttled_time", "throttles", "cancels", "stamps")
#: port counter -> hoptcp's wired.tcp_gap.flows[] key
HOPTCP_NAMES = {"rate": "rate_pps", "fhd": "fhd_s", "cov": "variation", "throttles": "throttles",
                "cap": "throttle_pps", "paced": "paced_packets", "rtt_samples": "rtt_samples",
                "qmax": "max_queue", "qdrops": "queue_drops", "data_in": "data_packets", "acks": "acks",
                "rate_avg": "rate_avg_pps", "cap_avg": "cap_avg_pps", "throttled_time": "throttled_s",
                "stamps": "stamps", "hops": "hops", "rtt_mean": "rtt_mean_s"}


def _unsupported(msg: str) -> Exception:
    from .exporter import Ns2Unsupported
    return Ns2Unsupported(msg)


def enabled(sc: Mapping[str, Any]) -> bool:
    return bool(((sc.get("wired") or {}).get("tcp_gap") or {}).get("enabled"))


def check(sc: Mapping[str, Any], flows: Sequence[Mapping[str, Any]]) -> None:
    """Raise Ns2Unsupported naming the first [wired.tcp_gap]/[tcp.ap] value the port cannot run."""
    gap = sc["wired"]["tcp_gap"]
    ap = sc["tcp"]["ap"]
    if int(ap["overhead_bytes"]) < TCPIP_HEADER:
        raise _unsupported(f"tcp.ap.overhead_bytes = {ap['overhead_bytes']} cannot be exported with TCP-GAP: the "
                           f"gateway sees ns-2's packets with their {TCPIP_HEADER}-byte TCP/IP header (allowed: "
                           f">= {TCPIP_HEADER})")
    windows = sum(int(f["tcp"]["max_window"]) for f in flows if f["transport"] == "tcp")
    if int(gap["buffer_packets"]) < windows:
        raise _unsupported(f"wired.tcp_gap.buffer_packets = {gap['buffer_packets']} cannot be exported: the port's "
                           f"pacing queues are not limited by a shared buffer (allowed: >= {windows}, the flows' "
                           "windows)")


def attach_lines(sc: Mapping[str, Any], gateway: int) -> list[str]:
    """Tcl lines creating the gateway (after the wired links) and setting its variables."""
    gap = sc["wired"]["tcp_gap"]
    ap = sc["tcp"]["ap"]
    from .exporter import _g
    return [
        "# --- TCP-GAP's gateway (ns2/ports/tcp-gap: Connector/TcpGap at the base station's entry)",
        f"set gap [$node_({gateway}) tcp-gap]",
        f"$gap set gc_ {1 if gap['goodput_control'] else 0}",
        f"$gap set gc_threshold_ {_g(gap['threshold'])}",
        f"$gap set gc_interval_ {_g(gap['period_s'])}",
        f"$gap set gc_aging_ {_g(gap['aging'])}",
        f"$gap set gc_aging_kind_ {1 if gap.get('aging_rule', 'additive') == 'multiplicative' else 0}",
        f"$gap set flow_timeout_ {_g(gap['flow_timeout_s'])}",
        "$gap set qlimit_ 0 ;# the buffer holds every flow's window",
        f"$gap set alpha_ {_g(ap['alpha'])}",
        f"$gap set hop_factor_ {int(ap['hop_factor'])}",
        f"$gap set short_path_ {1 if ap['short_path'] == 'one_hop' else 0}",
        f"$gap set cov_history_ {int(ap['history'])}",
        f"$gap set cov_kind_ {1 if ap['variation'] == 'mad' else 0}",
        f"$gap set fhd_bound_ {_g(ap['delay_bound_s'])}",
        f"$gap set timer_ {1 if ap['timer'] == 'free_running' else 0}",
        f"$gap set initial_gap_ {_g(ap['initial_interval_s'])}",
        f"$gap set overhead_bytes_ {int(ap['overhead_bytes']) - TCPIP_HEADER} ;# tcp.ap.overhead_bytes minus "
        "the TCP/IP header ns-2's packets carry",
    ]


def agent_class(sc: Mapping[str, Any], flow: Mapping[str, Any], n_wireless: int, default: str) -> str:
    """The sender's class: TCP-AP behind a TCP-GAP gateway takes RTT_wired off (Fig. 6)."""
    if enabled(sc) and flow["tcp"]["variant"] == "tcp_ap" and int(flow["src"]) < n_wireless:
        return SENDER_CLASS
    return default


def finish_lines(tcp_flows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Tcl lines (inside ``proc finish``) recording the gateway's counters per hoptcp flow."""
    ids = " ".join(f"{int(f['id'])} {int(f['src'])}" for f in tcp_flows)
    counters = " ".join(COUNTERS)
    return [
        "    global gap node_",
        "    foreach gf [$gap flows] {",
        f"        foreach {{i s}} {{{ids}}} {{",
        "            if {[$gap flow $gf src] == [$node_($s) node-addr] && [$gap flow $gf sport] == [$src($i) set agent_port_]} {",
        f"                foreach c {{{counters}}} {{ puts $statsfd \"{STATS_ID} $i.$c [$gap flow $gf $c]\" }}",
        "                set d [expr {[$gap flow $gf dir] == {down} ? 1 : 0}]",
        f"                puts $statsfd \"{STATS_ID} $i.down $d\"",
        "            }",
        "        }",
        "    }",
        f"    foreach c {{gc_rounds gc_resets}} {{ puts $statsfd \"{STATS_ID} gw.$c [$gap gw $c]\" }}",
    ]


def add_gateway(rep: dict[str, Any], recorded: Mapping[str, float]) -> None:
    """The gateway's counters (stats id -39, the issue) into the ns-2 report as ``wired.tcp_gap``."""
    per: dict[int, dict[str, float]] = {}
    gw: dict[str, float] = {}
    for key, v in recorded.items():
        head, _, name = key.partition(".")
        if head == "gw":
            gw[name] = v
        elif head.isdigit():
            per.setdefault(int(head), {})[name] = v
    flows = []
    for fid in sorted(per):
        c = per[fid]
        entry: dict[str, Any] = {"flow": fid, "direction": "wired_to_wireless" if c.get("down") else
                                 "wireless_to_wired"}
        for name, v in c.items():
            if name in HOPTCP_NAMES:
                entry[HOPTCP_NAMES[name]] = v
        if not entry.get("throttle_pps"):
            entry["throttle_pps"] = None
        flows.append(entry)
    wired = rep.setdefault("wired", {})
    wired["tcp_gap"] = {"flows": flows, "control_periods": gw.get("gc_rounds", 0.0),
                        "resets": gw.get("gc_resets", 0.0),
                        "throttles": sum(f.get("throttles", 0.0) for f in flows)}


def _time_average(times: Sequence[float], values: Sequence[float | None], end: float, *,
                  on: bool = False) -> float:
    """Time average of a step function (value from each time to the next) over the time it was
    set (``on``: only where the value is positive)."""
    area = span = 0.0
    for k, (t, v) in enumerate(zip(times, values)):
        t_next = times[k + 1] if k + 1 < len(times) else end
        dt = max(0.0, t_next - t)
        if v is None or (isinstance(v, float) and math.isnan(v)) or (on and v <= 0):
            continue
        area += v * dt
        span += dt
    return area / span if span > 0 else 0.0


def hoptcp_gateway(report: Mapping[str, Any]) -> dict[int, dict[str, float]]:
    """Per flow (hoptcp's flow id, the series' key): the time averages of the pacing rate (min(rate, cap)
    where a cap is on) and of the cap, from hoptcp's ``gateway`` series (``--series gateway``)."""
    ts = (report.get("time_series") or {}).get("gateway")
    if not ts:
        return {}
    names = list(ts["metrics"])
    end = float(report.get("duration_s", 0.0))
    by: dict[int, dict[str, tuple[list[float], list[float]]]] = {}
    for t, f, m, v in zip(ts["time_s"], ts["flow"], ts["metric"], ts["value"]):
        name = names[int(m)]
        if name in ("rate_pps", "cap_pps"):
            tt, vv = by.setdefault(int(f), {}).setdefault(name, ([], []))
            tt.append(float(t))
            vv.append(v)
    out: dict[int, dict[str, float]] = {}
    for f, series in by.items():
        rt, rv = series.get("rate_pps", ([], []))
        ct, cv = series.get("cap_pps", ([], []))
        # the effective rate: merge the two step functions
        events = sorted({*rt, *ct})
        eff: list[float | None] = []
        ri = ci = -1
        for t in events:
            while ri + 1 < len(rt) and rt[ri + 1] <= t:
                ri += 1
            while ci + 1 < len(ct) and ct[ci + 1] <= t:
                ci += 1
            r = rv[ri] if ri >= 0 else None
            c = cv[ci] if ci >= 0 else None
            if r is not None and c is not None and c > 0:
                eff.append(min(r, c))
            else:
                eff.append(r)
        out[f] = {"rate_avg_pps": _time_average(events, eff, end, on=True),
                  "cap_avg_pps": _time_average(ct, cv, end, on=True)}
    return out


# --- the gateway's own rate and cap, ns-2.35 against hoptcp ------------------------------------

#: per-flow gateway metrics compared (ns-2 report key = hoptcp key)
GATEWAY_METRICS = ("rate_avg_pps", "cap_avg_pps", "rate_pps", "fhd_s", "variation", "throttles")


def _hoptcp_flows(raw: Mapping[str, Any], flows: Sequence[Mapping[str, Any]]) -> dict[int, dict[str, float]]:
    """hoptcp's gateway counters per hoptcp flow id (matched by source and destination node)."""
    ids = {(int(f["src"]), int(f["dst"])): int(f["id"]) for f in flows}
    avg = hoptcp_gateway(raw)
    out: dict[int, dict[str, float]] = {}
    for g in ((raw.get("wired") or {}).get("tcp_gap") or {}).get("flows") or []:
        fid = ids.get((int(g["key"]["src"]), int(g["key"]["dst"])))
        if fid is None:
            continue
        row = {m: float(g[m]) for m in ("rate_pps", "fhd_s", "variation", "throttles") if g.get(m) is not None}
        row.update(avg.get(fid, {}))  # the gateway series is keyed by hoptcp's flow id
        row["down"] = 1.0 if g.get("direction") == "wired_to_wireless" else 0.0
        out[fid] = row
    return out


def compare_gateway(suite_path: str, seeds: Sequence[int] | None = None, only: Sequence[str] = ()) -> str:
    """A markdown table: per case and wired-to-wireless flow, the gateway's time-averaged pacing
    rate, cap, final rate, FHD-hat, variation and throttles in ns-2.35 (the port; ``HOPTCP_NS``)
    and in hoptcp, mean (sd) over the seeds, with Welch's p."""
    import fnmatch
    import json

    from .. import _bridge
    from ..runner import run as hrun
    from .compare import mean_sd, welch
    from .run import run_ns2
    from .validation import load_suite

    suite = load_suite(suite_path)
    lines = ["| case | flow | metric | ns-2.35 port | hoptcp | p |", "|---|---|---|---|---|---|"]
    for case in suite.cases:
        if only and not any(fnmatch.fnmatchcase(case.name, o) for o in only):
            continue
        plan = json.loads(_bridge.plan_json(case.scenario.toml, case.scenario.overrides, None))
        if not enabled(plan["scenario"]):
            continue
        ns: dict[int, dict[str, list[float]]] = {}
        hp: dict[int, dict[str, list[float]]] = {}
        for seed in list(seeds or case.seeds or suite.seeds):
            rep = run_ns2(case.scenario, seed)
            for g in rep.get("wired", {}).get("tcp_gap", {}).get("flows", []):
                for m in GATEWAY_METRICS:
                    v = g.get(m)
                    ns.setdefault(int(g["flow"]), {}).setdefault(m, []).append(0.0 if v is None else float(v))
            flows = json.loads(_bridge.plan_json(case.scenario.toml, case.scenario.overrides, seed))["flows"]
            raw = hrun(case.scenario, seed, series=["gateway"]).raw
            for fid, row in _hoptcp_flows(raw, flows).items():
                if not row.get("down"):
                    continue
                for m in GATEWAY_METRICS:
                    hp.setdefault(fid, {}).setdefault(m, []).append(float(row.get(m, 0.0) or 0.0))
        for fid in sorted(hp):
            for m in GATEWAY_METRICS:
                a, b = ns.get(fid, {}).get(m, []), hp[fid].get(m, [])
                (ma, sa), (mb, sb) = mean_sd(a), mean_sd(b)
                p = welch(a, b).p
                lines.append(f"| {case.name} | {fid} | {m} | {ma:.4g} ({sa:.2g}) | {mb:.4g} ({sb:.2g}) | "
                             f"{p:.2g} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # python -m hoptcp.ns2.port_tcp_gap SUITE SEEDS [CASE-GLOB...] (SEEDS: 1-5)
    import sys

    lo, _, hi = sys.argv[2].partition("-")
    print(compare_gateway(sys.argv[1], seeds=list(range(int(lo), int(hi or lo) + 1)), only=sys.argv[3:]), end="")
