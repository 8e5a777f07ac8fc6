"""Which packet trace ``--pcap FILE`` writes, and the sources' view.

The core writes two traces (``crates/hoptcp-core/src/stats/pcap``): the whole network, one
802.11 interface per node holding every frame that node sent or received (``network``), and
one node's frames alone (``pcap_node``). Wireshark's TCP analysis runs over every frame of a
file, so in the whole-network trace each segment appears once per node that sent or received
it and is flagged as a retransmission or a duplicate (about 8,700 flags on a 20 s run of the
7-hop chain); and even on the air at the source alone, 802.11 retries of a frame and segments
the MAC dropped before they ever went on the air make its count differ from the sender's.

The default, the **sources' view**, is what a capture on each flow's sending host would show
(``tcpdump`` there): the IP packets the flow's transport agent sent (every segment, every
retransmission) and received (its ACKs), at the instants the agent sent and received them,
written here from the run's air trace (its agent events), one raw-IP interface per node
(interface ``i`` = node ``i``; wired hosts included). Each segment is in the file once per
time the sender's TCP sent it, so Wireshark's TCP analysis counts exactly the flow's
``retransmissions``. IPv4 and TCP/UDP headers are those of the 802.11 trace (``encode.rs``:
node ``i`` is 10.0.0.``i+1``, flow ``f`` uses port 49152 + f, TCP's server port 80, sequence
numbers in bytes, payload zeros); ECN bits are not written (the air trace does not carry them).
With ``stats.air_window_s`` set, the view covers that window only, as the air trace does.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any, Callable, Mapping

from .errors import SpecError

if TYPE_CHECKING:
    from pathlib import Path

#: what ``--pcap FILE`` writes: ``sources`` (the default) or ``network`` (every node's frames)
VIEWS = ("sources", "network")

_FIRST_FLOW_PORT = 49_152  # flow f's port: 49152 + f % 16000 (encode.rs)
_TCP_SERVER_PORT = 80
_LINKTYPE_RAW = 101  # raw IPv4/IPv6
_SNAPLEN = 96  # IP and TCP headers and the start of the (zero) payload
_AGENT_SEND, _AGENT_RECV = "agent_send", "agent_recv"


def check_view(view: str, pcap_node: int | None) -> None:
    """One line for a view that does not exist or does not go with ``pcap_node``."""
    if view not in VIEWS:
        raise SpecError(f"pcap view {view!r}: unknown; expected one of {', '.join(VIEWS)}")
    if pcap_node is not None and view != "sources":
        raise SpecError(f"--pcap-node {pcap_node} and --pcap-view {view}: give one of them (a node's trace, "
                        "or the whole network's)")


def _checksum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def _addr(node: int) -> bytes:
    return struct.pack("!I", 0x0A00_0000 | ((node + 1) & 0x00FF_FFFF))


def _ip_packet(kind: str, flow: int, src: int, dst: int, ip_bytes: int, ttl: int, uid: int, seq: int, ack: int,
               mss: int, syn_flow: bool) -> bytes:
    """The first bytes of one IP packet as encode.rs writes it (payload zeros)."""
    tcp = kind in ("tcp_data", "tcp_ack")
    proto = 6 if tcp else 17
    port = _FIRST_FLOW_PORT + flow % 16_000
    payload = max(ip_bytes - 20 - (20 if tcp else 8), 0)
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, ip_bytes, uid & 0xFFFF, 0, ttl & 0xFF, proto, 0,
                               _addr(src), _addr(dst)))
    struct.pack_into("!H", ip, 10, _checksum(bytes(ip)))
    length = ip_bytes - 20
    pseudo = _addr(src) + _addr(dst) + struct.pack("!BBH", 0, proto, length)
    if not tcp:
        head = bytearray(struct.pack("!HHHH", port, port, length, 0))
        struct.pack_into("!H", head, 6, _checksum(pseudo + bytes(head)) or 0xFFFF)
    else:
        flags = 0x10  # ACK
        if kind == "tcp_ack":
            sport, dport = _TCP_SERVER_PORT, port
            if syn_flow and ack == 0:  # acking packet 0, the SYN: the SYN-ACK
                flags |= 0x02
                seq_no = 0
            else:
                seq_no = 1
            ack_no = (ack * mss + 1) & 0xFFFF_FFFF
        elif syn_flow and seq == 0:
            sport, dport, flags, seq_no, ack_no = port, _TCP_SERVER_PORT, 0x02, 0, 0
        else:
            sport, dport = port, _TCP_SERVER_PORT
            seq_no, ack_no = (max(seq - 1, 0) * mss + 1) & 0xFFFF_FFFF, 1
        head = bytearray(struct.pack("!HHIIBBHHH", sport, dport, seq_no, ack_no, 5 << 4, flags, 65_535, 0, 0))
        struct.pack_into("!H", head, 16, _checksum(pseudo + bytes(head)))  # the zero payload adds nothing
    return (bytes(ip) + bytes(head) + bytes(payload))[:_SNAPLEN]


def _block(btype: int, body: bytes) -> bytes:
    body += b"\0" * (-len(body) % 4)
    n = len(body) + 12
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def write_sources_view(raw: Mapping[str, Any], path: "str | Path") -> int:
    """Write the sources' view (module docstring) of a run that recorded its air trace;
    returns the number of packets written."""
    from pathlib import Path  # not at import: hoptcp run --json's fast lane has no use for it

    air = raw.get("air")
    if air is None:
        raise SpecError("the sources' view is written from the air trace: run with series=[\"air\"]")
    flows = {int(f["id"]): f for f in raw.get("flows") or []}
    nodes = max([int(raw.get("node_count") or 0) - 1]
                + [max(int(f["src"]), int(f["dst"])) for f in flows.values()]) + 1
    kinds = list(air["packet_kinds"])
    events = list(air["events"])
    send, recv = events.index(_AGENT_SEND), events.index(_AGENT_RECV)
    pk = air["packets"]
    # Each TCP flow's segment size (its full data packets) and whether it opens with a SYN (packet 0, no payload).
    mss: dict[int, int] = {}
    syn: set[int] = set()
    for k, fl, size, seq in zip(pk["kind"], pk["flow"], pk["ip_bytes"], pk["seq"]):
        if kinds[k] == "tcp_data":
            if seq == 0 and size <= 40:
                syn.add(fl)
            mss[fl] = max(mss.get(fl, 1), size - 40)
    out = bytearray()
    out += _block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    for i in range(nodes):
        name = f"node {i}".encode()
        opts = struct.pack("<HH", 2, len(name)) + name + b"\0" * (-len(name) % 4)
        opts += struct.pack("<HHB", 9, 1, 9) + b"\0" * 3 + struct.pack("<HH", 0, 0)  # if_tsresol: ns
        out += _block(1, struct.pack("<HHI", _LINKTYPE_RAW, 0, _SNAPLEN) + opts)
    written = 0
    pe = air["packet_events"]
    for t, node, ev, p in zip(pe["t_ns"], pe["node"], pe["event"], pe["packet"]):
        if ev not in (send, recv):
            continue
        fl = pk["flow"][p]
        f = flows.get(fl)
        if f is None or int(f["src"]) != node:
            continue  # only each flow's sender: its receiver's view would repeat every segment
        kind = kinds[pk["kind"][p]]
        if kind == "aodv":
            continue
        data = _ip_packet(kind, fl, pk["src"][p], pk["dst"][p], pk["ip_bytes"][p], pk["ttl"][p], pk["uid"][p],
                          pk["seq"][p], pk["ack"][p], mss.get(fl, 1), fl in syn)
        out += _block(6, struct.pack("<IIIII", node, t >> 32, t & 0xFFFF_FFFF, len(data), pk["ip_bytes"][p]) + data)
        written += 1
    Path(path).expanduser().write_bytes(bytes(out))
    return written


def with_air(sc: Any) -> Any:
    """``sc`` also recording the air trace (the sources' view is written from it), with the
    series it records already."""
    series = list((sc.resolved().get("stats") or {}).get("series") or [])
    return sc if "air" in series else sc.with_overrides({"stats.series": [*series, "air"]})


def wants_air(pcap: str | None, pcap_node: int | None, view: str) -> bool:
    """Whether this trace is written from the air trace (the sources' view)."""
    return pcap is not None and pcap_node is None and view == "sources"


def traced_run(run: Callable[[str | None, int | None], str], pcap: str | None, pcap_node: int | None,
               view: str = "sources", keep_air: bool = False) -> str:
    """``run(trace_path, trace_node)`` -> result JSON, with the trace ``pcap`` in ``view``:
    the core writes ``network`` and ``pcap_node`` traces itself; for ``sources`` the run
    (which the caller made record its air trace: :func:`with_air`) writes none, and the
    view is written from its air trace, which the result then keeps only if ``keep_air``."""
    check_view(view, pcap_node)
    if not wants_air(pcap, pcap_node, view):
        return run(pcap, pcap_node)
    import json

    from . import _bridge

    assert pcap is not None
    _bridge.check_output_file(pcap, "pcap")
    text = run(None, None)
    doc = json.loads(text)
    try:
        write_sources_view(doc, pcap)
    except OSError as exc:
        code = f" (os error {exc.errno})" if exc.errno else ""
        raise OSError(f"writing the packet trace {pcap} failed: {exc.strerror or exc}{code}") from None
    if keep_air:
        return text
    doc.pop("air", None)
    return json.dumps(doc, separators=(",", ":"))


def describe(raw: Mapping[str, Any], pcap_node: int | None, view: str) -> str:
    """What the trace holds, for the run's summary."""
    if pcap_node is not None:
        return f"node {pcap_node}'s 802.11 frames alone (interface 0)"
    if view == "network":
        return ("every node's 802.11 frames, one interface per node: for timing and MAC questions, not for "
                "Wireshark's TCP analysis, which counts each segment once per node that handled it")
    senders = sorted({int(f["src"]) for f in raw.get("flows") or []})
    where = ", ".join(str(n) for n in senders) or "none"
    return (f"the sources' view: the IP packets each flow's sender sent and received (node"
            f"{'s' if len(senders) != 1 else ''} {where}; interface i = node i), which Wireshark's TCP analysis "
            "counts right; every node's 802.11 frames: --pcap-view network")
