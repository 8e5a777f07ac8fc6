"""Verdict rules of the reproduction framework: two-sided tolerances against printed numbers,
"differs" only with evidence the entry produces (side sweeps), generated values in texts."""


import pytest

from hoptcp import SpecError
from hoptcp.reproduce import Evidence, claim_on, parse_entry, reproduce
from hoptcp.stats import Estimate

CLAIM = {"name": "c", "paper": "printed 1 Mb/s", "value": "aggregate_goodput_bps", "paper_value": 1e6,
         "rule": "within 5% of paper"}
BASE = {"id": "x", "title": "t", "paper": "p", "scenario": "single_hop.toml", "claims": [CLAIM],
        "sweep": {"replications": 2, "set": {"duration_s": 1.0}}}
SIDE = {"name": "longer", "description": "the same, twice as long", "set": {"duration_s": 2.0},
        "replications": 2, "quick": {"replications": 1}}


def claim(**kw):
    return {**CLAIM, **kw}


@pytest.mark.parametrize("rule", ["at least 0.5e6", "at most paper"])
def test_one_sided_rule_against_a_printed_number_is_rejected(rule):
    with pytest.raises(SpecError, match=r"claims\[0\]: rule '.*' is one-sided, but the claim compares with a "
                                        r"printed number \(1e\+06\); use 'within P% of paper'"):
        parse_entry({**BASE, "claims": [claim(rule=rule)]})


def test_per_point_printed_numbers_are_checked_too():
    c = claim(paper_by="topology.hops", paper_values=[[1, 2.0], [2, 3.0]], per_point=True, rule="at least 1")
    c.pop("paper_value")
    with pytest.raises(SpecError, match=r"printed number \(2, 3\)"):
        parse_entry({**BASE, "claims": [c]})


def test_a_one_sided_rule_is_fine_without_a_printed_number():
    c = claim(rule="at least 0.8")
    c.pop("paper_value")
    assert parse_entry({**BASE, "claims": [c]}).claims[0].rule.two_sided is False


@pytest.mark.parametrize("rule, ok", [("within 2..5", False), ("within 0.5e6..2e6", True),
                                      ("within 10% of 1.2e6", False), ("within 0.3e6 of 1.2e6", True)])
def test_the_printed_number_must_pass_its_own_rule(rule, ok):
    doc = {**BASE, "claims": [claim(rule=rule)]}
    if ok:
        assert parse_entry(doc).claims[0].rule.two_sided
    else:
        with pytest.raises(SpecError, match="does not accept the paper's own number 1e\\+06"):
            parse_entry(doc)


@pytest.mark.parametrize("change, fragment", [
    ({"side": [{**SIDE, "quick": None}]}, "quick must be a dict"),
    ({"side": [{k: v for k, v in SIDE.items() if k != "quick"}]}, "side[0]: missing key 'quick'"),
    ({"side": [{**SIDE, "grd": {}}]}, "side[0]: unknown key 'grd'"),
    ({"side": [{**SIDE, "quick": {"grd": 1}}]}, "[side.quick]: unknown key 'grd'"),
    ({"side": [SIDE, SIDE]}, "side sweep 'longer' is declared twice"),
    ({"side": [{**SIDE, "name": "a/b"}]}, "name 'a/b'"),
    ({"side": [{**SIDE, "derive": "nope"}]}, "side[0]: derive = 'nope'"),
    ({"side": [{**SIDE, "scenario": "nope.toml"}]}, "side[0]: scenario 'nope.toml' not found"),
    ({"side": [{**SIDE, "grid": {"mac.queue_limit": []}}]}, "side 'longer': grid.mac.queue_limit: the list is empty"),
    ({"side": {"name": "a"}}, "side must be an array of tables"),
    ({"claims": [claim(evidence="nope")]}, "claims[0]: evidence = 'nope'"),
    ({"values": "nope"}, "values = 'nope'"),
    ({"values": 3}, "values must be a function name or a list"),
    ({"notes": "lost {loss:.1f}%"}, "notes has placeholders ({loss}) but the entry names no 'values'"),
    ({"claims": [claim(known_difference="{a.b}")]}, "placeholder {a.b}: write a plain name such as {loss_pct}"),
    ({"notes": "a } b"}, "Single '}' encountered"),
])
def test_bad_side_sweeps_evidence_and_texts(change, fragment):
    with pytest.raises(SpecError) as exc:
        parse_entry({**BASE, **change})
    assert fragment in str(exc.value)


def test_side_sweeps_parse_with_their_quick_variant_and_count_in_the_runs():
    e = parse_entry({**BASE, "side": [SIDE, {"name": "short", "set": {"duration_s": 0.5}, "quick": {}}]})
    longer = e.side("longer")
    assert longer.scenario is e.scenario and longer.description == "the same, twice as long"
    full, quick = longer.sweep_spec("x"), longer.sweep_spec("x", quick=True)
    assert full.name == "reproduce/x/side/longer" and quick.name == "reproduce/x/side/longer/quick"
    assert full.set == {"duration_s": 2.0} and full.run_count() == 2 and quick.run_count() == 1
    assert e.run_count() == 2 + 2 + 1  # main 2 seeds; longer 2; short: the scenario's own seed
    with pytest.raises(SpecError, match="no side sweep 'nope'; declared: longer, short"):
        e.side("nope")


def _entry(lib, *, shown, rule="within 0.0001% of paper", **claim_kw):
    """An entry whose claim fails (the fake core's goodput is not exactly 1 Mb/s) with evidence
    computed from its side sweep, and a generated number in the notes."""

    def longer_runs_more(ctx, claim, point):
        main, side = ctx.runs["duration_s"].iloc[0], ctx.side("longer").runs["duration_s"].iloc[0]
        return Evidence(shown, f"side sweep ran {side:g} s against {main:g} s")

    def numbers(ctx):
        return {"n_side": len(ctx.side("longer").runs), "mean_mbps": ctx.runs["aggregate_goodput_bps"].mean() / 1e6}

    lib.longer_runs_more = longer_runs_more
    lib.numbers = numbers
    c = claim(rule=rule, evidence="longer_runs_more", **claim_kw)
    return parse_entry({**BASE, "claims": [c], "side": [SIDE], "values": "numbers",
                        "notes": "The side sweep ran {n_side} runs; mean {mean_mbps:.3f} Mb/s."})


@pytest.mark.parametrize("shown, verdict, status", [(True, "fail", "**shown**"),
                                                    (False, "fail", "**not shown**"),
                                                    (None, "fail", "**not computed**")])
def test_a_side_experiments_evidence_is_shown_and_earns_nothing(fake_core, lib, tmp_path, shown, verdict, status):
    e = _entry(lib, shown=shown, known_difference="written reason, {n_side} side runs")
    rep = reproduce(e, tmp_path / "out", store=tmp_path / "r.db", progress=False)
    row = rep.claims[0].rows[0]
    assert row.holds is False and row.verdict == verdict and row.evidence.shown is shown
    text = rep.report.read_text()
    assert (f"Evidence (`longer_runs_more`, {__name__}; a side experiment: shown, it earns no verdict): {status}: "
            "side sweep ran 2 s against 1 s") in text
    assert "Known difference: written reason, 2 side runs" in text
    mean = rep.runs["aggregate_goodput_bps"].mean() / 1e6
    assert f"The side sweep ran 2 runs; mean {mean:.3f} Mb/s." in text
    assert "### Side experiment `longer`" in text and "the same, twice as long" in text
    assert "`reproduce/x/side/longer`" in text
    assert (tmp_path / "out" / "side-longer.csv").read_text().count("\n") == 3
    assert rep.context.side("longer").name == "longer" and rep.context.ns2 is None


def test_known_difference_without_evidence_is_a_fail(fake_core, tmp_path):
    e = parse_entry({**BASE, "claims": [claim(rule="within 0.0001% of paper", known_difference="some reason")]})
    rep = reproduce(e, tmp_path / "out", store=tmp_path / "r.db", progress=False)
    assert rep.claims[0].verdict == "fail"
    assert "Evidence: none produced by this entry, so a failing rule is a **fail**." in rep.report.read_text()


def test_evidence_is_not_evaluated_when_the_rule_holds(fake_core, lib, tmp_path):
    e = _entry(lib, shown=True, rule="within 50% of paper")
    rep = reproduce(e, tmp_path / "out", store=tmp_path / "r.db", progress=False)
    assert rep.claims[0].verdict == "pass" and rep.claims[0].rows[0].evidence is None
    assert (f"Evidence (`longer_runs_more`, {__name__}; a side experiment: shown, it earns no verdict): not "
            "evaluated, the rule holds.") in rep.report.read_text()


def test_side_sweeps_are_cached_like_the_main_sweep(fake_core, lib, tmp_path):
    e = _entry(lib, shown=True)
    reproduce(e, tmp_path / "a", store=tmp_path / "r.db", progress=False)
    assert fake_core.runs == 4
    again = reproduce(e, tmp_path / "b", store=tmp_path / "r.db", progress=False)
    assert fake_core.runs == 4 and again.context.side("longer").runs.attrs["cached"] == 2
    quick = reproduce(e, tmp_path / "q", quick=True, store=tmp_path / "r.db", progress=False)
    assert len(quick.context.side("longer").runs) == 1 and quick.context.side("longer").spec.name.endswith("/quick")


def test_evidence_per_point_and_errors_in_evidence(fake_core, lib, tmp_path):
    def by_leaves(ctx, claim, point):
        if point["topology.leaves"] == 2:
            raise ValueError("no runs for that")
        return Evidence(point["topology.leaves"] == 3, f"{point['topology.leaves']} leaves")

    lib.by_leaves = by_leaves
    doc = {**BASE, "scenario": "star.toml", "derive": "flow_per_leaf",
           "sweep": {"replications": 1, "set": {"duration_s": 1.0}, "grid": {"topology.leaves": [2, 3, 4]}},
           "claims": [claim(rule="within 0.0001% of paper", per_point=True, evidence="by_leaves")]}
    rep = reproduce(parse_entry(doc), tmp_path / "out", store=tmp_path / "r.db", progress=False)
    # rule 5: a side experiment's evidence is shown but earns nothing ("differs" needs a second
    # implementation agreeing on the claim's own quantity)
    assert [r.verdict for r in rep.claims[0].rows] == ["fail", "fail", "fail"]
    assert rep.claims[0].verdict == "fail"
    text = rep.report.read_text()
    assert "for each point where the rule fails:" in text
    assert "- topology.leaves = 2: **not computed**: could not be evaluated: no runs for that" in text
    assert "- topology.leaves = 3: **shown**: 3 leaves" in text


def test_missing_placeholder_value_names_the_text(fake_core, lib, tmp_path):
    lib.numbers = lambda ctx: {"a": 1}
    e = parse_entry({**BASE, "values": ["numbers"], "notes": "{a} and {b}"})
    with pytest.raises(SpecError, match=r"entry 'x' notes: no value named 'b' for the placeholder; the entry's "
                                        r"values functions give: a"):
        reproduce(e, tmp_path / "out", store=tmp_path / "r.db", progress=False)


def test_check_functions_see_side_sweeps(fake_core, lib, tmp_path):
    lib.side_mean = lambda ctx, runs, point: Estimate(ctx.side("longer").runs["duration_s"].mean(), 0.0, 2, 0.0)
    c = {"name": "side", "paper": "-", "check": "side_mean", "rule": "within 2..2"}
    rep = reproduce(parse_entry({**BASE, "claims": [c], "side": [SIDE]}), tmp_path / "o", store=tmp_path / "r.db",
                    progress=False)
    assert rep.claims[0].verdict == "pass"


def test_claim_on_a_side_sweep_applies_the_claims_own_rule(fake_core, lib, tmp_path):
    def same_rule_on_side(ctx, claim, point):
        est, holds, dev = claim_on(ctx.side("longer"), claim, {**point, "duration_s": 2.0})
        return Evidence(holds, f"side: {est.mean:.0f} ({dev})")

    lib.same_rule_on_side = same_rule_on_side
    c = claim(rule="within 0.0001% of paper", evidence="same_rule_on_side")
    rep = reproduce(parse_entry({**BASE, "claims": [c], "side": [SIDE]}), tmp_path / "o", store=tmp_path / "r.db",
                    progress=False)
    ev = rep.claims[0].rows[0].evidence
    assert ev.shown is False and ev.text.startswith("side: ") and "%" in ev.text
    est, holds, dev = claim_on(rep.context.side("longer"), rep.entry.claims[0], {"duration_s": 3.0})
    assert holds is None and est.n == 0  # no side runs of 3 s


# --- the "unspecified" verdict -----------------------------------------------------------

UNSPEC = {"quantity": "the gateway's position", "range": "hop 1..3", "allows": "'a gateway' (no position printed)",
          "fn": "positions_tried"}


@pytest.mark.parametrize("values, verdict, where", [
    ([0.5e6, 0.99e6, 2e6], "unspecified", "reached at hop 2"),      # one setting of the range meets the rule
    ([0.5e6, 0.6e6, 2e6], "fail", "reached at no reading the text allows"),  # none does: fail, saying what was tried
])
def test_unspecified_needs_the_papers_value_inside_the_declared_range(fake_core, lib, tmp_path, values, verdict,
                                                                      where):
    def positions_tried(ctx, runs, point, *, scale=1.0):
        return [(f"hop {i + 1}", Estimate(v * scale, 0.0, 2, 0.0)) for i, v in enumerate(values)]

    lib.positions_tried = positions_tried
    c = claim(paper_value=1e6, rule="within 5% of paper", value=None, check=None,
              unspecified={**UNSPEC, "scale": 1.0})
    c.pop("value")
    c.pop("check")
    c["value"] = "aggregate_goodput_bps"
    rep = reproduce(parse_entry({**BASE, "claims": [c]}), tmp_path / "out", store=tmp_path / "r.db", progress=False)
    row = rep.claims[0].rows[0]
    assert row.holds is False, "the fake core's goodput is far from 1 Mb/s"
    assert row.verdict == verdict and rep.claims[0].verdict == verdict
    text = rep.report.read_text()
    assert "unspecified: the gateway's position, over hop 1..3" in text and where in text
    assert f"### c: {verdict}" in text


def test_unspecified_is_declared_with_every_part():
    with pytest.raises(SpecError, match=r"unspecified.allows is missing"):
        parse_entry({**BASE, "claims": [claim(unspecified={k: v for k, v in UNSPEC.items() if k != "allows"})]})


def test_unspecified_quantity_declared_once_and_named_by_claims(lib):
    lib.positions_tried = lambda ctx, runs, point, *, scale=1.0, hop=0: []
    declared = {k: v for k, v in UNSPEC.items() if k != "fn"}
    entry = parse_entry({**BASE, "unspecified": {"gateway": declared}, "claims": [
        claim(unspecified={"use": "gateway", "fn": "positions_tried", "hop": 2}),
        claim(unspecified={"use": "gateway", "fn": "positions_tried", "range": "hop 1..5"})]})
    first, second = (c.unspecified for c in entry.claims)
    assert first.quantity == second.quantity == "the gateway's position"
    assert first.range == "hop 1..3" and first.args == {"hop": 2}
    assert second.range == "hop 1..5", "a claim's own key overrides the declaration"
    with pytest.raises(SpecError, match=r"unspecified.use = 'gatway'; declared: gateway"):
        parse_entry({**BASE, "unspecified": {"gateway": declared},
                     "claims": [claim(unspecified={"use": "gatway", "fn": "positions_tried"})]})


def test_unspecified_under_a_seed_range_rule_reads_each_seeds_value(fake_core, lib, tmp_path):
    # the range's function is called once on all runs, then once per seed (2 seeds): the "spread"
    # setting straddles the paper's 1 Mb/s across the seeds, the "narrow" one stays below it
    calls = iter([{"spread": 1.0e6, "narrow": 0.55e6}, {"spread": 0.8e6, "narrow": 0.5e6},
                  {"spread": 1.2e6, "narrow": 0.6e6}])

    def readings_by_seed(ctx, runs, point):
        return [(k, Estimate(v, 0.0, 1, 0.0)) for k, v in next(calls).items()]

    lib.readings_by_seed = readings_by_seed
    c = claim(paper_value=1e6, rule="within seed range", unspecified={**UNSPEC, "fn": "readings_by_seed"})
    rep = reproduce(parse_entry({**BASE, "claims": [c]}), tmp_path / "out", store=tmp_path / "r.db", progress=False)
    row = rep.claims[0].rows[0]
    assert row.holds is False, "the fake core's goodput is far from 1 Mb/s on both seeds"
    # rule 3: a single run's number among the seeds has no interval to correct, so no hit
    assert row.verdict == "fail"
    assert "no reading can be a hit" in row.evidence.text and "narrow: 5.5e+05" in row.evidence.text


@pytest.mark.parametrize("per_seed, verdict, where", [
    # rule 3: a rule on per-seed values cannot be "unspecified", whether a setting's seeds straddle
    # the paper's value (hop 2 here) or not
    ([[0.2e6, 0.3e6], [0.9e6, 1.1e6]], "fail", "no reading can be a hit"),
    ([[0.2e6, 0.3e6], [1.1e6, 1.2e6]], "fail", "no reading can be a hit"),
])
def test_unspecified_with_a_per_seed_rule_reads_each_settings_seeds(fake_core, lib, tmp_path, per_seed, verdict,
                                                                    where):
    def positions_tried(ctx, runs, point):
        return [(f"hop {i + 1}", Estimate(1e6, 0.0, 2, 0.0), *([] if v is None else [v]))
                for i, v in enumerate(per_seed)]

    lib.positions_tried = positions_tried
    c = claim(paper_value=1e6, rule="within seed range", unspecified=UNSPEC)
    rep = reproduce(parse_entry({**BASE, "claims": [c]}), tmp_path / "out", store=tmp_path / "r.db", progress=False)
    row = rep.claims[0].rows[0]
    assert row.holds is False, "the fake core's seeds are far from 1 Mb/s"
    assert row.verdict == verdict, row.evidence
    assert where in rep.report.read_text()
