"""Running an entry and writing its report (report.md, figures, results.csv)."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from .. import _bridge
from ..errors import SpecError
from ..runner import RunError
from ..scenario import Scenario
from ..stats import Estimate, mean_ci
from ..store import DEFAULT_STORE, select_metrics
from ..sweep import SweepSpec, run_sweep
from . import ns2_results
from .catalogue import Claim, Entry, catalogue, get_entry
from .registry import where

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

VERDICT_ORDER = ("fail", "error", "no data", "differs", "pass")


@dataclass
class Context:
    """What claim and figure functions see: the entry, its sweep and the runs."""

    entry: Entry
    spec: SweepSpec
    runs: "pd.DataFrame"
    derive: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None
    quick: bool
    #: the same sweep run in ns-2.35, from the data stored with hoptcp (same columns as
    #: ``runs``; None when the entry has none for these settings, e.g. in a quick run)
    ns2: "pd.DataFrame | None" = None
    _resolved: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def params(self) -> list[str]:
        return self.spec.param_keys

    def scenario(self, point: Mapping[str, Any]) -> Scenario:
        sc = self.spec.scenario.with_overrides(self.spec.set).with_overrides(point)
        if self.derive is not None:
            sc = sc.with_overrides(self.derive(point))
        return sc

    def resolved(self, point: Mapping[str, Any]) -> dict[str, Any]:
        key = json.dumps(point, sort_keys=True, default=str)
        if key not in self._resolved:
            self._resolved[key] = self.scenario(point).resolved()
        return self._resolved[key]

    def runs_at(self, point: Mapping[str, Any]) -> "pd.DataFrame":
        return _at(self.runs, point)

    def ns2_runs_at(self, point: Mapping[str, Any]) -> "pd.DataFrame | None":
        """ns-2.35's runs at a sweep point (None without stored ns-2.35 runs, empty where
        ns-2.35 did not run that point)."""
        return None if self.ns2 is None else _at(self.ns2, point)

    def for_ns2(self) -> "Context | None":
        """This context with ns-2.35's runs in place of hoptcp's (for check functions)."""
        if self.ns2 is None:
            return None
        return dataclasses.replace(self, runs=self.ns2, ns2=None)


def _at(df: "pd.DataFrame", point: Mapping[str, Any]) -> "pd.DataFrame":
    for k, v in point.items():
        if k not in df.columns:
            return df.iloc[0:0]
        df = df[df[k] == v]
    return df


@dataclass
class PointRow:
    point: dict[str, Any]
    estimate: Estimate
    reference: float | None
    holds: bool | None
    deviation: str
    verdict: str
    #: the same value computed from ns-2.35's runs (None: no stored ns-2.35 runs here)
    ns2: Estimate | None = None

    @property
    def label(self) -> str:
        return ", ".join(f"{k} = {v}" for k, v in self.point.items()) or "all runs"


@dataclass
class ClaimResult:
    claim: Claim
    rows: list[PointRow]

    @property
    def verdict(self) -> str:
        return min((r.verdict for r in self.rows), key=VERDICT_ORDER.index, default="no data")

    @property
    def summary(self) -> str:
        c = self.claim
        parts = [f"{r.label}: {_num(r.estimate.mean, c)} ({r.deviation})" for r in self.rows[:4]]
        more = f", ... ({len(self.rows) - 4} more)" if len(self.rows) > 4 else ""
        return f"{'; '.join(parts)}{more} — rule: {c.rule.text}"


def _num(v: float | None, claim: Claim) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v * claim.scale:.4g}{' ' + claim.unit if claim.unit else ''}"


def _estimate(claim: Claim, ctx: Context, runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """The claim's value from ``runs`` (a metric's mean, or its check function)."""
    from .registry import need

    if claim.check:
        got = need("check", claim.check)(ctx, runs, point)
        return got if isinstance(got, Estimate) else Estimate(float(got), math.nan, len(runs), math.nan)
    if claim.value not in runs.columns:
        raise SpecError(f"claim '{claim.name}': no metric '{claim.value}' in the runs")
    return mean_ci(runs[claim.value])


def _ns2_estimate(claim: Claim, ctx: Context, point: Mapping[str, Any]) -> Estimate | None:
    """The claim's value from ns-2.35's stored runs; None when there are none for this point
    or the value needs a metric ns-2.35's traces do not give."""
    nctx = ctx.for_ns2()
    runs = ctx.ns2_runs_at(point)
    if nctx is None or runs is None or runs.empty:
        return None
    try:
        est = _estimate(claim, nctx, runs, point)
    except (SpecError, ValueError, KeyError, ZeroDivisionError):
        return None
    return None if math.isnan(est.mean) else est


def evaluate_claim(claim: Claim, ctx: Context) -> ClaimResult:
    from .registry import need

    points = ctx.spec.points() if claim.per_point else [{}]
    rows = []
    for point in points:
        runs = ctx.runs_at(point)
        try:
            est = _estimate(claim, ctx, runs, point)
            ref_point = point if claim.per_point or len(ctx.spec.points()) != 1 else ctx.spec.points()[0]
            ref = float(need("reference", claim.reference)(ctx, ref_point)) if claim.reference else None
        except (SpecError, ValueError, KeyError) as exc:
            rows.append(PointRow(point, Estimate(math.nan, math.nan, 0, math.nan), None, None, str(exc), "error"))
            continue
        holds, dev = claim.rule.evaluate(est.mean, ref, claim.paper_at(point), claim.scale, claim.unit)
        if holds is None:
            verdict = "no data"
        elif holds:
            verdict = "pass"
        else:
            verdict = "differs" if claim.known_difference else "fail"
        rows.append(PointRow(dict(point), est, ref, holds, dev, verdict, _ns2_estimate(claim, ctx, point)))
    return ClaimResult(claim, rows)


@dataclass
class Reproduction:
    entry: Entry
    quick: bool
    claims: list[ClaimResult]
    figures: list[Path]
    report: Path
    runs: "pd.DataFrame"

    @property
    def verdict(self) -> str:
        return min((c.verdict for c in self.claims), key=VERDICT_ORDER.index, default="no data")


def reproduce(entry_id: str | Entry, out: str | Path, *, quick: bool = False,
              store: str | Path = DEFAULT_STORE, jobs: int | None = None, dask: Any = None,
              progress: bool = True) -> Reproduction:
    """Run an entry's sweep (cached in ``store``) and write ``out/report.md``, figures and ``results.csv``."""
    entry = entry_id if isinstance(entry_id, Entry) else get_entry(entry_id)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    spec = entry.sweep_spec(quick)
    derive = entry.derive_fn()
    t0 = time.perf_counter()
    runs = run_sweep(spec, store=store, jobs=jobs, dask=dask, progress=progress, derive=derive)
    elapsed = time.perf_counter() - t0
    ctx = Context(entry, spec, runs, derive, quick, ns2_results.load(entry, quick))
    claims = [evaluate_claim(c, ctx) for c in entry.claims]
    by_name = {c.claim.name: c for c in claims}
    figures = []
    from .registry import need

    for f in entry.figures:
        fig = need("figure", f.function)(ctx, by_name, f.options)
        path = out / f.file
        fig.savefig(path)
        figures.append(path)
    cols = list(runs.columns)
    if entry.metrics is not None:
        keep = select_metrics(runs.attrs.get("metrics", []), entry.metrics)
        cols = [c for c in cols if c not in runs.attrs.get("metrics", []) or c in keep]
    runs[cols].to_csv(out / "results.csv", index=False)
    report = out / "report.md"
    report.write_text(_report_md(entry, spec, quick, runs, claims, figures, elapsed, store, ctx.ns2),
                      encoding="utf-8")
    return Reproduction(entry, quick, claims, figures, report, runs)


def _est(est: Estimate | None, claim: Claim) -> str:
    if est is None or math.isnan(est.mean):
        return "-"
    ci = "" if math.isnan(est.ci) else f" ± {est.ci * claim.scale:.3g}"
    return f"{_num(est.mean, claim)}{ci}"


def _ns2_line(entry: Entry, ns2_runs: "pd.DataFrame | None", quick: bool) -> str:
    from ..ns2 import stored

    meta = stored.info(entry.id)
    plan = stored.plan_of(entry.id)
    if plan.unsupported:
        return f"no ns-2.35 column: {plan.unsupported}"
    if meta is None:
        return "no stored ns-2.35 runs (`hoptcp ns2 reproduce-data " + entry.id + "` makes them)"
    if ns2_runs is None:
        return (f"stored runs are for the full sweep's settings, not this {'quick ' if quick else ''}run's; "
                "no ns-2.35 column")
    seeds = meta.get("seeds") or []
    text = (f"{len(ns2_runs)} runs of the same scenarios (seeds {_values(list(seeds))}), "
            f"`hoptcp/reproduce/ns2data/{entry.id}.csv`, {meta.get('ns2_version', '?')}, "
            f"generated {meta.get('generated', '?')}")
    if meta.get("runs") is not None and meta.get("runs") != len(ns2_runs):
        text += f"; {meta['runs'] - len(ns2_runs)} runs left out where DSDV froze other routes than hoptcp's"
    if meta.get("note"):
        text += f". {meta['note']}"
    return text


def _values(vals: list[Any]) -> str:
    if len(vals) > 6 and all(isinstance(v, int) for v in vals) and vals == list(range(vals[0], vals[-1] + 1)):
        return f"{vals[0]}..{vals[-1]}"
    return ", ".join(map(str, vals))


def _report_md(entry: Entry, spec: SweepSpec, quick: bool, runs: "pd.DataFrame", claims: list[ClaimResult],
               figures: list[Path], elapsed: float, store: Any, ns2_runs: "pd.DataFrame | None" = None) -> str:
    import hoptcp

    L: list[str] = []
    L.append(f"# {entry.title}")
    L.append("")
    L.append(f"**{entry.id}** · {entry.paper}" + (f" · {entry.where}" if entry.where != "-" else ""))
    if entry.citation:
        L.append("")
        L.append(f"Source: {entry.citation}")
    if entry.description:
        L += ["", entry.description]
    overall = min((c.verdict for c in claims), key=VERDICT_ORDER.index, default="no data")
    L += ["", f"Overall verdict: **{overall}**" + (" (quick run: few seeds, short runs)" if quick else "")]

    L += ["", "## What was run", "", "| | |", "|---|---|"]
    L.append(f"| scenario | `{entry.scenario_label}` |")
    if spec.set:
        L.append("| fixed settings | " + ", ".join(f"`{k} = {v}`" for k, v in spec.set.items()) + " |")
    for k, v in spec.grid.items():
        L.append(f"| grid | `{k}` = {_values(v)} |")
    for k, v in spec.zip.items():
        L.append(f"| varied together | `{k}` = {_values(v)} |")
    if entry.derive:
        L.append(f"| per-point builder | `{entry.derive}` ({where('derive', entry.derive)}) |")
    seeds = spec.seeds if spec.seeds is not None else sorted(set(runs["seed"])) if len(runs) else []
    L.append(f"| seeds | {_values(list(seeds))} |")
    L.append(f"| runs | {len(runs)} ({runs.attrs.get('ran', 0)} simulated now, {runs.attrs.get('cached', 0)} from the store) |")
    sim_wall = float(runs["wall_time_s"].sum()) if "wall_time_s" in runs.columns and len(runs) else math.nan
    L.append(f"| simulation wall time | {sim_wall:.1f} s summed over runs; this invocation took {elapsed:.1f} s |")
    L.append(f"| hoptcp | core {_bridge.version()}, package {hoptcp.__version__} |")
    L.append(f"| store | `{store}`, sweep `{spec.name}` |")
    L.append(f"| ns-2.35 | {_ns2_line(entry, ns2_runs, quick)} |")
    L.append(f"| date | {_dt.datetime.now(_dt.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} |")

    L += ["", "## Claims"]
    for c in claims:
        cl = c.claim
        L += ["", f"### {cl.name}: {c.verdict}", ""]
        L.append(f"Paper: {cl.paper}" + (f" (printed value {cl.paper_value:g})" if cl.paper_value is not None else ""))
        how = (f"mean of metric `{cl.value}` over the runs" if cl.value
               else f"check `{cl.check}` ({where('check', cl.check or '')})")
        L.append(f"hoptcp value: {how}; ± is the 95% confidence half-width (Student t over seeds).")
        if cl.reference:
            L.append(f"Reference: `{cl.reference}` ({where('reference', cl.reference)}).")
        three = ns2_runs is not None
        L += ["", "| point | paper | reference | hoptcp (mean ± 95% CI) | n |"
              + (" ns-2.35 (mean ± 95% CI) | n |" if three else "") + " deviation | verdict | rule |",
              "|---|---|---|---|---|" + ("---|---|" if three else "") + "---|---|---|"]
        for r in c.rows:
            printed = cl.paper_at(r.point)
            paper = _num(printed, cl) if printed is not None else "-"
            ref = _num(r.reference, cl) if r.reference is not None else "-"
            ns2 = ""
            if three:
                ns2 = f" {_est(r.ns2, cl)} | {r.ns2.n if r.ns2 is not None else '-'} |"
            L.append(f"| {r.label} | {paper} | {ref} | {_est(r.estimate, cl)} | {r.estimate.n} |{ns2} {r.deviation} | "
                     f"**{r.verdict}** | {cl.rule.text} |")
        if cl.known_difference:
            L += ["", f"Known difference: {cl.known_difference}"]

    if figures:
        L += ["", "## Figures"]
        for f, spec_f in zip(figures, entry.figures):
            L += ["", f"![{spec_f.caption or f.stem}]({f.name})"]
            if spec_f.caption:
                L += ["", f"*{spec_f.caption}*"]
    L += ["", "## Notes", "", entry.notes or "No known differences recorded for this entry."]
    L += ["", "Verdicts: **pass**: the rule holds for hoptcp's mean; **differs**: it does not, for a documented "
          "reason (above); **fail**: it does not and no reason is known; **no data** / **error**: the value could "
          "not be computed. Per-run numbers are in `results.csv`.", ""]
    return "\n".join(L)


def reproduce_all(out: str | Path, *, quick: bool = False, store: str | Path = DEFAULT_STORE,
                  jobs: int | None = None, dask: Any = None, progress: bool = True) -> Path:
    """Reproduce every entry into ``out/<id>/`` and write ``out/index.md``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    lines = ["# hoptcp reproductions" + (" (quick)" if quick else ""), "",
             "| entry | title | paper | verdict | claims |", "|---|---|---|---|---|"]
    for entry in catalogue():
        try:
            rep = reproduce(entry, out / entry.id, quick=quick, store=store, jobs=jobs, dask=dask,
                            progress=progress)
        except (SpecError, RunError) as exc:
            lines.append(f"| {entry.id} | {entry.title} | {entry.paper} | **error** | {exc} |")
            continue
        claims = "; ".join(f"{c.claim.name}: {c.verdict}" for c in rep.claims)
        lines.append(f"| [{entry.id}]({entry.id}/report.md) | {entry.title} | {entry.paper} | "
                     f"**{rep.verdict}** | {claims} |")
    index = out / "index.md"
    index.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return index
