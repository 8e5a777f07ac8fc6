"""Marks per hop of ldm.toml's cases in hoptcp and in ns-2.35 with the ldm port, per node
(the validation page keeps per-node metrics only up to 8 nodes).

    HOPTCP_NS=/work/ns2build/ldm/src/ns python3 validation/ns2/ports/ldm_perhop.py \
        ldm-oracle-chain15-1f,ldm-oracle-chain24-3f 1,2,3

Prints, per case and simulator, the fraction of forwarded data packets marked at the
forwarding nodes (mean, min, max over the nodes; seeds pooled) and the marks per run.
"""

from __future__ import annotations

import json
import statistics as st
import sys
from pathlib import Path

import tomllib

from hoptcp import _bridge
from hoptcp.ns2 import run as ns2run
from hoptcp.scenario import Scenario

SUITE = Path(__file__).with_name("ldm.toml")


def main(names: str, seeds_text: str) -> None:
    cases = {c["name"]: c for c in tomllib.loads(SUITE.read_text(encoding="utf-8"))["case"]}
    seeds = [int(s) for s in seeds_text.split(",")]
    for name in names.split(","):
        sc = Scenario(cases[name]["toml"], ())
        runs: dict[str, list[list[tuple[int, int]]]] = {"hoptcp": [], "ns2": []}
        for seed in seeds:
            h = json.loads(_bridge.run_json(sc.toml, (), seed))
            runs["hoptcp"].append([(n["ldm_marks"], n["ldm_packets"]) for n in h["nodes"]])
            n = ns2run.run_ns2(sc, seed)
            runs["ns2"].append([(x.get("ldm_marks", 0), x.get("ldm_packets", 0)) for x in n["nodes"]])
        for side, rs in runs.items():
            nodes = len(rs[0])
            frac = []
            for i in range(nodes):
                m, p = sum(r[i][0] for r in rs), sum(r[i][1] for r in rs)
                if p:
                    frac.append(m / p)
            per_run = sum(sum(x[0] for x in r) for r in rs) / len(rs)
            print(f"{name} {side}: marks/data per hop mean {st.mean(frac):.4f} min {min(frac):.4f} "
                  f"max {max(frac):.4f}; marks per run {per_run:.0f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "1,2,3")
