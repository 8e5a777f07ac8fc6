"""Rules a referee accepts: a one-run paper number against hoptcp's seed range, the smallest
setting near the best, parameterised checks, claim kinds kept out of the paper tallies, quick
runs that say so, and failing deviations that read as failures."""

import math

import pandas as pd
import pytest

from hoptcp import SpecError
from hoptcp.reproduce import Rule, parse_entry, reproduce
from hoptcp.reproduce.checks import smallest_near_best

CLAIM = {"name": "c", "paper": "printed 1 Mb/s", "value": "aggregate_goodput_bps", "paper_value": 1e6,
         "rule": "within 5% of paper"}
BASE = {"id": "x", "title": "t", "paper": "p", "scenario": "single_hop.toml", "claims": [CLAIM],
        "sweep": {"seeds": [1, 2, 3], "set": {"duration_s": 1.0}}, "quick": {"seeds": [1, 2], "duration_s": 0.5}}


def test_a_failing_range_reads_as_a_failure():
    rule = Rule.parse("within 3..5")
    assert rule.evaluate(6.081, None, None) == (False, "6.081 outside [3, 5]")
    assert rule.evaluate(4.0, None, None) == (True, "4 in [3, 5]")


@pytest.mark.parametrize("text, value, ref, paper, expected", [
    ("within 10% of paper", 112.0, None, 100.0, (False, "+12.00%, beyond ±10%")),
    ("within 10% of paper", 95.0, None, 100.0, (True, "-5.00%")),
    ("within 0.5 of reference", 2.75, 2.0, None, (False, "+0.75, beyond ±0.5")),
    ("at least 5", 3.0, None, None, (False, "-2, below 5")),
    ("at most reference", 1.25, 1.0, None, (False, "+0.25, above 1")),
    ("at most 1", 0.5, None, None, (True, "-0.5")),
])
def test_a_failing_deviation_says_what_it_breaks(text, value, ref, paper, expected):
    assert Rule.parse(text).evaluate(value, ref, paper) == expected


def test_seed_range_places_the_paper_number_among_the_seeds():
    rule = Rule.parse("within seed range")
    assert rule.per_seed and rule.two_sided
    holds, text = rule.evaluate_seeds([0.6, 0.9, 0.75], 0.5)
    assert holds is False and text == "paper 0.5 outside the range of 3 seeds [0.6, 0.9]"
    assert rule.evaluate_seeds([0.4, 0.9, math.nan], 0.5)[0] is True
    assert rule.evaluate_seeds([], 0.5) == (None, "no value")


def test_seed_range_needs_a_printed_number():
    c = {k: v for k, v in CLAIM.items() if k != "paper_value"}
    with pytest.raises(SpecError, match="places the paper's number among hoptcp's seeds, but no 'paper_value'"):
        parse_entry({**BASE, "claims": [{**c, "rule": "within seed range"}]})


def test_seed_range_in_a_report_reads_each_seed(fake_core, tmp_path):
    runs = reproduce(parse_entry(BASE), tmp_path / "a", store=tmp_path / "r.db", progress=False).runs
    per_seed = sorted(runs["aggregate_goodput_bps"])
    inside = (per_seed[0] + per_seed[-1]) / 2
    for paper, verdict in ((inside, "pass"), (per_seed[-1] * 2, "fail")):
        e = parse_entry({**BASE, "claims": [{**CLAIM, "paper_value": paper, "rule": "within seed range"}]})
        rep = reproduce(e, tmp_path / "b", store=tmp_path / "r.db", progress=False)
        assert rep.claims[0].verdict == verdict, rep.claims[0].rows[0].deviation
        assert "the range of 3 seeds" in rep.claims[0].rows[0].deviation


def _curve(values):
    """Runs of a sweep over ``w``, two seeds each, with the given means."""
    rows = [{"w": w, "seed": s, "g": v + d} for w, v in values.items() for s, d in ((1, -1.0), (2, 1.0))]
    return pd.DataFrame(rows)


def test_smallest_setting_within_x_percent_of_the_best():
    runs = _curve({1: 50.0, 2: 99.0, 3: 100.0, 4: 98.5, 8: 90.0})
    assert smallest_near_best(None, runs, {}, by="w", metric="g", within_pct=2).mean == 2
    assert smallest_near_best(None, runs, {}, by="w", metric="g", within_pct=0).mean == 3
    assert smallest_near_best(None, runs, {}, by="w", metric="g", within_pct=60).mean == 1
    assert smallest_near_best(None, runs.assign(h=7), {}, by="w", metric="g", within_pct=2,
                              where={"h": 7}).mean == 2
    with pytest.raises(SpecError, match="within_pct = 100"):
        smallest_near_best(None, runs, {}, by="w", metric="g", within_pct=100)
    with pytest.raises(SpecError, match="no runs with"):
        smallest_near_best(None, runs.assign(h=7), {}, by="w", metric="g", within_pct=2, where={"h": 3})


def test_parameterised_check_references(fake_core, lib, tmp_path):
    lib.scaled = lambda ctx, runs, point, *, factor: runs["aggregate_goodput_bps"].mean() * factor
    c = {"name": "c", "paper": "-", "check": {"fn": "scaled", "factor": 0.0}, "rule": "within 0..0"}
    e = parse_entry({**BASE, "claims": [c]})
    assert e.claims[0].check == "scaled" and e.claims[0].check_args == {"factor": 0.0}
    rep = reproduce(e, tmp_path / "o", store=tmp_path / "r.db", progress=False)
    assert rep.claims[0].verdict == "pass" and "check `scaled` (factor = 0.0)" in rep.report.read_text()
    for bad, fragment in (({"fn": "scaled", "factr": 1}, "check 'scaled' with factr: "),
                          ({"fn": "nope"}, "check = 'nope': no check function registered as 'nope'"),
                          ({"factor": 1}, "expected a function name or a table")):
        with pytest.raises(SpecError, match=fragment):
            parse_entry({**BASE, "claims": [{**c, "check": bad}]})


@pytest.mark.parametrize("change, fragment", [
    ({"kind": "aside"}, "kind = 'aside'; allowed: paper, side, duplicate, project"),
    ({"agreement_margin": -1}, "agreement_margin = -1; expected a positive number"),
    ({"agreement_margin": "ten"}, "agreement_margin = 'ten'"),
    ({"headline": "yes"}, "headline = 'yes'; expected true or false"),
])
def test_bad_claim_kinds_and_margins(change, fragment):
    with pytest.raises(SpecError) as exc:
        parse_entry({**BASE, "claims": [{**CLAIM, **change}]})
    assert fragment in str(exc.value)


def test_claims_outside_the_paper_tallies_are_shown_not_counted(fake_core, tmp_path):
    failing = {**CLAIM, "name": "side one", "rule": "within 0.0001% of paper", "kind": "side"}
    passing = {**CLAIM, "name": "paper one", "rule": "within 99% of paper"}
    rep = reproduce(parse_entry({**BASE, "claims": [passing, failing]}), tmp_path / "o", store=tmp_path / "r.db",
                    progress=False)
    assert [c.verdict for c in rep.claims] == ["pass", "fail"]
    assert rep.verdict == "pass"
    text = rep.report.read_text()
    assert "### side one: fail (side experiment, not counted in the paper tallies)" in text
    assert "Overall verdict: **pass** (3 seeds × 1 s; paper claims only)" in text


def test_a_quick_report_says_how_it_ran(fake_core, tmp_path):
    e = parse_entry({**BASE, "figures": [], "notes": "ran {run}"})
    text = reproduce(e, tmp_path / "o", quick=True, store=tmp_path / "r.db", progress=False).report.read_text()
    assert "Overall verdict: **" in text and "(quick: 2 seeds × 0.5 s)" in text
    assert "| run | quick: 2 seeds × 0.5 s |" in text and "ran quick: 2 seeds × 0.5 s" in text
    assert "**quick: 2 seeds × 0.5 s.** Seeds and run lengths stated in the description" in text
    assert "| build | `0.0.0-fake` |" in text
