"""Stored ns-2.35 runs of reproduction entries: loading, the Context hook, the report column."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hoptcp.ns2 import stored
from hoptcp.reproduce import get_entry, reproduce
from hoptcp.reproduce.report import Context


def _write(directory: Path, entry_id: str, rows: list[dict], meta: dict) -> None:
    import pandas as pd

    directory.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(directory / f"{entry_id}.csv", index=False)
    (directory / f"{entry_id}.json").write_text(json.dumps(meta))


@pytest.fixture
def ns2_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "ns2data"
    monkeypatch.setattr(stored, "data_dir", lambda: d)
    return d


def _single_hop_data(d: Path, goodputs: list[float], routes_ok: list[bool] | None = None) -> None:
    routes_ok = routes_ok or [True] * len(goodputs)
    rows = [{"seed": i + 1, "aggregate_goodput_bps": g, "ns2.routes_ok": ok}
            for i, (g, ok) in enumerate(zip(goodputs, routes_ok))]
    _write(d, "single-hop", rows, {"entry": "single-hop", "set": {"duration_s": 100.0}, "params": [],
                                   "seeds": list(range(1, len(goodputs) + 1)), "runs": len(goodputs),
                                   "ns2_version": "ns-2.35+export.test", "generated": "today", "note": ""})


def test_load_matches_the_settings_and_drops_runs_with_other_routes(ns2_dir: Path) -> None:
    _single_hop_data(ns2_dir, [1.0e6, 2.0e6, 9.9e6], [True, True, False])
    spec = get_entry("single-hop").sweep_spec(False)
    df = stored.load("single-hop", spec)
    assert list(df["aggregate_goodput_bps"]) == [1.0e6, 2.0e6]
    assert df.attrs["simulator"] == "ns-2.35" and "aggregate_goodput_bps" in df.attrs["metrics"]
    # A quick run has other settings (shorter runs): no ns-2.35 runs for it.
    assert stored.load("single-hop", get_entry("single-hop").sweep_spec(True)) is None


def test_plans_restrict_the_points(fake_core) -> None:
    spec = stored.ns2_spec(get_entry("fu-topologies"))
    names = {p["name"] for p in spec.points()}
    assert names == {"chain6x6", "chain7x3", "cross2"}
    assert spec.seeds == [1, 2, 3, 4, 5]
    assert {p["tcp.max_window"] for p in spec.points()} == {1, 2, 3, 4, 6, 8, 12, 16, 32}
    with pytest.raises(Exception, match="no ns-2.35 runs"):
        stored.ns2_spec(get_entry("fu-linkdrop"))


def test_report_gets_an_ns2_column_from_stored_runs(fake_core, ns2_dir: Path, tmp_path: Path) -> None:
    _single_hop_data(ns2_dir, [1.50e6, 1.52e6, 1.51e6])
    rep = reproduce("single-hop", tmp_path / "out", quick=False, store=tmp_path / "r.db", progress=False)
    row = rep.claims[0].rows[0]
    assert row.ns2 is not None and row.ns2.n == 3 and row.ns2.mean == pytest.approx(1.51e6)
    text = rep.report.read_text()
    assert "| ns-2.35 (mean ± 95% CI) | n |" in text
    assert "| 1.51 Mb/s ± " in text
    assert "3 runs of the same scenarios" in text and "ns-2.35+export.test" in text


def test_quick_report_says_why_there_is_no_ns2_column(fake_core, ns2_dir: Path, tmp_path: Path) -> None:
    _single_hop_data(ns2_dir, [1.5e6])
    rep = reproduce("single-hop", tmp_path / "q", quick=True, store=tmp_path / "r.db", progress=False)
    text = rep.report.read_text()
    assert "ns-2.35 (mean" not in text
    assert "stored runs are for the full sweep's settings" in text
    assert rep.claims[0].rows[0].ns2 is None


def test_context_hands_ns2_runs_to_check_functions(fake_core) -> None:
    import pandas as pd

    entry = get_entry("single-hop")
    spec = entry.sweep_spec(False)
    hop = pd.DataFrame({"seed": [1, 2], "aggregate_goodput_bps": [1.0, 2.0]})
    ns2 = pd.DataFrame({"seed": [1, 2], "aggregate_goodput_bps": [3.0, 5.0]})
    ctx = Context(entry, spec, hop, None, False, ns2=ns2)
    assert list(ctx.ns2_runs_at({})["aggregate_goodput_bps"]) == [3.0, 5.0]
    nctx = ctx.for_ns2()
    assert nctx is not None and list(nctx.runs["aggregate_goodput_bps"]) == [3.0, 5.0]
    assert ctx.ns2_runs_at({"no.such.param": 1}).empty
    assert Context(entry, spec, hop, None, False).for_ns2() is None


def test_ns2_agrees_is_shown_only_when_ns2_misses_the_paper_alike(fake_core) -> None:
    """The evidence 'ns-2.35 agrees with hoptcp' holds when ns-2.35 breaks the rule on the same
    side of the paper's number and the runs are within noise; not when ns-2.35 meets the paper."""
    import pandas as pd

    from hoptcp.reproduce.catalogue import Claim, Rule
    from hoptcp.reproduce.lib.ns2_agreement import ns2_agrees

    entry = get_entry("single-hop")
    spec = entry.sweep_spec(False)
    claim = Claim("window", "a printed 10", Rule.parse("within 10% of paper"), value="w", paper_value=10.0)
    hop = pd.DataFrame({"seed": [1, 2, 3], "w": [7.9, 8.0, 8.1]})
    close = pd.DataFrame({"seed": [1, 2, 3], "w": [7.8, 8.0, 8.2]})
    shown = ns2_agrees(Context(entry, spec, hop, None, False, ns2=close), claim, {})
    assert shown.shown is True and "ns-2.35 gives 8" in shown.text
    meets = pd.DataFrame({"seed": [1, 2, 3], "w": [9.9, 10.0, 10.1]})
    assert ns2_agrees(Context(entry, spec, hop, None, False, ns2=meets), claim, {}).shown is False
    above = pd.DataFrame({"seed": [1, 2, 3], "w": [11.9, 12.0, 12.1]})
    assert ns2_agrees(Context(entry, spec, hop, None, False, ns2=above), claim, {}).shown is False
    assert ns2_agrees(Context(entry, spec, hop, None, False), claim, {}).shown is None


def test_side_sweeps_are_stored_apart_and_loaded_by_name(ns2_dir: Path) -> None:
    entry = get_entry("gap-parallel")
    spec = entry.side("static-newreno").sweep_spec(entry.id, False)
    rows = [{"flows.0.src": 0, "flows.0.dst": 13, "flows.1.src": 5, "flows.1.dst": 13, "seed": s,
             "fairness_jain": 0.9, "ns2.routes_ok": True} for s in (1, 2, 3)]
    _write(ns2_dir, "gap-parallel@static-newreno", rows,
           {"entry": "gap-parallel", "side": "static-newreno", "set": dict(spec.set),
            "params": ["flows.0.src", "flows.0.dst", "flows.1.src", "flows.1.dst"], "seeds": [1, 2, 3]})
    df = stored.load_side("gap-parallel", "static-newreno", spec)
    assert list(df["seed"]) == [1, 2, 3] and df.attrs["params"][0] == "flows.0.src"
    # The entry's main sweep has no ns-2.35 file (AODV through a base station cannot be exported).
    assert stored.load("gap-parallel", entry.sweep_spec(False)) is None
    assert stored.load_side("gap-parallel", "static-newreno", entry.side("static-newreno").sweep_spec(entry.id, True)) is None


def test_plans_of_hybrid_entries_run_side_sweeps_only() -> None:
    plan = stored.plan_of("gap-chain")
    assert not plan.main and plan.sides == ("static-ns2-code", "static-ns2-code-down")
    spec = stored.side_spec(get_entry("gap-chain"), "static-ns2-code-down")
    assert spec.seeds == list(range(1, 11)) and spec.set["routing.protocol"] == "static"
    assert len(spec.points()) == 16
    with pytest.raises(Exception, match="does not run in ns-2.35"):
        stored.side_spec(get_entry("gap-chain"), "wired-to-wireless")


def test_static_newreno_evidence_needs_both_simulators_to_miss_the_paper_alike(
        fake_core, ns2_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """gap-parallel's NewReno fairness: shown when hoptcp's and ns-2.35's static-route runs agree
    (bootstrap over seeds) and both miss the paper's 0.5 on the side the entry's runs do."""
    import pandas as pd

    from hoptcp.reproduce.lib import gap_hybrid as g

    entry = get_entry("gap-parallel")
    claim = next(c for c in entry.claims if c.check == "gap_par_up_jain_newreno")
    up = {"flows.0.src": 0, "flows.0.dst": 13, "flows.1.src": 5, "flows.1.dst": 13}

    def frame(jains: list[float]) -> pd.DataFrame:
        return pd.DataFrame([{**up, "seed": s + 1, "fairness_jain": j, "aggregate_goodput_bps": 5e5}
                             for s, j in enumerate(jains)])

    def ctx_with(static: pd.DataFrame, theirs: pd.DataFrame | None) -> Context:
        sides = {name: Context(entry, entry.side(name).sweep_spec(entry.id, False), static if name == "static-newreno"
                               else frame([]), None, False, name) for name in (s.name for s in entry.sides)}
        monkeypatch.setattr(g, "ns2_side_runs", lambda ctx, side: theirs)
        return Context(entry, entry.sweep_spec(False), frame([0.93, 0.94, 0.92, 0.95]), None, False, sides=sides)

    ours = frame([0.99, 0.995, 0.992, 0.993])
    shown = g.gap_ns2_static_agrees(ctx_with(ours, frame([0.994, 0.991, 0.996, 0.99])), claim, {})
    assert shown.shown is True and "both miss the paper on the same side" in shown.text
    # ns-2.35 starving FTP 2 as the paper says: not shown.
    assert g.gap_ns2_static_agrees(ctx_with(ours, frame([0.52, 0.55, 0.5, 0.53])), claim, {}).shown is False
    assert g.gap_ns2_static_agrees(ctx_with(ours, None), claim, {}).shown is None


def test_loaded_runs_take_new_columns_without_pandas_warning(ns2_dir: Path) -> None:
    """A wide CSV (one column per metric, as the exporter writes) is read as one block per
    column; the loader consolidates it, so the reproductions' ``assign`` does not warn."""
    import warnings

    import pandas as pd

    rows = [{"seed": i + 1, "aggregate_goodput_bps": 1e5 * (i + 1), **{f"node.{k}.rts_sent": i * k for k in range(150)},
             "ns2.routes_ok": True} for i in range(4)]
    _write(ns2_dir, "single-hop", rows, {"entry": "single-hop", "set": {"duration_s": 100.0}, "params": [],
                                         "seeds": [1, 2, 3, 4], "runs": 4, "ns2_version": "ns-2.35+export.test",
                                         "generated": "today", "note": ""})
    df = stored.load("single-hop", get_entry("single-hop").sweep_spec(False))
    assert list(df["node.149.rts_sent"]) == [0, 149, 298, 447]
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.PerformanceWarning)
        df.assign(arm="ns-2.35")
