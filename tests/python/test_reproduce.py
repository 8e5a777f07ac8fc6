import math

import pytest

from hoptcp import SpecError
from hoptcp.cli import main
from hoptcp.reproduce import Rule, catalogue, get_entry, parse_entry, reproduce


def test_catalogue_entries_are_valid():
    entries = {e.id: e for e in catalogue()}
    assert {"single-hop", "bianchi"} <= set(entries)
    b = entries["bianchi"]
    assert b.run_count(quick=False) == 4 * 5 and b.run_count(quick=True) == 3 * 2
    quick = b.sweep_spec(quick=True)
    assert quick.set["duration_s"] == 5.0 and quick.grid == {"topology.leaves": [5, 10, 20]}
    assert quick.name == "reproduce/bianchi/quick"
    s = entries["single-hop"]
    assert s.run_count(False) == 10 and s.sweep_spec(False).set == {"duration_s": 100.0}


def test_builder_makes_one_flow_per_leaf(fake_core):
    e = get_entry("bianchi")
    over = e.derive_fn()({"topology.leaves": 3})
    assert [f["src"] for f in over["flows"]] == [1, 2, 3] and all(f["dst"] == 0 for f in over["flows"])
    sc = e.scenario.with_overrides({"topology.leaves": 3, **over})
    assert len(sc.resolved()["flows"]) == 3


@pytest.mark.parametrize("text, value, ref, paper, holds", [
    ("within 1% of reference", 100.5, 100.0, None, True),
    ("within 1% of model", 98.0, 100.0, None, False),
    ("within 3 % of paper", 103.0, None, 100.0, True),
    ("within 0.5 of paper", 2.6, None, 2.0, False),
    ("within ±0.5 of 2", 2.4, None, None, True),
    ("within 2..5", 3.0, None, None, True),
    ("within 2..5", 6.0, None, None, False),
    ("at least 0.9", 0.95, None, None, True),
    ("at most reference", 1.1, 1.0, None, False),
])
def test_rules(text, value, ref, paper, holds):
    assert Rule.parse(text).evaluate(value, ref, paper)[0] is holds


def test_rule_without_numbers_and_bad_rules():
    assert Rule.parse("within 1% of reference").evaluate(math.nan, 1.0, None) == (None, "no value")
    assert Rule.parse("within 1% of paper").evaluate(1.0, None, None)[0] is None
    with pytest.raises(SpecError, match="not understood"):
        Rule.parse("roughly equal")


BASE = {
    "id": "x", "title": "t", "paper": "p", "scenario": "single_hop.toml",
    "claims": [{"name": "c", "paper": "1 Mb/s", "value": "aggregate_goodput_bps", "paper_value": 1e6,
                "rule": "within 5% of paper"}],
}


@pytest.mark.parametrize("change, fragment", [
    ({"colour": 1}, "unknown key 'colour'"),
    ({"scenario": "nope.toml"}, "scenario 'nope.toml' not found"),
    ({"derive": "nope"}, "derive = 'nope'"),
    ({"claims": [{"name": "c", "paper": "x", "rule": "within 1% of paper", "paper_value": 1}]}, "exactly one of"),
    ({"claims": [{"name": "c", "paper": "x", "value": "m", "rule": "within 1% of reference"}]}, "no 'reference'"),
    ({"claims": [{"name": "c", "paper": "x", "value": "m", "rule": "within 1% of paper"}]}, "no 'paper_value'"),
    ({"claims": [{"name": "c", "paper": "x", "check": "nope", "rule": "within 1..2"}]}, "check = 'nope'"),
    ({"figures": [{"function": "nope", "file": "a.png"}]}, "function = 'nope'"),
    ({"sweep": {"grid": {"a": []}}}, "grid.a: the list is empty"),
    ({"quick": {"durations": 3}}, "unknown key 'durations'"),
])
def test_bad_entries(change, fragment):
    with pytest.raises(SpecError) as exc:
        parse_entry({**BASE, **change})
    assert fragment in str(exc.value)


def test_quick_report_with_figure(fake_core, tmp_path):
    rep = reproduce("bianchi", tmp_path / "out", quick=True, store=tmp_path / "r.db", progress=False)
    text = rep.report.read_text()
    assert rep.report == tmp_path / "out" / "report.md"
    for fragment in ("# 802.11 DCF saturation throughput", "## What was run", "`topology.leaves` = 5, 10, 20",
                     "| seeds | 1, 2 |", "6 simulated now", "0.0.0-fake", "### Aggregate saturation throughput",
                     "within 3% of reference", "![", "throughput-vs-n.png", "## Notes"):
        assert fragment in text, fragment
    assert {c.verdict for c in rep.claims} <= {"pass", "fail", "differs"}
    rows = rep.claims[0].rows
    assert [r.point["topology.leaves"] for r in rows] == [5, 10, 20]
    assert all(r.reference and r.estimate.n == 2 for r in rows)
    png = tmp_path / "out" / "throughput-vs-n.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    csv = (tmp_path / "out" / "results.csv").read_text().splitlines()
    assert len(csv) == 7 and "topology.leaves" in csv[0] and "node.0" not in csv[0]
    again = reproduce("bianchi", tmp_path / "out", quick=True, store=tmp_path / "r.db", progress=False)
    assert again.runs.attrs["ran"] == 0 and fake_core.runs == 6


def test_cli_list_and_all(fake_core, capsys, tmp_path):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert "bianchi" in out and "single-hop" in out and "quick runs" in out
    assert main(["reproduce", "all", "--quick", "--out", str(tmp_path / "all"), "--store", str(tmp_path / "r.db"),
                 "-q"]) == 0
    index = (tmp_path / "all" / "index.md").read_text()
    assert "[bianchi](bianchi/report.md)" in index and "[single-hop](single-hop/report.md)" in index
    assert (tmp_path / "all" / "single-hop" / "report.md").exists()
    assert main(["reproduce", "single-hop", "--quick", "--out", str(tmp_path / "sh"), "--store",
                 str(tmp_path / "r.db"), "-q"]) == 0
    out = capsys.readouterr().out
    assert "Saturation goodput" in out and "report.md" in out


@pytest.mark.parametrize("args, fragment", [
    (["reproduce", "no-such-entry"], "no entry 'no-such-entry'"),
    (["reproduce"], "give an entry id"),
])
def test_cli_user_errors(fake_core, capsys, args, fragment):
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and fragment in err[0]
