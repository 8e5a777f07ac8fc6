"""Paired statistics (issue #36, rule 4): every gain or ratio of a cure against its baseline is
computed per seed on the seeds both arms ran, with the Student-t interval over those seeds.

First :func:`hoptcp.stats.paired_gain` and friends on hand-made series, then every converted
check function through its registered name on a hand-made run table. The tables share one
design: five seeds whose own effect (a factor 0.6 .. 1.4, e.g. the placement or the random
draws of that seed) both arms share, and a small per-seed wobble of the cure alone. The paired
interval sees only the wobble; the old interval of a ratio of means (delta method, independent
samples) sees the seed effect too and is many times wider.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import pandas as pd
import pytest
from scipy import stats as st

from hoptcp import SpecError
from hoptcp.reproduce.registry import find
from hoptcp.stats import Estimate, paired_gain, paired_over_points, paired_values

pytestmark = pytest.mark.core

SEEDS = (1, 2, 3, 4, 5)
#: each seed's own effect, shared by both arms
F = dict(zip(SEEDS, (0.6, 0.8, 1.0, 1.2, 1.4), strict=True))
#: the cure's own per-seed wobble (relative)
W = dict(zip(SEEDS, (0.01, -0.01, 0.02, -0.02, 0.0), strict=True))


def by_hand(values: list[float]) -> tuple[float, float]:
    """Mean and Student-t 95% half-width, written out."""
    n = len(values)
    m = sum(values) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in values) / (n - 1))
    return m, float(st.t.ppf(0.975, n - 1)) * sd / math.sqrt(n)


def delta_ratio(base: list[float], cure: list[float]) -> tuple[float, float]:
    """The old interval: cure/base as a ratio of means, delta method, independent samples."""
    n = len(base)
    mb, mc = sum(base) / n, sum(cure) / n
    sb = math.sqrt(sum((x - mb) ** 2 for x in base) / (n - 1))
    sc = math.sqrt(sum((x - mc) ** 2 for x in cure) / (n - 1))
    r = mc / mb
    se = r * math.sqrt((sc / mc) ** 2 / n + (sb / mb) ** 2 / n)
    return r, float(st.t.ppf(0.975, n - 1)) * se


def arms(base: float, cure: float) -> tuple[dict[int, float], dict[int, float]]:
    """Per seed: the baseline ``base`` and the cure ``cure`` times the seed's effect (and the wobble)."""
    return ({s: base * F[s] for s in SEEDS}, {s: cure * F[s] * (1 + W[s]) for s in SEEDS})


def pct(b: dict[int, float], c: dict[int, float]) -> list[float]:
    return [100 * (c[s] / b[s] - 1) for s in sorted(c) if s in b]


def ratio(b: dict[int, float], c: dict[int, float]) -> list[float]:
    return [c[s] / b[s] for s in sorted(c) if s in b]


def loss(b: dict[int, float], c: dict[int, float]) -> list[float]:
    return [100 * (1 - c[s] / b[s]) for s in sorted(c) if s in b]


def check(name: str):
    fn = find("check", name)
    assert fn is not None, name
    return fn


def assert_est(e: Estimate, values: list[float]) -> None:
    m, ci = by_hand(values)
    assert e.mean == pytest.approx(m, rel=1e-9, abs=1e-9)
    assert e.ci == pytest.approx(ci, rel=1e-6, abs=1e-9)
    assert e.n == len(values)


# --- the helper -------------------------------------------------------------------------------

def test_paired_interval_is_much_narrower_when_seed_effects_are_shared():
    b, c = arms(100.0, 110.0)
    base, cure = pd.Series(b), pd.Series(c)
    e = paired_gain(base, cure, "ratio")
    assert_est(e, ratio(b, c))
    old_r, old_ci = delta_ratio(list(b.values()), list(c.values()))
    assert e.mean == pytest.approx(old_r, rel=0.01)  # the same ratio, about
    assert e.ci < old_ci / 10, (e.ci, old_ci)  # 0.0196 against 0.3296 here
    g = paired_gain(base, cure)  # kind "pct" by default
    assert g.mean == pytest.approx(100 * (e.mean - 1)) and g.ci == pytest.approx(100 * e.ci)
    assert g.std == pytest.approx(100 * e.std)


def test_kinds_by_hand():
    base, cure = pd.Series({1: 100.0, 2: 200.0}), pd.Series({1: 90.0, 2: 170.0})
    assert paired_values(base, cure, "pct").values.tolist() == pytest.approx([-10.0, -15.0])
    assert paired_values(base, cure, "ratio").values.tolist() == pytest.approx([0.9, 0.85])
    assert paired_values(base, cure, "loss_pct").values.tolist() == pytest.approx([10.0, 15.0])
    assert paired_values(base, cure, "diff").values.tolist() == pytest.approx([-10.0, -30.0])
    with pytest.raises(SpecError, match="kind"):
        paired_gain(base, cure, "log")


def test_a_seed_in_one_arm_only_is_dropped_and_counted():
    base = pd.Series({1: 100.0, 2: 200.0, 3: 300.0, 4: 400.0})
    cure = pd.Series({1: 110.0, 2: 230.0, 3: 300.0, 5: 999.0})
    p = paired_values(base, cure, "pct")
    assert p.only_base == (4,) and p.only_cure == (5,) and p.dropped == ()
    assert list(p.values.index) == [1, 2, 3]
    assert_est(paired_gain(base, cure), [10.0, 15.0, 0.0])


def test_a_zero_or_nan_baseline_is_dropped():
    base = pd.Series({1: 0.0, 2: 100.0, 3: 200.0, 4: math.nan})
    cure = pd.Series({1: 10.0, 2: 110.0, 3: 220.0, 4: 5.0})
    p = paired_values(base, cure, "ratio")
    assert p.dropped == (1, 4) and p.n == 2
    assert_est(p.estimate(), [1.1, 1.1])
    # a difference is defined at a zero baseline (not at NaN)
    d = paired_values(base, cure, "diff")
    assert d.dropped == (4,) and d.values.tolist() == pytest.approx([10.0, 10.0, 20.0])
    # nothing paired: NaN with n = 0; one pair: no interval
    assert paired_gain(pd.Series({1: 0.0}), pd.Series({1: 1.0})).n == 0
    one = paired_gain(pd.Series({1: 100.0}), pd.Series({1: 150.0}))
    assert one.mean == pytest.approx(50.0) and math.isnan(one.ci) and one.n == 1


def test_frames_with_a_seed_column_and_other_keys():
    base = pd.DataFrame({"seed": [1, 2, 1, 2], "hops": [3, 3, 7, 7], "x": [100.0, 200.0, 50.0, 60.0]})
    cure = pd.DataFrame({"seed": [1, 2, 1, 2], "hops": [3, 3, 7, 7], "x": [110.0, 220.0, 40.0, 48.0]})
    e = paired_gain(base, cure, "pct", value="x", on=("hops", "seed"))
    assert_est(e, [10.0, 10.0, -20.0, -20.0])
    # two rows of one seed in an arm are averaged first
    dup = paired_values(base, cure, "pct", value="x")
    assert dup.values.tolist() == pytest.approx([100 * (75 / 75 - 1), 100 * (134 / 130 - 1)])
    with pytest.raises(SpecError, match="value="):
        paired_gain(base, cure)
    with pytest.raises(SpecError, match="'seed'"):
        paired_gain(base.drop(columns="seed"), cure, value="x")


def test_max_over_points_with_a_bootstrap_over_seeds():
    b, c = arms(100.0, 110.0)
    b2, c2 = arms(100.0, 130.0)
    p1, p2 = paired_values(pd.Series(b), pd.Series(c)), paired_values(pd.Series(b2), pd.Series(c2))
    e = paired_over_points([p1.values, p2.values], "max")
    assert e.mean == pytest.approx(max(sum(pct(b, c)) / 5, sum(pct(b2, c2)) / 5))
    assert e.n == 5 and math.isnan(e.std)
    # the interval covers the seeds' spread of the winning point, and is reproducible
    assert 0 < e.ci < 5
    assert paired_over_points({"a": p1.values, "b": p2.values}, "max") == e
    # its half-width reaches both ends of the bootstrap's percentile interval
    m, ci_t = by_hand(pct(b2, c2))
    assert e.ci == pytest.approx(ci_t, rel=0.6)
    assert paired_over_points([p1.values, p2.values], "mean").mean == pytest.approx(
        (sum(pct(b, c)) + sum(pct(b2, c2))) / 10)
    neg = p1.values - 50
    assert paired_over_points([neg, p2.values], "absmax").mean == pytest.approx(abs(neg.mean()))
    assert paired_over_points([p1.values], lambda a: float(a[0] * 2)).mean == pytest.approx(2 * p1.values.mean())
    # a point with other seeds: the bootstrap draws over the union
    part = paired_over_points([p1.values.loc[[1, 2]], p2.values.loc[[3, 4, 5]]], "min")
    assert part.n == 5 and part.mean == pytest.approx(min(p1.values.loc[[1, 2]].mean(), p2.values.loc[[3, 4, 5]].mean()))
    one = paired_over_points([pd.Series({1: 3.0}), pd.Series({1: 5.0})], "max")
    assert one.mean == 5.0 and math.isnan(one.ci) and one.n == 1
    assert paired_over_points([]).n == 0
    with pytest.raises(SpecError, match="reduce"):
        paired_over_points([p1.values], "median")


# --- fu_lred ----------------------------------------------------------------------------------

from hoptcp.reproduce.lib import fu_lred as fl  # noqa: E402


def _lred_row(seed: int, scheme: str, win: int, goodput: float, **extra) -> dict:
    on = {"NewReno": (False, False), "LRED": (True, False), "pacing (TR)": (False, True),
          "LRED+pacing (TR)": (True, True)}[scheme]
    return {"seed": seed, fl.WIN: win, fl.HOPS: 7, fl.COUNT: 1, fl.LRED_ON: on[0], fl.PACE_ON: on[1],
            fl.TRIGGER: "below_min_th", fl.ACTION: "mark", fl.MIN_TH: 1.0, fl.MAX_TH: 3.0, fl.MAX_P: 0.02,
            fl.GOODPUT: goodput, "flow.0.goodput_bps": goodput, "flow.0.avg_cwnd": 3.0, **extra}


def _window_runs() -> tuple[pd.DataFrame, tuple, tuple, tuple]:
    """fu-lred-window / fu-pacing style: NewReno at MaxWin 3 and 32, LRED and pacing at 32 and 3."""
    nr32, lred = arms(100.0, 110.0)
    nr3, pace3 = arms(120.0, 126.0)
    drops_nr, drops_lred = arms(50.0, 20.0)
    rows = []
    for s in SEEDS:
        rows += [_lred_row(s, "NewReno", 32, nr32[s], **{"drops.mac_rts_retry": drops_nr[s], "drops.mac_data_retry": 0.0,
                                                          "flow.0.avg_rtt_s": 0.2 * F[s]}),
                 _lred_row(s, "LRED", 32, lred[s], **{"drops.mac_rts_retry": drops_lred[s], "drops.mac_data_retry": 0.0,
                                                      "flow.0.avg_rtt_s": 0.1 * F[s] * (1 + W[s])}),
                 _lred_row(s, "NewReno", 3, nr3[s], **{"flow.0.avg_rtt_s": 0.2 * F[s]}),
                 _lred_row(s, "pacing (TR)", 3, pace3[s], **{"flow.0.avg_rtt_s": 0.18 * F[s] * (1 + W[s])})]
    return pd.DataFrame(rows), (nr32, lred), (nr3, pace3), (drops_nr, drops_lred)


def test_lred_window_checks_are_paired():
    df, (nr32, lred), (nr3, _), (dn, dl) = _window_runs()
    ctx = SimpleNamespace(runs=df)
    assert_est(check("lred_drop_ratio")(ctx, df, {}, scheme="LRED"), ratio(dn, dl))
    m, ci = by_hand(pct(nr32, lred))
    low = check("lred_goodput_gain_low")(ctx, df, {}, scheme="LRED")
    assert low.mean == pytest.approx(m + ci) and low.n == 5
    # against NewReno's best fixed MaxWin (3: 120 against 100 at 32), the same seeds
    m, ci = by_hand(pct(nr3, lred))
    assert check("lred_vs_best_fixed")(ctx, df, {}, scheme="LRED").mean == pytest.approx(m + ci)


def test_lred_pacing_checks_are_paired():
    df, _, (nr3, pace3), _ = _window_runs()
    ctx = SimpleNamespace(runs=df)
    assert_est(check("lred_pacing_gain")(ctx, df, {}, scheme="pacing (TR)", window=3), pct(nr3, pace3))
    rtt_nr = {s: 0.2 * F[s] for s in SEEDS}
    rtt_p = {s: 0.18 * F[s] * (1 + W[s]) for s in SEEDS}
    assert_est(check("lred_pacing_rtt_ratio")(ctx, df, {}, scheme="pacing (TR)", window=3), ratio(rtt_nr, rtt_p))
    # a seed NewReno lacks is left out
    cut = df[~((df["seed"] == 5) & ~df[fl.PACE_ON].astype(bool) & (df[fl.WIN] == 3))]
    got = check("lred_pacing_gain")(SimpleNamespace(runs=cut), cut, {}, scheme="pacing (TR)", window=3)
    assert got.n == 4


def test_lred_chain_gain_pools_the_paired_per_chain_gains():
    rows = []
    per_chain = {}
    for h, (b, c) in {7: (100.0, 105.0), 9: (80.0, 92.0)}.items():
        nr, lp = arms(b, c)
        per_chain[h] = by_hand(pct(nr, lp))
        rows += [{**_lred_row(s, "NewReno", 32, nr[s]), fl.HOPS: h} for s in SEEDS]
        rows += [{**_lred_row(s, "LRED+pacing (TR)", 32, lp[s]), fl.HOPS: h} for s in SEEDS]
    df = pd.DataFrame(rows)
    e = check("lred_chain_gain")(SimpleNamespace(runs=df), df, {}, scheme="LRED+pacing (TR)", flows=1, long=False)
    assert e.mean == pytest.approx((per_chain[7][0] + per_chain[9][0]) / 2)
    assert e.ci == pytest.approx(math.hypot(per_chain[7][1], per_chain[9][1]) / 2)


def test_lred_topo_gain_and_fairness_gain_are_paired():
    nr, lp = arms(300.0, 330.0)
    rows = []
    for s in SEEDS:
        # NewReno: one flow takes 3/4; LRED+pacing: more even (1/2 + the wobble)
        rows.append({**_lred_row(s, "NewReno", 32, nr[s]), "name": "cross2", "flow.0.goodput_bps": 0.75 * nr[s],
                     "flow.1.goodput_bps": 0.25 * nr[s]})
        rows.append({**_lred_row(s, "LRED+pacing (TR)", 32, lp[s]), "name": "cross2",
                     "flow.0.goodput_bps": (0.5 + W[s]) * lp[s], "flow.1.goodput_bps": (0.5 - W[s]) * lp[s]})
    df = pd.DataFrame(rows)
    ctx = SimpleNamespace(runs=df)
    topo = check("lred_topo")
    assert_est(topo(ctx, df, {}, case="cross2", scheme="LRED+pacing (TR)", quantity="gain"), pct(nr, lp))

    def jain(a: float, b: float) -> float:
        return (a + b) ** 2 / (2 * (a * a + b * b))

    fair = [jain(0.5 + W[s], 0.5 - W[s]) - jain(0.75, 0.25) for s in SEEDS]
    assert_est(topo(ctx, df, {}, case="cross2", scheme="LRED+pacing (TR)", quantity="fairgain"), fair)


def test_lred_calibration_score_uses_paired_ratios():
    nr, on = arms(100.0, 97.0)
    rows = [_lred_row(s, "NewReno", 32, nr[s]) for s in SEEDS]
    rows += [{**_lred_row(s, "LRED", 32, on[s]), fl.MIN_TH: 0.5, fl.MAX_TH: 1.5, fl.MAX_P: 0.1} for s in SEEDS]
    df = pd.DataFrame(rows)
    t = fl.lred_calibration_table(df)
    assert_est(t.iloc[0]["ratio_7"], ratio(nr, on))
    e = check("lred_cal_score")(SimpleNamespace(runs=df), df, {})
    m, ci = by_hand(ratio(nr, on))
    assert e.mean == pytest.approx(m) and e.ci == pytest.approx(ci)


def _entry_ctx(eid: str, runs: pd.DataFrame):
    from hoptcp.reproduce import get_entry
    from hoptcp.reproduce.report import Context

    e = get_entry(eid)
    return Context(e, e.sweep_spec(), runs, None, False)


def test_lred_varsize_loss_and_overshoot_are_paired_over_windows():
    best, last = arms(200.0, 150.0)
    wbest, wlast = arms(3.0, 12.0)  # each flow's average window (packets)
    rows = []
    for s in SEEDS:
        rows.append({"seed": s, fl.WIN: 2, fl.GOODPUT: best[s], "flow.0.avg_cwnd": wbest[s], "flow.1.avg_cwnd": wbest[s]})
        rows.append({"seed": s, fl.WIN: 32, fl.GOODPUT: last[s], "flow.0.avg_cwnd": wlast[s],
                     "flow.1.avg_cwnd": wlast[s]})
    df = pd.DataFrame(rows)
    ctx = _entry_ctx("fu-varsize", df)
    assert_est(check("lred_varsize_loss")(ctx, df, {}), loss(best, last))
    # byte windows: the same packets per flow times (1460 + 40) + (576 + 40) bytes, so the ratio is the packets'
    assert_est(check("lred_varsize_overshoot")(ctx, df, {}), ratio(wbest, wlast))


def test_lred_udp_peak_drop_is_paired_over_loads():
    peak, top = arms(400e3, 300e3)
    rows = []
    for rate, x in ((2e5, {s: 0.5 * peak[s] for s in SEEDS}), (4e5, peak), (8e5, top)):
        for s in SEEDS:
            rows.append({"seed": s, fl.RATE: rate, fl.TRANSPORT: "udp", fl.GOODPUT: x[s], "flow.0.src": 0,
                         "flow.0.dst": 1, "node.0.mac_drops": 1.0, "node.0.mac_packets": 100.0,
                         "node.1.mac_packets": 0.0})
    df = pd.DataFrame(rows)
    assert_est(check("lred_udp_peak_drop")(SimpleNamespace(runs=df), df, {}), loss(peak, top))


# --- fu_chain, fu_network ------------------------------------------------------------------------

def test_fu_window_loss_is_paired():
    best, last = arms(200.0, 180.0)
    df = pd.DataFrame([{"tcp.max_window": w, "tcp.payload_bytes": 1460, "seed": s, "aggregate_goodput_bps": x[s]}
                       for w, x in ((3, best), (32, last)) for s in SEEDS])
    e = check("fu_window_loss32")(None, df, {}, payload_bytes=1460)
    assert_est(e, loss(best, last))
    _, old_ci = delta_ratio(list(best.values()), list(last.values()))
    assert e.ci < 100 * old_ci / 10


def test_fu_vegas_ratio_and_deficit_are_paired():
    rows, per = [], {}
    for h, (b, c) in {4: (300.0, 280.0), 6: (250.0, 255.0), 9: (200.0, 170.0), 16: (180.0, 150.0)}.items():
        nr, ve = arms(b, c)
        per[h] = (nr, ve)
        for s in SEEDS:
            rows.append({"topology.hops": h, "tcp.variant": "newreno", "tcp.max_window": 32, "seed": s,
                         "aggregate_goodput_bps": nr[s], "flow.0.avg_cwnd": 9.0})
            rows.append({"topology.hops": h, "tcp.variant": "vegas", "tcp.max_window": 32, "seed": s,
                         "aggregate_goodput_bps": ve[s], "flow.0.avg_cwnd": 3.0})
    df = pd.DataFrame(rows)
    short = check("fu_vegas_short_ratio")(None, df, {})
    r4 = by_hand(ratio(*per[4]))[0]  # 280/300: farther from 1 than 255/250
    assert short.mean == pytest.approx(r4) and short.n == 5 and 0 < short.ci < 0.05
    deficit = check("fu_vegas_long_deficit")(None, df, {})
    d9, d16 = by_hand(loss(*per[9])), by_hand(loss(*per[16]))
    assert deficit.mean == pytest.approx((d9[0] + d16[0]) / 2)
    assert deficit.ci == pytest.approx(math.hypot(d9[1], d16[1]) / 2)


def test_net_loss_pct_is_paired():
    best, top = arms(400.0, 300.0)
    df = pd.DataFrame([{"name": "cross2", "tcp.max_window": w, "seed": s, "aggregate_goodput_bps": 1e3 * x[s]}
                       for w, x in ((4, best), (32, top)) for s in SEEDS])
    assert_est(check("net_case")(None, df, {}, measure="loss_pct", case="cross2"), loss(best, top))


# --- ldm -----------------------------------------------------------------------------------------

def _ldm_runs(cells: dict[int, tuple[float, float]], measure: str = "kbps") -> tuple[pd.DataFrame, dict]:
    """Regular TCP and LDM (oracle) on chains of ``cells`` hops: goodput (kb/s) or RTT (s) of each."""
    from hoptcp.reproduce.lib import ldm

    rows, per = [], {}
    for h, (b, c) in cells.items():
        reg, ora = arms(b, c)
        per[h] = (reg, ora)
        for s in SEEDS:
            for params, x in (({ldm.WIN: 32}, reg[s]), ({ldm.LDM_ON: True, ldm.ESTIMATE: "oracle"}, ora[s])):
                kbps = x if measure == "kbps" else 100.0
                rtt = x if measure == "rtt" else 0.1
                rows.append({**params, "seed": s, ldm.HOPS: h, ldm.COUNT: 1, ldm.GOODPUT: kbps * 1e3,
                             "flow.0.goodput_bps": kbps * 1e3, "flow.0.avg_rtt_s": rtt, "flow.0.packets_sent": 100,
                             "flow.0.retransmissions": 1, "node.0.cts_timeouts": 10, "node.0.cts_withheld": 5})
    return pd.DataFrame(rows), per


def test_ldm_relative_is_paired_by_chain_and_seed():
    df, per = _ldm_runs({7: (100.0, 130.0), 15: (60.0, 66.0)})
    ctx = SimpleNamespace(runs=df, cache={})
    assert_est(check("ldm_relative")(ctx, df, {}, measure="kbps", scheme="ldm-oracle", hops=7), pct(*per[7]))
    # hops 0: every run, paired within each chain
    assert_est(check("ldm_relative")(ctx, df, {}, measure="kbps", scheme="ldm-oracle"), pct(*per[7]) + pct(*per[15]))


def test_ldm_max_cut_is_the_largest_paired_cut():
    df, per = _ldm_runs({7: (0.4, 0.2), 15: (0.6, 0.45), 24: (0.8, 0.7)}, measure="rtt")
    e = check("ldm_max_cut")(SimpleNamespace(runs=df, cache={}), df, {}, of="rtt", against="regular")
    assert e.mean == pytest.approx(by_hand(loss(*per[7]))[0]) and e.n == 5 and 0 < e.ci < 5


# --- jiang ---------------------------------------------------------------------------------------

def _jiang_ctx(received: dict[int, dict[int, float]], zeros: dict[int, dict[int, int]] | None = None):
    """jiang-retry at 6 hops, W = 8: packets received per run at retry limits 7/4 and 14/10, and
    per-second series (cached as the check reads them) with ``zeros[srl][seed]`` empty seconds."""
    from hoptcp.reproduce.lib import jiang as jg

    payload, duration = 1000, 100.0
    resolved = {"duration_s": duration, "tcp": {"payload_bytes": payload}, "flows": [{"start_s": 0.0}]}
    params = [jg.HOPS, jg.WIN, jg.SRL]
    rows = [{jg.HOPS: 6, jg.WIN: 8, jg.SRL: srl, "seed": s, "flow.0.goodput_bps": n * 8 * payload / duration}
            for srl, per in received.items() for s, n in per.items()]
    cache = {}
    for srl, per in (zeros or {}).items():
        for s, z in per.items():
            pk = [0.0] + [0.0] * z + [10.0 + (k % 3) * s for k in range(20 - z)]  # the first second is skipped
            series = pd.DataFrame({"time_s": range(len(pk)), "flow": 0, "goodput_bps": [8 * payload * x for x in pk]})
            point = {jg.HOPS: 6, jg.WIN: 8, jg.SRL: srl}
            cache[("jiang_series", "jiang-retry", tuple(sorted((k, str(v)) for k, v in point.items())), s)] = series
    return SimpleNamespace(params=params, resolved=lambda p: resolved, name="jiang-retry", cache=cache), pd.DataFrame(rows)


def test_jiang_retry_gain_is_paired():
    b, c = arms(1000.0, 1300.0)
    b, c = {s: round(x) for s, x in b.items()}, {s: round(x) for s, x in c.items()}
    ctx, df = _jiang_ctx({7: b, 14: c})
    e = check("jiang_retry_gain_6h")(ctx, df, {})
    assert_est(e, pct(b, c))
    assert e.ci < 100 * delta_ratio(list(b.values()), list(c.values()))[1] / 10


def test_jiang_oscillation_ratios_are_paired():
    from hoptcp.reproduce.lib import jiang as jg

    z7 = {1: 6, 2: 4, 3: 8, 4: 5, 5: 0}  # seed 5: no empty second at 7/4, so no ratio
    z14 = {1: 3, 2: 2, 3: 4, 4: 2, 5: 1}
    ctx, df = _jiang_ctx({7: dict.fromkeys(SEEDS, 900), 14: dict.fromkeys(SEEDS, 1000)}, {7: z7, 14: z14})
    e = check("jiang_retry_zero_ratio_6h")(ctx, df, {})
    assert_est(e, [z14[s] / z7[s] for s in (1, 2, 3, 4)])
    cv = check("jiang_retry_cv_ratio_6h")(ctx, df, {})

    def cv_of(z: int, s: int) -> float:
        return jg._cv([0.0] + [0.0] * z + [10.0 + (k % 3) * s for k in range(20 - z)])

    assert_est(cv, [cv_of(z14[s], s) / cv_of(z7[s], s) for s in SEEDS])


def test_jiang_cv_ratio_across_windows_is_paired():
    from hoptcp.reproduce.lib import jiang as jg

    payload = 1000
    resolved = {"duration_s": 100.0, "tcp": {"payload_bytes": payload}, "flows": [{"start_s": 0.0}]}
    cache, rows = {}, []
    zeros = {4: {1: 1, 2: 2, 3: 0}, 16: {1: 5, 2: 4, 3: 6}}
    for w, per in zeros.items():
        for s, z in per.items():
            pk = [0.0] + [0.0] * z + [10.0 + (k % 2) * s for k in range(20 - z)]
            point = {jg.HOPS: 3, jg.WIN: w}
            cache[("jiang_series", "jiang-oscillation", tuple(sorted((k, str(v)) for k, v in point.items())), s)] = \
                pd.DataFrame({"time_s": range(len(pk)), "flow": 0, "goodput_bps": [8 * payload * x for x in pk]})
            rows.append({jg.HOPS: 3, jg.WIN: w, "seed": s})
    ctx = SimpleNamespace(params=[jg.HOPS, jg.WIN], resolved=lambda p: resolved, name="jiang-oscillation", cache=cache)
    df = pd.DataFrame(rows)

    def cv_of(z: int, s: int) -> float:
        return jg._cv([0.0] + [0.0] * z + [10.0 + (k % 2) * s for k in range(20 - z)])

    assert_est(check("jiang_cv_ratio_3h")(ctx, df, {}),
               [cv_of(zeros[16][s], s) / cv_of(zeros[4][s], s) for s in (1, 2, 3)])


# --- gap -----------------------------------------------------------------------------------------

from hoptcp.reproduce.lib import gap_hybrid as gh  # noqa: E402
from hoptcp.reproduce.lib import gap_multiflow as gm  # noqa: E402


def _chain_runs(cells: dict[int, tuple[float, float]]) -> tuple[pd.DataFrame, dict]:
    rows, per = [], {}
    for h, (b, c) in cells.items():
        nr, gp = arms(b, c)
        per[h] = (nr, gp)
        for s in SEEDS:
            rows.append({gh.HOPS: h, gh.VARIANT: "newreno", gh.GAP: False, gh.GOODPUT: nr[s], "seed": s})
            rows.append({gh.HOPS: h, gh.VARIANT: "tcp_ap", gh.GAP: True, gh.GOODPUT: gp[s], "seed": s})
    return pd.DataFrame(rows), per


def test_gap_chain_gains_take_the_largest_paired_gain():
    df, per = _chain_runs({2: (1000.0, 950.0), 3: (500.0, 520.0), 5: (400.0, 480.0), 7: (300.0, 420.0)})
    ctx = SimpleNamespace(runs=df, side=lambda name: SimpleNamespace(runs=df))
    up = check("gap_chain_up_gain_long")(ctx, df, {})
    assert up.mean == pytest.approx(by_hand(pct(*per[7]))[0]) and up.n == 5 and 0 < up.ci < 5
    assert check("gap_chain_down_gain_long")(ctx, df, {}) == up
    short = check("gap_chain_up_short")(ctx, df, {})
    assert short.mean == pytest.approx(by_hand(pct(*per[3]))[0])
    dev = check("gap_chain_down_short_dev")(ctx, df, {})
    assert dev.mean == pytest.approx(abs(by_hand(pct(*per[2]))[0]))  # -5% beats +4%


def _parallel_ctx():
    mixes = {"wireless": (gh.A1, gh.A2), "wired": (gh.HOST_B, gh.HOST_B), "oncoming": (gh.HOST_B, gh.A2)}
    values = {"NewReno": (100.0, 0.7), "TCP-GAP": (120.0, 0.95), "TCP-GAP + Goodput Control": (108.0, 0.99)}
    frames = {}
    for arm, (kbps, jain) in values.items():
        rows = []
        for src in mixes.values():
            for s in SEEDS:
                rows.append({"flows.0.src": src[0], "flows.1.src": src[1], "seed": s,
                             gh.GOODPUT: kbps * F[s] * (1 + (W[s] if arm != "NewReno" else 0)),
                             "fairness_jain": jain + (W[s] if arm != "NewReno" else 0)})
        frames[arm] = pd.DataFrame(rows)
    sides = {"tcp-gap": frames["TCP-GAP"], "goodput-control": frames["TCP-GAP + Goodput Control"]}
    ctx = SimpleNamespace(runs=frames["NewReno"], side=lambda name: SimpleNamespace(runs=sides[name]))
    return ctx, frames["NewReno"]


def test_gap_parallel_ratios_and_jain_gain_are_paired():
    ctx, df = _parallel_ctx()
    up = check("gap_par_up_aggregate_ratio")(ctx, df, {})
    assert_est(up, [1.2 * (1 + W[s]) for s in SEEDS])
    assert_est(check("gap_par_down_aggregate_ratio")(ctx, df, {}), [1.2 * (1 + W[s]) for s in SEEDS])
    # Goodput Control against TCP-GAP: the wobble is both arms', so it cancels per seed
    cost = check("gap_par_oncoming_control_cost")(ctx, df, {})
    assert cost.mean == pytest.approx(0.9) and cost.ci == pytest.approx(0.0, abs=1e-12)
    assert_est(check("gap_par_oncoming_jain_gain")(ctx, df, {}), [0.25 + W[s] for s in SEEDS])


def test_gap_wired_bandwidth_gain_and_deviation_are_paired():
    rows, per = [], {}
    for bw, (b, c) in {2: (1e6, 0.97e6), 5: (1e6, 1.02e6), 10: (1e6, 1.2e6), 100: (1e6, 1.3e6)}.items():
        nr, gp = arms(b, c)
        per[bw] = (nr, gp)
        for s in SEEDS:
            rows.append({gh.BW: bw, gh.GAP: False, gh.GOODPUT: nr[s], "fairness_jain": 0.7, "seed": s})
            rows.append({gh.BW: bw, gh.GAP: True, gh.GOODPUT: gp[s], "fairness_jain": 0.99, "seed": s})
    df = pd.DataFrame(rows)
    high = check("gap_bw_gain_high")(None, df, {})
    assert high.mean == pytest.approx((by_hand(pct(*per[10]))[0] + by_hand(pct(*per[100]))[0]) / 2)
    assert high.n == 5 and 0 < high.ci < 5
    low = check("gap_bw_dev_low")(None, df, {})
    assert low.mean == pytest.approx(abs(by_hand(pct(*per[2]))[0]))


def test_gap_http_gain_max_is_paired():
    rows, per = [], {}
    for think, (b, c) in {0.5: (300.0, 360.0), 5.0: (300.0, 330.0)}.items():
        nr, gp = arms(b, c)
        per[think] = (nr, gp)
        for s in SEEDS:
            rows.append({gh.THINK: think, gh.GAP: False, "seed": s, gh.PAGE.format(0): nr[s] / 3,
                         gh.PAGE.format(1): 2 * nr[s] / 3})
            rows.append({gh.THINK: think, gh.GAP: True, "seed": s, gh.PAGE.format(0): gp[s] / 2,
                         gh.PAGE.format(1): gp[s] / 2})
    df = pd.DataFrame(rows)
    e = check("gap_http_gain_max")(None, df, {})
    assert e.mean == pytest.approx(by_hand(pct(*per[0.5]))[0]) and e.n == 5


def _arm_ctx(make_rows):
    frames = {arm: pd.DataFrame(make_rows(arm)) for arm in gm.ARMS}
    sides = {side: frames[arm] for side, arm in gm.ARM_SIDES.items()}
    return SimpleNamespace(runs=frames[gm.ARMS[0]], side=lambda name: SimpleNamespace(runs=sides[name]))


def test_gap_cross_and_random_comparisons_are_paired():
    factor = {gm.ARMS[0]: 1.0, gm.ARMS[1]: 1.1, gm.ARMS[2]: 1.25}

    def cross_rows(arm):
        wob = 0.0 if arm == gm.ARMS[0] else 1.0
        return [{"flows.0.src": gm.CROSS_A[0], "flows.1.src": gm.CROSS_A[1], "seed": s,
                 gm.GOODPUT: 400.0 * F[s] * factor[arm] * (1 + wob * W[s]), gm.JAIN: 0.6 + 0.3 * (arm != gm.ARMS[0])}
                for s in SEEDS]

    ctx = _arm_ctx(cross_rows)
    assert_est(check("gap_cross_ratio")(ctx, None, {}, case="wireless"), [1.25 * (1 + W[s]) for s in SEEDS])

    def random_rows(arm):
        wob = 0.0 if arm == gm.ARMS[0] else 1.0
        return [{"seed": s, gm.GOODPUT: 400.0 * F[s] * factor[arm] * (1 + wob * W[s]),
                 gm.JAIN: 0.6 * F[s] + (0.2 + W[s]) * wob, "flow.0.goodput_bps": 1.0, "flow.1.goodput_bps": 1.0,
                 gm.PAGE.format(0): 100.0 * F[s] * factor[arm] * (1 + wob * W[s]),
                 gm.PAGE.format(1): 300.0 * F[s] * factor[arm] * (1 + wob * W[s])} for s in SEEDS]

    ctx = _arm_ctx(random_rows)
    assert_est(check("gap_random_aggregate_ratio")(ctx, None, {}), [1.25 * (1 + W[s]) for s in SEEDS])
    assert_est(check("gap_random_jain_gain")(ctx, None, {}), [0.2 + W[s] for s in SEEDS])
    assert_est(check("gap_http_random_gain")(ctx, None, {}), [100 * (1.25 * (1 + W[s]) - 1) for s in SEEDS])


def test_example_old_against_new_interval():
    """The numbers of the report: TCP-GAP at 420 against NewReno at 300 kb/s, five seeds."""
    b, c = arms(300.0, 420.0)
    old_r, old_ci = delta_ratio(list(b.values()), list(c.values()))
    new = paired_gain(pd.Series(b), pd.Series(c), "pct")
    assert 100 * (old_r - 1) == pytest.approx(new.mean, abs=0.5)
    assert new.ci < 100 * old_ci / 10
