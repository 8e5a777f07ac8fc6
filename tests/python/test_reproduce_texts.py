"""Placeholders in entry texts (hoptcp.reproduce.texts): computed values, core defaults, the scenario."""

import pytest

from hoptcp import SpecError
from hoptcp.reproduce import parse_entry, reproduce
from hoptcp.reproduce.texts import placeholders, render
from hoptcp.scenario import Scenario

BASE = {"id": "x", "title": "t", "paper": "p", "scenario": "single_hop.toml",
        "claims": [{"name": "c", "paper": "-", "value": "aggregate_goodput_bps", "rule": "at least 0"}],
        "sweep": {"replications": 2, "set": {"duration_s": 1.5, "mac.queue_limit": 7}}}


def test_defaults_come_from_the_core(real_core):
    # the same keys read from a scenario that switches Link RED on and sets nothing else of it
    sc = Scenario.from_dict({"topology": {"kind": "chain", "hops": 2},
                             "flows": [{"src": 0, "dst": 2, "transport": "tcp"}],
                             "mac": {"link_red": {"enabled": True}}}, name="t").resolved()
    red = sc["mac"]["link_red"]
    got = render("{defaults.mac.link_red.min_th} {defaults.mac.link_red.max_p:g} {defaults.mac.queue_limit} "
                 "{defaults.mac.link_red.enabled}", {}, "w")
    assert got == f"{red['min_th']} {red['max_p']:g} {sc['mac']['queue_limit']} False"


def test_unresolved_placeholders_fail_with_one_line(real_core):
    for text, fragment in (("{defaults.mac.no_such_key}", "w: {defaults.mac.no_such_key}: the core has no default "
                                                          "for 'mac.no_such_key'"),
                           ("{gain}", "w: no value named 'gain' for the placeholder; the entry's values functions "
                                      "give: run"),
                           ("{scenario.mac.queue_limit}", "w: {scenario.mac.queue_limit}: no scenario to read")):
        with pytest.raises(SpecError) as exc:
            render(text, {"run": "2 seeds"}, "w")
        assert str(exc.value).startswith(fragment) and "\n" not in str(exc.value)


def test_placeholder_names_are_checked_when_the_entry_loads():
    assert placeholders("w", "{a:.1f} {defaults.mac.link_red.min_th} {scenario.flows.0.packet_bytes} {{x}}") == [
        "a", "defaults.mac.link_red.min_th", "scenario.flows.0.packet_bytes"]
    with pytest.raises(SpecError, match=r"w: placeholder \{result\.x\}: write a plain name"):
        placeholders("w", "{result.x}")
    # dotted names need no values function; plain ones do
    parse_entry({**BASE, "notes": "{defaults.mac.queue_limit} {scenario.duration_s} {run}"})
    with pytest.raises(SpecError, match=r"notes has placeholders \(\{gain\}\) but the entry names no 'values'"):
        parse_entry({**BASE, "notes": "{gain}"})
    with pytest.raises(SpecError, match=r"figures\[0\]: caption has placeholders \(\{gain\}\)"):
        parse_entry({**BASE, "figures": [{"function": "bianchi_throughput_vs_n", "file": "f.png", "caption": "{gain}"}]})


def test_scenario_values_are_those_the_report_ran(fake_core, tmp_path):
    e = parse_entry({**BASE, "notes": "queue {scenario.mac.queue_limit}, {scenario.duration_s:g} s; {run}",
                     "quick": {"replications": 1, "duration_s": 0.5}})
    full = reproduce(e, tmp_path / "full", store=tmp_path / "r.db", progress=False).report.read_text()
    assert "queue 7, 1.5 s; 2 seeds × 1.5 s" in full
    quick = reproduce(e, tmp_path / "quick", quick=True, store=tmp_path / "r.db", progress=False).report.read_text()
    assert "queue 7, 0.5 s; quick: 1 seed × 0.5 s" in quick
    bad = parse_entry({**BASE, "notes": "{scenario.mac.no_such_key}"})
    with pytest.raises(SpecError, match=r"^entry 'x' notes: \{scenario\.mac\.no_such_key\}: the scenario has no key"):
        reproduce(bad, tmp_path / "bad", store=tmp_path / "r.db", progress=False)
