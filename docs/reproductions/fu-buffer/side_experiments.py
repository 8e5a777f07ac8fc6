"""Side experiments for fu-buffer: why contention drops still dominate with 200 concurrent flows.

Run from the repository root (results cached in the store):

    python docs/reproductions/fu-buffer/side_experiments.py --store /work/store-net.db

Writes docs/reproductions/fu-buffer/side-experiments.md.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import hoptcp
from hoptcp.reproduce import get_entry
from hoptcp.reproduce.lib.fu_network import _crossover

HERE = Path(__file__).resolve().parent
SEEDS = [1, 2, 3, 4, 5]
FLOWS = [20, 40, 60, 80, 100, 120, 160, 200]


def cont(df):
    return df["drops.mac_rts_retry"] + df["drops.mac_data_retry"]


def table(df, key, label):
    """Rows: flows; columns: overflow, contention, overflow share (pooled over seeds)."""
    lines = []
    shares = []
    for n in FLOWS:
        sub = df[(df["flows.0.count"] == n) & key(df)]
        o, c = sub["drops.queue_overflow"].sum(), cont(sub).sum()
        share = o / (o + c) if o + c else float("nan")
        shares.append(share)
        k = len(sub)
        lines.append(f"| {label} | {n} | {o / k:.0f} | {c / k:.0f} | {share:.2f} |")
    x = _crossover(FLOWS, shares, falling=False)
    return lines, x


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", default="/work/store-net.db")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    args = ap.parse_args()
    base = get_entry("fu-buffer").scenario
    kw = dict(store=args.store, jobs=args.jobs, progress=False, seeds=SEEDS)
    fixed = {"mac.queue_limit": 50, "topology.hops": 8, "flows.0.dst": 8}
    out = ["# fu-buffer: side experiments", "",
           f"Produced by `side_experiments.py` in this folder ({len(SEEDS)} seeds per point, 8-hop chain, "
           "50-packet buffers, N flows between the end nodes, all started at t = 0). Drops per run (mean over "
           "seeds); share = overflow ÷ (overflow + contention), pooled over seeds; crossover = flows where the "
           "share reaches 1/2, interpolated (inf: not within 20..200).", ""]

    # 1. Run length: overflow comes in a burst at the synchronised start, contention accrues steadily
    # (one sweep per run length: a sweep over `duration_s` clashes with the metric of that name)
    import pandas as pd

    df = pd.concat([hoptcp.sweep(base, name=f"fu-buffer/side/duration-{d:g}s", set={**fixed, "duration_s": d},
                                 grid={"flows.0.count": FLOWS}, **kw) for d in (30.0, 100.0, 300.0)],
                   ignore_index=True)
    out += ["## 1. Run length", "", "| run length | flows | overflow | contention | overflow share |",
            "|---|---|---|---|---|"]
    xs = {}
    for d in (30.0, 100.0, 300.0):
        lines, xs[d] = table(df, lambda f, d=d: f["duration_s"] == d, f"{d:g} s")
        out += lines
    out += ["", "Crossover: " + ", ".join(f"{d:g} s: {x:.0f} flows" for d, x in xs.items()), ""]

    # 2. TCP and MAC switches at 300 s
    variants = {
        "delayed ACKs": {"tcp.delayed_ack": True},
        "initial window 1": {"tcp.initial_window": 1},
        "min RTO 1 s": {"tcp.min_rto_s": 1.0},
        "initial ssthresh 2": {"tcp.initial_ssthresh": 2},
        "standard frame sizes": {"mac.frame_format": "standard"},
        "no LL delay": {"ip.ll_delay_us": 0.0},
        "no RTS/CTS (basic access)": {"mac.rts_threshold_bytes": 3000},
    }
    out += ["## 2. Switches (300 s)", "", "| variant | flows | overflow | contention | overflow share |",
            "|---|---|---|---|---|"]
    cross = {}
    for name, v in variants.items():
        dfv = hoptcp.sweep(base, name=f"fu-buffer/side/{name.replace(' ', '-').replace('/', '')}",
                           set={**fixed, "duration_s": 300.0, **v}, grid={"flows.0.count": FLOWS}, **kw)
        lines, cross[name] = table(dfv, lambda f: f["flows.0.count"] > 0, name)
        out += [ln for ln in lines if f"| {FLOWS[0]} |" in ln or f"| {FLOWS[-1]} |" in ln
                or "| 100 |" in ln]
    out += ["", "| variant | crossover (flows) |", "|---|---|", f"| default (300 s) | {xs[300.0]:.0f} |"]
    out += [f"| {k} | {x:.0f} |" for k, x in cross.items()]

    # 3. Where the drops happen (200 flows, 300 s): per node
    df3 = hoptcp.sweep(base, name="fu-buffer/side/per-node", set={**fixed, "duration_s": 300.0,
                                                                  "flows.0.count": 200}, **kw)
    out += ["", "## 3. Where (200 flows, 300 s, mean per run)", "",
            "| node | overflow drops | contention drops | average queue | maximum queue |", "|---|---|---|---|---|"]
    for i, letter in enumerate("ABCDEFGHI"):
        o = df3[f"node.{i}.drops.queue_overflow"].mean()
        c = (df3[f"node.{i}.drops.mac_rts_retry"] + df3[f"node.{i}.drops.mac_data_retry"]).mean()
        out.append(f"| {letter} | {o:.0f} | {c:.0f} | {df3[f'node.{i}.queue_avg'].mean():.1f} | "
                   f"{df3[f'node.{i}.queue_max'].mean():.0f} |")
    (HERE / "side-experiments.md").write_text("\n".join(out) + "\n", encoding="utf-8")
    print("\n".join(out))


if __name__ == "__main__":
    main()
