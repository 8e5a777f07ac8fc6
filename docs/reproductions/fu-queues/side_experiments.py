"""Side experiments for fu-queues: when and why hoptcp sees overflow drops with buffers >= 20.

Run from the repository root (results cached in the store):

    python docs/reproductions/fu-queues/side_experiments.py --store /work/store-net.db

Writes docs/reproductions/fu-queues/side-experiments.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import hoptcp
from hoptcp.reproduce import get_entry

HERE = Path(__file__).resolve().parent
SEEDS = list(range(1, 21))


def contention(df):
    return df["drops.mac_rts_retry"] + df["drops.mac_data_retry"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", default="/work/store-net.db")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    args = ap.parse_args()
    base = get_entry("fu-queues").scenario
    kw = dict(store=args.store, jobs=args.jobs, progress=False, seeds=SEEDS)
    out = ["# fu-queues: side experiments", "",
           "Produced by `side_experiments.py` in this folder (20 seeds per point, results in the store).", ""]

    # 1. When do the overflow drops happen? Same runs cut at 10 s, 60 s and 300 s.
    # (one sweep per run length: a sweep over `duration_s` clashes with the metric of that name)
    import pandas as pd

    df = pd.concat([hoptcp.sweep(base, name=f"fu-queues/side/overflow-timing-{d:g}s",
                                 zip={"topology.hops": [7, 8], "flows.0.dst": [7, 8]},
                                 grid={"mac.queue_limit": [20, 30]}, set={"duration_s": d}, **kw)
                    for d in (10.0, 60.0, 300.0)], ignore_index=True)
    out += ["## 1. Overflow drops happen only in the initial slow start", "",
            "The same runs (same seeds) stopped after 10 s, 60 s and 300 s: total queue-overflow drops over "
            "20 seeds, and the number of seeds with any.", "",
            "| chain | buffer | overflow drops by 10 s | by 60 s | by 300 s | seeds with overflow |",
            "|---|---|---|---|---|---|"]
    for hops in (7, 8):
        for q in (20, 30):
            sub = df[(df["topology.hops"] == hops) & (df["mac.queue_limit"] == q)]
            tot = {d: int(sub[sub["duration_s"] == d]["drops.queue_overflow"].sum()) for d in (10.0, 60.0, 300.0)}
            seeds = int((sub[sub["duration_s"] == 300.0]["drops.queue_overflow"] > 0).sum())
            out.append(f"| {hops}-hop | {q} | {tot[10.0]} | {tot[60.0]} | {tot[300.0]} | {seeds} of 20 |")

    # 2. The slow-start switch: initial ssthresh (ns-2: ssthresh_ starts at window_ = 32)
    df2 = hoptcp.sweep(base, name="fu-queues/side/initial-ssthresh",
                       zip={"topology.hops": [7, 8], "flows.0.dst": [7, 8]},
                       grid={"mac.queue_limit": [20, 30], "tcp.initial_ssthresh": [32, 16, 8]},
                       set={"duration_s": 300.0}, **kw)
    out += ["", "## 2. Switch: initial slow-start threshold", "",
            "ns-2 (and hoptcp by default) starts with ssthresh = window_ = 32, so the first slow start runs to "
            "32 packets before any loss. A lower initial ssthresh stops it earlier. Overflow drops summed over "
            "20 seeds of 300 s; MAC contention drops (mean per run) for comparison.", "",
            "| chain | buffer | initial ssthresh | overflow drops (20 runs) | contention drops per run | "
            "goodput (Kbps) |", "|---|---|---|---|---|---|"]
    for hops in (7, 8):
        for q in (20, 30):
            for ss in (32, 16, 8):
                sub = df2[(df2["topology.hops"] == hops) & (df2["mac.queue_limit"] == q)
                          & (df2["tcp.initial_ssthresh"] == ss)]
                out.append(f"| {hops}-hop | {q} | {ss} | {int(sub['drops.queue_overflow'].sum())} | "
                           f"{contention(sub).mean():.0f} | {sub['aggregate_goodput_bps'].mean() / 1e3:.1f} |")

    # 3. Which packets the contention drops hit (the 165 of the paper)
    df3 = hoptcp.sweep(base, name="fu-queues/side/drop-kinds",
                       set={"duration_s": 300.0, "mac.queue_limit": 30}, **kw)
    data = (df3["drops.by_kind.tcp_data.mac_rts_retry"] + df3["drops.by_kind.tcp_data.mac_data_retry"]).mean()
    ack = (df3["drops.by_kind.tcp_ack.mac_rts_retry"] + df3["drops.by_kind.tcp_ack.mac_data_retry"]).mean()
    rts = df3["drops.mac_rts_retry"].mean()
    dat = df3["drops.mac_data_retry"].mean()
    out += ["", "## 3. What the contention drops are (8-hop chain, buffer 30, 300 s, mean of 20 seeds)", "",
            "| TCP data segments | TCP ACKs | all | at the RTS retry limit | at the DATA retry limit |",
            "|---|---|---|---|---|",
            f"| {data:.1f} | {ack:.1f} | {data + ack:.1f} | {rts:.1f} | {dat:.1f} |"]
    # 4. The largest queue of a run: also set in the initial slow start
    first = hoptcp.sweep(base, name="fu-queues/side/max-queue-10s", set={"duration_s": 10.0,
                                                                         "mac.queue_limit": 30}, **kw)
    ss16 = df2[(df2["topology.hops"] == 8) & (df2["mac.queue_limit"] == 30) & (df2["tcp.initial_ssthresh"] == 16)]

    def largest(d):
        return d[[f"node.{i}.queue_max" for i in range(9)]].max(axis=1).set_axis(d["seed"]).sort_index()

    a, b, c = largest(first), largest(df3), largest(ss16)
    out += ["", "## 4. The largest queue of a run (8-hop chain, buffer 30)", "",
            "Largest per-node maximum queue of each run, by seed: after the first 10 s, after 300 s, and after "
            "300 s with initial ssthresh 16.", "",
            "| seed | " + " | ".join(str(s) for s in a.index) + " |",
            "|---|" + "---|" * len(a),
            "| first 10 s | " + " | ".join(f"{v:.0f}" for v in a) + " |",
            "| 300 s | " + " | ".join(f"{v:.0f}" for v in b) + " |",
            "| 300 s, initial ssthresh 16 | " + " | ".join(f"{v:.0f}" for v in c) + " |",
            "", f"Runs above 17 packets: {int((b > 17).sum())} of 20 (default), {int((c > 17).sum())} of 20 "
            "(initial ssthresh 16)."]
    (HERE / "side-experiments.md").write_text("\n".join(out) + "\n", encoding="utf-8")
    print("\n".join(out))


if __name__ == "__main__":
    main()
