"""The hoptcp / ns-2.35 agreement test: equivalence over seeds (TOST, or a bootstrap over seeds),
and the ns-2.35 evidence that needs it."""

import math

import pandas as pd
import pytest

from hoptcp.reproduce import parse_entry
from hoptcp.reproduce.agreement import DEFAULT_MARGIN_PCT, MIN_SEEDS, bootstrap, margin_for, tost
from hoptcp.reproduce.lib.ns2_agreement import ns2_agrees
from hoptcp.reproduce.report import Context, ns2_agreement

#: ten seeds around 100 with a standard deviation of about 10
SAMPLE = [88.0, 112.0, 95.0, 104.0, 91.0, 109.0, 99.0, 101.0, 85.0, 116.0]


def _se_of_difference(a, b):
    def var_of_mean(x):
        m = sum(x) / len(x)
        return sum((v - m) ** 2 for v in x) / (len(x) - 1) / len(x)
    return math.sqrt(var_of_mean(a) + var_of_mean(b))


def test_identical_samples_agree():
    got = tost(SAMPLE, list(SAMPLE), margin_for(100.0, 100.0))
    assert got.verdict == "agree" and got.difference == 0
    assert -got.margin < got.low90 < 0 < got.high90 < got.margin


def test_samples_three_standard_errors_apart_do_not_agree():
    se = _se_of_difference(SAMPLE, SAMPLE)
    shifted = [x + 3 * se for x in SAMPLE]
    margin = margin_for(100.0, 100.0)  # 10 against 3 SE = 13.4
    got = tost(SAMPLE, shifted, margin)
    assert got.verdict == "differ", got.text
    assert got.difference == pytest.approx(3 * se)
    # the same pair inside a margin much wider than the difference is equivalent
    assert tost(SAMPLE, shifted, 30.0).verdict == "agree"


def test_a_shift_inside_the_noise_is_undecided_not_agreement():
    se = _se_of_difference(SAMPLE, SAMPLE)
    near = [x + 1.5 * se for x in SAMPLE]  # not significant, yet its interval reaches past the margin
    got = tost(SAMPLE, near, 5.0)
    assert got.verdict == "undecided" and "margin" in got.why


@pytest.mark.parametrize("n_a, n_b", [(2, 10), (10, 2), (1, 1)])
def test_too_few_seeds_is_undecided(n_a, n_b):
    got = tost(SAMPLE[:n_a], SAMPLE[:n_b], 1000.0)
    assert got.verdict == "undecided" and f"fewer than {MIN_SEEDS} seeds" in got.text


def test_default_margin_is_a_share_of_the_paper_value_else_of_hoptcp():
    assert margin_for(250.0, 100.0) == pytest.approx(250.0 * DEFAULT_MARGIN_PCT / 100)
    assert margin_for(None, -40.0) == pytest.approx(40.0 * DEFAULT_MARGIN_PCT / 100)
    assert margin_for(250.0, 100.0, "4%") == pytest.approx(10.0)
    assert margin_for(250.0, 100.0, 3) == 3.0


def _pooled_ratio(values):
    """A value computed from pooled runs (a ratio of sums), as check functions compute them."""
    def f(seeds):
        num = sum(values[s][0] for s in seeds)
        den = sum(values[s][1] for s in seeds)
        return num / den
    return f


def test_bootstrap_over_seeds_agrees_on_the_same_data_and_differs_on_shifted_data():
    a = {s: (x, 100.0) for s, x in enumerate(SAMPLE)}
    same = bootstrap(list(a), list(a), _pooled_ratio(a), _pooled_ratio(a), 0.1)
    assert same.verdict == "agree" and same.method == "bootstrap over seeds"
    b = {s: (x + 30.0, 100.0) for s, x in enumerate(SAMPLE)}
    assert bootstrap(list(a), list(b), _pooled_ratio(a), _pooled_ratio(b), 0.1).verdict == "differ"
    # deterministic: the same data give the same interval
    again = bootstrap(list(a), list(a), _pooled_ratio(a), _pooled_ratio(a), 0.1)
    assert (again.low90, again.high90) == (same.low90, same.high90)


def test_bootstrap_of_a_value_that_ignores_the_runs_is_undecided():
    got = bootstrap([1, 2, 3, 4], [1, 2, 3, 4], lambda s: 5.0, lambda s: 5.0, 1.0)
    assert got.verdict == "undecided" and "does not depend on the resampled runs" in got.why
    assert bootstrap([1, 2], [1, 2, 3], lambda s: 5.0, lambda s: 5.0, 1.0).verdict == "undecided"


# --- the ns-2.35 evidence --------------------------------------------------------------

BASE = {"id": "x", "title": "t", "paper": "p", "scenario": "single_hop.toml",
        "sweep": {"seeds": list(range(1, 11)), "set": {"duration_s": 1.0}}}


def _ctx(claim, ours, theirs):
    entry = parse_entry({**BASE, "claims": [claim]})
    runs = pd.DataFrame({"seed": range(1, len(ours) + 1), "m": ours})
    ns2 = pd.DataFrame({"seed": range(1, len(theirs) + 1), "m": theirs})
    return entry.claims[0], Context(entry, entry.sweep_spec(), runs, None, False, ns2=ns2)


def test_ns2_explains_a_miss_only_when_the_simulators_agree():
    c = {"name": "c", "paper": "printed 150", "value": "m", "paper_value": 150.0, "rule": "within 10% of paper"}
    claim, ctx = _ctx(c, SAMPLE, [x + 0.5 for x in SAMPLE])
    ev = ns2_agrees(ctx, claim, {})
    assert ev.shown is True and "agree (TOST (Welch)" in ev.text
    # both miss 150 on the same side, but 72.6 against 111.5 is no agreement
    claim, ctx = _ctx(c, [x * 0.726 for x in SAMPLE], [x * 1.115 for x in SAMPLE])
    ev = ns2_agrees(ctx, claim, {})
    assert ev.shown is False and "differ" in ev.text


def test_ns2_agreement_of_a_check_claim_bootstraps_the_check_over_seeds(lib):
    lib.ratio_of_means = lambda ctx, runs, point: runs["m"].mean() / 100.0
    c = {"name": "c", "paper": "printed 1.5", "check": "ratio_of_means", "paper_value": 1.5,
         "rule": "within 10% of paper"}
    claim, ctx = _ctx(c, SAMPLE, list(SAMPLE))
    ours = ctx.runs["m"].mean() / 100.0
    from hoptcp.stats import Estimate

    got = ns2_agreement(claim, ctx, {}, Estimate(ours, math.nan, 10, math.nan), Estimate(ours, math.nan, 10, math.nan))
    assert got.method == "bootstrap over seeds" and got.verdict == "agree"
    claim, ctx = _ctx(c, SAMPLE[:2], SAMPLE[:2])
    assert ns2_agrees(ctx, claim, {}).shown is False


