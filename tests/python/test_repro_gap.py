"""The gap-* entries' table functions on hand-made run frames."""

from __future__ import annotations

import pandas as pd
import pytest

from hoptcp.reproduce.lib import gap_hybrid as g


def test_chain_gains_per_hop_and_claim_extremes() -> None:
    rows = []
    for h, nr, gap in ((2, 1000.0, 900.0), (3, 500.0, 480.0), (5, 400.0, 500.0), (7, 300.0, 420.0)):
        for seed, d in ((1, -10.0), (2, 10.0)):
            rows.append({g.HOPS: h, g.VARIANT: "newreno", g.GAP: False, g.GOODPUT: nr + d, "seed": seed})
            rows.append({g.HOPS: h, g.VARIANT: "tcp_ap", g.GAP: True, g.GOODPUT: gap + d, "seed": seed})
            rows.append({g.HOPS: h, g.VARIANT: "tcp_ap", g.GAP: False, g.GOODPUT: 50.0, "seed": seed})
    runs = pd.DataFrame(rows)
    t = g.gap_arm_table(runs)
    assert set(t["arm"]) == {"NewReno", "TCP-GAP", "TCP-AP (no gateway)"}
    gains = g._gains(runs).set_index("hops")["gain"]
    assert gains[7] == pytest.approx(40.0) and gains[2] == pytest.approx(-10.0)
    assert g._max_gain(runs, long=True).mean == pytest.approx(40.0)
    assert g._max_gain(runs, long=False).mean == pytest.approx(-4.0)
    assert g._gain_table(runs).endswith("| 7 | 0 ± 0 | 0 ± 0 | 0 ± 0 | +40.0% |")


def test_wired_bandwidth_and_http_tables() -> None:
    bw = pd.DataFrame([{g.BW: b, g.GAP: on, g.GOODPUT: (1.2 if on and b > 5 else 1.0) * 1e6,
                        "fairness_jain": 0.99 if on else 0.7} for b in (2, 10, 100) for on in (False, True)])
    t = g.gap_bw_table(bw)
    assert list(t["gain"].round(6)) == [0.0, 20.0, 20.0]
    assert g._bw(bw, True)["nr_jain"].mean() == pytest.approx(0.7)
    http = pd.DataFrame([{g.THINK: th, g.GAP: on, g.PAGE.format(0): 300.0 if on else 200.0,
                          g.PAGE.format(1): 300.0 if on else 100.0} for th in (0.5, 5.0) for on in (False, True)])
    h = g.gap_http_table(http)
    assert list(h["gain"]) == [100.0, 100.0]
    # Jain over (200, 100): 300² / (2 · 50 000) = 0.9; over (300, 300): 1.
    assert h["nr_jain"].iloc[0] == pytest.approx(0.9) and h["gap_jain"].iloc[0] == pytest.approx(1.0)


def test_parallel_flow_variants() -> None:
    out = g.gap_parallel_flows_gap({"flows.0.src": 13, "flows.1.src": 5}, None)
    assert out == {"flows.0.variant": "newreno", "flows.1.variant": "tcp_ap"}
    assert g._mix({"flows.0.src": 13, "flows.1.src": 5}).startswith("oncoming")
