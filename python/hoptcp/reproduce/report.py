"""Running an entry and writing its report (report.md, figures, results.csv)."""

from __future__ import annotations

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
        df = self.runs
        for k, v in point.items():
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


def evaluate_claim(claim: Claim, ctx: Context) -> ClaimResult:
    from .registry import need

    points = ctx.spec.points() if claim.per_point else [{}]
    rows = []
    for point in points:
        runs = ctx.runs_at(point)
        try:
            if claim.check:
                got = need("check", claim.check)(ctx, runs, point)
                est = got if isinstance(got, Estimate) else Estimate(float(got), math.nan, len(runs), math.nan)
            else:
                if claim.value not in runs.columns:
                    raise SpecError(f"claim '{claim.name}': no metric '{claim.value}' in the runs")
                est = mean_ci(runs[claim.value])
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
        rows.append(PointRow(dict(point), est, ref, holds, dev, verdict))
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
    ctx = Context(entry, spec, runs, derive, quick)
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
    report.write_text(_report_md(entry, spec, quick, runs, claims, figures, elapsed, store), encoding="utf-8")
    return Reproduction(entry, quick, claims, figures, report, runs)


def _values(vals: list[Any]) -> str:
    if len(vals) > 6 and all(isinstance(v, int) for v in vals) and vals == list(range(vals[0], vals[-1] + 1)):
        return f"{vals[0]}..{vals[-1]}"
    return ", ".join(map(str, vals))


def _report_md(entry: Entry, spec: SweepSpec, quick: bool, runs: "pd.DataFrame", claims: list[ClaimResult],
               figures: list[Path], elapsed: float, store: Any) -> str:
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
        L += ["", "| point | paper | reference | hoptcp (mean ± 95% CI) | n | deviation | verdict | rule |",
              "|---|---|---|---|---|---|---|---|"]
        for r in c.rows:
            printed = cl.paper_at(r.point)
            paper = _num(printed, cl) if printed is not None else "-"
            ref = _num(r.reference, cl) if r.reference is not None else "-"
            est = r.estimate
            ci = "" if math.isnan(est.ci) else f" ± {est.ci * cl.scale:.3g}"
            val = "-" if math.isnan(est.mean) else f"{_num(est.mean, cl)}{ci}"
            L.append(f"| {r.label} | {paper} | {ref} | {val} | {est.n} | {r.deviation} | **{r.verdict}** | {cl.rule.text} |")
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
