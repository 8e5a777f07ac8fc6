"""ns-2's new wireless trace format (``$ns use-newtrace``; ns-2.35 trace/cmu-trace.cc): the
writer behind ``hoptcp run --trace-ns2 FILE``, and one parser for its files and ns-2's.

A line is an event letter and ``-flag value`` pairs::

    s -t 27.025216000 -Hs 0 -Hd -2 -Ni 0 -Nx 10.00 -Ny 10.00 -Nz 0.00 -Ne -1.000000 -Nl AGT -Nw ---
      -Ma 0 -Md 0 -Ms 0 -Mt 0 -Is 0.1 -Id 7.1 -It tcp -Il 1480 -If 0 -Ii 59 -Iv 32 -Pn tcp -Ps 1 -Pa 0 -Pf 0 -Po 0

(one line in the file). Which events hoptcp writes, from its air trace (``stats.series =
["air"]``), is listed in docs/viewer.md ("ns-2 trace"): agent send/receive (AGT), routing send,
receive and forward (RTR), every frame a MAC sends and every frame it receives addressed to it
(MAC; RTS, CTS and ACK without IP fields, as ns-2 writes them), collisions at an addressee
(``d MAC COL``), retry-limit drops (``d MAC RET``), interface-queue drops (``d IFQ``) and the
routing drops (``d RTR NRTE``, ``TTL``, ``LOOP``, ``CBK``, ...).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, TextIO

#: PLCP preamble and header of a DSSS frame in bytes: ns-2 adds them to a DATA frame's size
PLCP_BYTES = 24
#: ns-2's names of hoptcp's packet kinds (udp, tcp_data, tcp_ack, aodv)
IP_TYPES = {"udp": "cbr", "tcp_data": "tcp", "tcp_ack": "ack", "aodv": "AODV"}
#: drop causes as (trace level, ns-2 reason); causes ns-2 does not have keep hoptcp's name
DROP_REASONS = {
    "queue_overflow": ("IFQ", "---"), "mac_rts_retry": ("MAC", "RET"), "mac_data_retry": ("MAC", "RET"),
    "no_route": ("RTR", "NRTE"), "ttl": ("RTR", "TTL"), "route_loop": ("RTR", "LOOP"),
    "link_failure_flush": ("RTR", "CBK"), "route_buffer_overflow": ("RTR", "IFQ"),
    "route_buffer_timeout": ("RTR", "TOUT"), "route_discovery_failed": ("RTR", "NRTE"),
    "link_red": ("MAC", "LRED"), "ldm": ("RTR", "LDM"),
}
#: routing messages' port (ns-2's RT_PORT)
RT_PORT = 255


@dataclass(frozen=True)
class Event:
    """One trace line: its event letter and its flags in order (values as strings)."""

    event: str
    fields: tuple[tuple[str, str], ...]

    def get(self, flag: str, default: str | None = None) -> str | None:
        for k, v in self.fields:
            if k == flag:
                return v
        return default

    @property
    def time(self) -> float:
        return float(self.get("-t") or "nan")

    @property
    def level(self) -> str:
        return self.get("-Nl") or ""

    @property
    def flags(self) -> tuple[str, ...]:
        return tuple(k for k, _ in self.fields)


def parse_line(line: str) -> Event | None:
    """A new-format line, or None for other lines (old-format ones, DSDV's VWST, blank)."""
    tok = line.split()
    if len(tok) < 3 or tok[1] != "-t" or len(tok[0]) != 1:
        return None
    fields = []
    i = 1
    while i < len(tok):
        flag = tok[i]
        if not flag.startswith("-") or i + 1 >= len(tok):
            return None
        fields.append((flag, tok[i + 1]))
        i += 2
    return Event(tok[0], tuple(fields))


def parse(lines: Iterable[str]) -> Iterator[Event]:
    """The new-format events of a trace (other lines are skipped)."""
    for line in lines:
        ev = parse_line(line)
        if ev is not None:
            yield ev


def parse_file(path: str | Path) -> list[Event]:
    with open(path, encoding="utf-8", errors="replace") as fh:
        return list(parse(fh))


def shape(ev: Event) -> tuple[str, str, str]:
    """What kind of line ``ev`` is, for comparing traces: (event, level, packet kind), the
    packet kind being ns-2's IP type (``tcp``, ``ack``, ``cbr``, ``AODV``) or ``ctl`` for a MAC
    control frame (no IP fields)."""
    return ev.event, ev.level, ev.get("-It") or "ctl"


def summary(events: Iterable[Event], t_from: float = float("-inf"), t_to: float = float("inf")) -> Counter:
    """Counts of (event, level, reason) in [t_from, t_to)."""
    return Counter((e.event, e.level, e.get("-Nw") or "") for e in events if t_from <= e.time < t_to)


# --- writer -------------------------------------------------------------------------------------

class _Writer:
    def __init__(self, raw: Mapping[str, Any], out: TextIO, t_offset: float = 0.0) -> None:
        air = raw.get("air")
        if not air:
            raise ValueError("the run has no air trace (stats.series = [\"air\"])")
        self.air, self.out, self.t_offset = air, out, t_offset
        self.kinds = list(air["packet_kinds"])
        self.causes = list(air["drop_causes"])
        self.x, self.y = air["x"], air["y"]
        self.flow_ports = {f["id"]: (f["src"], f["dst"]) for f in raw.get("flows", [])}
        self.lines: list[tuple[int, int, str]] = []

    def node(self, n: int) -> str:
        x = self.x[n] if n < len(self.x) else 0.0
        y = self.y[n] if n < len(self.y) else 0.0
        return f"-Ni {n} -Nx {x:.2f} -Ny {y:.2f} -Nz 0.00 -Ne -1.000000"

    def ip(self, row: int, size: int | None = None, hops: int | None = None, ttl: int | None = None) -> str:
        p = self.air["packets"]
        kind = self.kinds[p["kind"][row]]
        flow = p["flow"][row]
        src, dst = p["src"][row], p["dst"][row]
        if kind == "aodv":
            sport = dport = RT_PORT
            dst_s = f"{dst}.{dport}" if dst != 0xFFFFFFFF else f"-1.{dport}"
        else:
            # one agent per flow end: port = flow id (ns-2 numbers its agents' ports in order)
            sport = dport = flow
            dst_s = f"{dst}.{dport}"
        it = IP_TYPES.get(kind, kind)
        size = p["ip_bytes"][row] if size is None else size
        hop = p["hop"][row] if hops is None else hops
        ttl = p["ttl"][row] if ttl is None else ttl
        s = (f"-Is {src}.{sport} -Id {dst_s} -It {it} -Il {size} -If {max(flow, 0)} -Ii {p['uid'][row]} "
             f"-Iv {ttl} ")
        if kind in ("tcp_data", "tcp_ack"):
            seq = p["ack"][row] if kind == "tcp_ack" else p["seq"][row]
            s += f"-Pn tcp -Ps {seq} -Pa 0 -Pf {hop} -Po 0 "
        elif kind == "udp":
            s += f"-Pn cbr -Pi {p['seq'][row]} -Pf {hop} -Po 0 "
        else:
            s += "-P aodv "
        return s

    def emit(self, t_ns: int, order: int, ev: str, node: int, hd: int, level: str, why: str, mac: str,
             ip: str = "") -> None:
        t = t_ns / 1e9 + self.t_offset
        self.lines.append((t_ns, order, f"{ev} -t {t:.9f} -Hs {node} -Hd {hd} {self.node(node)} -Nl {level} "
                                        f"-Nw {why} {mac}{ip}"))

    def write(self) -> int:
        air = self.air
        fr, rx, pe, dr = air["frames"], air["rx"], air["packet_events"], air["drops"]
        # The frame that brought each packet to each node (its MAC header on the RTR/AGT lines).
        arrived: dict[tuple[int, int], int] = {}
        for i, f in enumerate(rx["frame"]):
            if rx["fate"][i] == 0 and fr["packet"][f] >= 0:
                arrived[(air["packets"]["uid"][fr["packet"][f]], rx["node"][i])] = f

        def mac_hdr(f: int, ra_self: bool = False) -> str:
            kind = fr["kind"][f]
            ra = fr["ra"][f]
            md = "ffffffff" if ra < 0 else f"{ra:x}"
            ms = f"{fr['tx'][f]:x}" if kind in (0, 2) else "0"
            mt = "800" if kind == 2 else "0"
            return f"-Ma {fr['nav_ns'][f] // 1000:x} -Md {md} -Ms {ms} -Mt {mt} "

        # MAC: every frame sent; every frame received by its addressee; collisions there.
        for f in range(len(fr["start_ns"])):
            row = fr["packet"][f]
            if fr["kind"][f] == 2 and row >= 0:
                ra = fr["ra"][f]
                self.emit(fr["start_ns"][f], 2, "s", fr["tx"][f], -1 if ra < 0 else ra, "MAC", "---", mac_hdr(f),
                          self.ip(row, size=fr["bytes"][f] + PLCP_BYTES))
            else:
                self.emit(fr["start_ns"][f], 2, "s", fr["tx"][f], -2, "MAC", "---", mac_hdr(f))
        for i, f in enumerate(rx["frame"]):
            fate, node, t = rx["fate"][i], rx["node"][i], rx["t_ns"][i]
            if fate not in (0, 1):  # captured, below threshold, half duplex: ns-2 frees them silently
                continue
            ev, why = ("r", "---") if fate == 0 else ("d", "COL")
            row = fr["packet"][f]
            if fr["kind"][f] == 2 and row >= 0:
                hop = air["packets"]["hop"][row] + 1
                self.emit(t, 1, ev, node, node, "MAC", why, mac_hdr(f), self.ip(row, hops=hop))
            else:
                self.emit(t, 1, ev, node, -2, "MAC", why, mac_hdr(f))
        # Agents and routing.
        none = "-Ma 0 -Md 0 -Ms 0 -Mt 0 "
        for i, ev_code in enumerate(pe["event"]):
            t, node, row = pe["t_ns"][i], pe["node"][i], pe["packet"][i]
            p = air["packets"]
            kind = self.kinds[p["kind"][row]]
            if ev_code == 0:  # agent send, then the routing agent sends it on
                agent_size = max(p["ip_bytes"][row] - 20, 0) if kind in ("tcp_data", "tcp_ack", "udp") else None
                self.emit(t, 3, "s", node, -2, "AGT", "---", none, self.ip(row, size=agent_size))
                self.emit(t, 4, "s", node, -2, "RTR", "---", none, self.ip(row))
                continue
            f = arrived.get((p["uid"][row], node))
            hdr = mac_hdr(f) if f is not None else none
            self.emit(t, 3, "r", node, node, "RTR", "---", hdr, self.ip(row))
            if ev_code == 1:
                self.emit(t, 4, "r", node, node, "AGT", "---", hdr, self.ip(row))
            else:
                self.emit(t, 4, "f", node, -2, "RTR", "---", hdr, self.ip(row))
        # Drops. At the retry limit ns-2's MAC discards the frame it gave up on (the RTS too, if
        # that was it) with the packet, and the routing agent's transmit-failure callback then
        # drops its copy of the packet (CBK).
        flagged: dict[int, list[int]] = {}
        data_nav = next((fr["nav_ns"][f] for f in range(len(fr["kind"])) if fr["kind"][f] == 2 and fr["ra"][f] >= 0), 0)
        for f in range(len(fr["kind"])):
            if fr["retry_drop"][f]:
                flagged.setdefault(fr["tx"][f], []).append(f)
        for i, c in enumerate(dr["cause"]):
            cause = self.causes[c]
            level, why = DROP_REASONS.get(cause, ("RTR", cause.upper()))
            t, node, row = dr["t_ns"][i], dr["node"][i], dr["packet"][i]
            ip = self.ip(row) if row >= 0 else ""
            hdr = none
            if why == "RET":
                last = [f for f in flagged.get(node, []) if fr["start_ns"][f] <= t]
                if last:
                    f = last[-1]
                    ra = fr["ra"][f]
                    if fr["kind"][f] == 0:
                        self.emit(t, 5, "d", node, -2, "MAC", "RET", mac_hdr(f))
                    hdr = f"-Ma {data_nav // 1000:x} -Md {ra:x} -Ms {node:x} -Mt 800 "
            self.emit(t, 6, "d", node, -2, level, why, hdr, ip)
            if why == "RET" and ip:
                self.emit(t, 7, "d", node, -2, "RTR", "CBK", hdr, ip)
        self.lines.sort(key=lambda x: (x[0], x[1]))
        for _, _, line in self.lines:
            self.out.write(line + "\n")
        return len(self.lines)


def write(raw: Mapping[str, Any], path: str | Path, t_offset: float = 0.0) -> int:
    """Write the ns-2 new-format trace of a run with the air trace to ``path``; returns the lines
    written. ``t_offset`` is added to every time (to line up with an ns-2 run that starts later)."""
    with open(path, "w", encoding="utf-8") as fh:
        return _Writer(raw, fh, t_offset).write()
