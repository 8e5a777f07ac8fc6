"""The verdict rules a referee signs (issue #36), each tested both ways: on hand-made values for
the pure rules (hoptcp.reproduce.verdicts, the seed policy) and through `reproduce` on hand-made
entries over the fake core for how a report applies them."""

from __future__ import annotations

import math

import pytest

from hoptcp.reproduce import parse_entry, reproduce
from hoptcp.reproduce import verdicts as V
from hoptcp.reproduce.agreement import POLICY_MIN_SEEDS, seeds_needed
from hoptcp.stats import Estimate

# --- rule 1: readings the text excludes are shown, never counted ------------------------------

TIMER = V.Exclusion("*timer*", "Algorithm 2 starts the backoff timer", "start backoff_timer")


def test_an_excluded_reading_is_shown_but_never_a_hit() -> None:
    s = V.judge_setting("min_th 0.1; timer, exchange", 1.0, 0.01, 10, None, 4, 0.9, 1.1, [TIMER])
    assert not s.textual and s.excluded is TIMER and not s.reached and not s.counts


def test_a_textual_reading_inside_the_band_is_a_hit() -> None:
    s = V.judge_setting("min_th 0.1; frozen backoff, exchange", 1.0, 0.01, 10, None, 4, 0.9, 1.1, [TIMER])
    assert s.textual and s.reached and s.counts
    assert V.textual(["a timer", "frozen", "TIMER b"], [TIMER]) == ["frozen"]


# --- rule 3: Bonferroni over the k textual readings, and the cure's sign ----------------------

def test_a_hit_inside_the_band_at_95_percent_can_miss_after_correction() -> None:
    # mean 1.04, 95% half-width 0.009 over 5 seeds: [1.031, 1.049] is inside [0.95, 1.05];
    # over 10 readings the 99.5% interval is wider and crosses 1.05
    one = V.judge_setting("r", 1.04, 0.009, 5, None, 1, 0.95, 1.05, [])
    ten = V.judge_setting("r", 1.04, 0.009, 5, None, 10, 0.95, 1.05, [])
    assert one.reached and not ten.reached
    assert ten.high - ten.low > one.high - one.low
    assert math.isclose(V.confidence_for(10), 0.995)


def test_one_sided_bands_have_an_open_side() -> None:
    assert V.band("min", math.nan, math.nan, 10.0) == (10.0, math.inf)
    assert V.band("max", math.nan, math.nan, 10.0) == (-math.inf, 10.0)
    assert V.band("rel", 15.0, math.nan, 200.0) == (170.0, 230.0)
    assert V.band("abs", 5.0, math.nan, 10.0) == (5.0, 15.0)
    assert V.band("range", 3.0, 7.0, None) == (3.0, 7.0)
    s = V.judge_setting("r", 50.0, 1.0, 10, None, 3, *V.band("min", 0, 0, 10.0), [])
    assert s.reached


def test_a_value_without_an_interval_gets_a_bootstrap_over_seeds_or_no_hit() -> None:
    boot = V.judge_setting("r", 1.0, math.nan, 1, [0.99, 1.0, 1.01, 1.0, 0.995], 2, 0.9, 1.1, [])
    assert boot.method == "bootstrap" and boot.reached
    none = V.judge_setting("r", 1.0, math.nan, 1, [1.0, 1.0], 2, 0.9, 1.1, [])
    assert none.method == "none" and not none.reached


def test_the_bootstrap_is_repeatable() -> None:
    xs = [3.0, 5.0, 4.0, 6.0, 2.0, 5.5]
    assert V.bootstrap_interval(xs, 0.99) == V.bootstrap_interval(xs, 0.99)


def test_a_hit_where_the_cure_loses_does_not_count() -> None:
    assert V.cure_allows(math.nan) and V.cure_allows(0.5) and not V.cure_allows(-0.1)


# --- rule 2: one reading per table ----------------------------------------------------------

def test_one_reading_must_reach_every_row_of_a_table() -> None:
    rows = [V.TableRow("a", False, frozenset({"r1", "r3"})), V.TableRow("b", False, frozenset({"r2", "r3"})),
            V.TableRow("c", True, None)]
    assert V.table_reading(rows, ["r1", "r2", "r3"]) == "r3"
    split = [V.TableRow("a", False, frozenset({"r1"})), V.TableRow("b", False, frozenset({"r2"}))]
    assert V.table_reading(split, ["r1", "r2"]) is None, "rows reached under different readings: no reading"


def test_a_row_that_passes_at_the_default_is_rejudged_under_the_reading() -> None:
    # "b" passes at the default but is not reached under r1, the only reading that reaches "a"
    rows = [V.TableRow("a", False, frozenset({"r1"})), V.TableRow("b", True, frozenset({"r2"}))]
    assert V.table_reading(rows, ["r1", "r2"]) is None
    rows_ok = [V.TableRow("a", False, frozenset({"r1"})), V.TableRow("b", True, frozenset({"r1", "r2"}))]
    assert V.table_reading(rows_ok, ["r1", "r2"]) == "r1"


# --- rule 5: "differs" needs a test on the claim's own quantity --------------------------------

@pytest.mark.parametrize("kw, earned, why", [
    ({}, True, "agrees"),
    ({"evidence": None}, False, "no equivalence test"),
    ({"evidence": "side"}, False, "no equivalence test"),
    ({"same_scenario": False}, False, "another scenario"),
    ({"margin": 6.0}, False, "not below half the gap"),
    ({"n_ref": 9}, False, "at least 10"),
    ({"agreement_verdict": "undecided"}, False, "says undecided"),
    ({"paper": None}, False, "no gap"),
])
def test_differs_is_earned_only_by_an_agreeing_reference_with_a_tight_margin(kw, earned, why) -> None:
    args = {"agreement_verdict": "agree", "margin": 3.0, "paper": 100.0, "ours": 88.0, "n_ours": 10, "n_ref": 10,
            "same_scenario": True, "evidence": "ns2", **kw}
    got = V.differs_earned(**args)
    assert got.earned is earned and why in got.why
    assert V.default_margin(100.0, 88.0) < 12.0 / 2


def test_the_seed_policy_fixes_n_from_a_pilot() -> None:
    tight = seeds_needed([1.0, 1.01, 0.99, 1.0, 1.0], [1.0, 0.99, 1.01, 1.0, 1.0], 1.0)
    assert tight.n == POLICY_MIN_SEEDS and "power 0.8" in tight.text
    noisy = seeds_needed([1, 2, 3, 4, 5], [1.5, 2.5, 3, 4, 6], 1.0)
    # (t_.95 + t_.9)^2 (s_a^2 + s_b^2) / m^2 with s_a^2 = 2.5, s_b^2 = 2.925: about 47
    assert 45 <= noisy.n <= 49 and not noisy.capped
    huge = seeds_needed([1, 20, 3, 40, 5], [15, 2.5, 30, 4, 60], 0.1)
    assert huge.capped and huge.n == 60


# --- through reproduce: rules 1-3 in a report -----------------------------------------------

CLAIM = {"name": "c", "paper": "printed 1 Mb/s", "value": "aggregate_goodput_bps", "paper_value": 1e6,
         "rule": "within 5% of paper"}
BASE = {"id": "x", "title": "t", "paper": "p", "scenario": "single_hop.toml",
        "sweep": {"replications": 2, "set": {"duration_s": 1.0}}}
RANGE = {"quantity": "the wait", "range": "frozen or timer", "allows": "'start backoff_timer'",
         "quote": "start backoff_timer", "fn": "waits_tried",
         "excluded": [{"match": "*timer*", "why": "the pseudo-code starts the backoff timer",
                       "quote": "start backoff_timer"}]}


def _waits(lib, values: dict[str, float], half: float = 0.0) -> None:
    def waits_tried(ctx, runs, point, *, shift=1.0):
        return [(k, Estimate(v * shift, half, 5, 0.0)) for k, v in values.items()]
    lib.waits_tried = waits_tried


def test_a_report_counts_only_textual_hits(fake_core, lib, tmp_path) -> None:
    _waits(lib, {"frozen": 0.5e6, "timer": 1.0e6})
    e = parse_entry({**BASE, "unspecified": {"wait": RANGE}, "claims": [{**CLAIM, "unspecified": {"use": "wait"}}]})
    rep = reproduce(e, tmp_path / "o", store=tmp_path / "r.db", progress=False)
    row = rep.claims[0].rows[0]
    assert row.verdict == "fail"
    text = rep.report.read_text()
    assert "timer: 1e+06 [1e+06, 1e+06] (excluded)" in text and "the text excludes are shown, not counted" in text
    _waits(lib, {"frozen": 1.0e6, "timer": 0.5e6})
    rep = reproduce(e, tmp_path / "p", store=tmp_path / "r.db", progress=False)
    assert rep.claims[0].rows[0].verdict == "unspecified"


def test_a_report_judges_a_table_under_one_reading(fake_core, lib, tmp_path) -> None:
    # claim a is reached only at r1, claim b only at r2: no single reading, both fail
    def per_claim(ctx, runs, point, *, which):
        hit = {"a": "r1", "b": "r2"}[which]
        return [(r, Estimate(1e6 if r == hit else 0.5e6, 0.0, 5, 0.0)) for r in ("r1", "r2", "r3")]
    lib.per_claim = per_claim
    rng = {"quantity": "q", "range": "r1..r3", "allows": "'x'", "fn": "per_claim"}
    doc = {**BASE, "unspecified": {"q": rng}, "claims": [
        {**CLAIM, "name": "a", "unspecified": {"use": "q", "which": "a"}},
        {**CLAIM, "name": "b", "unspecified": {"use": "q", "which": "b"}}]}
    rep = reproduce(parse_entry(doc), tmp_path / "o", store=tmp_path / "r.db", progress=False)
    assert [c.verdict for c in rep.claims] == ["fail", "fail"]
    assert "no single reading reaches every row of the table 'q'" in rep.report.read_text()

    def both_at_r3(ctx, runs, point, *, which):
        return [(r, Estimate(1e6 if r == "r3" else 0.5e6, 0.0, 5, 0.0)) for r in ("r1", "r2", "r3")]
    lib.per_claim = both_at_r3
    rep = reproduce(parse_entry(doc), tmp_path / "p", store=tmp_path / "r.db", progress=False)
    assert [c.verdict for c in rep.claims] == ["unspecified", "unspecified"]
    assert [c.rows[0].reading for c in rep.claims] == ["r3", "r3"]


def test_a_report_drops_a_hit_where_the_cure_loses(fake_core, lib, tmp_path) -> None:
    def abs_tried(ctx, runs, point):
        return [("r1", Estimate(1e6, 0.0, 5, 0.0)), ("r2", Estimate(1e6, 0.0, 5, 0.0))]

    def gains_tried(ctx, runs, point):  # the cure loses under r1 (upper bound -5 %), not under r2
        return [("r1", Estimate(-10.0, 5.0, 5, 5.0)), ("r2", Estimate(2.0, 5.0, 5, 5.0))]
    lib.abs_tried, lib.gains_tried = abs_tried, gains_tried
    gain = {"name": "cure gain", "paper": "+30 %", "check": "gain_default", "paper_value": 30.0,
            "rule": "within 5 of paper", "unit": "%",
            "unspecified": {"quantity": "q", "range": "r1, r2", "allows": "'x'", "fn": "gains_tried"}}
    lib.gain_default = lambda ctx, runs, point: Estimate(0.0, 1.0, 5, 1.0)
    absolute = {**CLAIM, "name": "absolute", "table": "t1",
                "unspecified": {"quantity": "q", "range": "r1, r2", "allows": "'x'", "fn": "abs_tried",
                                "cure": "cure gain"}}
    rep = reproduce(parse_entry({**BASE, "claims": [absolute, gain]}), tmp_path / "o", store=tmp_path / "r.db",
                    progress=False)
    row = rep.claims[0].rows[0]
    assert [s.cure_loses for s in row.settings] == [True, False]
    assert row.verdict == "unspecified" and row.reading == "r2"

    def gains_lose(ctx, runs, point):
        return [("r1", Estimate(-10.0, 5.0, 5, 5.0)), ("r2", Estimate(-8.0, 5.0, 5, 5.0))]
    lib.gains_tried = gains_lose
    rep = reproduce(parse_entry({**BASE, "claims": [absolute, gain]}), tmp_path / "p", store=tmp_path / "r.db",
                    progress=False)
    assert rep.claims[0].verdict == "fail"
    assert "where the same entry's cure loses goodput" in rep.report.read_text()


# --- rule 7/8: the machine-readable verdicts and a report without machine paths ----------------

def test_a_report_writes_one_verdict_row_per_claim_and_no_machine_path(fake_core, lib, tmp_path) -> None:
    import csv

    from hoptcp.reproduce.report import VERDICT_COLUMNS

    _waits(lib, {"frozen": 1.0e6, "timer": 0.5e6})
    e = parse_entry({**BASE, "unspecified": {"wait": RANGE}, "claims": [
        {**CLAIM, "name": "a | b", "unspecified": {"use": "wait"}},
        {**CLAIM, "name": "loose", "rule": "within 90% of paper"}]})
    store = tmp_path / "deep" / "dir" / "r.db"
    store.parent.mkdir(parents=True)
    rep = reproduce(e, tmp_path / "o", store=store, progress=False)
    text = rep.report.read_text()
    assert str(tmp_path) not in text and "`r.db`" in text
    with open(tmp_path / "o" / "verdicts.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert list(rows[0]) == list(VERDICT_COLUMNS) and [r["claim"] for r in rows] == ["a | b", "loose"]
    hit, ok = rows
    assert hit["verdict"] == "unspecified" and hit["evidence"] == "range" and hit["hit_setting"] == "frozen"
    assert hit["reading_textual"] == "true" and hit["reading_quote"] == "start backoff_timer"
    assert float(hit["band_low"]) <= float(hit["ci_low"]) <= float(hit["ci_high"]) <= float(hit["band_high"])
    assert hit["settings"] == "1", "one textual reading: the timer is excluded"
    assert ok["verdict"] == "pass" and ok["evidence"] == "rule" and ok["reading"] == "default"


def test_markdown_cells_escape_the_pipe() -> None:
    from hoptcp.reproduce.report import md_cell

    row = "| " + " | ".join(md_cell(x) for x in ("|W* − h/4| on long chains", "3")) + " |"
    cells = [c for c in __import__("re").split(r"(?<!\\)\|", row.strip().strip("|"))]
    assert len(cells) == 2 and md_cell(md_cell("a|b")) == "a\\|b"
