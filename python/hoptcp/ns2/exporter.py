"""An ns-2.35 Tcl script equivalent to a resolved hoptcp scenario.

The script builds the same nodes, radio, 802.11 MAC, interface queues, TCP/UDP
agents and applications, and compensates for what ns-2.35 does differently
around them (each fact is commented in the generated script):

- ns-2.35 has no static routing agent for wireless nodes (``ManualRtgAgent`` is
  named in ns-lib.tcl but not compiled in). ``routing.protocol = "static"`` is
  expressed with DSDV converged and then frozen: its periodic update is pushed out
  of the run (10^6 s, so the neighbour timeout, three periods, never fires), new
  routes are advertised at once (``wst0_ 0``: triggered updates converge the
  table in about a second per hop) and MAC failures are not reported to it
  (``use_mac_ 0``). If a route still changes in the last seconds before the
  flows would start, the script stops there (DSDV has not settled: the scenario
  cannot be expressed). The routes DSDV froze are read back from its trace and
  checked against hoptcp's (:func:`hoptcp.ns2.trace.check_routes`): on chains and
  the cross they are hoptcp's shortest routes; on grids DSDV's triggered updates
  turn into sequence-number bumps that keep changing routes, so grids cannot be
  expressed. An ns-2.35 built with the ``static-routes`` port has
  ``Agent/StaticRoute`` (routes set per node, no control packets): where the ns
  binary has it, static routes are written from hoptcp's own paths instead, on
  every topology (:mod:`hoptcp.ns2.port_static_routes`; ``--static-routes``).
- DSDV adds a 20-byte IP header to every packet it originates, AODV to every
  non-TCP packet (aodv.cc ``recv``); TCP header and sink packet sizes and CBR
  sizes are reduced so that frames on the air have hoptcp's sizes.
- ``Agent/UDP``'s ``packetSize_`` (1000) splits larger CBR packets: it is set to
  the CBR packet size.
- ARP holds one packet per unresolved neighbour and drops the rest: every link a
  flow uses is resolved with a ping before the flows start.
- ``Agent/TCP``'s ``ssthresh_`` is set by ``reset()`` when the agent is created
  (to the class default ``window_`` of 20) and mobile nodes never reset their
  agents again, so a ``window_`` set afterwards leaves ssthresh at 20; the
  script sets ``ssthresh_`` to ``tcp.initial_ssthresh`` explicitly.

- ``[wired]`` scenarios use ns-2's wired-cum-wireless setup: hierarchical
  addresses (wireless nodes in domain 1, wired nodes in domain 0), the gateway a
  base station (``-wiredRouting ON``) that every mobile node names as its
  ``base-station``, and duplex DropTail links with the scenario's bandwidth, delay
  and queue limit. Only DSDV forwards to a base station in ns-2.35 (AODV has no
  such code): hybrid scenarios with ``routing.protocol = "aodv"`` need the aodv-bs
  port (``hoptcp.ns2.port_aodv_bs``), which also carries ``app = "http"``. Packets a
  wired node originates get no routing-agent IP header, so their header sizes are
  not reduced. Wired nodes (and the base station) reset their agents when the run starts,
  which sets ``ssthresh_`` to ``window_``: a wired sender's ``ssthresh_`` is set again at
  time 0. TCP-GAP's gateway (pacing, Goodput Control) is the tcp-gap port
  (``hoptcp.ns2.port_tcp_gap``).
- CUBIC with ``tcp.cubic.profile = "ns2_linux"`` is ``Agent/TCP/Linux`` with ``select_ca
  cubic`` (Linux 2.6.22's tcp_cubic.c) and a plain ``Agent/TCPSink`` (``TCPSink/DelAck``
  with delayed ACKs), timestamps off: what that profile models. The module is selected
  at time 0, after wired nodes' reset, with ``ssthresh_`` and ``cwnd_`` set just before:
  installing it copies them into the Linux state (later Tcl sets do not reach it) and
  sets ``tcp_tick_`` to 1 ms. RFC 9438's profile has no ns-2.35 counterpart.
- TCP-AP's ns-2-code variant (``tcp.ap.profile = "ns2"``) is the authors'
  ``Agent/TCP/Newreno/AP`` (tcp-ap.cc, MobiHoc 2005), which only a patched ns-2.35
  has (``hoptcp ns2 build``); its fixed choices (mean absolute deviation, the
  one-hop delay below ``n_factor_`` hops, 112 bytes of overhead, the free-running
  pace timer, no RTO back-off, the pacer flushed on a fast retransmission) are
  compiled in, so only the bound variables can differ from hoptcp's keys.
- ``tcp.sack = true`` (with ``tcp.sack_profile = "ns2_sack1"``, the profile that
  reproduces it) is ``Agent/TCP/Sack1`` with ``Agent/TCPSink/Sack1`` (``/DelAck`` with
  delayed ACKs): Sack1 is ns-2's SACK sender with NewReno-like growth, so variants
  ``newreno`` and ``reno`` map onto it; ns-2.35 has no SACK Vegas or SACK TCP-AP. The sink
  adds 8 bytes per SACK block to its ACKs, as hoptcp's ``ns2_sack1`` profile does. A CUBIC
  (``ns2_linux``) flow with ``tcp.sack`` stays ``Agent/TCP/Linux``, now behind
  ``Agent/TCPSink/Sack1``: TCP-Linux's own scoreboard recovers from the SACK blocks, as
  hoptcp's profile does whatever ``tcp.sack_profile`` says; timestamps stay off.
  (:func:`tcp_agent_class` and :func:`tcp_sink_class` are where a variant's agent and sink
  are chosen.)

Scenario time 0 is ns-2 time ``t0`` (routing and ARP warm-up before it); the
parser subtracts it.
"""

from __future__ import annotations

import json
import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from .. import _bridge
from ..errors import ScenarioError
from ..scenario import Scenario
from . import port_aodv_bs as _bs
from . import port_ldm as _ldm
from . import port_lred_pacing as _lp
from . import port_static_routes as _sr
from . import port_tcp_gap as _gap

SPEED_OF_LIGHT = 3.0e8  # ns-2's, for wavelengths (hoptcp uses the same)
#: ns-2 time between the ARP warm-up pings of successive links
PING_SPACING_S = 0.02
#: DSDV's "never again" period (s): periodic updates and neighbour timeouts
DSDV_FROZEN_PERIOD_S = 1e6
#: seconds before the ARP pings in which DSDV must not change a route any more
DSDV_SETTLE_S = 5.0
#: the IP header DSDV/AODV add to packets they originate (aodv.cc, dsdv.cc: IP_HDR_LEN)
IP_HDR_LEN = 20
#: hoptcp's TCP/IP header on data and ACK segments, and its UDP/IP header
TCP_HEADER_BYTES = 40
UDP_HEADER_BYTES = 28
#: the authors' TCP-AP class (tcp-ap.cc), in ns-2.35 only when built with ``hoptcp ns2 build``
TCP_AP_CLASS = "Agent/TCP/Newreno/AP"
#: tcp.ap keys whose values tcp-ap.cc compiles in (its constructor, recv(), set_pace_timer(),
#: timeout() and output()): the ns-2-code variant's values are the only ones it can run
TCP_AP_FIXED: dict[str, Any] = {
    "variation": "mad",
    "short_path": "one_hop",
    "overhead_bytes": 112,
    "timer": "free_running",
    "timeout_backoff": False,
    "dupack_flush": True,
}
#: tcp-ap.h's MAXHISTORY and MAXPKTS2SEND (array sizes): history_ and the window stay below them
TCP_AP_MAX_HISTORY = 200
TCP_AP_MAX_QUEUED = 200


class Ns2Unsupported(ScenarioError):
    """The scenario uses something ns-2.35 cannot express; the message names the key."""


@dataclass(frozen=True)
class RoutingMap:
    """How one of hoptcp's routing protocols is expressed in ns-2.35."""

    adhoc_routing: str
    #: bytes the ns-2 routing agent adds to packets of each transport it originates
    added_bytes: dict[str, int]
    #: hoptcp's routes are fixed and must be checked against the ones ns-2 froze
    static: bool


ROUTING: dict[str, RoutingMap] = {
    "static": RoutingMap("DSDV", {"tcp": IP_HDR_LEN, "udp": IP_HDR_LEN, "ping": IP_HDR_LEN}, static=True),
    # ns-2.35 AODV adds the IP header to non-TCP packets only (aodv.cc, AODV::recv).
    "aodv": RoutingMap("AODV", {"tcp": 0, "udp": IP_HDR_LEN, "ping": IP_HDR_LEN}, static=False),
}

#: ns-2.35's AODV constants (aodv/aodv.h, aodv_rqueue.h, aodv.cc) under the key names of hoptcp's
#: ``[routing.aodv]`` table. They are compiled into ns-2, so a scenario can only be exported with
#: these values; a key the exporter does not know is refused rather than guessed.
NS2_AODV_CONSTANTS: dict[str, float | bool | str] = {
    "ttl_start": 5,
    "ttl_increment": 2,
    "ttl_threshold": 7,
    "network_diameter": 30,
    "rreq_retries": 3,
    "max_rreq_timeout_s": 10.0,
    "node_traversal_time_s": 0.03,
    "active_route_timeout_s": 10.0,
    "my_route_timeout_s": 10.0,
    "reverse_route_life_s": 6.0,
    "bcast_id_save_s": 6.0,
    "buffer_packets": 64,
    "buffer_timeout_s": 30.0,
    "broadcast_jitter_s": 0.01,
    "arp_delay_s": 0.01,
    "purge_interval_s": 0.5,
    "local_repair": True,
    "first_rreq_network_wide": True,
    # Debian's ns-2.35 is built with AODV_LINK_LAYER_DETECTION (aodv.h): no HELLOs.
    "link_detection": "mac",
    "hello_interval_s": 1.0,
    "allowed_hello_loss": 3,
}


#: the first line of a script for ns-2.35's AODV HELLO build: stock ns (link-layer detection) refuses it
AODV_HELLO_GUARD = ('if {[catch {Agent/AODV set hoptcp_hello_build_} hoptcp_hello] || $hoptcp_hello != 1} '
                    '{puts stderr "needs ns-2.35 with AODV\'s HELLO link detection (hoptcp ns2 build --aodv-hello): '
                    'this ns detects broken links from MAC feedback"; exit 1}')


@dataclass
class FlowMap:
    """One hoptcp flow and the ns-2 objects that carry it."""

    id: int
    transport: str
    app: str
    src: int
    dst: int
    path: list[int]
    start_s: float
    stop_s: float
    #: payload bytes per packet hoptcp counts as goodput
    payload_bytes: int
    #: bytes of one data packet as ns-2's receiving agent counts them (TCP sink ``bytes_``)
    ns2_packet_bytes: int
    max_window: int = 0
    #: the sender is Agent/TCP/Sack1 (the parser counts its recoveries from the cwnd_ trace)
    sack: bool = False


@dataclass
class Export:
    """An exported script and what the trace parser needs to read its output."""

    tcl: str
    #: ns-2 time of scenario time 0
    t0: float
    duration_s: float
    warmup_s: float
    n_nodes: int
    routing: str
    flows: list[FlowMap]
    #: caveats worth telling the user (e.g. shortest paths that are not unique)
    notes: list[str] = field(default_factory=list)
    #: hybrid scenarios: the gateway (base station) and the number of wired nodes (ids after the wireless ones)
    gateway: int | None = None
    wired_nodes: int = 0
    #: stats.throughput_interval_s: the script samples the sinks' counters this often
    series_interval_s: float | None = None
    #: static routes: "agent" (Agent/StaticRoute, ns2/ports/static-routes) or None (frozen DSDV)
    static_routes: str | None = None

    def meta(self) -> dict[str, Any]:
        """Everything but the script, as JSON-able data (stored beside ns-2 results)."""
        m = {"t0": self.t0, "duration_s": self.duration_s, "warmup_s": self.warmup_s,
             "n_nodes": self.n_nodes, "routing": self.routing, "notes": self.notes,
             "flows": [vars(f) for f in self.flows]}
        if self.gateway is not None:
            m.update(gateway=self.gateway, wired_nodes=self.wired_nodes)
        if self.series_interval_s is not None:
            m["series_interval_s"] = self.series_interval_s
        if self.static_routes is not None:
            m["static_routes"] = self.static_routes
        return m


# --- radio ----------------------------------------------------------------------------------

def two_ray_power(d: float, radio: dict[str, Any]) -> float:
    """Received power (W) at ``d`` m: ns-2's TwoRayGround (Friis below the crossover)."""
    pt, h, loss = radio["tx_power_w"], radio["antenna_height_m"], radio["system_loss"]
    lam = SPEED_OF_LIGHT / radio["frequency_hz"]
    if d <= 0:
        return float(pt)
    if d < 4 * math.pi * h * h / lam:
        return float(pt * lam * lam / ((4 * math.pi * d) ** 2 * loss))
    return float(pt * h ** 4 / (d ** 4 * loss))


def _g(x: float) -> str:
    """A float written so Tcl reads back exactly the same double."""
    return repr(float(x))


# --- what ns-2.35 cannot express ------------------------------------------------------------

def check_expressible(sc: dict[str, Any], flows: Sequence[dict[str, Any]], static_routes: str | None = None) -> None:
    """Raise :class:`Ns2Unsupported` naming the first key ns-2.35 cannot express."""
    radio, mac = sc["radio"], sc["mac"]
    wired = sc.get("wired")
    if wired is not None:
        if (wired.get("tcp_gap") or {}).get("enabled"):
            _gap.check(sc, flows)  # TCP-GAP's gateway: the tcp-gap port (ns2/ports/tcp-gap)
        if sc["routing"]["protocol"] not in ("static", "aodv"):  # aodv: the aodv-bs port (ns2/ports/aodv-bs)
            raise Ns2Unsupported(f"routing.protocol = \"{sc['routing']['protocol']}\" cannot be exported with [wired] "
                                 "(allowed with [wired]: \"static\", \"aodv\" with the aodv-bs port)")
    if radio["standard"] not in ("dsss", "ns2_g"):
        raise Ns2Unsupported(f"radio.standard = \"{radio['standard']}\" cannot be exported: ns-2.35's Mac/802_11 "
                             "times every frame with the DSSS PLCP and 802.11b's slot and SIFS (allowed: \"dsss\", "
                             "\"ns2_g\")")
    if mac["frame_format"] != "ns2":
        raise Ns2Unsupported(f"mac.frame_format = \"{mac['frame_format']}\" cannot be exported: ns-2.35 uses its "
                             "own frame sizes (allowed: \"ns2\")")
    protocol = sc["routing"]["protocol"]
    if protocol not in ROUTING:
        raise Ns2Unsupported(f"routing.protocol = \"{protocol}\" has no ns-2.35 counterpart here "
                             f"(allowed: {', '.join(ROUTING)})")
    if protocol == "aodv":
        for key, value in (sc["routing"].get("aodv") or {}).items():
            if key not in NS2_AODV_CONSTANTS:
                raise Ns2Unsupported(f"routing.aodv.{key} cannot be exported: the exporter does not know "
                                     "ns-2.35's value of this constant")
            if key == "link_detection" and value == "hello":
                continue  # ns-2.35's HELLO build (hoptcp ns2 build --aodv-hello): the script checks for it
            if value != NS2_AODV_CONSTANTS[key]:
                raise Ns2Unsupported(
                    f"routing.aodv.{key} = {json.dumps(value)} cannot be exported: ns-2.35 compiles its AODV "
                    f"constants in (allowed: {json.dumps(NS2_AODV_CONSTANTS[key])}, ns-2's value)")
    _lp.check(mac)  # Link RED and adaptive pacing: the lred-pacing port (ns2/ports/lred-pacing)
    _ldm.check(sc, flows)  # Low Delay Marking: the ldm port (ns2/ports/ldm)
    _bs.check(sc, flows)  # AODV to a base station, HTTP pages: the aodv-bs port (ns2/ports/aodv-bs)
    if sc["stats"].get("batches") is not None:
        raise Ns2Unsupported("stats.batches cannot be exported: the batch-means stop rule ends a run on delivered "
                             "packets, an exported run lasts duration_s (remove the key)")
    if sc["tcp"]["variant"] not in TCP_VARIANTS:
        raise Ns2Unsupported(f"tcp.variant = \"{sc['tcp']['variant']}\" cannot be exported: ns-2.35 has no such "
                             f"agent (allowed: {', '.join(map(json.dumps, TCP_VARIANTS))})")
    for f in flows:
        key = f"flows.{f['id']}"
        if f["transport"] == "tcp":
            check_sack(f["tcp"], sc["tcp"], key)
        if f["transport"] == "tcp" and f["tcp"]["variant"] not in TCP_VARIANTS:
            raise Ns2Unsupported(f"{key}.variant = \"{f['tcp']['variant']}\" cannot be exported: ns-2.35 has no "
                                 f"such agent (allowed: {', '.join(map(json.dumps, TCP_VARIANTS))})")
        if f["transport"] == "tcp" and f["tcp"]["variant"] == "tcp_ap":
            check_tcp_ap(f["tcp"], "tcp.ap")
        if f["transport"] == "tcp" and f["tcp"]["variant"] == "cubic" and cubic_profile(f["tcp"]) != "ns2_linux":
            raise Ns2Unsupported(f"tcp.cubic.profile = \"{cubic_profile(f['tcp'])}\" cannot be exported: ns-2.35's only "
                                 "CUBIC is TCP-Linux's Linux 2.6.22 module (allowed: \"ns2_linux\")")
        if f["app"] == "cbr" and f["jitter"] not in (0.0, 0.5):
            raise Ns2Unsupported(f"{key}.jitter = {f['jitter']:g} cannot be exported: ns-2's CBR only has "
                                 "random_ 0 or 1 (allowed: 0 or 0.5)")
        if f["transport"] == "tcp" and f["app"] not in ("ftp", "cbr", "http"):  # http: the aodv-bs port
            raise Ns2Unsupported(f"{key}.app = \"{f['app']}\" over TCP cannot be exported (allowed: \"ftp\", "
                                 "\"cbr\", \"http\")")
        if f["transport"] == "udp" and f["app"] != "cbr":
            raise Ns2Unsupported(f"{key}.app = \"{f['app']}\" over UDP cannot be exported (allowed: \"cbr\")")
        if len(f["path"]) - 1 >= 32:
            raise Ns2Unsupported(f"{key} crosses {len(f['path']) - 1} hops: ns-2.35's routing agents start "
                                 "packets with TTL 32 (allowed: at most 31 hops)")
    table = sc.get("flows") or []
    for i, fs in enumerate(table):
        if fs.get("pauses"):
            if fs.get("app", "ftp") != "ftp" or fs.get("transport", "tcp") != "tcp":
                raise Ns2Unsupported(f"flows.{i}.pauses cannot be exported: pauses are ns-2's $ftp stop / $ftp "
                                     "start (allowed on TCP flows with app = \"ftp\")")
            if len(table) != len(flows) or any(int(f.get("count", 1) or 1) != 1 for f in table):
                raise Ns2Unsupported(f"flows.{i}.pauses cannot be exported with flows.N.count: the exporter maps "
                                     "pauses to flows one to one (allowed: every count = 1)")
    if protocol == "static" and not _sr.use_agent(sc, static_routes):  # the agent carries any route
        for i, fs in enumerate(sc.get("flows") or []):
            if fs.get("route") is not None:
                raise Ns2Unsupported(f"flows.{i}.route cannot be exported: ns-2.35 has no static routing for "
                                     "wireless nodes, and DSDV chooses its own shortest paths (remove the key)")


#: hoptcp's TCP variants and the ns-2 agents that run them (tcp_ap: the authors' code)
TCP_VARIANTS: dict[str, str] = {"newreno": "Agent/TCP/Newreno", "reno": "Agent/TCP/Reno", "vegas": "Agent/TCP/Vegas",
                                "tcp_ap": TCP_AP_CLASS, "cubic": "Agent/TCP/Linux"}


def cubic_profile(tcp: dict[str, Any]) -> str:
    """A flow's ``tcp.cubic.profile`` (left out of the resolved scenario at its default)."""
    return str((tcp.get("cubic") or {}).get("profile", "rfc9438"))


#: the hoptcp variants ns-2.35's Agent/TCP/Sack1 stands for with tcp.sack (NewReno-like growth)
SACK_VARIANTS = ("newreno", "reno")


def _sack_on(t: Mapping[str, Any]) -> bool:
    return bool(t.get("sack", False))


def check_sack(t: Mapping[str, Any], tcp: Mapping[str, Any], key: str) -> None:
    """Raise :class:`Ns2Unsupported` unless ns-2.35's Sack1 (or, for CUBIC, TCP-Linux behind
    TCPSink/Sack1) can run this flow's SACK settings."""
    if not _sack_on(t) or t["variant"] == "cubic":  # TCP-Linux's own recovery, whatever sack_profile says
        return
    if t["variant"] not in SACK_VARIANTS:
        raise Ns2Unsupported(f"{key}.sack = true with variant \"{t['variant']}\" cannot be exported: ns-2.35's "
                             f"SACK senders are Agent/TCP/Sack1 and TCP-Linux (allowed with variant: "
                             f"{', '.join(map(json.dumps, (*SACK_VARIANTS, 'cubic')))})")
    profile = tcp.get("sack_profile", "rfc6675")
    if profile != "ns2_sack1":
        raise Ns2Unsupported(f"tcp.sack_profile = \"{profile}\" cannot be exported: ns-2.35's Agent/TCP/Sack1 is "
                             "what the \"ns2_sack1\" profile reproduces (allowed: \"ns2_sack1\")")


def tcp_agent_class(t: Mapping[str, Any]) -> str:
    """The ns-2.35 sender agent for a flow's resolved TCP settings."""
    if _sack_on(t) and t["variant"] != "cubic":  # TCP-Linux keeps its own SACK recovery
        return "Agent/TCP/Sack1"
    return TCP_VARIANTS[t["variant"]]


def tcp_sink_class(t: Mapping[str, Any]) -> str:
    """The ns-2.35 sink for a flow's resolved TCP settings."""
    base = "Agent/TCPSink/Sack1" if _sack_on(t) else "Agent/TCPSink"
    return f"{base}/DelAck" if t["delayed_ack"] else base


def check_tcp_ap(tcp: dict[str, Any], key: str) -> None:
    """Raise :class:`Ns2Unsupported` unless the authors' tcp-ap.cc can run this TCP-AP configuration."""
    ap = tcp["ap"]
    for name, value in TCP_AP_FIXED.items():
        if ap[name] != value:
            raise Ns2Unsupported(f"{key}.{name} = {json.dumps(ap[name])} cannot be exported: the authors' tcp-ap.cc "
                                 f"compiles in {json.dumps(value)} (allowed: {json.dumps(value)}, e.g. "
                                 f"{key}.profile = \"ns2\")")
    if not 1 <= int(ap["history"]) <= TCP_AP_MAX_HISTORY:
        raise Ns2Unsupported(f"{key}.history = {ap['history']} cannot be exported: tcp-ap.cc keeps at most "
                             f"MAXHISTORY = {TCP_AP_MAX_HISTORY} samples (allowed: 1..{TCP_AP_MAX_HISTORY})")
    if float(ap["delay_bound_s"]) <= 0:
        raise Ns2Unsupported(f"{key}.delay_bound_s = {ap['delay_bound_s']:g} cannot be exported: in tcp-ap.cc "
                             "delaybound_ is a bound every sample must stay below, not 'none' (allowed: > 0)")
    if float(ap["initial_interval_s"]) <= 0:
        raise Ns2Unsupported(f"{key}.initial_interval_s = {ap['initial_interval_s']:g} cannot be exported: "
                             "tcp-ap.cc's free-running pace timer starts with rate_interval_ (allowed: > 0)")
    if int(tcp["max_window"]) >= TCP_AP_MAX_QUEUED:
        raise Ns2Unsupported(f"tcp.max_window = {tcp['max_window']} cannot be exported with TCP-AP: tcp-ap.cc's pacer "
                             f"holds at most MAXPKTS2SEND = {TCP_AP_MAX_QUEUED} packets (allowed: below "
                             f"{TCP_AP_MAX_QUEUED})")


# --- topology helpers -----------------------------------------------------------------------

def hop_distances(links: Sequence[Sequence[int]], src: int) -> list[int]:
    dist = [-1] * len(links)
    dist[src] = 0
    q = deque([src])
    while q:
        u = q.popleft()
        for v in links[u]:
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                q.append(v)
    return dist


def unique_shortest_path(links: Sequence[Sequence[int]], path: Sequence[int]) -> bool:
    """True when ``path`` is the only shortest path between its ends (so DSDV must find it)."""
    n = len(links)
    ds, dt = hop_distances(links, path[0]), hop_distances(links, path[-1])
    h = len(path) - 1
    if ds[path[-1]] != h:
        return False
    # Count shortest paths with a DP over the BFS layers.
    count = [0] * n
    count[path[0]] = 1
    for layer in range(1, h + 1):
        for v in range(n):
            if ds[v] == layer and dt[v] == h - layer:
                count[v] = sum(count[u] for u in links[v] if ds[u] == layer - 1)
    return count[path[-1]] == 1


def wireless_part(path: Sequence[int], n_wireless: int) -> list[int]:
    """The wireless nodes of a path (a hybrid path's wired part hangs off the gateway at one end)."""
    return [v for v in path if v < n_wireless]


def _diameter_of(links: Sequence[Sequence[int]], nodes: Sequence[int]) -> int:
    return max((d for s in nodes for d in hop_distances(links, s)), default=0)


# --- the script -----------------------------------------------------------------------------

def export(scenario: Scenario, seed: int | None = None, *, name: str | None = None,
           new_trace: bool = False, static_routes: str | None = None, router_trace: bool = False) -> Export:
    """The ns-2.35 script for ``scenario`` with run seed ``seed`` (default: the scenario's).

    ``new_trace``: the trace file is in ns-2's new wireless format (``$ns use-newtrace``) and
    holds every agent, routing and MAC event (``-agentTrace ON -routerTrace ON -macTrace ON``),
    the trace ``hoptcp run --trace-ns2`` writes (see docs/viewer.md).

    ``router_trace``: the routing agents' sends and receptions are traced too (``-routerTrace
    ON``), so :func:`hoptcp.ns2.trace.routing_sends` can count the routing packets sent."""
    plan = json.loads(_bridge.plan_json(scenario.toml, scenario.overrides, seed))
    sc, flows, positions, links = plan["scenario"], plan["flows"], plan["positions"], plan["links"]
    check_expressible(sc, flows, static_routes)
    seed = int(sc["seed"])
    if seed <= 0:
        raise Ns2Unsupported(f"seed = {seed} cannot be exported: ns-2 seeds its generator from the clock "
                             "for 0 (allowed: 1 or more)")
    protocol = sc["routing"]["protocol"]
    rmap = ROUTING[protocol]
    # static routes with Agent/StaticRoute (ns2/ports/static-routes) where the binary has it
    agent = _sr.use_agent(sc, static_routes)
    if agent:
        rmap = RoutingMap(_sr.ADHOC_ROUTING, rmap.added_bytes, static=False)
    notes: list[str] = []

    # Warm-up. DSDV's triggered updates are at least 1 s apart: it gets 2 s per hop of the
    # flows' endpoints' diameter plus 10 s, must have settled in the last 5 s of it, and then
    # one ping per link a flow uses resolves ARP. With AODV the pings come first and the flows
    # start once the routes the pings made have expired (ACTIVE_ROUTE_TIMEOUT), so that every
    # flow discovers its route as in hoptcp.
    nn = len(positions)
    wired = sc.get("wired")
    gateway = int(wired["gateway"]) if wired is not None else None
    wired_links = list(wired["links"]) if wired is not None else []
    n_wired = int(wired["nodes"]) if wired is not None else 0

    def air(node: int) -> int:
        """A node's place in the wireless network: wired nodes are reached through the gateway."""
        return node if node < nn or gateway is None else gateway

    # Only radio links need ARP; wired links have none.
    used_links = sorted({(min(a, b), max(a, b)) for f in flows for a, b in zip(f["path"], f["path"][1:])
                         if a < nn and b < nn})
    endpoints = sorted({air(f["src"]) for f in flows} | {air(f["dst"]) for f in flows})
    diameter = _diameter_of(links, endpoints) if endpoints else 0
    t_ping = 10.0 + 2.0 * diameter if rmap.static else 1.0
    settle = 2.0 if rmap.static or agent else 2.0 + float(NS2_AODV_CONSTANTS["active_route_timeout_s"]) + 3.0
    t0 = math.ceil(t_ping + PING_SPACING_S * len(used_links) + settle)
    if rmap.static:
        for f in flows:
            if not unique_shortest_path(links, wireless_part(f["path"], nn)):
                notes.append(f"flows.{f['id']} ({f['src']} -> {f['dst']}): hoptcp's route "
                             f"{'-'.join(map(str, f['path']))} is one of several shortest paths; "
                             "DSDV may freeze another (the route check tells)")

    fmaps: list[FlowMap] = []
    out: list[str] = []
    w = out.append
    nm = name or sc.get("name") or scenario.name
    xs = [p[0] for p in positions]
    ys = [p[1] for p in positions]
    margin = 10.0
    dx, dy = margin - min(xs), margin - min(ys)
    width = max(xs) + dx + margin
    height = max(ys) + dy + margin
    radio, mac, ip = sc["radio"], sc["mac"], sc["ip"]
    duration = float(sc["duration_s"])
    warmup = float(sc["stats"]["warmup_s"])

    w(f"# ns-2.35 script exported by hoptcp {_bridge.version()} from scenario \"{nm}\", seed {seed}.")
    w("# Run:  ns THIS.tcl [OUT]   writes OUT.tr (drops, routing), OUT.cwnd (TCP cwnd_), OUT.stats (counters).")
    w(f"# Scenario time 0 is ns-2 time t0 = {t0:g} s: routing ({rmap.adhoc_routing}) and ARP warm up before it.")
    if agent:
        w(_sr.GUARD)
    if _gap.enabled(sc):
        w(_gap.GUARD)
    if _lp.enabled(mac):
        w(_lp.GUARD)
    if _ldm.enabled(sc):
        w(_ldm.GUARD)
    out.extend(_bs.guard_lines(sc, flows))
    if sc["routing"]["protocol"] == "aodv" and (sc["routing"].get("aodv") or {}).get("link_detection") == "hello":
        w(AODV_HELLO_GUARD)
    w("")
    w('set opt(out) [expr {$argc > 0 ? [lindex $argv 0] : "hoptcp-ns2"}]')
    w(f"set opt(nn) {nn}")
    w(f"set opt(t0) {t0:.1f}")
    w(f"set opt(end) [expr {{$opt(t0) + {_g(duration)}}}]")
    w("global defaultRNG")
    w(f"$defaultRNG seed {seed}")
    w("")
    w("# --- radio: two-ray ground; thresholds are the received power at the tx and cs ranges")
    rx = two_ray_power(radio["tx_range_m"], radio)
    cs = two_ray_power(radio["cs_range_m"], radio)
    w(f"Phy/WirelessPhy set Pt_ {_g(radio['tx_power_w'])}")
    w(f"Phy/WirelessPhy set freq_ {_g(radio['frequency_hz'])}")
    w(f"Phy/WirelessPhy set L_ {_g(radio['system_loss'])}")
    w(f"Phy/WirelessPhy set RXThresh_ {_g(rx)} ;# {radio['tx_range_m']:g} m")
    w(f"Phy/WirelessPhy set CSThresh_ {_g(cs)} ;# {radio['cs_range_m']:g} m")
    w(f"Phy/WirelessPhy set CPThresh_ {_g(10 ** (radio['capture_db'] / 10))} ;# {radio['capture_db']:g} dB")
    w(f"Antenna/OmniAntenna set Z_ {_g(radio['antenna_height_m'])}")
    w("Antenna/OmniAntenna set Gt_ 1.0")
    w("Antenna/OmniAntenna set Gr_ 1.0")
    w("")
    w("# --- 802.11 DCF (DSSS timing), link layer")
    w(f"Mac/802_11 set dataRate_ {_g(radio['data_rate_mbps'] * 1e6)}")
    w(f"Mac/802_11 set basicRate_ {_g(radio['basic_rate_mbps'] * 1e6)}")
    w(f"Mac/802_11 set RTSThreshold_ {mac['rts_threshold_bytes']}")
    w(f"Mac/802_11 set ShortRetryLimit_ {mac['short_retry_limit']}")
    w(f"Mac/802_11 set LongRetryLimit_ {mac['long_retry_limit']}")
    w(f"Mac/802_11 set CWMin_ {mac['cw_min']}")
    w(f"Mac/802_11 set CWMax_ {mac['cw_max']}")
    w(f"LL set delay_ {_g(ip['ll_delay_us'] / 1e6)}")
    w("")
    out.extend(_lp.mac_lines(mac))
    out.extend(_ldm.class_lines(sc))
    out.extend(_bs.class_lines(sc))
    if rmap.static:
        w("# --- routing: ns-2.35 has no static routing agent for wireless nodes. DSDV converged")
        w("# and then frozen: no periodic update (and so no neighbour timeout, three periods) in")
        w("# the run, new routes advertised at once (triggered updates), MAC failures not reported.")
        w(f"Agent/DSDV set perup_ {DSDV_FROZEN_PERIOD_S:g}")
        w("Agent/DSDV set wst0_ 0")
        w("Agent/DSDV set use_mac_ 0")
        w("Agent/DSDV set verbose_ 0")
        w("Agent/DSDV set trace_wst_ 1 ;# every route change (VWST line) goes to the trace: the route check reads them")
    elif agent:
        w(f"# --- routing: hoptcp's static routes, {_sr.AGENT_CLASS} (routes set after the nodes)")
    else:
        w("# --- routing: ns-2.35's AODV with its compiled-in constants")
    w("")
    w("set ns_ [new Simulator]")
    if gateway is not None:
        w("# --- wired-cum-wireless: hierarchical addresses, wired nodes in domain 0 and the wireless")
        w("# ones (the gateway, a base station, among them) in domain 1")
        w("$ns_ node-config -addressType hierarchical")
        w("AddrParams set domain_num_ 2")
        w("AddrParams set cluster_num_ {1 1}")
        w(f"AddrParams set nodes_num_ {{{n_wired} {nn}}}")
    if new_trace:
        w("$ns_ use-newtrace")
    w("set tracefd [open $opt(out).tr w]")
    w("$ns_ trace-all $tracefd")
    w("set cwndfd [open $opt(out).cwnd w]")
    w("set statsfd [open $opt(out).stats w]")
    w("set topo [new Topography]")
    w(f"$topo load_flatgrid {math.ceil(width)} {math.ceil(height)}")
    w(f"create-god {nn + n_wired}" if gateway is not None else "create-god $opt(nn)")
    if gateway is not None:
        w("# --- wired nodes first: ns-2 builds hierarchical routes over the nodes it registered (wired")
        w("# nodes and base stations) by id and fails on a gap, so these get the lowest ids and the")
        w("# mobile nodes the highest. Tcl's node_(i) is hoptcp's node i; the ids are recorded below.")
        for k in range(n_wired):
            w(f"set node_({nn + k}) [$ns_ node 0.0.{k}]")
    w("set chan [new Channel/WirelessChannel]")
    w(f"$ns_ node-config -adhocRouting {rmap.adhoc_routing} -llType LL -macType Mac/802_11 \\")
    w(f"    -ifqType {_ldm.queue_class(sc, 'Queue/DropTail/PriQueue')} -ifqLen {mac['queue_limit']} "
      "-antType Antenna/OmniAntenna \\")
    w("    -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy -channel $chan -topoInstance $topo \\")
    on = "ON" if new_trace else "OFF"
    w(f"    -agentTrace {on} -routerTrace {'ON' if router_trace else on} -macTrace {on} -movementTrace OFF")
    w("")
    addr = "1.0.$i" if gateway is not None else ""
    w(f"# --- nodes (hoptcp positions shifted by ({_g(dx)}, {_g(dy)}) m: ns-2's flat grid starts at 0)")
    w("# Interface-queue and routing drops are always traced; MAC drops (retry limits) get a drop")
    w("# target without tracing every frame.")
    w("proc make-node {i x y} {")
    w("    global ns_ node_")
    w(f"    set node_($i) [$ns_ node {addr}]".rstrip())
    w("    $node_($i) random-motion 0")
    w("    $node_($i) set X_ $x")
    w("    $node_($i) set Y_ $y")
    w("    $node_($i) set Z_ 0.0")
    if not new_trace:  # (with the MAC trace on, ns-2 gives the MAC its drop target)
        w("    [$node_($i) set mac_(0)] drop-target [cmu-trace Drop \"MAC\" $node_($i)]")
    w("}")
    order = list(range(len(positions)))
    if gateway is not None:
        order.remove(gateway)
        w("$ns_ node-config -wiredRouting ON ;# the gateway: a base station, registered for wired routing")
        x, y = positions[gateway]
        w(f"make-node {gateway} {_g(x + dx)} {_g(y + dy)}")
        w("$ns_ node-config -wiredRouting OFF")
    for i in order:
        x, y = positions[i]
        w(f"make-node {i} {_g(x + dx)} {_g(y + dy)}")
    w("")
    out.extend(_ldm.node_lines(sc, flows, nn))
    if agent:
        out.extend(_sr.route_lines(flows, used_links))
    if gateway is not None:
        w("# --- wired links; mobile nodes send what leaves their domain to the base station (DSDV's")
        w("# diff_subnet)")
        for i in range(nn):
            if i != gateway:
                w(f"$node_({i}) base-station [AddrParams addr2id [$node_({gateway}) node-addr]]")
        for ln in wired_links:
            a, b = int(ln["a"]), int(ln["b"])
            w(f"$ns_ duplex-link $node_({a}) $node_({b}) {_g(ln['bandwidth_mbps'] * 1e6)} "
              f"{_g(ln['delay_ms'] / 1e3)} DropTail")
            w(f"$ns_ queue-limit $node_({a}) $node_({b}) {int(ln['queue_limit'])}")
            w(f"$ns_ queue-limit $node_({b}) $node_({a}) {int(ln['queue_limit'])}")
        if _gap.enabled(sc):
            out.extend(_gap.attach_lines(sc, gateway))
        w("# hoptcp's node i as ns-2 writes it: addr.i (DSDV's and the cwnd trace), id.i (the CMU trace)")
        w(f"for {{set i 0}} {{$i < {nn + n_wired}}} {{incr i}} {{")
        w("    puts $statsfd \"-2 addr.$i [AddrParams addr2id [$node_($i) node-addr]]\"")
        w("    puts $statsfd \"-2 id.$i [$node_($i) id]\"")
        w("}")
        w("")
    if rmap.static:
        w("# DSDV must have settled: no route change (VWST line) in the last seconds before the")
        w("# pings, else the run stops here (the scenario cannot be expressed).")
        w("proc trace-mark {} {")
        w("    global ns_ tracefd opt")
        w("    $ns_ flush-trace")
        w("    flush $tracefd")
        w("    set opt(mark) [file size $opt(out).tr]")
        w("}")
        w("proc routing-settled {} {")
        w("    global ns_ tracefd statsfd opt")
        w("    $ns_ flush-trace")
        w("    flush $tracefd")
        w("    set fh [open $opt(out).tr r]")
        w("    seek $fh $opt(mark)")
        w("    set changes [regexp -all {VWST} [read $fh]]")
        w("    close $fh")
        w("    if {$changes > 0} {")
        w("        puts $statsfd \"-1 unsettled $changes\"")
        w("        close $statsfd")
        w("        exit 0")
        w("    }")
        w("}")
        w(f"$ns_ at {t_ping - DSDV_SETTLE_S:.1f} \"trace-mark\"")
        w(f"$ns_ at {t_ping - 0.001:.3f} \"routing-settled\"")
        w("")
    w("# --- ARP warm-up: ARP holds one packet per unresolved neighbour and drops the rest, so")
    w("# each link a flow uses is resolved by a ping before the flows start.")
    w("Agent/Ping instproc recv {from rtt} {}")
    w("proc arp-warmup {a b t} {")
    w("    global ns_ node_")
    w("    set p [new Agent/Ping]")
    w("    set q [new Agent/Ping]")
    w("    $ns_ attach-agent $node_($a) $p")
    w("    $ns_ attach-agent $node_($b) $q")
    w("    $ns_ connect $p $q")
    w("    $ns_ at $t \"$p send\"")
    w("}")
    for k, (a, b) in enumerate(used_links):
        w(f"arp-warmup {a} {b} {t_ping + PING_SPACING_S * k:.3f}")
    w("")
    w("# --- flows. Sizes on the air match hoptcp's: TCP data = payload + 40 B, ACKs and the")
    w(f"# setup segment 40 B, UDP = payload + 28 B; {rmap.adhoc_routing} adds "
      f"{rmap.added_bytes['tcp']} B to TCP and {rmap.added_bytes['udp']} B to UDP packets it originates.")
    w("proc t {s} { global opt; return [expr {$opt(t0) + $s}] }")
    w("proc record {i what value} { global statsfd; puts $statsfd \"$i $what $value\" }")
    tcp_added = rmap.added_bytes["tcp"]
    udp_added = rmap.added_bytes["udp"]
    pauses: dict[int, list[list[float]]] = {
        int(f["id"]): [list(map(float, p)) for p in (sc.get("flows") or [])[k].get("pauses") or []]
        for k, f in enumerate(flows) if k < len(sc.get("flows") or [])}
    if gateway is not None:
        w("# Packets a wired node originates pass no routing agent at their source: no bytes added.")
    for f in flows:
        i = f["id"]
        start, stop = float(f["start_s"]), float(f["stop_s"])
        measure_from = max(start, warmup)
        w(f"# flow {i}: {f['transport']}/{f['app']} {f['src']} -> {f['dst']} over {'-'.join(map(str, f['path']))}")
        if f["transport"] == "tcp":
            t = f["tcp"]
            hdr = TCP_HEADER_BYTES - (tcp_added if f["src"] < nn else 0)
            ack_hdr = TCP_HEADER_BYTES - (tcp_added if f["dst"] < nn else 0)
            w(f"set src({i}) [new {_gap.agent_class(sc, f, nn, tcp_agent_class(t))}]")
            w(f"$src({i}) set window_ {t['max_window']}")
            w(f"$src({i}) set packetSize_ {t['payload_bytes']}")
            w(f"$src({i}) set tcpip_base_hdr_size_ {hdr}")
            w(f"$src({i}) set windowInit_ {t['initial_window']}")
            ss = t.get("initial_ssthresh")
            if ss is None:  # before tcp.initial_ssthresh became explicit: it meant window_
                ss = t["max_window"]
            w(f"$src({i}) set ssthresh_ {ss} ;# reset() at creation left 20 (class window_); explicit")
            if t["variant"] == "cubic":
                w(f"$src({i}) set timestamps_ false ;# the ns2_linux profile: no timestamps, so no delay_min")
                if _sack_on(t):
                    w("# TCP-Linux behind TCPSink/Sack1: its own SACK scoreboard (scoreboard1.cc) recovers")
                # Installing the module copies ssthresh_ and cwnd_ into the Linux state and sets
                # tcp_tick_ to 1 ms; after wired nodes' reset (which sets ssthresh_ = window_).
                w(f"$ns_ at 0.0 \"$src({i}) set ssthresh_ {ss}; $src({i}) set cwnd_ {t['initial_window']}; "
                  f"$src({i}) select_ca cubic\"")
            elif f["src"] >= nn:
                # Wired nodes (unlike mobile ones) reset their agents when the run starts, and reset()
                # sets ssthresh_ = window_: set it again once the run has started.
                w(f"$ns_ at 0.0 \"$src({i}) set ssthresh_ {ss}\" ;# after the run's reset of wired nodes")
            w(f"$src({i}) set minrto_ {_g(t['min_rto_s'])}")
            w(f"$src({i}) set ecn_ {1 if t['ecn'] else 0}")
            if t["variant"] == "tcp_ap":
                ap = t["ap"]
                w("# the authors' TCP-AP (tcp-ap.cc); b = the radio's data rate")
                w(f"$src({i}) set n_factor_ {int(ap['hop_factor'])}")
                w(f"$src({i}) set history_ {int(ap['history'])}")
                w(f"$src({i}) set alpha_ {_g(ap['alpha'])}")
                w(f"$src({i}) set delaybound_ {_g(ap['delay_bound_s'])}")
                w(f"$src({i}) set rate_interval_ {_g(ap['initial_interval_s'])}")
                w(f"$src({i}) set ll_bandwidth_ {_g(radio['data_rate_mbps'] * 1e6)}")
            if t["variant"] == "vegas":
                w(f"$src({i}) set v_alpha_ {_g(t['vegas_alpha'])}")
                w(f"$src({i}) set v_beta_ {_g(t['vegas_beta'])}")
                w(f"$src({i}) set v_gamma_ {_g(t['vegas_gamma'])}")
            w(f"set dst({i}) [new {tcp_sink_class(t)}]")
            w(f"$dst({i}) set packetSize_ {ack_hdr} ;# ACK size")
            w(f"$ns_ attach-agent $node_({f['src']}) $src({i})")
            w(f"$ns_ attach-agent $node_({f['dst']}) $dst({i})")
            w(f"$ns_ connect $src({i}) $dst({i})")
            w(f"$src({i}) attach $cwndfd")
            w(f"$src({i}) trace cwnd_")
            if f["app"] == "cbr":
                # A CBR application writing into the TCP agent: sendmsg() rounds each write up to
                # whole segments, as hoptcp's rate-limited TCP source.
                interval_ns = max(1, round(f["packet_bytes"] * 8 / f["rate_bps"] * 1e9))
                w(f"set app({i}) [new Application/Traffic/CBR]")
                w(f"$app({i}) attach-agent $src({i})")
                w(f"$app({i}) set packetSize_ {int(f['packet_bytes'])}")
                w(f"$app({i}) set rate_ {_g(f['packet_bytes'] * 8 / (interval_ns * 1e-9))} ;# one write every "
                  f"{interval_ns * 1e-9:.9g} s")
                w(f"$app({i}) set random_ {1 if f['jitter'] else 0}")
            elif f["app"] == "http":
                out.extend(_bs.http_lines(sc, flows, f, seed))
            else:
                w(f"set app({i}) [new Application/FTP]")
                w(f"$app({i}) attach-agent $src({i})")
            w(f"$ns_ at [t {_g(start)}] \"$app({i}) start\"")
            for p_from, p_to in pauses.get(i, []):
                w(f"$ns_ at [t {_g(p_from)}] \"$app({i}) stop\" ;# pause: no new data (advance 0, close)")
                w(f"$ns_ at [t {_g(p_to)}] \"$app({i}) start\" ;# the same connection goes on")
            if stop < duration:
                w(f"$ns_ at [t {_g(stop)}] \"$app({i}) stop\"")
            # The sink's bytes_ counts bytes delivered in order (tcp-sink.cc), IP header included.
            w(f"$ns_ at [t {_g(measure_from)}] \"record {i} from \\[$dst({i}) set bytes_\\]\"")
            w(f"$ns_ at [t {_g(min(stop, duration))}] \"record {i} to \\[$dst({i}) set bytes_\\]\"")
            # On arrival a data packet is payload + 40 B (the routing agent's header included).
            fmaps.append(FlowMap(i, "tcp", f["app"], f["src"], f["dst"], f["path"], start, stop,
                                 int(t["payload_bytes"]), int(t["payload_bytes"]) + TCP_HEADER_BYTES,
                                 int(t["max_window"]), _sack_on(t) and t["variant"] != "cubic"))
        else:
            size = int(f["packet_bytes"]) + UDP_HEADER_BYTES - (udp_added if f["src"] < nn else 0)
            interval_ns = max(1, round(f["packet_bytes"] * 8 / f["rate_bps"] * 1e9))
            w(f"set src({i}) [new Agent/UDP]")
            w(f"$src({i}) set packetSize_ {size} ;# no splitting (default 1000)")
            w(f"set dst({i}) [new Agent/LossMonitor]")
            w(f"$ns_ attach-agent $node_({f['src']}) $src({i})")
            w(f"$ns_ attach-agent $node_({f['dst']}) $dst({i})")
            w(f"$ns_ connect $src({i}) $dst({i})")
            w(f"set app({i}) [new Application/Traffic/CBR]")
            w(f"$app({i}) attach-agent $src({i})")
            w(f"$app({i}) set packetSize_ {size}")
            w(f"$app({i}) set rate_ {_g(size * 8 / (interval_ns * 1e-9))} ;# one packet every "
              f"{interval_ns * 1e-9:.9g} s")
            w(f"$app({i}) set random_ {1 if f['jitter'] else 0}")
            w(f"$ns_ at [t {_g(start)}] \"$app({i}) start\"")
            if stop < duration:
                w(f"$ns_ at [t {_g(stop)}] \"$app({i}) stop\"")
            w(f"$ns_ at [t {_g(measure_from)}] \"record {i} from \\[$dst({i}) set npkts_\\]\"")
            w(f"$ns_ at [t {_g(min(stop, duration))}] \"record {i} to \\[$dst({i}) set npkts_\\]\"")
            fmaps.append(FlowMap(i, "udp", "cbr", f["src"], f["dst"], f["path"], start, stop,
                                 int(f["packet_bytes"]), size))
    if agent:
        out.extend(_sr.fid_lines(fmaps))
    if _ldm.enabled(sc):
        out.extend(_ldm.flow_lines(fmaps))
    interval = sc["stats"].get("throughput_interval_s")
    n_samples = 0
    if interval:
        # What each sink has counted at every interval boundary (s<k> at scenario time k·interval);
        # the parser turns the differences into hoptcp's per-interval goodput series.
        n_samples = math.ceil(duration / float(interval) - 1e-9)
        counters = " ".join(f"{fm.id} {'bytes_' if fm.transport == 'tcp' else 'npkts_'}" for fm in fmaps)
        w("")
        w(f"# --- per-interval series ({_g(interval)} s): the sinks' counters at every boundary")
        w("proc sample {k} {")
        w("    global ns_ dst")
        w(f"    foreach {{i var}} {{{counters}}} {{ record $i s$k [$dst($i) set $var] }}")
        w(f"    if {{$k < {n_samples - 1}}} {{ $ns_ at [t [expr {{($k + 1) * {_g(interval)}}}]] \"sample [expr {{$k + 1}}]\" }}")
        w("}")
        w("$ns_ at [t 0] \"sample 0\"")
    w("")
    w("# --- end: TCP counters (nrexmit_ = timeouts, nrexmitpack_ = retransmitted packets)")
    w("proc finish {} {")
    w("    global ns_ tracefd cwndfd statsfd src")
    if interval:
        w(f"    sample {n_samples} ;# the last boundary is the run's end")
    for fm in fmaps:
        if fm.transport == "tcp":
            for var in ("nrexmit_", "nrexmitpack_", "ndatapack_", "cwnd_", "ssthresh_"):
                w(f"    record {fm.id} {var} [$src({fm.id}) set {var}]")
    if _lp.enabled(mac):
        out.extend(_lp.finish_lines())
    if _ldm.enabled(sc):
        out.extend(_ldm.finish_lines())
    out.extend(_bs.finish_lines(fmaps))
    if _gap.enabled(sc):
        out.extend(_gap.finish_lines([f for f in flows if f["transport"] == "tcp"]))
    w("    $ns_ flush-trace")
    w("    close $tracefd")
    w("    close $cwndfd")
    w("    close $statsfd")
    w("    exit 0")
    w("}")
    w("$ns_ at $opt(end) \"finish\"")
    w("$ns_ run")
    return Export("\n".join(out) + "\n", float(t0), duration, warmup, nn, protocol, fmaps, notes, gateway, n_wired,
                  float(interval) if interval else None, "agent" if agent else None)
