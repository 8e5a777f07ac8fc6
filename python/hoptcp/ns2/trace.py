"""Reading what an exported ns-2.35 script wrote: the CMU trace (drops, DSDV route
changes), the cwnd_ trace and the end-of-run counters, into a report shaped like
hoptcp's (same keys, so :func:`hoptcp.results.flatten_metrics` gives the same
metric names).

Only the lines the exported script asks for are expected (old CMU wireless format):

``D 27.675261000 _1_ MAC  RET 82 tcp 1500 [13a 2 1 800] ------- [0:1 7:1 31 2] ...``
    a drop: time, node, layer, reason, uid, packet type, size, ...
``VWST 5.187132390743 frm 3 to 1 wst 0.000000000000 nxthp 2 [of 2]``
    a DSDV route change: node 3 now reaches 1 via 2 at metric 2 (``trace_wst_ 1``)
``27.02522 0  1  7  1  cwnd_ 2.000``
    a traced TCP variable: time, src addr/port, dst addr/port, name, value
``0 to 1714540``
    a counter recorded by the script: flow id, what, value
``d 27.1 4 5 tcp 1500 ------- 0 4194304.1 2.0 913 1823``
    (hybrid scenarios) a drop at a wired link's queue: time, from, to, type, size, ...

In hybrid scenarios ns-2's node ids and addresses are not hoptcp's node ids (wired nodes
and the gateway come first, addresses are hierarchical); the script records both for
every node (``-2 id.<i> <ns-2 id>``, ``-2 addr.<i> <address>``) and :func:`read_run`
translates.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

#: DSDV's "infinite" metric (dsdv/rtable.h: BIG)
DSDV_INFINITY = 250

#: ns-2 packet types (as traced) and hoptcp's packet kinds
DATA_KINDS = {"tcp": "tcp_data", "ack": "tcp_ack", "cbr": "udp"}
ROUTING_KINDS = {"AODV": "aodv"}
#: drop reasons of the routing agent (cmu-trace.h) and hoptcp's causes; "CBK" (MAC callback)
#: is handled apart: the callback's copy of a packet dropped at the retry limit is not a loss
#: of its own, the packets AODV flushes from the queue for the broken link are
RTR_CAUSES = {"NRTE": "no_route", "TTL": "ttl", "LOOP": "route_loop", "TOUT": "route_buffer_timeout",
              "IFQ": "route_buffer_overflow"}
DROP_CAUSES = ("queue_overflow", "mac_rts_retry", "mac_data_retry", "no_route", "ttl", "link_failure_flush",
               "route_buffer_overflow", "route_buffer_timeout", "route_discovery_failed", "route_loop", "ldm",
               "link_red")


@dataclass
class TraceSummary:
    """Drops and routes read from an ns-2 CMU trace."""

    #: drops[(node, cause, kind)] = count, for data packets (tcp, ack, cbr) after t0
    drops: dict[tuple[int, str, str], int] = field(default_factory=lambda: defaultdict(int))
    #: ARP drops (should be 0 after the warm-up)
    arp_drops: int = 0
    #: final DSDV routes: routes[node][dst] = (next hop, metric)
    routes: dict[int, dict[int, tuple[int, int]]] = field(default_factory=lambda: defaultdict(dict))
    #: route changes at or after t0 (DSDV should be frozen by then)
    late_route_changes: int = 0
    #: time of the last route change
    last_route_change: float = 0.0
    #: data packets (not routing messages) dropped at the MAC retry limit after t0: AODV's link breaks
    route_breaks: int = 0
    #: TCP packets dropped at wired links' queues after t0 (hybrid scenarios)
    wired_drops: int = 0


def _node(tok: str) -> int:
    return int(tok.strip("_"))


def parse_trace(lines: Iterable[str], t0: float, ids: Mapping[int, int] | None = None,
                addrs: Mapping[int, int] | None = None) -> TraceSummary:
    """Drops by node, cause and packet kind, and DSDV's routes, from a CMU trace.

    A packet dropped at the retry limit is traced as (RTS limit) ``MAC RET`` of the RTS,
    then ``RTR CBK`` lines for the copy the MAC hands to the routing agent's failure
    callback and (AODV) for every queued packet flushed for the broken link, then ``MAC
    RET`` of the packet itself (mac-802_11.cc, RetransmitRTS/RetransmitDATA).

    ``ids`` and ``addrs`` translate ns-2's node ids and addresses to hoptcp's node ids
    (hybrid scenarios; None: they are the same)."""
    s = TraceSummary()

    def node_of(tok: str) -> int:
        n = _node(tok)
        return ids.get(n, n) if ids is not None else n

    def at(tok: str) -> int:
        a = int(tok)
        return addrs.get(a, a) if addrs is not None else a

    pending_rts: tuple[float, int] | None = None  # an RTS just dropped at the retry limit
    callbacks: list[tuple[float, int, str, str]] = []  # CBK lines waiting for the RET they precede

    def settle(ret: tuple[float, int, str] | None) -> None:
        for t, node, uid, kind in callbacks:
            if ret != (t, node, uid) and t >= t0:
                s.drops[(node, "link_failure_flush", kind)] += 1
        callbacks.clear()

    for line in lines:
        if line.startswith("D "):
            parts = line.split()
            if len(parts) < 8:
                continue
            t, node, layer, reason = float(parts[1]), node_of(parts[2]), parts[3], parts[4]
            uid, ptype = parts[5], parts[6]
            if layer == "MAC" and reason == "RET" and ptype == "RTS":
                # ns-2 drops the RTS, then the packet it was for (RetransmitRTS): a short-retry drop.
                pending_rts = (t, node)
                continue
            kind = DATA_KINDS.get(ptype) or ROUTING_KINDS.get(ptype)
            if kind is None:
                continue
            if layer == "RTR" and reason == "CBK":
                callbacks.append((t, node, uid, kind))
                continue
            is_ret = layer == "MAC" and reason == "RET"
            if callbacks:
                settle((t, node, uid) if is_ret else None)
            if t < t0:
                continue
            if is_ret:
                cause = "mac_rts_retry" if pending_rts == (t, node) else "mac_data_retry"
                pending_rts = None
                if kind in DATA_KINDS.values():
                    s.route_breaks += 1
            elif layer == "IFQ" and reason == "ARP":
                s.arp_drops += 1
                continue
            elif layer == "IFQ" and reason == "LDM":
                cause = "ldm"  # picked by the ldm port's queue, not ECN-capable (or action drop)
            elif layer == "IFQ" and reason == "LRD":
                cause = "link_red"  # Link RED at the lred-pacing port's PriQueue (not ECN-capable, or action drop)
            elif layer == "IFQ":
                cause = "queue_overflow"  # PriQueue drop-tail overflow (traced as "---" or "IFQ")
            elif layer == "RTR" and reason in RTR_CAUSES:
                cause = RTR_CAUSES[reason]
            else:
                continue  # collisions, errors, duplicates: not packet losses
            s.drops[(node, cause, kind)] += 1
        elif line.startswith("VWST "):
            parts = line.split()
            # VWST <t> frm <node> to <dst> wst <w> nxthp <hop> [of <metric>]
            t, node, dst, hop = float(parts[1]), at(parts[3]), at(parts[5]), at(parts[9])
            metric = int(parts[11].rstrip("]"))
            s.routes[node][dst] = (hop if metric > 1 else dst, metric)
            s.last_route_change = max(s.last_route_change, t)
            if t >= t0:
                s.late_route_changes += 1
        elif line.startswith("d "):
            parts = line.split()
            if len(parts) > 4 and parts[4] in ("tcp", "ack") and float(parts[1]) >= t0:
                s.wired_drops += 1
    settle(None)
    return s


def route_of(routes: Mapping[int, Mapping[int, tuple[int, int]]], src: int, dst: int, limit: int = 64) -> list[int]:
    """The path DSDV's tables give from ``src`` to ``dst`` (stops at a missing or infinite route)."""
    path = [src]
    while path[-1] != dst and len(path) <= limit:
        hop = routes.get(path[-1], {}).get(dst)
        if hop is None or hop[1] >= DSDV_INFINITY:
            break
        path.append(hop[0])
    return path


def check_routes(summary: TraceSummary, flows: Sequence[Mapping[str, Any]], n_wireless: int | None = None
                 ) -> list[str]:
    """Differences between hoptcp's routes and those DSDV froze (empty when all match).

    TCP flows are checked both ways (ACKs take the reverse path in hoptcp). With
    ``n_wireless`` (hybrid scenarios) only the wireless part of a path is DSDV's: the
    mobile nodes reach wired destinations through the base station."""
    problems = []
    if summary.late_route_changes:
        problems.append(f"DSDV changed {summary.late_route_changes} routes after the flows started")
    for f in flows:
        path = [v for v in f["path"] if n_wireless is None or v < n_wireless]
        if len(path) < 2:
            continue
        ways = [("data", path)] + ([("ACK", path[::-1])] if f["transport"] == "tcp" else [])
        for what, want in ways:
            got = route_of(summary.routes, want[0], want[-1])
            if got != want:
                problems.append(f"flow {f['id']} {what} route: ns-2 {'-'.join(map(str, got))}, "
                                f"hoptcp {'-'.join(map(str, want))}")
    return problems


def routing_sends(lines: Iterable[str], t0: float) -> int:
    """Routing packets (AODV's RREQ, RREP, RERR) the routing agents sent from ns-2 time ``t0`` on,
    forwarded ones included, from a trace written with ``-routerTrace ON``: the ``s`` (own)
    and ``f`` (forwarded) lines at the ``RTR`` layer, one per transmission a node's routing
    agent hands down (cmu-trace.cc). Counts what hoptcp counts as ``rreq_sent`` +
    ``rreq_forwarded`` + ``rrep_sent`` + ``rrep_forwarded`` + ``rerr_sent`` + ``rerr_forwarded``."""
    n = 0
    for line in lines:
        if line[:2] not in ("s ", "f "):
            continue
        parts = line.split(None, 7)
        if len(parts) > 6 and parts[3] == "RTR" and parts[6] in ROUTING_KINDS and float(parts[1]) >= t0:
            n += 1
    return n


def parse_stats(lines: Iterable[str]) -> dict[int, dict[str, float]]:
    """The counters the script recorded: stats[flow][what] = value."""
    out: dict[int, dict[str, float]] = defaultdict(dict)
    for line in lines:
        parts = line.split()
        if len(parts) == 3:
            out[int(parts[0])][parts[1]] = float(parts[2])
    return out


CwndKey = tuple[int, int, int, int]


def parse_cwnd(lines: Iterable[str], addrs: Mapping[int, int] | None = None
               ) -> dict[CwndKey, list[tuple[float, float]]]:
    """cwnd_ changes per TCP agent, keyed by (src node, src port, dst node, dst port)."""
    out: dict[CwndKey, list[tuple[float, float]]] = defaultdict(list)

    def at(tok: str) -> int:
        a = int(tok)
        return addrs.get(a, a) if addrs is not None else a

    for line in lines:
        parts = line.split()
        if len(parts) == 7 and parts[5] == "cwnd_":
            key = (at(parts[1]), int(parts[2]), at(parts[3]), int(parts[4]))
            out[key].append((float(parts[0]), float(parts[6])))
    return out


def sack1_recoveries(changes: Sequence[tuple[float, float]], start: float) -> tuple[int, int]:
    """Agent/TCP/Sack1's fast recoveries from its cwnd_ trace after ``start``: (begun, completed).

    Sack1 halves cwnd_ when a recovery begins (``slowdown``) and leaves it alone until the
    recovery ends: by the ACK of the recovery point, after which the next ACK opens cwnd_
    (the next change is an increase), or by a timeout (the next change is cwnd_ = 1). So a
    recovery is a fall to a value above one, completed when the next change is a rise."""
    begun = completed = 0
    prev_v = changes[0][1] if changes else 0.0
    for k in range(1, len(changes)):
        t, v = changes[k]
        if t > start and 1.0 < v < prev_v:
            begun += 1
            if k + 1 < len(changes) and changes[k + 1][1] > v:
                completed += 1
        prev_v = v
    return begun, completed


def time_average(changes: Sequence[tuple[float, float]], start: float, end: float, cap: float) -> float:
    """Time-weighted mean of min(value, cap) over [start, end] of a piecewise-constant series."""
    if end <= start or not changes:
        return math.nan
    total = 0.0
    value = changes[0][1]
    last = start
    for t, v in changes:
        if t > start:
            t = min(t, end)
            total += min(value, cap) * (t - last)
            last = t
            if t >= end:
                break
        value = v
    if last < end:
        total += min(value, cap) * (end - last)
    return total / (end - start)


def interval_goodput(st: Mapping[str, float], flow: Mapping[str, Any], interval: float) -> list[float]:
    """hoptcp's per-interval goodput (bit/s) of a flow from the sink's counter at every boundary
    (``s<k>``: bytes in order for TCP, whole packets of ``ns2_packet_bytes``; packets for UDP)."""
    ks = sorted(int(k[1:]) for k in st if k[:1] == "s" and k[1:].isdigit())
    if not ks:
        return []
    size = int(flow["ns2_packet_bytes"]) if flow["transport"] == "tcp" else 1
    counts = [int(st[f"s{k}"]) // size for k in range(ks[-1] + 1) if f"s{k}" in st]
    return [(b - a) * float(flow["payload_bytes"]) * 8 / interval for a, b in zip(counts, counts[1:])]


def report(meta: Mapping[str, Any], trace: TraceSummary, stats: Mapping[int, Mapping[str, float]],
           cwnd: Mapping[CwndKey, Sequence[tuple[float, float]]], seed: int) -> dict[str, Any]:
    """An ns-2 run as a report with hoptcp's keys (only those ns-2 gives)."""
    t0, duration, n = float(meta["t0"]), float(meta["duration_s"]), int(meta["n_nodes"])
    warmup = float(meta.get("warmup_s", 0.0))
    flows = []
    # The cwnd trace names agents by (node, port); ports are given in creation order, which
    # is flow order: the k-th agent from src to dst is the k-th flow between them.
    agents: dict[tuple[int, int], list[CwndKey]] = defaultdict(list)
    for key in sorted(cwnd, key=lambda k: (k[0], k[2], k[1])):
        agents[(key[0], key[2])].append(key)
    used: dict[tuple[int, int], int] = defaultdict(int)
    for f in meta["flows"]:
        st = stats.get(f["id"], {})
        start = max(float(f["start_s"]), warmup)
        stop = min(float(f["stop_s"]), duration)
        secs = max(stop - start, 0.0)
        if f["transport"] == "tcp":
            # The sink's in-order bytes: whole data packets (the 40-byte setup segment is a remainder).
            size = int(f["ns2_packet_bytes"])
            delivered = int(st.get("to", 0)) // size - int(st.get("from", 0)) // size
        else:  # packets the LossMonitor received
            delivered = int(st.get("to", 0) - st.get("from", 0))
        rec: dict[str, Any] = {
            "id": f["id"], "src": f["src"], "dst": f["dst"], "transport": f["transport"], "app": f["app"],
            "hops": len(f["path"]) - 1,
            "goodput_bps": delivered * f["payload_bytes"] * 8 / secs if secs > 0 else 0.0,
        }
        if f["transport"] == "tcp":
            pair = (int(f["src"]), int(f["dst"]))
            keys = agents.get(pair, [])
            k = used[pair]
            used[pair] += 1
            changes = cwnd.get(keys[k], []) if k < len(keys) else []
            rec.update({
                "avg_cwnd_traced": time_average(changes, t0 + float(f["start_s"]), t0 + duration,
                                                float(f["max_window"])),
                "final_cwnd": st.get("cwnd_", math.nan),
                "retransmissions": int(st.get("nrexmitpack_", 0)),
                "timeouts": int(st.get("nrexmit_", 0)),
                "packets_sent": int(st.get("ndatapack_", 0)),
            })
            if f.get("sack"):
                begun, done = sack1_recoveries(changes, t0 + float(f["start_s"]))
                rec["sack"] = {"recoveries": begun, "recoveries_completed": done}
        flows.append(rec)
    totals = {c: 0 for c in DROP_CAUSES}
    kinds = ("udp", "tcp_data", "tcp_ack") + (("aodv",) if meta.get("routing") == "aodv" else ())
    by_kind = {k: {c: 0 for c in DROP_CAUSES} for k in kinds}
    per_node = [{c: 0 for c in DROP_CAUSES} for _ in range(n)]
    for (node, cause, kind), count in trace.drops.items():
        totals[cause] += count
        by_kind.setdefault(kind, {c: 0 for c in DROP_CAUSES})[cause] += count
        if 0 <= node < n:
            per_node[node][cause] += count
    drops: dict[str, Any] = dict(totals)
    drops["total"] = sum(totals.values())
    drops["by_kind"] = by_kind
    nodes = [{"id": i, "drops_rts_retry": d["mac_rts_retry"], "drops_data_retry": d["mac_data_retry"],
              "mac_drops": d["mac_rts_retry"] + d["mac_data_retry"], "drops": d} for i, d in enumerate(per_node)]
    series = None
    iv = meta.get("series_interval_s")
    if iv:
        series = {"interval_s": float(iv), "flows": {str(f["id"]): interval_goodput(stats.get(f["id"], {}), f, float(iv))
                                                      for f in meta["flows"]}}
    goodputs = [f["goodput_bps"] for f in flows]
    sq = sum(g * g for g in goodputs)
    routing = ({"routing": {"protocol": "aodv", "route_breaks": trace.route_breaks}}
               if meta.get("routing") == "aodv" else {})
    return {
        "simulator": "ns-2.35",
        "seed": seed,
        "duration_s": duration,
        "flows": flows,
        "nodes": nodes,
        "drops": drops,
        "fairness_jain": (sum(goodputs) ** 2 / (len(goodputs) * sq)) if sq > 0 else None,
        "aggregate_goodput_bps": sum(goodputs),
        **routing,
        **({"wired": {"link_drops": trace.wired_drops}} if meta.get("gateway") is not None else {}),
        **({"series": series} if series is not None else {}),
        "ns2": {"arp_drops": trace.arp_drops, "late_route_changes": trace.late_route_changes,
                "last_route_change_s": trace.last_route_change - t0},
    }


def node_maps(recorded: Mapping[str, float]) -> tuple[dict[int, int] | None, dict[int, int] | None]:
    """ns-2 id -> hoptcp node and ns-2 address -> hoptcp node, from the ``-2 id.<i>`` and
    ``-2 addr.<i>`` lines a hybrid script records (None, None without them)."""
    ids = {int(v): int(k[3:]) for k, v in recorded.items() if k.startswith("id.")}
    addrs = {int(v): int(k[5:]) for k, v in recorded.items() if k.startswith("addr.")}
    return (ids or None), (addrs or None)


def read_run(out: Path, meta: Mapping[str, Any], seed: int) -> tuple[dict[str, Any], list[str]]:
    """Parse the files an exported script wrote with prefix ``out``: (report, route problems)."""
    t0 = float(meta["t0"])
    with open(f"{out}.stats", encoding="utf-8") as fh:
        stats = parse_stats(fh)
    ids, addrs = node_maps(stats.get(-2, {}))
    with open(f"{out}.tr", encoding="utf-8", errors="replace") as fh:
        tr = parse_trace(fh, t0, ids, addrs)
    with open(f"{out}.cwnd", encoding="utf-8") as fh:
        cwnd = parse_cwnd(fh, addrs)
    hybrid = meta.get("gateway") is not None
    problems = (check_routes(tr, meta["flows"], int(meta["n_nodes"]) if hybrid else None)
                if meta.get("routing") == "static" else [])
    if meta.get("static_routes") == "agent":  # Agent/StaticRoute: the routes the agents held at t0
        from .port_static_routes import check_routes as check_agent_routes
        problems = check_agent_routes(stats.get(-3, {}), meta["flows"])
    rep = report(meta, tr, stats, cwnd, seed)
    from .port_lred_pacing import STATS_ID, add_counters  # Link RED / pacing counters (lred-pacing port)
    add_counters(rep, stats.get(STATS_ID, {}))
    from .port_tcp_gap import STATS_ID as GAP_ID  # TCP-GAP gateway counters (tcp-gap port)
    from .port_tcp_gap import add_gateway
    if GAP_ID in stats:
        add_gateway(rep, stats[GAP_ID])
    from .port_ldm import STATS_ID as LDM_ID  # LDM counters, RTT samples (ldm port)
    from .port_ldm import add_counters as add_ldm
    if LDM_ID in stats:
        add_ldm(rep, stats[LDM_ID], f"{out}.cwnd")
    from .port_aodv_bs import add_http  # HTTP page lines (aodv-bs port)
    add_http(rep, f"{out}.stats", meta, stats)
    unsettled = stats.get(-1, {}).get("unsettled")
    if unsettled:
        # The script stopped before the flows: DSDV still changed routes in the last seconds.
        problems.insert(0, f"DSDV had not settled before the flows ({unsettled:.0f} route changes in the last "
                           "seconds of the warm-up): the scenario cannot be expressed")
        for f in rep["flows"]:
            f["goodput_bps"] = math.nan
        rep["aggregate_goodput_bps"] = math.nan
        rep["fairness_jain"] = None
    return rep, problems
