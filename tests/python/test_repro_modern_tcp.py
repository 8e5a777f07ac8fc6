"""The modern-tcp study's table functions on hand-made run frames."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from hoptcp.errors import SpecError
from hoptcp.reproduce.lib import modern_tcp as m


def _chain(curves: dict[tuple[str, bool], dict[int, float]], seeds: tuple[int, ...] = (1, 2, 3)) -> pd.DataFrame:
    """One run per (sender, MaxWin, seed): the curve's value, shifted by seed (-5, 0, +5 %)."""
    rows = []
    for (variant, sack), curve in curves.items():
        for w, g in curve.items():
            for seed in seeds:
                rows.append({m.VARIANT: variant, m.SACK: sack, m.WIN: w, "seed": seed,
                             m.GOODPUT: g * (1 + 0.05 * (seed - 2))})
    return pd.DataFrame(rows)


def test_arm_labels_and_baselines() -> None:
    assert m.arm_label("newreno", False) == "NewReno"
    assert m.arm_label("newreno", True) == "NewReno + SACK"
    assert m.arm_label("cubic", True) == "CUBIC + SACK"
    assert m.arm_label("bbr", float("nan")) == "BBR"  # a sweep that does not set tcp.sack
    assert m.arm_label("westwood", True) == "westwood + SACK"
    # the controller is compared with the same recovery, the recovery with the same controller
    assert m.BASELINE["CUBIC + SACK"] == "NewReno + SACK" and m.BASELINE["NewReno + SACK"] == "NewReno"
    runs = m.with_arms(pd.DataFrame({m.VARIANT: ["bbr", "newreno"], "seed": [1, 1], m.GOODPUT: [1.0, 2.0]}))
    assert m.arms(runs) == ["NewReno", "BBR"]
    ap = m.with_arms(pd.DataFrame({"seed": [1], m.GOODPUT: [1.0]}), "tcp_ap")
    assert list(ap["arm"]) == ["TCP-AP"]
    with pytest.raises(SpecError, match="no 'tcp.variant' column"):
        m.with_arms(pd.DataFrame({"seed": [1], m.GOODPUT: [1.0]}))


def test_best_window_and_paired_loss() -> None:
    runs = m.with_arms(_chain({("newreno", False): {1: 100.0, 3: 240.0, 32: 216.0},
                               ("bbr", True): {1: 50.0, 3: 200.0, 32: 220.0}}))
    assert m.best_window(runs[runs["arm"] == "NewReno"]) == (3, pytest.approx(240.0))
    assert m.best_window(runs[runs["arm"] == "BBR + SACK"])[0] == 32
    # every seed scales both windows alike: the paired loss is exactly 10 %, with no spread
    nr = runs[runs["arm"] == "NewReno"]
    lost = m.paired_gain(m._seeded(nr[nr[m.WIN] == 3], m.GOODPUT), m._seeded(nr[nr[m.WIN] == 32], m.GOODPUT),
                         "loss_pct")
    assert lost.mean == pytest.approx(10.0) and lost.ci == pytest.approx(0.0, abs=1e-9)


def test_gain_is_paired_by_seed_and_empty_arms_give_nan() -> None:
    base = pd.DataFrame({"seed": [1, 2, 3], m.GOODPUT: [100.0, 200.0, 300.0]})
    cure = pd.DataFrame({"seed": [3, 2, 1], m.GOODPUT: [330.0, 220.0, 110.0]})
    g = m.gain(base, cure)
    assert g.mean == pytest.approx(10.0) and g.ci == pytest.approx(0.0, abs=1e-9) and g.n == 3
    assert math.isnan(m.gain(base, cure.iloc[0:0]).mean)


def test_window_tables_name_each_sender_and_its_baseline() -> None:
    class Ctx:
        runs = _chain({("newreno", False): {2: 200.0, 32: 180.0}, ("newreno", True): {2: 210.0, 32: 198.0},
                       ("cubic", True): {2: 210.0, 32: 178.2}})

    out = m._window_values(Ctx())  # type: ignore[arg-type]
    assert out["best_newreno"] == 2 and out["best_cubic_sack"] == 2
    lines = out["window_vs_base"].splitlines()
    # SACK +10 % over NewReno at MaxWin 32 (198 / 180), CUBIC -10 % under NewReno + SACK (178.2 / 198)
    assert lines[2].startswith("| NewReno + SACK | NewReno | +5.0% ± 0.0 | +10.0% ± 0.0 |")
    assert lines[3].startswith("| CUBIC + SACK | NewReno + SACK | +0.0% ± 0.0 | -10.0% ± 0.0 |")
    assert "NewReno's best MaxWin is 2; the unbounded window loses +10.0% ± 0.0" in out["window_sentence"]


def test_drop_split_and_flow_jain() -> None:
    runs = pd.DataFrame({m.GOODPUT: [1.0, 1.0], "drops.mac_rts_retry": [10, 20], "drops.mac_data_retry": [1, 3],
                         "drops.queue_overflow": [0, 4], "flow.0.goodput_bps": [100.0, 100.0],
                         "flow.1.goodput_bps": [100.0, 0.0]})
    mac, buf = m.drop_split(runs)
    assert mac.mean == pytest.approx(17.0) and buf.mean == pytest.approx(2.0)
    assert list(m.flow_jain(runs)) == [pytest.approx(1.0), pytest.approx(0.5)]
    # a run without queue-overflow column counts none
    mac, buf = m.drop_split(runs.drop(columns=["drops.queue_overflow"]))
    assert buf.mean == 0.0
    with pytest.raises(SpecError, match="per-flow goodput"):
        m.flow_jain(runs[[m.GOODPUT]])
