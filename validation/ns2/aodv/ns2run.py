"""Run ns-2.35 on ``chain.tcl`` and reduce its trace to the numbers hoptcp reports.

The trace (CMU wireless format, MAC tracing on) is streamed through a FIFO and
parsed on the fly, so nothing large is written to disk. A run gives:

- ``goodput_bps`` per flow: distinct TCP data packets (or CBR packets) received by
  the sink's agent from the flow's start to the end, times the payload, over that
  period (hoptcp's definition);
- ``route_breaks`` per flow and in total: MAC retry-limit drops (``D ... MAC RET``)
  of data packets — every one is a link break reported to AODV;
- ``drops``: every ``D`` line by (layer, reason, packet type);
- ``aodv``: RREQ/RREP/RERR sent, forwarded and received by the routing agents,
  from the ``RTR`` lines (ns-2 traces a propagated RERR as sent, like a new one);
- per-node counts of the same, to diagnose differences by node.

Self-contained on purpose (standard library only): ``python3 ns2run.py --seed 1``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
import threading
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "chain.tcl"
#: ns-2 packet types that are data to AODV (its DATA_PACKET macro)
DATA_TYPES = {"tcp", "ack", "cbr"}
#: the warm-up packet's flow (port 0); the measured flows use ports 1..n
WARMUP_PORT = 0


def _ip_fields(tok: list[str]) -> tuple[int, int, int, int] | None:
    """(src node, src port, dst node, dst port) from the ``[s:p d:p ttl nh]`` group."""
    try:
        i = tok.index("-------")
    except ValueError:
        return None
    try:
        s, sp = tok[i + 1].lstrip("[").split(":")
        d, dp = tok[i + 2].split(":")
        return int(s), int(sp), int(d), int(dp)
    except (IndexError, ValueError):
        return None


class TraceStats:
    """Accumulates one run's trace lines."""

    def __init__(self, last: int, payload: int, start: float) -> None:
        self.last, self.payload, self.start = last, payload, start
        self.tcp_seen: dict[int, set[int]] = defaultdict(set)
        self.tcp_sent: Counter[int] = Counter()
        self.tcp_sent_seqs: dict[int, set[int]] = defaultdict(set)
        #: new packets delivered per second (all flows), for the zero-throughput seconds
        self.per_second: Counter[int] = Counter()
        self.cbr_bytes: Counter[int] = Counter()
        self.breaks: Counter[int] = Counter()
        self.breaks_by_node: Counter[int] = Counter()
        self.drops: Counter[str] = Counter()
        self.drops_by_node: Counter[str] = Counter()
        self.aodv: Counter[str] = Counter()
        self.aodv_by_node: Counter[str] = Counter()

    def line(self, text: str) -> None:
        tok = text.split()
        if len(tok) < 8 or tok[0] not in ("s", "r", "f", "D"):
            return
        ev, t, node, layer = tok[0], float(tok[1]), int(tok[2].strip("_")), tok[3]
        reason, ptype = tok[4], tok[6]
        ip = _ip_fields(tok)
        flow = ip[1] if ip and ptype != "ack" else (ip[3] if ip else -1)
        if ev == "D":
            key = f"{layer}.{reason}.{ptype}"
            self.drops[key] += 1
            self.drops_by_node[f"{node}.{key}"] += 1
            if layer == "MAC" and reason == "RET" and ptype in DATA_TYPES:
                self.breaks[flow] += 1
                self.breaks_by_node[node] += 1
            return
        if layer == "AGT" and ev == "s" and ptype == "tcp" and ip and node == 0:
            seq = int(tok[tok.index("-------") + 5].lstrip("["))
            if seq >= 1:
                self.tcp_sent[ip[1]] += 1
                self.tcp_sent_seqs[ip[1]].add(seq)
            return
        if layer == "AGT" and ev == "r" and node == self.last and t >= self.start and ip:
            if ptype == "tcp":
                seq = int(tok[tok.index("-------") + 5].lstrip("["))
                if seq >= 1 and seq not in self.tcp_seen[ip[1]]:
                    self.tcp_seen[ip[1]].add(seq)
                    self.per_second[int(t)] += 1
            elif ptype == "cbr" and ip[1] != WARMUP_PORT:
                self.cbr_bytes[ip[1]] += int(tok[7]) - 28
            return
        if layer == "RTR" and ptype == "AODV":
            kind = {"(REQUEST)": "rreq", "(REPLY)": "rrep", "(ERROR)": "rerr"}.get(tok[-1], "other")
            if ev == "s" and kind == "rreq":
                # [0x2 hops bid [dst dseq] [src sseq]]: the originator is src.
                rq_src = int(tok[-3].strip("[]"))
                kind += "_sent" if rq_src == node else "_forwarded"
            else:
                kind += {"s": "_sent", "r": "_received", "f": "_forwarded"}[ev]
            self.aodv[kind] += 1
            self.aodv_by_node[f"{node}.{kind}"] += 1

    def result(self, duration: float, flows: int, traffic: str) -> dict[str, Any]:
        period = duration - self.start
        goodput = []
        for port in range(1, flows + 1):
            if traffic == "tcp":
                b = len(self.tcp_seen.get(port, ())) * self.payload
            else:
                b = self.cbr_bytes.get(port, 0)
            goodput.append(b * 8 / period)
        return {
            "goodput_bps": goodput,
            "aggregate_goodput_bps": sum(goodput),
            "route_breaks": [self.breaks.get(p, 0) for p in range(1, flows + 1)],
            "retransmissions": [self.tcp_sent.get(p, 0) - len(self.tcp_sent_seqs.get(p, ()))
                                for p in range(1, flows + 1)],
            "zero_seconds": sum(1 for s in range(int(self.start) + 1, int(duration)) if not self.per_second.get(s)),
            "route_breaks_total": sum(v for k, v in self.breaks.items() if k != WARMUP_PORT),
            "breaks_by_node": dict(sorted(self.breaks_by_node.items())),
            "drops": dict(sorted(self.drops.items())),
            "drops_by_node": dict(sorted(self.drops_by_node.items())),
            "aodv": dict(sorted(self.aodv.items())),
            "aodv_by_node": dict(sorted(self.aodv_by_node.items())),
        }


def run(seed: int, hops: int = 7, duration: float = 300.0, traffic: str = "tcp", window: int = 32,
        flows: int = 1, rate: float = 0.0, payload: int = 1460, start: float = 2.0,
        **mac: float) -> dict[str, Any]:
    """One ns-2.35 run of chain.tcl; returns the reduced trace. ``mac`` passes
    chain.tcl's other options (datarate, basicrate, short_retry, long_retry, spacing)."""
    stats = TraceStats(last=hops, payload=payload, start=start)
    with tempfile.TemporaryDirectory() as tmp:
        fifo = os.path.join(tmp, "trace")
        os.mkfifo(fifo)
        args = ["ns", str(SCRIPT), "-seed", str(seed), "-hops", str(hops), "-duration", str(duration),
                "-traffic", traffic, "-window", str(window), "-flows", str(flows), "-rate", str(rate),
                "-payload", str(payload), "-trace", fifo, "-mactrace", "ON"]
        for k, v in mac.items():
            args += [f"-{k}", str(v)]
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        err: list[str] = []
        reader = threading.Thread(target=lambda: err.append(proc.stderr.read() if proc.stderr else ""))
        reader.start()
        with open(fifo) as fh:
            for line in fh:
                stats.line(line)
        proc.wait()
        reader.join()
        if proc.returncode != 0:
            raise RuntimeError(f"ns failed ({proc.returncode}): {' '.join(args)}\n{''.join(err)[-2000:]}")
    out = stats.result(duration, flows, traffic)
    out.update(seed=seed, hops=hops, duration=duration, traffic=traffic, window=window, flows=flows,
               rate=rate, payload=payload)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hops", type=int, default=7)
    ap.add_argument("--duration", type=float, default=300.0)
    ap.add_argument("--traffic", choices=("tcp", "cbr"), default="tcp")
    ap.add_argument("--window", type=int, default=32)
    ap.add_argument("--flows", type=int, default=1)
    ap.add_argument("--rate", type=float, default=0.0)
    ap.add_argument("--payload", type=int, default=1460)
    a = ap.parse_args()
    print(json.dumps(run(a.seed, a.hops, a.duration, a.traffic, a.window, a.flows, a.rate, a.payload), indent=1))


if __name__ == "__main__":
    main()
