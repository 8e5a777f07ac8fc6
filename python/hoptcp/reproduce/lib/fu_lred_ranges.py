"""Fu et al.'s Link RED and adaptive pacing: the unspecified ranges of the claims of
``fu-pacing``, ``fu-lred-window``, ``fu-lred-chains``, ``fu-lred-topologies`` and
``lred-calibration`` (the claims' ``unspecified = { fn = ... }``).

Neither Fu paper prints Link RED's thresholds (min_th, max_th, max_p), and their text leaves
pacing's wait open (docs/model.md). Each function here returns the claim's value at every
setting the entry holds: the main sweep's readings of the wait at the core's default
thresholds, then every threshold setting of the entry's side sweep (``side``), each compared
with NewReno's runs of the main sweep at the side's seeds. The quantity is measured by the
same function as the claim's own value, so a setting is scored exactly as the default is.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Callable, Mapping

from ...errors import SpecError
from ...stats import Estimate, mean_ci
from ..registry import register
from .fu_lred import (
    GOODPUT,
    MAX_P,
    MAX_TH,
    MIN_TH,
    NR,
    WAIT_READINGS,
    _case,
    _defaults,
    _gain_pct,
    _scheme_runs,
    lred_avg_window_of,
    lred_by_seed,
    lred_calibration_table,
    lred_chain_gain_of,
    lred_chain_trend_of,
    lred_chain_window_of,
    lred_drop_ratio_of,
    lred_pacing_drop_ratio_of,
    lred_pacing_gain_of,
    lred_pacing_rtt_ratio_of,
    lred_topo_check,
    lred_topo_flows,
    lred_window_mode_of,
    lred_with_scheme,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from ..report import Context

THRESHOLDS = (MIN_TH, MAX_TH, MAX_P)
Measure = Callable[[str], Callable[..., Any]]


def threshold_label(values: Mapping[str, float]) -> str:
    """``min_th 0.1, max_th 1.5, max_p 0.5`` for the thresholds given (short names or keys)."""
    short = {k.rsplit(".", 1)[-1]: float(v) for k, v in values.items()
             if k.rsplit(".", 1)[-1] in ("min_th", "max_th", "max_p")}
    return ", ".join(f"{k} {short[k]:g}" for k in ("min_th", "max_th", "max_p") if k in short)


def _schemes(prefix: str, trigger: str, waits: bool) -> list[tuple[str, str]]:
    """(reading label, scheme name) of ``prefix (trigger...)`` for every reading of the wait, or
    the default reading only."""
    items = WAIT_READINGS.items() if waits else [next(iter(WAIT_READINGS.items()))]
    return [(label, f"{prefix} ({trigger}{suffix})") for label, suffix in items]


def _label(thresholds: str, reading: str) -> str:
    return f"{thresholds}; {reading}" if reading else thresholds


def settings_over_thresholds(ctx: "Context", side: str, main_schemes: list[tuple[str, str]],
                             side_schemes: list[tuple[str, str]], measure: Measure) -> list[tuple[str, Any]]:
    """The claim's value (``measure(scheme)``, a check on a context's runs) for each of
    ``main_schemes`` in the main sweep, at the default thresholds, then for each of
    ``side_schemes`` at each threshold setting of the side sweep ``side``: its runs with
    NewReno's runs of the main sweep at the same seeds. A scheme the runs do not hold is an
    error (a declared setting is never left out silently)."""
    import pandas as pd

    d = _defaults(ctx)
    out = [(_label(f"defaults ({threshold_label(d)})", label), measure(sc)(ctx, ctx.runs, {}))
           for label, sc in main_schemes]
    srun = ctx.side(side).runs
    keys = [k for k in THRESHOLDS if k in srun.columns]
    if not keys:
        raise SpecError(f"side sweep '{side}' varies none of {', '.join(THRESHOLDS)}")
    main = lred_with_scheme(ctx.runs)
    nr = ctx.runs[(main["scheme"] == NR).to_numpy()]
    for key, g in srun.groupby(keys, sort=True):
        vals = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
        seeds = set(g["seed"]) if "seed" in g.columns else set()
        base = nr[nr["seed"].isin(seeds)] if seeds and "seed" in nr.columns else nr
        # the thresholds' columns go: the scheme is named by what is on, as in the main sweep
        frame = pd.concat([base, g.drop(columns=keys)], ignore_index=True)
        frame.attrs = dict(srun.attrs)
        sub = dataclasses.replace(ctx, runs=frame, cache={})
        for label, sc in side_schemes:
            out.append((_label(threshold_label(vals), label), measure(sc)(sub, frame, {})))
    return out


#: the grids' flow layouts: the entry's (evenly spread) and fu-topologies' ``grid-compact`` side's
LAYOUTS = ("evenly spread", "rows and columns 2 apart in the middle")


def settings_over_layout(ctx: "Context", placement: str, schemes: list[tuple[str, str]],
                         measure: Measure) -> list[tuple[str, Any]]:
    """The claim's value for each scheme on the side sweep ``placement`` (the grids' flows on rows
    and columns 2 apart, NewReno included), at the default thresholds."""
    side = ctx.side(placement)
    d = _defaults(ctx)
    return [(_label(f"{LAYOUTS[1]}; defaults ({threshold_label(d)})", label), measure(sc)(side, side.runs, {}))
            for label, sc in schemes]


@register("check")
def lred_chain_gain_settings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, trigger: str,
                             flows: int, long: bool, side: str) -> list[tuple[str, Estimate]]:
    """fu-lred-chains: the mean gain over NewReno of LRED+pacing (``trigger``) at every reading of
    the wait with the default thresholds, and at every threshold setting of ``side``."""
    return settings_over_thresholds(ctx, side, _schemes("LRED+pacing", trigger, True),
                                    _schemes("LRED+pacing", trigger, False),
                                    lambda sc: lred_chain_gain_of(sc, flows, long))


@register("check")
def lred_chain_shape_settings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, trigger: str,
                              flows: int, measure: str, side: str) -> list[tuple[str, Estimate]]:
    """fu-lred-chains: ``trend`` (Spearman correlation of the chain length and the gain) or
    ``window`` (how much closer to h/4 than NewReno's the window is) of LRED+pacing (``trigger``)
    at every reading of the wait and every threshold setting of ``side``."""
    of = {"trend": lred_chain_trend_of, "window": lred_chain_window_of}
    if measure not in of:
        raise SpecError(f"measure {measure!r}: one of {', '.join(of)}")
    return settings_over_thresholds(ctx, side, _schemes("LRED+pacing", trigger, True),
                                    _schemes("LRED+pacing", trigger, False), lambda sc: of[measure](sc, flows))


@register("check")
def lred_topo_settings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, case: str, trigger: str,
                       measure: str, side: str, placement: str = "") -> list[tuple[str, Estimate]]:
    """fu-lred-topologies: ``measure`` (as :func:`~.fu_lred.lred_topo`'s quantity) of LRED+pacing
    (``trigger``) on ``case`` at every reading of the wait and every threshold setting of ``side``,
    and (``placement``, a grid case) with the flows laid out as in that side sweep."""
    def m(sc: str) -> Callable[..., Estimate]:
        return lred_topo_check(case, sc, measure)

    out = settings_over_thresholds(ctx, side, _schemes("LRED+pacing", trigger, True),
                                   _schemes("LRED+pacing", trigger, False), m)
    return out + (settings_over_layout(ctx, placement, _schemes("LRED+pacing", trigger, False), m) if placement else [])


@register("check")
def lred_topo_layouts(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, case: str, scheme: str,
                      measure: str, placement: str, rank: int = 0) -> list[tuple[str, Any]]:
    """fu-lred-topologies: ``measure`` (``kbps``, ``fairness``, or ``rank``: the goodput of the
    flow ranked ``rank`` with its per-seed values) of ``scheme`` on the grid ``case`` with the
    entry's flow layout and with the layout of the side sweep ``placement``."""
    def m(sc: str) -> Callable[..., Any]:
        return _rank_measure(case, sc, rank) if measure == "rank" else lred_topo_check(case, sc, measure)

    main = [(LAYOUTS[0], m(scheme)(ctx, ctx.runs, {}))]
    side = ctx.side(placement)
    main.append((LAYOUTS[1], m(scheme)(side, side.runs, {})))
    return [(label, *v) if isinstance(v, tuple) else (label, v) for label, v in main]


def _rank_measure(case: str, sc: str, rank: int) -> Callable[..., tuple[Estimate, list[float]]]:
    def check(c: "Context", r: "pd.DataFrame", p: Mapping[str, Any]) -> tuple[Estimate, list[float]]:
        flows = lred_topo_flows(_case(lred_with_scheme(c.runs), case, sc))
        values = [f[rank - 1] for f in flows if len(f) >= rank]
        return mean_ci(values), values
    return check


@register("check")
def lred_topo_rank_settings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, case: str,
                            trigger: str, rank: int, side: str, placement: str = "") -> list[tuple[str, Estimate, list[float]]]:
    """fu-lred-topologies: the goodput (kb/s) of the flow ranked ``rank`` (1 = the largest) of
    LRED+pacing (``trigger``) on ``case``, with its per-seed values (the claims' rule places the
    paper's single run among them), at every reading of the wait and threshold setting of ``side``
    and (``placement``, a grid case) with the flows laid out as in that side sweep."""
    def m(sc: str) -> Callable[..., tuple[Estimate, list[float]]]:
        return _rank_measure(case, sc, rank)

    got = settings_over_thresholds(ctx, side, _schemes("LRED+pacing", trigger, True),
                                   _schemes("LRED+pacing", trigger, False), m)
    if placement:
        got += settings_over_layout(ctx, placement, _schemes("LRED+pacing", trigger, False), m)
    return [(label, est, values) for label, (est, values) in got]


_PACING = {"gain": lambda sc, w: lred_pacing_gain_of(sc, w), "rtt": lambda sc, w: lred_pacing_rtt_ratio_of(sc, w),
           "window": lambda sc, w: lred_avg_window_of(sc), "drops": lambda sc, w: lred_pacing_drop_ratio_of(sc)}


@register("check")
def lred_pacing_settings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, trigger: str,
                         measure: str, side: str, window: int = 32) -> list[tuple[str, Estimate]]:
    """fu-pacing: ``measure`` of pacing (``trigger``) at every reading of the wait, with the
    default min_th and with every min_th of ``side``: ``gain`` (over NewReno at MaxWin
    ``window``, %), ``rtt`` (RTT over NewReno's at ``window``), ``window`` (average window at
    MaxWin 32), ``drops`` (contention drops per packet over NewReno's at the same window)."""
    if measure not in _PACING:
        raise SpecError(f"measure {measure!r}: one of {', '.join(_PACING)}")
    # an always-on switch does not read min_th: the side's settings do not apply to it
    side_schemes = [] if trigger == "always" else _schemes("pacing", trigger, True)
    return settings_over_thresholds(ctx, side, _schemes("pacing", trigger, True), side_schemes,
                                    lambda sc: _PACING[measure](sc, window))


def lred_window_gain_of(scheme: str) -> Callable[..., Estimate]:
    """Goodput gain of ``scheme`` over NewReno at MaxWin 32 (%, paired by seed): the cure's own
    gain under a reading, which rule 3 of the verdicts reads (a hit where it is below zero does
    not count)."""
    def check(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
        return _gain_pct(lred_by_seed(_scheme_runs(ctx, scheme), GOODPUT, scheme),
                         lred_by_seed(_scheme_runs(ctx, NR), GOODPUT, NR))
    check.__doc__ = f"Goodput gain of {scheme} over NewReno at MaxWin 32 (%, paired by seed)."
    return check


@register("check")
def lred_window_gain(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, scheme: str) -> Estimate:
    """Goodput gain of ``scheme`` over NewReno at MaxWin 32 (%, paired by seed)."""
    return lred_window_gain_of(scheme)(ctx, runs, point)


_WINDOW = {"mode": lred_window_mode_of, "window": lred_avg_window_of, "drops": lred_drop_ratio_of,
           "gain": lred_window_gain_of}


@register("check")
def lred_window_settings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any], *, scheme: str,
                         measure: str, side: str) -> list[tuple[str, Estimate]]:
    """fu-lred-window: ``measure`` of ``scheme`` at MaxWin 32 (``mode``: the window with the most
    time; ``window``: the average window; ``drops``: contention drops over NewReno's) with the
    default thresholds and at every threshold setting of ``side``."""
    if measure not in _WINDOW:
        raise SpecError(f"measure {measure!r}: one of {', '.join(_WINDOW)}")
    return settings_over_thresholds(ctx, side, [("", scheme)], [("", scheme)], _WINDOW[measure])


@register("check")
def lred_cal_settings(ctx: "Context", runs: "pd.DataFrame", point: Mapping[str, Any]) -> list[tuple[str, Estimate]]:
    """lred-calibration: the score (goodput of LRED+pacing over NewReno's, mean over the chains) of
    every setting of the calibration grid, for both readings of marking (``mark``, ``mark_ect_only``)."""
    out = []
    for action in ("mark", "mark_ect_only"):
        table = lred_calibration_table(ctx.runs, action)
        for row in table.to_dict("records"):
            rs = [row[k] for k in sorted(row) if k.startswith("ratio_")]
            out.append((f"{action}: {threshold_label(row)}",
                        Estimate(float(row["score"]), float("nan"), min(r.n for r in rs), float("nan"))))
    return out


def _cell(e: Estimate, fmt: str) -> str:
    return "—" if e.mean != e.mean else format(e.mean, fmt) + ("" if e.ci != e.ci else f" ± {e.ci:.1f}")


@register("values")
def lred_chain_settings_tables(ctx: "Context") -> dict[str, Any]:
    """``settings_table_TR`` / ``settings_table_INFOCOM``: LRED+pacing's mean gain over NewReno (%)
    at every setting of the claims' unspecified range (thresholds and wait), 1 and 6 flows, chains
    of at most / more than 15 hops."""
    out = {}
    for trig in ("TR", "INFOCOM"):
        cols = [lred_chain_gain_settings(ctx, ctx.runs, {}, trigger=trig, flows=n, long=lg, side="thresholds")
                for n in (1, 6) for lg in (False, True)]
        out[f"settings_table_{trig}"] = _table_by_label(
            [f"setting ({trig} trigger)", "1 flow, h ≤ 15 (paper 5–30)", "1 flow, h > 15 (paper 10–30)",
             "6 flows, h ≤ 15 (paper 5–30)", "6 flows, h > 15 (paper 10–30)"], cols, "+.1f")
    return out


@register("values")
def lred_topo_settings_tables(ctx: "Context") -> dict[str, Any]:
    """``settings_table_TR`` / ``settings_table_INFOCOM``: LRED+pacing's aggregate goodput (kb/s) on
    each case at every setting of the claims' unspecified range (thresholds, wait and, on the
    grids the side sweep ``placement`` ran, the flows' spacing)."""
    from .fu_lred import TOPO_PAPER

    cases = [c for c in TOPO_PAPER if "name" in ctx.runs.columns and (ctx.runs["name"] == c).any()]
    out = {}
    for trig in ("TR", "INFOCOM"):
        cols = []
        laid = set(ctx.side("placement").runs.get("name", []))  # the grids the placement side ran
        for c in cases:
            # NewReno in both layouts first: the reference each LRED+pacing row is a gain over
            nr = [(NR, lred_topo_check(c, NR, "kbps")(ctx, ctx.runs, {}))]
            if c in laid:
                side = ctx.side("placement")
                nr.append((f"{NR}; {LAYOUTS[1]}", lred_topo_check(c, NR, "kbps")(side, side.runs, {})))
            cols.append(nr + lred_topo_settings(ctx, ctx.runs, {}, case=c, trigger=trig, measure="kbps",
                                                side="thresholds", placement="placement" if c in laid else ""))
        head = [f"setting ({trig} trigger)"] + [f"{c} (paper {TOPO_PAPER[c][2]:g})" for c in cases]
        out[f"settings_table_{trig}"] = _table_by_label(head, cols, ".0f")
    return out


def _table_by_label(head: list[str], columns: list[list[tuple[str, Estimate]]], fmt: str) -> str:
    """As :func:`_table`, with rows for every label any column has (a column without it: —)."""
    labels: list[str] = []
    for col in columns:
        labels += [label for label, _ in col if label not in labels]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label in labels:
        cells = [next((_cell(e, fmt) for lab, e in col if lab == label), "—") for col in columns]
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


@register("values")
def lred_pacing_settings_table(ctx: "Context") -> dict[str, Any]:
    """``settings_table``: pacing's gain over NewReno at W* = 3 (%) and its RTT over NewReno's at
    every setting of the claims' unspecified range (min_th × the wait), both trigger readings."""
    cols = [lred_pacing_settings(ctx, ctx.runs, {}, trigger=t, measure=m, window=3, side="min-th")
            for t in ("TR", "INFOCOM") for m in ("gain", "rtt")]
    labels = [label for label, _ in cols[0]]
    fmt = ["+.1f", ".3f", "+.1f", ".3f"]
    rows = ["| setting | TR: gain at W* = 3 (%; paper +10) | TR: RTT ÷ NewReno's (paper 0.8–1.0) | "
            "INFOCOM: gain at W* = 3 (%) | INFOCOM: RTT ÷ NewReno's |", "|---|---|---|---|---|"]
    for label in labels:
        cells = []
        for col, f in zip(cols, fmt, strict=True):
            e = next((est for lab, est in col if lab == label), None)
            cells.append("—" if e is None or e.mean != e.mean else format(e.mean, f)
                         + ("" if e.ci != e.ci or f == ".3f" else f" ± {e.ci:.1f}"))
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    return {"settings_table": "\n".join(rows)}
