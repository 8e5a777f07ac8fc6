"""Where hoptcp and ns-2.35 differ on one configuration of compare.py: by node and by cause.

    python3 validation/ns2/aodv/diagnose.py tcp-w32

Uses the ns-2 runs cached by compare.py (run it first; ``--seeds N`` runs the
missing ns-2 seeds 1..N) and reruns hoptcp with the same seeds. Prints markdown:
per-node route breaks and drops (ns-2's MAC RET and RTR CBK/NRTE lines against
hoptcp's causes), AODV message counts, the TCP recovery figures (retransmissions,
seconds without any delivery), and the equivalence test of every per-run figure
(hoptcp.reproduce.agreement.tost, margin ``--margin`` % of ns-2.35's mean) with the
seeds that margin needs.
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
import compare  # noqa: E402  (the directory holding this script is on sys.path)


def mean(xs: list[float]) -> float:
    return statistics.fmean(xs) if xs else float("nan")


def hoptcp_runs(kw: dict[str, Any], seeds: list[int]) -> list[dict[str, Any]]:
    import hoptcp

    text = compare.hoptcp_toml(kw, "aodv") + "[stats]\nthroughput_interval_s = 1.0\n"
    return [hoptcp.run(hoptcp.Scenario.from_toml(text), seed=s).raw for s in seeds]


def zero_seconds(raw: dict[str, Any], start: float, duration: float) -> int:
    """Seconds (after the start) in which the measured flows delivered nothing."""
    flows = [v for k, v in raw["series"]["flows"].items() if k != "0"]
    return sum(1 for s in range(int(start) + 1, int(duration)) if not any(f[s] for f in flows))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("config", help="a compare.py configuration name, e.g. tcp-w32")
    ap.add_argument("--seeds", type=int, help="first run the missing ns-2 seeds 1..N")
    ap.add_argument("--margin", type=float, default=3.0, help="equivalence margin, %% of ns-2.35's mean (default 3)")
    a = ap.parse_args()
    configs = {name: kw for name, _, kw in compare.CONFIGS}
    kw = configs[a.config]
    cache = compare.load_cache()
    if a.seeds:
        compare.ns2_results(a.config, kw, list(range(1, a.seeds + 1)), cache)
    seeds = sorted(int(k.split("/")[1]) for k in cache if k.split("/")[0] == a.config)
    if not seeds:
        sys.exit(f"no cached ns-2 runs of {a.config}: run compare.py --only {a.config} first")
    ns = [cache[f"{a.config}/{s}"] for s in seeds]
    hp = hoptcp_runs(kw, seeds)
    nodes = range(len(hp[0]["nodes"]))
    print(f"### {a.config}: means over seeds {seeds[0]}–{seeds[-1]}\n")
    print("| node | " + " | ".join(str(n) for n in nodes) + " |")
    print("|---|" + "---:|" * len(nodes))

    def row(label: str, values: list[float]) -> None:
        print(f"| {label} | " + " | ".join(f"{v:.1f}" for v in values) + " |")

    row("route breaks, ns-2.35", [mean([x["breaks_by_node"].get(str(n), 0) for x in ns]) for n in nodes])
    row("route breaks, hoptcp", [mean([x["nodes"][n]["route_breaks"] for x in hp]) for n in nodes])
    row("of which local repairs, hoptcp", [mean([x["nodes"][n]["local_repairs"] for x in hp]) for n in nodes])

    def ns_drops(n: int, prefix: str) -> float:
        return mean([sum(v for k, v in x["drops_by_node"].items() if k.startswith(f"{n}.{prefix}")) for x in ns])

    def hp_drops(n: int, causes: tuple[str, ...]) -> float:
        return mean([sum(x["nodes"][n]["drops"][c] for c in causes) for x in hp])

    row("RTR CBK drops, ns-2.35", [ns_drops(n, "RTR.CBK") for n in nodes])
    row("MAC-cause + flush drops, hoptcp",
        [hp_drops(n, ("mac_rts_retry", "mac_data_retry", "link_failure_flush")) for n in nodes])
    row("RTR NRTE drops, ns-2.35", [ns_drops(n, "RTR.NRTE") for n in nodes])
    row("no-route + discovery-failed drops, hoptcp", [hp_drops(n, ("no_route", "route_discovery_failed")) for n in nodes])
    print()
    keys = [("rreq_sent", "RREQ originated"), ("rreq_forwarded", "RREQ forwarded"), ("rrep_sent", "RREP originated"),
            ("rrep_forwarded", "RREP forwarded")]
    print("| per run | ns-2.35 | hoptcp |\n|---|---:|---:|")
    for k, label in keys:
        print(f"| {label} | {mean([x['aodv'].get(k, 0) for x in ns]):.1f} | {mean([x['routing'][k] for x in hp]):.1f} |")
    print(f"| RERR sent (new and passed on) | {mean([x['aodv'].get('rerr_sent', 0) for x in ns]):.1f} "
          f"| {mean([x['routing']['rerr_sent'] + x['routing']['rerr_forwarded'] for x in hp]):.1f} |")
    if kw["traffic"] == "tcp" and "retransmissions" in ns[0]:
        print(f"| TCP retransmissions | {mean([sum(x['retransmissions']) for x in ns]):.1f} "
              f"| {mean([sum(f['retransmissions'] for f in x['flows'][1:]) for x in hp]):.1f} |")
        print(f"| seconds without delivery | {mean([x['zero_seconds'] for x in ns]):.1f} "
              f"| {mean([zero_seconds(x, 2.0, x['duration_s']) for x in hp]):.1f} |")
        print(f"| TCP timeouts (hoptcp only) | - | {mean([sum(f['timeouts'] for f in x['flows'][1:]) for x in hp]):.1f} |")
    print(f"| goodput (kb/s) | {mean([x['aggregate_goodput_bps'] for x in ns]) / 1e3:.1f} "
          f"| {mean([sum(f['goodput_bps'] for f in x['flows'][1:]) for x in hp]) / 1e3:.1f} |")
    agreement_table(ns, hp, a.margin)
    out = HERE / "results" / f"diagnose-{a.config}.json"
    out.write_text(json.dumps({"seeds": seeds, "hoptcp": [{k: x[k] for k in ("flows", "routing", "drops")} for x in hp]},
                              indent=1) + "\n")


def seeds_needed(a: list[float], b: list[float], margin: float) -> float:
    """Seeds per simulator for TOST to show agreement within ``margin`` with 80 % power when
    the true difference is 0 (normal approximation of the sample-size formula of two one-sided
    tests at 5 %: n = (z_0.95 + z_0.90)² · (s_a² + s_b²) / margin²)."""
    return (1.645 + 1.2816) ** 2 * (statistics.variance(a) + statistics.variance(b)) / margin**2


def agreement_table(ns: list[dict[str, Any]], hp: list[dict[str, Any]], margin_pct: float) -> None:
    """Every per-run figure tested for equivalence within ``margin_pct`` % of ns-2.35's mean."""
    from hoptcp.reproduce.agreement import tost

    def ns_sum(x: dict[str, Any], prefix: str) -> int:
        return sum(v for k, v in x["drops"].items() if k.startswith(prefix))

    def hp_sum(x: dict[str, Any], causes: tuple[str, ...]) -> int:
        return sum(x["drops"].get(c, 0) for c in causes)

    def data_only(x: dict[str, Any], causes: tuple[str, ...]) -> int:
        by = x["drops"]["by_kind"]
        return sum(by[k][c] for k in ("tcp_data", "tcp_ack", "udp") if k in by for c in causes)

    rows = [
        ("goodput (kb/s)", [x["aggregate_goodput_bps"] / 1e3 for x in ns],
         [sum(f["goodput_bps"] for f in x["flows"][1:]) / 1e3 for x in hp]),
        ("route breaks", [x["route_breaks_total"] for x in ns], [x["routing"]["route_breaks"] for x in hp]),
        ("data dropped after a MAC failure (RTR CBK; MAC causes + flush)",
         [ns_sum(x, "RTR.CBK.tcp") + ns_sum(x, "RTR.CBK.ack") for x in ns],
         [data_only(x, ("mac_rts_retry", "mac_data_retry", "link_failure_flush")) for x in hp]),
        ("data dropped without a route (RTR NRTE; no route + discovery failed)",
         [ns_sum(x, "RTR.NRTE.tcp") + ns_sum(x, "RTR.NRTE.ack") for x in ns],
         [data_only(x, ("no_route", "route_discovery_failed")) for x in hp]),
        ("RREQ originated", [x["aodv"].get("rreq_sent", 0) for x in ns], [x["routing"]["rreq_sent"] for x in hp]),
        ("RREP originated", [x["aodv"].get("rrep_sent", 0) for x in ns], [x["routing"]["rrep_sent"] for x in hp]),
        ("RERR sent (new and passed on)", [x["aodv"].get("rerr_sent", 0) for x in ns],
         [x["routing"]["rerr_sent"] + x["routing"]["rerr_forwarded"] for x in hp]),
    ]
    if "retransmissions" in ns[0]:
        rows += [
            ("TCP retransmissions", [sum(x["retransmissions"]) for x in ns],
             [sum(f["retransmissions"] for f in x["flows"][1:]) for x in hp]),
            ("seconds without delivery", [x["zero_seconds"] for x in ns],
             [zero_seconds(x, 2.0, x["duration_s"]) for x in hp]),
        ]
    print(f"\n| per run, {len(ns)} seeds | ns-2.35 | hoptcp | Δ | 90% interval of Δ | agreement within ±{margin_pct:g} % "
          f"| seeds for ±{margin_pct:g} % |\n|---|---:|---:|---:|---:|---|---:|")
    for label, a, b in rows:
        ma = statistics.fmean(a)
        margin = abs(ma) * margin_pct / 100
        t = tost(a, b, margin)
        need = seeds_needed(a, b, margin)
        print(f"| {label} | {ma:.1f} ± {statistics.stdev(a):.1f} | {statistics.fmean(b):.1f} ± {statistics.stdev(b):.1f} "
              f"| {t.difference / ma * 100:+.1f} % | [{t.low90 / ma * 100:+.1f} %, {t.high90 / ma * 100:+.1f} %] "
              f"| {t.verdict} | {need:.0f} |")


if __name__ == "__main__":
    main()
