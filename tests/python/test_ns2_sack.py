"""SACK against ns-2.35: the export to Agent/TCP/Sack1 + TCPSink/Sack1, Sack1's recoveries read
from its cwnd_ trace, and the SACK − NewReno section of docs/validation.md (hoptcp.ns2.versus)."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import pytest

from hoptcp.ns2 import Ns2Unsupported, export, versus
from hoptcp.ns2 import trace as tr
from hoptcp.scenario import Scenario
from ns2_helpers import needs_ns

CHAIN_TCP = """
duration_s = 10
[topology]
kind = "chain"
hops = 3
spacing_m = 200
[tcp]
max_window = 16
[[flows]]
src = 0
dst = 3
transport = "tcp"
app = "ftp"
[[flows]]
src = 3
dst = 0
transport = "tcp"
app = "ftp"
"""


def scenario(**over: object) -> Scenario:
    return Scenario.from_toml(CHAIN_TCP).with_overrides(over)


SACK1 = {"tcp.sack": True, "tcp.sack_profile": "ns2_sack1"}


@pytest.mark.core
def test_sack_flows_are_sack1_agents_and_sinks() -> None:
    tcl = export(scenario(**SACK1)).tcl
    assert tcl.count("[new Agent/TCP/Sack1]") == 2 and tcl.count("[new Agent/TCPSink/Sack1]") == 2
    delayed = export(scenario(**SACK1, **{"tcp.delayed_ack": True})).tcl
    assert "[new Agent/TCPSink/Sack1/DelAck]" in delayed
    # One flow of its own: only that one.
    one = export(scenario(**{"tcp.sack_profile": "ns2_sack1", "flows.1.sack": True})).tcl
    assert "set src(0) [new Agent/TCP/Newreno]" in one and "set src(1) [new Agent/TCP/Sack1]" in one
    assert "set dst(0) [new Agent/TCPSink]" in one and "set dst(1) [new Agent/TCPSink/Sack1]" in one
    assert "Sack1" not in export(scenario()).tcl


@pytest.mark.core
@pytest.mark.parametrize(("over", "key"), [
    ({"tcp.sack": True}, "tcp.sack_profile"),  # rfc6675: ns-2.35 has no such sender
    ({**SACK1, "tcp.variant": "vegas"}, "flows.0.sack"),
])
def test_sack_ns2_cannot_run_is_one_error_naming_the_key(over: dict, key: str) -> None:
    with pytest.raises(Ns2Unsupported) as exc:
        export(scenario(**over))
    assert str(exc.value).startswith(key) and "\n" not in str(exc.value), str(exc.value)


def test_sack1_recoveries_from_the_cwnd_trace() -> None:
    # Slow start to 16; a recovery (16 -> 8) completed (the next change opens cwnd); another
    # (9 -> 4.5) ended by a timeout (cwnd 1); then a recovery the run ends in. The setup's
    # cwnd changes before `start` are not counted.
    changes = [(0.0, 1.0), (4.0, 0.5), (10.0, 2.0), (10.1, 16.0), (11.0, 8.0), (11.3, 8.125), (12.0, 9.0),
               (12.5, 4.5), (13.5, 1.0), (13.6, 2.0), (14.0, 6.0), (15.0, 3.0)]
    assert tr.sack1_recoveries(changes, start=5.0) == (3, 1)
    assert tr.sack1_recoveries([], start=0.0) == (0, 0)


def _runs(goodputs: list[float], timeouts: list[float], extra: dict | None = None) -> list[dict]:
    return [{"aggregate_goodput_bps": g, "flow.0.timeouts": t, "flow.0.retransmissions": 2 * t,
             **(extra or {})} for g, t in zip(goodputs, timeouts)]


def test_versus_section_pairs_seeds_and_judges_the_effect() -> None:
    seeds = list(range(1, 11))
    # NewReno: 1.00 Mb/s and 2 timeouts per run in both simulators; SACK: +100 kb/s and no
    # timeouts in ns-2.35, +95 kb/s in hoptcp (within 10 % of NewReno's goodput), small noise.
    noise = [(-1) ** s * 1e3 * (s % 3) for s in seeds]
    base = {"seeds": seeds, "ns2": _runs([1e6 + n for n in noise], [2] * 10),
            "hoptcp": _runs([1e6 - n for n in noise], [2] * 10)}
    sack = {"seeds": seeds[::-1],  # stored in another order: pairing goes by seed
            "ns2": _runs([1.1e6 + n for n in noise][::-1], [0] * 10, {"flow.0.sack.recoveries_completed": 5}),
            "hoptcp": _runs([1.095e6 - n for n in noise][::-1], [0] * 10, {"flow.0.sack.recoveries_completed": 5})}
    data = {"cases": {"bn-newreno": base, "bn-sack": sack}}
    cases = [SimpleNamespace(name="bn-newreno", versus=None), SimpleNamespace(name="bn-sack", versus="bn-newreno")]
    lines = versus.section(cases, data, versus.SECTIONS["SACK against ns-2.35's Sack1"][1], "SACK")
    text = "\n".join(lines)
    effect = next(ln for ln in lines if ln.startswith("| bn-sack | goodput") and "beyond" in ln)
    assert "100.0 k ± 0.0 k" in effect and "95.0 k ± 0.0 k" in effect and effect.endswith("| agree |"), effect
    timeouts = next(ln for ln in lines if ln.startswith("| bn-sack | timeouts") and "−" not in ln and "beyond" in ln)
    assert "-2 ± 0" in timeouts, timeouts
    assert "| bn-sack | SACK recoveries without a timeout | 5 ± 0 | 5 ± 0 | agree |" in text
    # Per seed: the differences are exact, whatever order the runs were stored in.
    d = versus.effects(sack, base, "ns2", versus.run_value("aggregate_goodput_bps"))
    assert all(math.isclose(x, 1e5) for x in d)


def test_versus_section_without_results_says_how_to_run() -> None:
    cases = [SimpleNamespace(name="x", versus="y")]
    assert "hoptcp ns2 validate" in versus.section(cases, {"cases": {}}, versus.COMMON, "SACK")[0]


def test_suite_cases_like_and_versus(tmp_path: Path) -> None:
    from hoptcp.errors import SpecError
    from hoptcp.ns2.validation import load_suite

    suite = tmp_path / "s.toml"
    suite.write_text('[[case]]\nname = "a"\ntoml = """\nduration_s = 5.0\n[topology]\nkind = "chain"\nhops = 2\n'
                     '[[flows]]\nsrc = 0\ndst = 2\ntransport = "tcp"\n"""\nset = { "tcp.max_window" = 4 }\n'
                     '[[case]]\nname = "b"\nlike = "a"\nversus = "a"\nset = { "tcp.sack" = true }\n')
    s = load_suite(suite)
    b = s.cases[1]
    assert b.versus == "a" and b.scenario.toml == s.cases[0].scenario.toml
    assert dict(b.scenario.overrides) == {"tcp.max_window": "4", "tcp.sack": "true"}
    suite.write_text(suite.read_text().replace('versus = "a"', 'versus = "c"'))
    with pytest.raises(SpecError, match="versus = 'c' names no case"):
        load_suite(suite)
    suite.write_text(suite.read_text().replace('like = "a"', 'like = "z"'))
    with pytest.raises(SpecError, match="like = 'z' names no earlier case"):
        load_suite(suite)


@pytest.mark.core
@needs_ns
def test_ns2_runs_the_exported_sack1_script_and_both_count_recoveries(tmp_path: Path) -> None:
    from hoptcp.ns2 import crosscheck

    cc = crosscheck(scenario(**SACK1), [1], store=tmp_path / "r.db", jobs=1, progress=False)
    assert cc.ns2_ran and cc.routes_ok
    for side in (cc.ns2[0], cc.hoptcp[0]):
        assert side["aggregate_goodput_bps"] > 1e5
        for i in (0, 1):
            assert side[f"flow.{i}.sack.recoveries"] >= side[f"flow.{i}.sack.recoveries_completed"] >= 0
