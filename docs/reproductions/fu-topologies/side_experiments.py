"""Side experiments for fu-topologies: what moves the throughput lost at MaxWin 32, and the
absolute throughputs, away from the paper's Table 2.

Run from the repository root (results cached in the store; about 20 minutes on one core):

    python docs/reproductions/fu-topologies/side_experiments.py --store /work/store-net.db

Writes docs/reproductions/fu-topologies/side-experiments.md.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import Any

import hoptcp
from hoptcp.reproduce import get_entry
from hoptcp.reproduce.lib import fu_network as fn

HERE = Path(__file__).resolve().parent
SEEDS = [1, 2, 3, 4, 5]
WINDOWS = [1, 2, 3, 4, 8, 32]
CASES = ["chain6x6", "chain7x3", "cross2", "grid4", "grid8"]


def expand(flows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Replicated flows (count) as separate flows."""
    out = []
    for f in flows:
        for _ in range(int(f.get("count", 1))):
            out.append({k: v for k, v in f.items() if k != "count"})
    return out


def staggered(flows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Flow i starts at i seconds instead of all at t = 0."""
    return [{**f, "start_s": float(i)} for i, f in enumerate(expand(flows))]


def compact_grid(n: int) -> list[dict[str, Any]]:
    """Alternative grid layout: the n/2 rows (and columns) 2 apart (400 m), centred on the grid."""
    k = n // 2
    lines = [6 - (k - 1) + 2 * i for i in range(k)]
    flows = []
    for i, r in enumerate(lines):
        a, b = r * 13, r * 13 + 12
        flows.append((a, b) if i % 2 == 0 else (b, a))
    for i, c in enumerate(lines):
        a, b = c, 12 * 13 + c
        flows.append((a, b) if i % 2 == 0 else (b, a))
    return [{"src": s, "dst": d, "transport": "tcp", "app": "ftp"} for s, d in flows]


def both_directions(flows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Chain cases: the second half of the flows run from the last node to node 0."""
    fl = expand(flows)
    half = len(fl) // 2
    return fl[:len(fl) - half] + [{**f, "src": f["dst"], "dst": f["src"]} for f in fl[len(fl) - half:]]


VARIANTS: dict[str, Any] = {
    "default (as the entry)": lambda case, over: over,
    "delayed ACKs": lambda case, over: {**over, "tcp.delayed_ack": True},
    "flow i starts at i s": lambda case, over: {**over, "flows": staggered(over["flows"])},
    "control frames at 2 Mb/s": lambda case, over: {**over, "radio.basic_rate_mbps": 2.0},
    "min RTO 20 ms (ns-2 before 2004)": lambda case, over: {**over, "tcp.min_rto_s": 0.02},
    "chain: half the flows in the other direction": lambda case, over: (
        {**over, "flows": both_directions(over["flows"])} if case.startswith("chain") else None),
    "grid rows/columns 2 apart, centred": lambda case, over: (
        {**over, "flows": compact_grid(fn.CASES[case].n_flows)} if case.startswith("grid") else None),
}


def summary(df) -> dict[str, float]:
    df = df.rename(columns={"aggregate_goodput_bps": "bps"})
    curve = df.groupby("tcp.max_window")["bps"].mean() / 1e3
    best_w = int(curve.idxmax())
    at_best = df[df["tcp.max_window"] == best_w].set_index("seed")["bps"]
    at_32 = df[df["tcp.max_window"] == 32].set_index("seed")["bps"]
    loss = (1 - at_32 / at_best).mean() * 100
    cw = [c for c in df.columns if c.startswith("flow.") and c.endswith(".avg_cwnd")]
    win = df[df["tcp.max_window"] == 32][cw].sum(axis=1).mean()
    fair = df[df["tcp.max_window"] == 32]["fairness_jain"].mean()
    return {"best": curve.max(), "best_w": best_w, "t32": curve.loc[32], "loss": loss, "win": win, "fair": fair}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", default="/work/store-net.db")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    args = ap.parse_args()
    entry = get_entry("fu-topologies")
    base = entry.scenario.with_overrides({"duration_s": 300.0})
    kw = dict(store=args.store, jobs=args.jobs, progress=False)
    out = ["# fu-topologies: side experiments", "",
           f"Produced by `side_experiments.py` in this folder: seeds {SEEDS[0]}..{SEEDS[-1]}, MaxWin "
           f"{', '.join(map(str, WINDOWS))}, 300 s. Columns: best aggregate throughput and its MaxWin, throughput "
           "at MaxWin 32, loss = 1 − T(32)/T(best) paired by seed, the average aggregate window at 32 and "
           "Jain's fairness index at 32.", "",
           "| case | variant | best (Kbps) | best MaxWin | MaxWin 32 (Kbps) | loss (%) | avg window at 32 | "
           "fairness at 32 |", "|---|---|---|---|---|---|---|---|",
           ]
    for case in CASES:
        c = fn.CASES[case]
        out.append(f"| {case} | **paper (Table 2)** | {c.paper_best_kbps:g} | {c.paper_window_printed:g} (printed) | "
                   f"{c.paper_unbounded_kbps:g} | {c.paper_loss_pct:.1f} | {c.paper_avg_window:g} | - |")
        over0 = fn.net_topology_case({"name": case}, base)
        for vname, make in VARIANTS.items():
            over = make(case, {**over0})
            if over is None:
                continue
            sc = base.with_overrides({"name": case, **over})
            df = hoptcp.sweep(sc, name=f"fu-topologies/side/{case}/{vname}", grid={"tcp.max_window": WINDOWS},
                              seeds=SEEDS, **kw)
            s = summary(df)
            out.append(f"| {case} | {vname} | {s['best']:.0f} | {s['best_w']} | {s['t32']:.0f} | {s['loss']:.1f} | "
                       f"{s['win']:.1f} | {s['fair']:.2f} |")
        print(case, "done", flush=True)

    # Random topology: the flow-length distribution (10 placements, as the entry)
    out += ["", "## Random topology: flow lengths", "",
            "Same 10 placements (seeds 1..10), flows redrawn with at least `min_hops` hops; MaxWin 1, 2, 4, 8, 32. "
            "The last column is the share of the aggregate goodput at MaxWin 32 carried by 1-hop flows "
            "(their number per draw in brackets).", "",
            "| min_hops | mean flow length (hops) | best (Kbps) | best MaxWin | MaxWin 32 (Kbps) | loss (%) | "
            "1-hop flows' share at 32 |", "|---|---|---|---|---|---|---|"]
    c = fn.CASES["random20"]
    out.append(f"| **paper** | - | {c.paper_best_kbps:g} | - | {c.paper_unbounded_kbps:g} | {c.paper_loss_pct:.1f} | - |")
    for mh in (1, 2, 3):
        over = fn.net_topology_case({"name": "random20"}, base)
        over["random_flows"] = {**over["random_flows"], "min_hops": mh}
        sc = base.with_overrides({"name": "random20", **over})
        df = hoptcp.sweep(sc, name=f"fu-topologies/side/random20/min_hops={mh}",
                          grid={"tcp.max_window": [1, 2, 4, 8, 32]}, seeds=list(range(1, 11)), **kw)
        s = summary(df)
        hops = [col for col in df.columns if col.startswith("flow.") and col.endswith(".hops")]
        mean_hops = df[hops].mean(axis=1).mean() if hops else math.nan
        at32 = df[df["tcp.max_window"] == 32]
        one = sum((at32[f"flow.{i}.goodput_bps"] * (at32[f"flow.{i}.hops"] == 1)).sum() for i in range(20))
        n_one = sum((at32[f"flow.{i}.hops"] == 1).sum() for i in range(20)) / len(at32)
        share = one / at32["aggregate_goodput_bps"].sum()
        out.append(f"| {mh} | {mean_hops:.1f} | {s['best']:.0f} | {s['best_w']} | {s['t32']:.0f} | {s['loss']:.1f} | "
                   f"{share:.0%} ({n_one:.1f}) |")
    (HERE / "side-experiments.md").write_text("\n".join(out) + "\n", encoding="utf-8")
    print("\n".join(out))


if __name__ == "__main__":
    main()
