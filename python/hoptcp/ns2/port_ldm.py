"""Low Delay Marking in exported ns-2.35 scripts: ns-2.35 built with the ``ldm`` port
(``ns2/ports/ldm``: the interface queue ``Queue/DropTail/PriQueue/LDM``, see its INTERFACE.md
and CHOICES.md; issue #38).

hoptcp's ``[ip.ldm]`` maps onto the port's class variables and commands:

==============================================  =============================================
hoptcp                                          ns-2.35
==============================================  =============================================
``enabled``                                     ``-ifqType Queue/DropTail/PriQueue/LDM``
``estimate`` estimated / oracle                 ``oracle_`` 0 / 1; oracle: every node's
                                                ``oracle_flows_`` (planned flows whose path
                                                includes it) and ``ldm-oracle-hops SRC DST H``
                                                (each flow's planned path length)
``k``, ``hops_per_window``                      ``k_``, ``hops_per_win_``
``min_window``, ``floor_window``                ``min_win_``, ``floor_win_`` (``wmin_rule_`` 0)
``target_window`` (unset: w_opt)                ``target_win_`` (0: w_opt)
``flow_bits``, ``clear_period_s``               ``bits_``, ``clear_period_``
``initial_ttls``                                ``ldm-initial-ttls T1 T2 ...`` per queue (AODV:
                                                both simulators stamp 30); static routes: see
                                                :func:`ttl_lines`
``action`` mark / mark_ect_only / drop          ``action_`` 1 / 0 / 2
==============================================  =============================================

The port's other readings keep their defaults, which are hoptcp's: ``flow_key_`` 0 (a
connection sets one bit whichever way its packet goes), ``eq4_`` 0 (the consistent Eq. (4)),
``policy_`` 0 (every forwarder marks). The hash differs (the port: FNV-1a + MurmurHash3's
finaliser; hoptcp: SplitMix64), so flows that collide in one simulator need not collide in the
other; and the port keeps flow records per connection (cleared with their bit), hoptcp per bit.

The script stops on a binary without the port with one line; it traces every TCP sender's
``rtt_`` (ns-2's RTT samples, whole ``tcpTick_`` ticks, traced in seconds) into the cwnd file and records every
node's counters at the end (stats lines ``-38 <node>.<name> <value>``), which
:func:`add_counters` puts into the report with hoptcp's names (``ldm_packets``,
``ldm_marks``, ``ldm_drops`` per node; ``avg_rtt_s`` and ``rtt_samples`` per TCP flow).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, Mapping, Sequence

#: the port's queue class
QUEUE_CLASS = "Queue/DropTail/PriQueue/LDM"
#: the first line of a script that needs the port: one clear line on a stock ns-2.35
GUARD = (f'if {{[catch {{{QUEUE_CLASS} info class}}]}} {{puts stderr "needs ns-2.35 built with hoptcp\'s ports '
         f'(hoptcp ns2 build --with-ports ldm): no class {QUEUE_CLASS}"; exit 1}}')
#: the stats-file id of the port's counters (issue #38)
STATS_ID = -38
#: ns-2.35's initial TTL of packets a node originates: AODV's NETWORK_DIAMETER (aodv.cc recv),
#: DSDV's and Agent/StaticRoute's IP_DEF_TTL
NS2_TTL = {"aodv": 30, "static": 32}
ACTION = {"mark_ect_only": 0, "mark": 1, "drop": 2}
ESTIMATE = {"estimated": 0, "oracle": 1}
#: hoptcp's defaults (docs/scenario-reference.md), for keys the resolved scenario leaves out
DEFAULTS: dict[str, Any] = {"estimate": "estimated", "k": 0.76, "hops_per_window": 4.0, "min_window": 1.0,
                            "floor_window": 2.0, "target_window": None, "flow_bits": 64, "clear_period_s": 4.0,
                            "initial_ttls": [30, 64, 128, 255], "action": "mark"}
#: the port's bits_ limit (ldm.h's LDM_MAX_BITS)
MAX_BITS = 65536
#: the port's counter -> hoptcp's node metric
COUNTERS = {"data_pkts_": "ldm_packets", "marks_": "ldm_marks", "drops_": "ldm_drops"}
#: the port's counters the script records per node (the others for reading by hand)
RECORDED = ("pkts_", "data_pkts_", "ect_pkts_", "decisions_", "marks_", "ce_new_", "drops_", "mean_hops_",
            "mean_flows_", "mean_pnode_")


def _unsupported(msg: str) -> Exception:
    from .exporter import Ns2Unsupported

    return Ns2Unsupported(msg)


def settings(sc: Mapping[str, Any]) -> dict[str, Any] | None:
    """The resolved ``[ip.ldm]`` with hoptcp's defaults filled in, or None when LDM is off."""
    ldm = (sc.get("ip") or {}).get("ldm") or {}
    if not ldm.get("enabled"):
        return None
    return {**DEFAULTS, **ldm}


def enabled(sc: Mapping[str, Any]) -> bool:
    """Whether the scenario uses LDM (and so needs the port)."""
    return settings(sc) is not None


def queue_class(sc: Mapping[str, Any], default: str) -> str:
    """The ``-ifqType`` of the scenario's nodes."""
    return QUEUE_CLASS if enabled(sc) else default


def _pick(table: Mapping[str, int], value: Any, key: str) -> int:
    if value not in table:
        raise _unsupported(f"ip.ldm.{key} = {value!r} cannot be exported: the ldm port has no such reading "
                           f"(allowed: {', '.join(table)})")
    return table[value]


def check(sc: Mapping[str, Any], flows: Sequence[Mapping[str, Any]]) -> None:
    """Refuse, with one line, a setting the port cannot express."""
    class_lines(sc)
    ttl_lines(sc, flows)


def class_lines(sc: Mapping[str, Any]) -> list[str]:
    """``Queue/DropTail/PriQueue/LDM`` class settings for the resolved ``[ip.ldm]`` (before the nodes)."""
    s = settings(sc)
    if s is None:
        return []
    if sc.get("wired") is not None:
        raise _unsupported("ip.ldm.enabled = true cannot be exported with [wired]: the ldm port's oracle and flow "
                           "records take ns-2's flat node addresses (allowed: without [wired])")
    unknown = set(s) - set(DEFAULTS) - {"enabled"}
    if unknown:
        raise _unsupported(f"ip.ldm.{sorted(unknown)[0]} cannot be exported: the ldm port does not know this key")
    bits = int(s["flow_bits"])
    if not 1 <= bits <= MAX_BITS:
        raise _unsupported(f"ip.ldm.flow_bits = {bits} cannot be exported: the ldm port keeps 1..{MAX_BITS} bits")
    target = s.get("target_window")
    q = QUEUE_CLASS
    return [
        "# --- Low Delay Marking (Lee et al.): the ldm port's interface queue (ns2/ports/ldm)",
        f"{q} set ldm_ 1",
        f"{q} set oracle_ {_pick(ESTIMATE, s['estimate'], 'estimate')} ;# estimate = {s['estimate']}",
        f"{q} set k_ {float(s['k'])!r}",
        f"{q} set hops_per_win_ {float(s['hops_per_window'])!r}",
        f"{q} set wmin_rule_ 0 ;# a w_opt <= min_win_ is replaced by floor_win_",
        f"{q} set min_win_ {float(s['min_window'])!r}",
        f"{q} set floor_win_ {float(s['floor_window'])!r}",
        f"{q} set target_win_ {repr(float(target)) if target is not None else 0} ;# 0: w_opt",
        f"{q} set bits_ {bits}",
        f"{q} set clear_period_ {float(s['clear_period_s'])!r}",
        f"{q} set action_ {_pick(ACTION, s['action'], 'action')} ;# action = {s['action']}",
        f"{q} set flow_key_ 0 ;# a connection sets one bit, whichever way its packet goes",
        f"{q} set eq4_ 0 ;# p_node = 1 - (1 - p_mark)^(1/(h-1))",
        f"{q} set policy_ 0 ;# every forwarder marks",
        "",
    ]


def ttl_lines(sc: Mapping[str, Any], flows: Sequence[Mapping[str, Any]]) -> list[str]:
    """How every LDM queue infers a packet's initial TTL, as a Tcl proc ``ldm-ttls Q`` run per node.

    AODV: both simulators stamp 30 on every packet a node originates, so the conventions are
    hoptcp's list. Static routes: ns-2.35's DSDV and Agent/StaticRoute stamp 32, hoptcp
    ``ip.ttl``; hoptcp's estimate is exact when ``ip.ttl`` is a convention and no smaller
    convention is reached on the longest path, and then the port is given 32 alone (exact too);
    any other case is refused."""
    s = settings(sc)
    if s is None:
        return []
    ttls = [int(t) for t in s["initial_ttls"]]
    protocol = sc["routing"]["protocol"]
    if protocol == "aodv":
        diameter = int((sc["routing"].get("aodv") or {}).get("network_diameter", NS2_TTL["aodv"]))
        if diameter != NS2_TTL["aodv"]:
            raise _unsupported(f"routing.aodv.network_diameter = {diameter} cannot be exported with LDM: ns-2.35's "
                               "AODV stamps 30 on the packets it originates (allowed: 30)")
        body = "ldm-initial-ttls " + " ".join(str(t) for t in ttls)
        why = "AODV: both simulators' packets start at 30; hoptcp's conventions"
    elif protocol == "static":
        start = int((sc.get("ip") or {}).get("ttl", 64))
        longest = max((len(f["path"]) - 1 for f in flows), default=0)
        lower = [t for t in ttls if t < start]
        if start not in ttls or (lower and max(lower) >= start - longest):
            raise _unsupported(f"ip.ldm.initial_ttls = {ttls} cannot be exported with ip.ttl = {start} and static "
                               f"routes: ns-2.35's packets start at {NS2_TTL['static']}, and hoptcp's hop estimate "
                               f"is exact only when ip.ttl is a convention no smaller one undercuts within "
                               f"{longest} hops")
        body = "ldm-initial-ttls " + str(NS2_TTL["static"])
        why = f"static routes: ns-2's packets start at {NS2_TTL['static']}, hoptcp's at ip.ttl = {start} (both exact)"
    else:
        raise _unsupported(f"routing.protocol = \"{protocol}\" cannot be exported with LDM (allowed: aodv, static)")
    return [f"# initial TTL conventions of LDM's hop estimate ({why})",
            f"proc ldm-ttls {{q}} {{ $q {body} }}"]


def node_lines(sc: Mapping[str, Any], flows: Sequence[Mapping[str, Any]], n_nodes: int) -> list[str]:
    """After the nodes: every LDM queue's TTL conventions and, for the oracle, the true counts."""
    s = settings(sc)
    if s is None:
        return []
    out = ttl_lines(sc, flows)
    out.append(f"for {{set i 0}} {{$i < {n_nodes}}} {{incr i}} {{ ldm-ttls [$node_($i) set ifq_(0)] }}")
    if s["estimate"] == "oracle":
        out.append("# the oracle: n = planned flows whose path includes the node, h = each flow's path length")
        count: dict[int, int] = defaultdict(int)
        hops: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
        for f in flows:
            path = [int(x) for x in f["path"]]
            for node in path:
                count[node] += 1
            for node in path[1:-1]:
                hops[node].append((int(f["src"]), int(f["dst"]), len(path) - 1))
        for node in sorted(count):
            out.append(f"[$node_({node}) set ifq_(0)] set oracle_flows_ {count[node]}")
            for src, dst, h in sorted(set(hops[node])):
                out.append(f"[$node_({node}) set ifq_(0)] ldm-oracle-hops {src} {dst} {h}")
    out.append("")
    return out


def flow_lines(flows: Sequence[Any]) -> list[str]:
    """Trace every TCP sender's RTT samples (``rtt_``) into the cwnd file (TcpAgent::traceVar
    writes them in seconds: ticks times ``tcpTick_``)."""
    tcp = [fm for fm in flows if fm.transport == "tcp"]
    if not tcp:
        return []
    out = ["# LDM's comparisons need RTT: every TCP sender's RTT samples (rtt_, traced in seconds)"]
    out += [f"$src({fm.id}) trace rtt_" for fm in tcp]
    return out


def finish_lines() -> list[str]:
    """Lines for the script's ``finish`` proc: every node's counters into the stats file."""
    names = " ".join(RECORDED)
    return [
        "    global node_ opt",
        "    for {set i 0} {$i < $opt(nn)} {incr i} {",
        "        set q [$node_($i) set ifq_(0)]",
        f"        foreach k {{{names}}} {{ puts $statsfd \"{STATS_ID} $i.$k [$q set $k]\" }}",
        "    }",
    ]


def add_counters(rep: dict[str, Any], recorded: Mapping[str, float], cwnd_file: str | Path | None = None) -> None:
    """Put the recorded counters (``<node>.<name>`` -> value) into ``rep["nodes"]`` with hoptcp's
    names (the rest as ``ldm.<name>``), and the RTT samples of ``cwnd_file`` into ``rep["flows"]``."""
    if not recorded:
        return
    nodes = {int(n["id"]): n for n in rep.get("nodes", [])}
    for key, value in recorded.items():
        node, _, name = key.partition(".")
        if not name or not node.lstrip("-").isdigit() or int(node) not in nodes:
            continue
        v = float(value)
        if name in COUNTERS:
            nodes[int(node)][COUNTERS[name]] = int(v)
        else:
            nodes[int(node)][f"ldm.{name.rstrip('_')}"] = v
    if cwnd_file is not None and Path(cwnd_file).is_file():
        with open(cwnd_file, encoding="utf-8") as fh:
            add_rtt(rep, fh)


def add_rtt(rep: dict[str, Any], lines: Any) -> None:
    """``avg_rtt_s`` and ``rtt_samples`` of every TCP flow from the traced ``rtt_`` samples.

    Trace lines: ``time src sport dst dport rtt_ seconds`` (0 before the first sample). Agents are matched to flows as the
    report matches the cwnd trace: the k-th agent (by port) from src to dst is the k-th flow."""
    samples: dict[tuple[int, int, int, int], list[float]] = defaultdict(list)
    for line in lines:
        parts = line.split()
        if len(parts) == 7 and parts[5] in ("rtt_", "cwnd_"):
            key = (int(parts[1]), int(parts[2]), int(parts[3]), int(parts[4]))
            got = samples[key]  # every traced agent, sampled or not
            v = float(parts[6])
            if parts[5] == "rtt_" and v > 0:  # rtt_update() makes every sample at least one tick
                got.append(v)
    agents: dict[tuple[int, int], list[tuple[int, int, int, int]]] = defaultdict(list)
    for key in sorted(samples, key=lambda k: (k[0], k[2], k[1])):
        agents[(key[0], key[2])].append(key)
    used: dict[tuple[int, int], int] = defaultdict(int)
    for f in rep.get("flows", []):
        if f.get("transport") != "tcp":
            continue
        pair = (int(f["src"]), int(f["dst"]))
        k = used[pair]
        used[pair] += 1
        keys = agents.get(pair, [])
        got = samples[keys[k]] if k < len(keys) else []
        f["rtt_samples"] = len(got)
        f["avg_rtt_s"] = sum(got) / len(got) if got else float("nan")
