"""CUBIC's ns2_linux profile and ns-2.35's TCP-Linux: the export, the paired comparison of
CUBIC and NewReno, the cwnd trace's features, and the validation page keeping other sections.

Export tests need the compiled core; the one that runs `ns` skips without ns-2.
"""

from __future__ import annotations

import math
import subprocess
from pathlib import Path

import pytest

from hoptcp.ns2 import Ns2Unsupported, available, export
from hoptcp.ns2 import trace as tr
from hoptcp.ns2.cubic_check import (
    bases,
    compare_case,
    hoptcp_recoveries,
    ns2_recoveries,
    sack_bases,
    sack_lines,
    trace_features,
)
from hoptcp.ns2.validation import keep_sections
from hoptcp.scenario import Scenario
from ns2_helpers import needs_ns

HOP = """
duration_s = 20
[topology]
kind = "chain"
hops = 1
spacing_m = 200
[tcp]
variant = "cubic"
max_window = 64
initial_window = 3
initial_ssthresh = 30
[tcp.cubic]
profile = "ns2_linux"
[[flows]]
src = 0
dst = 1
transport = "tcp"
app = "ftp"
"""


def _run_ns(sc: Scenario, tmp_path: Path) -> None:
    """Run 3 s of ``sc`` exported in ns-2.35; it must finish with TCP-Linux's cubic found."""
    script = tmp_path / "s.tcl"
    script.write_text(export(sc.with_overrides({"duration_s": 3.0})).tcl)
    proc = subprocess.run(["ns", str(script), str(tmp_path / "out")], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert "do not find cubic" not in proc.stdout


@pytest.mark.core
def test_cubic_exports_as_tcp_linux_with_a_plain_sink(tmp_path: Path) -> None:
    sc = Scenario.from_toml(HOP)
    tcl = export(sc).tcl
    assert "set src(0) [new Agent/TCP/Linux]" in tcl
    assert "$src(0) set timestamps_ false" in tcl
    # ssthresh_ and cwnd_ reach the Linux state only when the module is installed, at time 0.
    assert '$ns_ at 0.0 "$src(0) set ssthresh_ 30; $src(0) set cwnd_ 3; $src(0) select_ca cubic"' in tcl
    assert "set dst(0) [new Agent/TCPSink]" in tcl and "Sack1" not in tcl
    if available():  # ns-2.35 runs it unmodified, and TCP-Linux's cubic is compiled in
        _run_ns(sc, tmp_path)
        cwnd = tr.parse_cwnd((tmp_path / "out.cwnd").read_text().splitlines())
        values = [w for pts in cwnd.values() for _, w in pts]
        assert values and max(values) > 3 and all(w == int(w) for w in values), "TCP-Linux's integer cwnd grew"


@pytest.mark.core
def test_cubic_with_sack_exports_as_tcp_linux_behind_a_sack1_sink(tmp_path: Path) -> None:
    # TCP-Linux keeps its own SACK recovery: the agent stays Agent/TCP/Linux (not Sack1), the sink
    # is Sack1's, timestamps stay off; tcp.sack_profile does not matter for it (the default here).
    sc = Scenario.from_toml(HOP).with_overrides({"tcp.sack": True})
    tcl = export(sc).tcl
    assert "set src(0) [new Agent/TCP/Linux]" in tcl and "Agent/TCP/Sack1" not in tcl
    assert "set dst(0) [new Agent/TCPSink/Sack1]" in tcl
    assert "$src(0) set timestamps_ false" in tcl and "select_ca cubic" in tcl
    assert export(sc.with_overrides({"tcp.sack_profile": "ns2_sack1"})).tcl == tcl
    delayed = export(sc.with_overrides({"tcp.delayed_ack": True})).tcl
    assert "set dst(0) [new Agent/TCPSink/Sack1/DelAck]" in delayed
    # The sink's SACK blocks are not Sack1's sender: no Sack1 recoveries are read from the cwnd_ trace.
    assert not export(sc).flows[0].sack
    if available():  # ns-2.35 runs it unmodified (a failed scoreboard assertion exits non-zero)
        _run_ns(sc, tmp_path)


@pytest.mark.core
def test_rfc9438_cubic_is_refused_by_the_exporter() -> None:
    sc = Scenario.from_toml(HOP).with_overrides({"tcp.cubic.profile": "rfc9438"})
    with pytest.raises(Ns2Unsupported, match=r'^tcp\.cubic\.profile = "rfc9438" .*allowed: "ns2_linux"'):
        export(sc)


def _entry(seeds: list[int], ns2: list[dict], hop: list[dict]) -> dict:
    return {"seeds": seeds, "ns2": ns2, "hoptcp": hop}


def test_paired_differences_and_verdicts() -> None:
    seeds = list(range(1, 11))
    # NewReno at 1000 + noise, CUBIC 400 lower in both simulators, noise paired by seed.
    noise = [(-1) ** s * 3.0 * s for s in seeds]
    nr = [{"aggregate_goodput_bps": 1000.0 + n, "flow.0.timeouts": 1.0, "flow.1.timeouts": 0.0} for n in noise]
    cu = [{"aggregate_goodput_bps": 600.0 + n, "flow.0.timeouts": 20.0, "flow.1.timeouts": 5.0} for n in noise]
    cu_h = [{**r, "aggregate_goodput_bps": r["aggregate_goodput_bps"] + 10.0} for r in cu]
    c = compare_case(_entry(seeds, cu, cu_h), _entry(seeds, nr, nr))
    g = c["aggregate_goodput_bps"]
    assert g["means"]["ns2_cubic"] == pytest.approx(600.0 + sum(noise) / 10)
    assert g["margin"] == pytest.approx(0.1 * (1000.0 + sum(noise) / 10))
    assert g["difference"]["ns2"] == pytest.approx(-400.0) and g["difference"]["hoptcp"] == pytest.approx(-390.0)
    assert g["cubic_vs_newreno"]["ns2"]["verdict"] == "differ"
    assert g["difference"]["agreement"]["verdict"] == "agree"
    # Counts are summed over the flows.
    t = c["timeouts"]
    assert t["means"]["ns2_cubic"] == 25.0 and t["difference"]["ns2"] == 24.0
    # A hoptcp difference far from ns-2.35's is not agreement.
    far = [{**r, "aggregate_goodput_bps": r["aggregate_goodput_bps"] + 300.0} for r in cu]
    assert compare_case(_entry(seeds, cu, far), _entry(seeds, nr, nr))["aggregate_goodput_bps"][
        "difference"]["agreement"]["verdict"] == "differ"


def test_bases_need_both_twins() -> None:
    assert bases(["cubic-a-cubic", "cubic-a-newreno", "cubic-b-cubic", "chain7"]) == ["a"]
    names = ["cubic-a-cubic", "cubic-a-newreno", "cubic-sack-a", "cubic-sack-b", "cubic-b-cubic"]
    assert sack_bases(names) == ["a"], "a SACK case needs its base's plain CUBIC and NewReno twins"


class _Suite:
    """A suite's diagnosis lookup, as validation.Suite's."""

    def diagnosis(self, case: str, metric: str) -> str | None:
        return "NewReno's." if (case, metric) == ("cubic-sack-a", "sack-newreno.timeouts") else None


def test_sack_lines_pair_sack_with_plain_and_newreno_by_seed() -> None:
    seeds = list(range(1, 11))
    noise = [(-1) ** s * 3.0 * s for s in seeds]

    def runs(goodput: float, timeouts: float) -> list[dict]:
        return [{"aggregate_goodput_bps": goodput + n, "flow.0.timeouts": timeouts} for n in noise]

    # ns-2.35: SACK 1900, plain CUBIC 750, NewReno 1580; hoptcp the same goodputs, but NewReno
    # times out once more per run than ns-2.35's.
    cases = {
        "cubic-sack-a": _entry(seeds, runs(1.9e6, 0.0), runs(1.9e6, 0.0)),
        "cubic-a-cubic": _entry(seeds, runs(7.5e5, 25.0), runs(7.5e5, 25.0)),
        "cubic-a-newreno": _entry(seeds, runs(1.58e6, 1.0), runs(1.58e6, 2.0)),
    }
    text = "\n".join(sack_lines(cases, _Suite()))
    goodput = next(ln for ln in text.splitlines() if ln.startswith("| a | goodput"))
    cells = [c.strip() for c in goodput.strip("|").split("|")]
    assert cells[2:5] == ["1900.0", "1900.0", "agree"]
    assert cells[5:8] == ["1150.0 (**differ**)", "1150.0 (**differ**)", "agree"]
    assert cells[8:11] == ["320.0 (**differ**)", "320.0 (**differ**)", "agree"]
    timeouts = next(ln for ln in text.splitlines() if ln.startswith("| a | timeouts"))
    assert timeouts.rstrip().endswith("| -1 (**differ**) | -2 (**differ**) | **differ** |")
    assert "- a, timeouts, CUBIC+SACK − NewReno (differ): NewReno's." in text
    assert "differs from its plain CUBIC beyond seed noise in 1 of 1 cases (a); there hoptcp's paired " \
        "difference agrees with ns-2.35's in 1 (a)" in text
    assert sack_lines({k: v for k, v in cases.items() if k != "cubic-a-newreno"}) == []
    # Recoveries per run: a two-valued count with the same mean is undecided, and listed.
    recs = {"seeds_text": "1-10", "cases": {"a": {"ns2": [28.0, 44.0] * 5, "hoptcp": [44.0, 28.0] * 5}}}
    text = "\n".join(sack_lines(cases, _Suite(), recs))
    assert "| a | 36.00 ± 8.4 | 36.00 ± 8.4 | **undecided** |" in text
    assert "- a, recoveries per run (undecided): *Open.*" in text


@pytest.mark.core
@needs_ns
def test_recoveries_are_counted_in_both_simulators() -> None:
    # 5 s of the wired bottleneck with SACK: slow start overflows the queue once, and both
    # simulators recover without a timeout (ns-2.35's ncwndcuts_ less its nrexmit_).
    hybrid = Path(__file__).resolve().parents[2] / "validation/ns2/cubic/hybrid.toml"
    sc = Scenario.from_toml(hybrid.read_text()).with_overrides(
        {"tcp.sack": True, "duration_s": 5.0})
    assert ns2_recoveries(sc, 1) >= 1 and hoptcp_recoveries(sc, 1) >= 1


def test_trace_features_by_hand() -> None:
    # Slow start to 10, a timeout (to 1) at t = 2, back to 10 at t = 3.5, to 12, a cut to 1 at t = 6.
    pts = [(0.0, 2.0), (0.5, 4.0), (1.0, 8.0), (1.5, 10.0), (2.0, 1.0), (2.5, 4.0), (3.0, 8.0), (3.5, 10.0),
           (4.0, 11.0), (5.0, 12.0), (6.0, 1.0), (7.0, 5.0)]
    f = trace_features(pts, 0.0, 8.0)
    assert f["cuts"] == 2
    assert f["peak"] == pytest.approx((10 + 12) / 2)
    assert f["epoch_s"] == pytest.approx(4.0)
    # Back at 10 1.5 s after the first cut; the second epoch never regains 12 before the end.
    assert f["regain_s"] == pytest.approx(1.5)
    # A fall to above 0.9 of the last value is not a cut.
    assert trace_features([(0.0, 10.0), (1.0, 9.5), (2.0, 12.0)], 0.0, 3.0)["cuts"] == 0
    assert math.isnan(trace_features([(0.0, 10.0)], 0.0, 1.0)["epoch_s"])


def test_re_rendering_keeps_sections_other_commands_wrote() -> None:
    old = "# V\n\nold intro\n\n## Goodput\n\nold table\n\n## BBR against ns-3.37\n\nbbr numbers\n"
    new = "# V\n\nnew intro\n\n## Goodput\n\nnew table\n"
    page = keep_sections(old, new)
    assert page.startswith(new.rstrip("\n"))
    assert page.count("## Goodput") == 1 and "old table" not in page
    assert page.rstrip().endswith("## BBR against ns-3.37\n\nbbr numbers")
    assert keep_sections(new, new) == new
