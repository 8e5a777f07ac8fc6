"""hoptcp AODV vs ns-2.35 AODV (and hoptcp static routing) on the 7-hop chain.

    python3 validation/ns2/aodv/compare.py                 # everything, 5 seeds
    python3 validation/ns2/aodv/compare.py --only tcp-w32 --seeds 10
    python3 validation/ns2/aodv/compare.py --update-docs   # rewrite the table in docs/aodv.md

ns-2 runs are cached in ``results/ns2.json`` (keyed by configuration and seed;
delete the file to rerun them); hoptcp runs take a second each and are always
redone. Every run: 300 s, 2 Mb/s, RTS/CTS, flows from node 0 to node 7 starting
at 2 s after a one-packet warm-up at 1 s (see chain.tcl). The table gives means
over seeds with the standard deviation, and hoptcp's difference from ns-2.35.
Needs ``ns`` (Debian package ns2) and hoptcp installed in the running Python.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import ns2run  # noqa: E402  (the directory holding this script is on sys.path)

CACHE = HERE / "results" / "ns2.json"
RAW = HERE / "results" / "compare.json"
DOCS = HERE.parents[2] / "docs" / "aodv.md"
MARK_BEGIN = "<!-- BEGIN compare.py table -->"
MARK_END = "<!-- END compare.py table -->"

#: the comparisons the issue names get more seeds (at least this many)
HEADLINE = {"tcp-w32": 10, "tcp-w16": 10, "tcp-w3": 10, "tcp-w32-3flows": 10, "tcp-w32-6flows": 10, "cbr-sat": 10}
#: (name, what, ns2run.run keyword arguments)
CONFIGS: list[tuple[str, str, dict[str, Any]]] = [
    *[(f"tcp-w{w}", f"TCP, max window {w}", {"traffic": "tcp", "window": w}) for w in (1, 2, 3, 4, 8, 16, 32)],
    ("tcp-w32-3flows", "3 TCP flows, max window 32", {"traffic": "tcp", "window": 32, "flows": 3}),
    ("tcp-w32-6flows", "6 TCP flows, max window 32", {"traffic": "tcp", "window": 32, "flows": 6}),
    *[(f"cbr-{r // 1000}k", f"CBR {r // 1000} kb/s", {"traffic": "cbr", "rate": r}) for r in (100_000, 200_000, 300_000, 400_000, 600_000)],
    ("cbr-sat", "CBR saturated (2 Mb/s offered)", {"traffic": "cbr", "rate": 2_000_000}),
]


def hoptcp_toml(kw: dict[str, Any], protocol: str, duration: float = 300.0) -> str:
    """The hoptcp scenario matching chain.tcl with these arguments."""
    flows = kw.get("flows", 1)
    lines = [
        f"duration_s = {duration}",
        "[topology]", 'kind = "chain"', "hops = 7", "spacing_m = 200",
        "[routing]", f'protocol = "{protocol}"',
        "[tcp]", f"max_window = {kw.get('window', 32)}", "payload_bytes = 1460",
        # The warm-up packet of chain.tcl: 64 B of payload at 1 s.
        "[[flows]]", "src = 0", "dst = 7", 'transport = "udp"', "rate_bps = 512", "packet_bytes = 64",
        "start_s = 1.0", "stop_s = 1.5",
    ]
    for _ in range(flows):
        lines += ["[[flows]]", "src = 0", "dst = 7", "start_s = 2.0"]
        if kw["traffic"] == "tcp":
            lines += ['transport = "tcp"']
        else:
            lines += ['transport = "udp"', f"rate_bps = {kw['rate']}", "packet_bytes = 1460"]
    return "\n".join(lines) + "\n"


def run_hoptcp(kw: dict[str, Any], protocol: str, seed: int) -> dict[str, Any]:
    import hoptcp

    r = hoptcp.run(hoptcp.Scenario.from_toml(hoptcp_toml(kw, protocol)), seed=seed).raw
    flows = r["flows"][1:]  # flow 0 is the warm-up
    out: dict[str, Any] = {
        "goodput_bps": [f["goodput_bps"] for f in flows],
        "aggregate_goodput_bps": sum(f["goodput_bps"] for f in flows),
        "route_breaks": [f.get("route_breaks", 0) for f in flows],
        "timeouts": [f.get("timeouts", 0) for f in flows],
        "drops": {k: v for k, v in r["drops"].items() if isinstance(v, int) and v},
    }
    out["route_breaks_total"] = sum(out["route_breaks"])
    if "routing" in r:
        out["aodv"] = {k: v for k, v in r["routing"].items() if k != "protocol"}
        out["breaks_by_node"] = {str(n["id"]): n["route_breaks"] for n in r["nodes"] if n.get("route_breaks")}
    return out


def load_cache() -> dict[str, Any]:
    return json.loads(CACHE.read_text()) if CACHE.exists() else {}


def ns2_results(name: str, kw: dict[str, Any], seeds: list[int], cache: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for s in seeds:
        key = f"{name}/{s}"
        if key not in cache:
            print(f"  ns-2 {key} ...", file=sys.stderr, flush=True)
            cache[key] = ns2run.run(seed=s, **kw)
            CACHE.parent.mkdir(parents=True, exist_ok=True)
            CACHE.write_text(json.dumps(cache, indent=1, sort_keys=True) + "\n")
        out.append(cache[key])
    return out


def mean_sd(xs: list[float]) -> tuple[float, float]:
    return statistics.fmean(xs), (statistics.stdev(xs) if len(xs) > 1 else 0.0)


def fmt_kbps(xs: list[float]) -> str:
    m, sd = mean_sd([x / 1e3 for x in xs])
    return f"{m:.1f} ± {sd:.1f}"


def fmt_n(xs: list[float]) -> str:
    m, sd = mean_sd(xs)
    return f"{m:.0f} ± {sd:.0f}"


def pct(a: float, b: float) -> str:
    return f"{(a - b) / b * 100:+.0f} %" if b else "-"


def table(rows: list[dict[str, Any]]) -> str:
    head = ("Means over seeds 1..n ± standard deviation; goodput is the sum over the measured flows (kb/s), "
            "route breaks are MAC retry-limit drops of data packets (per 300 s run).\n\n"
            "| scenario | seeds | ns-2.35 AODV | hoptcp AODV | Δ | hoptcp static | AODV / static | "
            "route breaks ns-2.35 | route breaks hoptcp | Δ |\n"
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    body = ""
    for r in rows:
        g2 = [x["aggregate_goodput_bps"] for x in r["ns2"]]
        gh = [x["aggregate_goodput_bps"] for x in r["aodv"]]
        gs = [x["aggregate_goodput_bps"] for x in r["static"]]
        b2 = [x["route_breaks_total"] for x in r["ns2"]]
        bh = [x["route_breaks_total"] for x in r["aodv"]]
        body += (f"| {r['what']} | {len(g2)} | {fmt_kbps(g2)} | {fmt_kbps(gh)} | {pct(statistics.fmean(gh), statistics.fmean(g2))} "
                 f"| {fmt_kbps(gs)} | {statistics.fmean(gh) / statistics.fmean(gs):.2f} "
                 f"| {fmt_n(b2)} | {fmt_n(bh)} | {pct(statistics.fmean(bh), statistics.fmean(b2))} |\n")
    return head + body


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5, help="seeds 1..N (default 5)")
    ap.add_argument("--only", nargs="*", help="configuration names (default: all)")
    ap.add_argument("--update-docs", action="store_true", help="rewrite the table in docs/aodv.md")
    a = ap.parse_args()
    cache = load_cache()
    rows = []
    for name, what, kw in CONFIGS:
        if a.only and name not in a.only:
            continue
        seeds = list(range(1, max(a.seeds, HEADLINE.get(name, 0)) + 1))
        print(f"{name}", file=sys.stderr, flush=True)
        rows.append({
            "name": name, "what": what, "kw": kw,
            "ns2": ns2_results(name, kw, seeds, cache),
            "aodv": [run_hoptcp(kw, "aodv", s) for s in seeds],
            "static": [run_hoptcp(kw, "static", s) for s in seeds],
        })
    RAW.parent.mkdir(parents=True, exist_ok=True)
    RAW.write_text(json.dumps(rows, indent=1) + "\n")
    md = table(rows)
    print(md)
    if a.update_docs:
        text = DOCS.read_text()
        i, j = text.index(MARK_BEGIN) + len(MARK_BEGIN), text.index(MARK_END)
        DOCS.write_text(text[:i] + "\n" + md + text[j:])
        print(f"updated {DOCS}", file=sys.stderr)


if __name__ == "__main__":
    main()
