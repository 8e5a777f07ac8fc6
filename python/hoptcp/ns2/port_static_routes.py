"""Static routes in exported ns-2.35 scripts: ns-2.35 built with the ``static-routes`` port
(``Agent/StaticRoute``, ``ns2/ports/static-routes``) or stock ns-2.35's frozen DSDV.

hoptcp's ``routing.protocol = "static"`` gives every flow a fixed path (the shortest hop path,
ties to the lowest node id, or the flow's ``route``), and TCP ACKs take it backwards. Stock
ns-2.35 has no static routing for mobile nodes. There the exporter converges DSDV and freezes
it, which works on chains and the cross. On grids and random topologies DSDV picks other
shortest paths than hoptcp, or never settles. ``Agent/StaticRoute`` takes its routes from
the script:

- ``add-route DST NEXTHOP`` per node and destination, wherever every path through the node
  to DST leaves by the same neighbour;
- ``add-flow-route FID DST NEXTHOP`` where paths to one destination part at a node. The
  agent looks these up first by the IP flow id: flow ``i`` is ``fid_ = i + 1``, and
  TCPSink copies it into its ACKs. Flow id 0 is the ARP warm-up pings, which need a direct
  route to the neighbour at the other end of their link.

Which routing a static scenario gets (:func:`mode`): the ``static_routes`` argument of
:func:`hoptcp.ns2.exporter.export` ("agent" or "dsdv"), else ``HOPTCP_NS2_STATIC_ROUTES``,
else "auto". Auto picks the agent when the ns binary that runs the scripts
(``HOPTCP_NS``, else ``ns`` on PATH) has ``Agent/StaticRoute``, and frozen DSDV otherwise.
The agent is the default whenever it is there, for these reasons:

- it carries exactly hoptcp's paths, per flow, on every topology;
- it has no routing traffic and no dependence on convergence;
- on chains and the cross it gives the same results as frozen DSDV (within seed noise, see
  ``validation/ns2/ports/static-routes.md``).

Hybrid ``[wired]`` scenarios always keep DSDV, because the agent has no base-station
forwarding.

A script that uses the agent stops on a stock ns with one line naming the class. The
script records every node's routes at scenario time 0 in its stats file, and
:func:`check_routes` checks them against hoptcp's paths.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections import defaultdict
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

#: the agent's class (ns2/ports/static-routes) and its -adhocRouting name
AGENT_CLASS = "Agent/StaticRoute"
ADHOC_ROUTING = "StaticRoute"
#: environment variable choosing the static routing of exported scripts: agent, dsdv or auto
ENV = "HOPTCP_NS2_STATIC_ROUTES"
MODES = ("agent", "dsdv", "auto")
#: the first line of a script that needs the agent: one clear line on a stock ns-2.35
GUARD = ('if {[catch {Agent/StaticRoute info class}]} {puts stderr "needs ns-2.35 built with hoptcp\'s ports '
         '(hoptcp ns2 build --with-ports static-routes): no class Agent/StaticRoute"; exit 1}')
#: what the agent's static routes are, in plain words (crosscheck's summary)
AGENT_ROUTES = ("the exported script runs hoptcp's static-route agent (Agent/StaticRoute, an ns-2.35 built with "
                "--with-ports static-routes): no routing packets, every node given hoptcp's paths")
#: the flow id of packets that belong to no flow (the ARP warm-up pings)
PING_FID = 0


def fid(flow_id: int) -> int:
    """The IP flow id (``fid_``) of hoptcp's flow ``flow_id`` in an agent script."""
    return int(flow_id) + 1


def _ns_binary() -> str | None:
    return shutil.which(os.environ.get("HOPTCP_NS", "ns"))


@lru_cache(maxsize=8)
def _has_agent(path: str, mtime: float) -> bool:
    script = 'puts "static-routes [expr {[catch {Agent/StaticRoute info class}] ? 0 : 1}]"\nexit 0\n'
    with tempfile.TemporaryDirectory(prefix="hoptcp-ns2-probe-") as tmp:
        p = Path(tmp) / "probe.tcl"
        p.write_text(script, encoding="utf-8")
        try:
            proc = subprocess.run([path, str(p)], cwd=tmp, capture_output=True, text=True, timeout=60, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return False
    return "static-routes 1" in (proc.stdout or "")


def binary_has_agent(path: str | None = None) -> bool:
    """Whether the ns binary (default: the one exported scripts run on) has ``Agent/StaticRoute``."""
    path = path or _ns_binary()
    if path is None or not Path(path).is_file():
        return False
    return _has_agent(str(Path(path).resolve()), Path(path).stat().st_mtime)


def mode(sc: Mapping[str, Any], requested: str | None = None) -> str:
    """"agent" or "dsdv" for a resolved scenario with static routing (see the module's text)."""
    from .exporter import Ns2Unsupported

    req = requested if requested is not None else (os.environ.get(ENV) or "auto")
    if req not in MODES:
        raise Ns2Unsupported(f"static routes = \"{req}\" is not a choice (allowed: {', '.join(MODES)}; "
                             f"from the exporter's static_routes or {ENV})")
    if sc.get("wired") is not None:
        return "dsdv"  # the agent has no base-station forwarding: hybrid scenarios keep DSDV
    if req == "auto":
        return "agent" if binary_has_agent() else "dsdv"
    return req


def use_agent(sc: Mapping[str, Any], requested: str | None = None) -> bool:
    """True when a static-routing scenario is exported with the agent (False for other protocols)."""
    return sc["routing"]["protocol"] == "static" and mode(sc, requested) == "agent"


# --- the routes ------------------------------------------------------------------------------

Claim = tuple[int, int]  # (flow id of the packets or PING_FID, next hop)


def route_tables(flows: Sequence[Mapping[str, Any]], ping_links: Sequence[tuple[int, int]]
                 ) -> tuple[dict[int, dict[int, int]], dict[int, dict[tuple[int, int], int]]]:
    """(per_destination, per_flow): ``per_destination[node][dst] = next hop`` and
    ``per_flow[node][(fid, dst)] = next hop`` that carry every flow on its path (TCP ACKs
    backwards) and every warm-up ping over its link.

    A node and destination get a per-destination route when every claim agrees on the next
    hop, and per-flow routes for every claim otherwise (the pings' under flow id 0)."""
    claims: dict[tuple[int, int], list[Claim]] = defaultdict(list)
    for f in flows:
        path = [int(v) for v in f["path"]]
        ways = [path] + ([path[::-1]] if f["transport"] == "tcp" else [])
        for way in ways:
            for a, b in zip(way, way[1:]):
                claims[(a, way[-1])].append((fid(f["id"]), b))
    for a, b in ping_links:
        claims[(a, b)].append((PING_FID, b))
        claims[(b, a)].append((PING_FID, a))
    per_dst: dict[int, dict[int, int]] = defaultdict(dict)
    per_flow: dict[int, dict[tuple[int, int], int]] = defaultdict(dict)
    for (node, dst), cl in sorted(claims.items()):
        hops = {h for _, h in cl}
        if len(hops) == 1:
            per_dst[node][dst] = hops.pop()
            continue
        for fl, h in cl:
            prev = per_flow[node].get((fl, dst))
            if prev is not None and prev != h:  # one flow through a node twice: a path with a loop
                from .exporter import Ns2Unsupported

                raise Ns2Unsupported(f"flow id {fl} reaches node {node} twice towards node {dst} with different "
                                     "next hops: a route with a loop cannot be exported")
            per_flow[node][(fl, dst)] = h
    return dict(per_dst), dict(per_flow)


def route_lines(flows: Sequence[Mapping[str, Any]], ping_links: Sequence[tuple[int, int]]) -> list[str]:
    """The script's routing section: every node's routes, and a proc recording them at t0."""
    per_dst, per_flow = route_tables(flows, ping_links)
    n_dst = sum(len(v) for v in per_dst.values())
    n_flow = sum(len(v) for v in per_flow.values())
    out = [f"# --- static routes ({AGENT_CLASS}, no control packets): hoptcp's paths, ACKs backwards.",
           f"# {n_dst} per-destination routes (add-route DST NEXTHOP) and {n_flow} per-flow routes",
           "# (add-flow-route FID DST NEXTHOP, looked up first; flow i has fid_ i+1, the ARP pings 0)."]
    for node in sorted(set(per_dst) | set(per_flow)):
        out.append(f"set r [$node_({node}) set ragent_]")
        for dst, hop in sorted(per_dst.get(node, {}).items()):
            out.append(f"$r add-route {dst} {hop}")
        for (fl, dst), hop in sorted(per_flow.get(node, {}).items()):
            out.append(f"$r add-flow-route {fl} {dst} {hop}")
    out += [
        "# every node's routes as the agents hold them, into the stats file (-3 lines): the",
        "# parser checks them against hoptcp's paths",
        "proc record-routes {} {",
        "    global node_ opt statsfd",
        "    for {set i 0} {$i < $opt(nn)} {incr i} {",
        "        set r [$node_($i) set ragent_]",
        "        foreach {d h} [$r routes] { puts $statsfd \"-3 r.$i.$d $h\" }",
        "        foreach {f d h} [$r flow-routes] { puts $statsfd \"-3 f.$i.$f.$d $h\" }",
        "    }",
        "}",
        "$ns_ at $opt(t0) \"record-routes\"",
        "",
    ]
    return out


def fid_lines(flows: Sequence[Any]) -> list[str]:
    """``fid_`` of every flow's sending agent (TCPSink copies it into the ACKs)."""
    return [f"$src({f.id}) set fid_ {fid(f.id)} ;# its routes (add-flow-route) and its ACKs'" for f in flows]


def check_routes(recorded: Mapping[str, float], flows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Differences between hoptcp's paths and the routes the agents held (empty when all match).

    ``recorded`` is the script's ``-3`` stats lines: ``r.<node>.<dst>`` and
    ``f.<node>.<fid>.<dst>`` mapped to the next hop."""
    per_dst: dict[tuple[int, int], int] = {}
    per_flow: dict[tuple[int, int, int], int] = {}
    for key, value in recorded.items():
        parts = key.split(".")
        if parts[0] == "r" and len(parts) == 3:
            per_dst[(int(parts[1]), int(parts[2]))] = int(value)
        elif parts[0] == "f" and len(parts) == 4:
            per_flow[(int(parts[1]), int(parts[2]), int(parts[3]))] = int(value)
    problems = []
    for f in flows:
        path = [int(v) for v in f["path"]]
        ways = [("data", path)] + ([("ACK", path[::-1])] if f["transport"] == "tcp" else [])
        for what, want in ways:
            got: list[int] = [want[0]]
            dst = want[-1]
            while got[-1] != dst and len(got) <= len(want) + 1:
                hop: int | None = per_flow.get((got[-1], fid(f["id"]), dst), per_dst.get((got[-1], dst)))
                if hop is None:
                    break
                got.append(hop)
            if got != want:
                problems.append(f"flow {f['id']} {what} route: ns-2 {'-'.join(map(str, got))}, "
                                f"hoptcp {'-'.join(map(str, want))}")
    return problems


# --- before / after: the agent against frozen DSDV on the suite's chains and cross ------------------

#: metrics compared between the agent's and frozen DSDV's ns-2.35 runs
BEFORE_AFTER_METRICS = ("aggregate_goodput_bps", "drops.total", "drops.mac_rts_retry", "drops.queue_overflow")


def before_after(after: Mapping[str, Any], before: Mapping[str, Any], hoptcp_margin_pct: float = 10.0) -> str:
    """A markdown page comparing, per case, ns-2.35 with the agent (``after``: a results.json of
    ``hoptcp ns2 validate``) against the stored frozen-DSDV ns-2.35 runs (``before``) and hoptcp.

    Means ± sd over seeds. Welch's p compares DSDV and the agent (the same seeds, other sample
    paths). TOST compares them within ±``hoptcp_margin_pct`` % of DSDV's mean for goodput and
    ±max(10 % of the DSDV mean, 5) for drop counts."""
    from ..reproduce.agreement import tost
    from .compare import mean_sd, welch

    def col(rows: Sequence[Mapping[str, Any]], m: str) -> list[float]:
        return [float(r[m]) for r in rows if r.get(m) is not None]

    def fmt(m: str, xs: Sequence[float]) -> str:
        mu, sd = mean_sd(xs)
        if mu != mu:
            return "-"
        return f"{mu / 1e3:.1f} ± {sd / 1e3:.1f}" if m.endswith("_bps") else f"{mu:.1f} ± {sd:.1f}"

    out = ["| case | seeds | metric | ns-2 frozen DSDV | ns-2 Agent/StaticRoute | hoptcp | DSDV vs agent: Welch p | "
           "TOST (margin) |", "|---|---|---|---|---|---|---|---|"]
    counts = {"agree": 0, "differ": 0, "undecided": 0}
    for name in sorted(after.get("cases", {})):
        a, b = after["cases"][name], before.get("cases", {}).get(name)
        if b is None or "ns2" not in a or "ns2" not in b:
            continue
        for m in BEFORE_AFTER_METRICS:
            xa, xb = col(a["ns2"], m), col(b["ns2"], m)
            if not xa or not xb:
                continue
            w = welch(xb, xa)
            mu_b = mean_sd(xb)[0]
            margin = abs(mu_b) * hoptcp_margin_pct / 100 if m.endswith("_bps") else max(abs(mu_b) * 0.1, 5.0)
            t = tost(xb, xa, margin)
            counts[t.verdict] = counts.get(t.verdict, 0) + 1
            marg = f"±{margin / 1e3:.1f} kb/s" if m.endswith("_bps") else f"±{margin:.1f}"
            out.append(f"| {name} | {len(xa)}/{len(xb)} | {m} | {fmt(m, xb)} | {fmt(m, xa)} | "
                       f"{fmt(m, col(a.get('hoptcp', []), m))} | {w.p:.3f} | {t.verdict} ({marg}) |")
    head = [f"TOST verdicts, DSDV vs the agent: {counts.get('agree', 0)} agree, {counts.get('differ', 0)} differ, "
            f"{counts.get('undecided', 0)} undecided (of {sum(counts.values())} case-metrics).", ""]
    return "\n".join(head + out) + "\n"
