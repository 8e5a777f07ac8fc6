"""Running an entry and writing its report (report.md, figures, results.csv)."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import fnmatch
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
from .agreement import Agreement, bootstrap, margin_for, tost
from .catalogue import CLAIM_KINDS, Claim, Entry, SideSweep, catalogue, get_entry
from .registry import need, where
from .texts import render
from .verdicts import DiffersTest, Setting, TableRow, band, cure_allows, differs_earned, judge_setting, table_reading

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

VERDICT_ORDER = ("fail", "error", "no data", "unspecified", "differs", "pass")


@dataclass
class Context:
    """What check, reference, evidence, values and figure functions see: the entry, one of
    its sweeps (the main one, or a side sweep: ``name``) with its runs, the other sweeps
    through ``side(name)``, and the stored ns-2.35 runs of the entry (``ns2``, or None)."""

    entry: Entry
    spec: SweepSpec
    runs: "pd.DataFrame"
    derive: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None
    quick: bool
    name: str | None = None  # None: the main sweep; else the side sweep's name
    sides: dict[str, "Context"] = field(default_factory=dict)
    ns2: "pd.DataFrame | None" = None
    #: scratch space for functions that share a costly intermediate result within one report
    cache: dict[Any, Any] = field(default_factory=dict)
    _resolved: dict[str, dict[str, Any]] = field(default_factory=dict)

    def side(self, name: str) -> "Context":
        """The context of a side sweep the entry declares (``[[side]]``)."""
        if name not in self.sides:
            self.entry.side(name)  # raises the error naming the declared sides
            raise SpecError(f"entry '{self.entry.id}': side sweep '{name}' has not been run")
        return self.sides[name]

    @property
    def params(self) -> list[str]:
        return self.spec.param_keys

    @property
    def points(self) -> list[dict[str, Any]]:
        return self.spec.points()

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


@dataclass(frozen=True)
class Evidence:
    """What an evidence function found: whether the named cause of a difference is shown
    (None: it could not be computed) and a short generated text saying what was measured."""

    shown: bool | None
    text: str


@dataclass
class PointRow:
    point: dict[str, Any]
    estimate: Estimate
    reference: float | None
    holds: bool | None
    deviation: str
    verdict: str
    evidence: Evidence | None = None  # evaluated where the rule fails and the claim names a function
    #: the same value computed from ns-2.35's runs (None: no stored ns-2.35 runs here)
    ns2: Estimate | None = None
    #: whether hoptcp and ns-2.35 agree on the value, tested over seeds (None: no ns-2.35 value)
    agreement: Agreement | None = None
    #: every reading of the claim's declared range, measured and judged (rules 1 and 3)
    settings: list[Setting] = field(default_factory=list)
    #: the reading the row is judged under (None: the default)
    reading: str | None = None
    #: whether "differs" is earned (rule 5), with the reason
    differs: DiffersTest | None = None
    #: the band the rule accepts (rule 3)
    band: tuple[float, float] = (math.nan, math.nan)
    #: the agreement test on a separate sweep with seeds fixed in advance (None: only the pilot)
    fixed_seeds: bool = False

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
    """A claim's rows, judged at the default by the rules of :mod:`.verdicts`: "pass" where the rule
    holds; "differs" only where a second implementation agrees with hoptcp on the claim's own
    quantity (rule 5; an evidence function's side experiment is shown, and earns nothing);
    "unspecified" (provisional until :func:`judge_tables`) where a textual reading of the declared
    range reaches the paper's value with its corrected interval (rules 1 and 3); else "fail"."""
    points = ctx.spec.points() if claim.per_point else [{}]
    rows = []
    for point in points:
        try:
            est, ref = _measure(claim, ctx, point)
        except (SpecError, ValueError, KeyError) as exc:
            rows.append(PointRow(point, Estimate(math.nan, math.nan, 0, math.nan), None, None, str(exc), "error"))
            continue
        holds, dev = rule_holds(claim, ctx, point, est, ref)
        rband = rule_band(claim, point, ref)
        ns2 = _ns2_estimate(claim, ctx, point)
        agreed, fixed = None, False
        if ns2 is not None:
            agreed, fixed = reference_agreement(claim, ctx, point, est, ns2)
        evidence, test = None, None
        settings: list[Setting] = []
        if holds is None:
            verdict = "no data"
        elif holds:
            verdict = "pass"
        else:
            evidence = _evidence(claim, ctx, point)
            test = differs_earned(None if agreed is None else agreed.verdict,
                                  agreed.margin if agreed is not None else math.nan, claim.paper_at(point), est.mean,
                                  agreed.n_a if agreed is not None else 0, agreed.n_b if agreed is not None else 0,
                                  fixed, claim.reference_kind if agreed is not None else None)
            verdict = "differs" if test.earned else "fail"
            if verdict == "fail" and claim.unspecified is not None:
                tried, settings = unspecified_range(claim, ctx, point, ref, rband)
                evidence = tried if evidence is None else Evidence(tried.shown, f"{evidence.text}; {tried.text}")
                verdict = "unspecified" if tried.shown is True else "fail"
        rows.append(PointRow(dict(point), est, ref, holds, dev, verdict, evidence, ns2, agreed, settings,
                             None, test, rband, fixed))
    return ClaimResult(claim, rows)


def rule_band(claim: Claim, point: Mapping[str, Any], ref: float | None) -> tuple[float, float]:
    """The values the claim's rule accepts at a point (rule 3's band; NaN for per-seed rules)."""
    r = claim.rule
    if r.per_seed:
        return (math.nan, math.nan)
    target = {"reference": ref, "paper": claim.paper_at(point)}.get(r.target, r.target)  # type: ignore[arg-type]
    return band(r.kind, r.a, r.b, None if target is None else float(target))


def judge_tables(claims: list[ClaimResult], ctx: Context | None = None) -> None:
    """Rules 2 and 3 across an entry's claims, after each was judged on its own: a hit where the
    cure claim named by the range has, under the same reading, a gain whose 95% upper bound is
    below zero does not count; then the claims of one table are judged under one reading that
    reaches every row, or all at the default."""
    by_name = {c.claim.name: c for c in claims}
    for c in claims:
        u = c.claim.unspecified
        if u is None or not u.cure or not any(r.settings for r in c.rows):
            continue
        if u.cure not in by_name:
            raise SpecError(f"claim '{c.claim.name}': unspecified.cure = {u.cure!r} names no claim of the entry")
        cure = by_name[u.cure]
        for cr in cure.rows:  # the cure's gain under every reading, measured even where its default passed
            if not cr.settings and cure.claim.unspecified is not None and ctx is not None:
                _, cr.settings = unspecified_range(cure.claim, ctx, cr.point, cr.reference, cr.band)
        for r in c.rows:
            mates = [cr for cr in cure.rows if all(cr.point.get(k) == v for k, v in r.point.items()
                                                   if k in cr.point)] or cure.rows
            highs = {s.label: s.high95 for cr in mates for s in cr.settings}
            r.settings = [dataclasses.replace(s, cure_loses=not cure_allows(highs.get(s.label, math.nan)))
                          for s in r.settings]
            _refresh(r)
    groups: dict[str, list[ClaimResult]] = {}
    for c in claims:
        if c.claim.counted:
            groups.setdefault(c.claim.group, []).append(c)
    for members in groups.values():
        rows = [(c, r) for c in members for r in c.rows]
        if not any(r.verdict == "unspecified" for _, r in rows):
            continue
        order: list[str] = []
        for _, r in rows:
            order += [s.label for s in r.settings if s.textual and s.label not in order]
        table = [TableRow(f"{c.claim.name}|{r.label}", r.verdict in ("pass", "differs"),
                          None if c.claim.unspecified is None else
                          frozenset(s.label for s in r.settings if s.counts) if r.settings else
                          (None if r.verdict in ("pass", "differs") else frozenset()))
                 for c, r in rows]
        pick = table_reading(table, order)
        for c, r in rows:
            if r.verdict != "unspecified":
                continue
            if pick is None:
                r.verdict = "fail"
                r.evidence = Evidence(False, (r.evidence.text if r.evidence else "") +
                                      f" — but no single reading reaches every row of the table "
                                      f"'{c.claim.group}' ({len(rows)} rows), so the rows are judged at the default "
                                      "(rule 2)")
            else:
                r.reading = pick


def _refresh(r: PointRow) -> None:
    """A row's verdict after its settings changed (a hit that no longer counts)."""
    if r.verdict == "unspecified" and not any(s.counts for s in r.settings):
        r.verdict = "fail"
        r.evidence = Evidence(False, (r.evidence.text if r.evidence else "") +
                              " — every hit is at a reading where the same entry's cure loses goodput (its gain's "
                              "upper bound is below zero), so none counts (rule 3)")


def rule_holds(claim: Claim, ctx: Context, point: Mapping[str, Any], est: Estimate,
               ref: float | None) -> tuple[bool | None, str]:
    """The claim's rule on ``ctx``'s runs at a point: on the mean ``est``, or on the per-seed
    values for a rule that reads them (``within seed range``)."""
    if claim.rule.per_seed:
        return claim.rule.evaluate_seeds(seed_values(claim, ctx, point), claim.paper_at(point), claim.scale,
                                         claim.unit)
    return claim.rule.evaluate(est.mean, ref, claim.paper_at(point), claim.scale, claim.unit)


def unspecified_range(claim: Claim, ctx: Context, point: Mapping[str, Any], ref: float | None,
                      rband: tuple[float, float] | None = None) -> tuple[Evidence, list[Setting]]:
    """The claim at every setting of its declared range (rules 1 and 3): each setting's value and
    its interval at confidence 1 − 0.05/k over the k readings the text allows; a textual setting
    reaches the paper's value when that interval lies inside the rule's band. Readings the text
    excludes are measured and shown, never counted. A rule on per-seed values (``within seed
    range``) has no band and cannot be "unspecified". Returns the evidence (shown: some textual
    reading reaches) and the judged settings."""
    u = claim.unspecified
    assert u is not None
    try:
        got = need("check", u.fn)(ctx, ctx.runs, point, **u.args)
    except (SpecError, ValueError, KeyError) as exc:
        return Evidence(None, f"unspecified {u.quantity}: the range could not be run ({exc})"), []
    lo_b, hi_b = rband if rband is not None else rule_band(claim, point, ref)
    from .verdicts import textual

    labels = [str(s[0]) for s in got]
    k = len(textual(labels, u.exclusions))
    needs_seeds = any(len(s) <= 2 and (s[1].n < 2 or math.isnan(s[1].ci)) for s in got)
    per_seed = _unspecified_seed_values(claim, ctx, point) if needs_seeds and not claim.rule.per_seed else {}
    settings: list[Setting] = []
    for label, est, *values in got:
        seeds = list(values[0]) if values else per_seed.get(str(label))
        st = judge_setting(str(label), float(est.mean), float(est.ci), int(est.n), seeds, k, lo_b, hi_b, u.exclusions)
        settings.append(st)
    counted = [st for st in settings if st.counts]
    excluded = [st for st in settings if not st.textual]
    sc = claim.scale

    def show(st: Setting) -> str:
        iv = "" if math.isnan(st.low) else f" [{st.low * sc:.4g}, {st.high * sc:.4g}]"
        mark = " (excluded)" if not st.textual else " ✓" if st.counts else ""
        return f"{st.label}: {st.mean * sc:.4g}{iv}{mark}"

    if claim.rule.per_seed:
        where_txt = ("a rule on a single run's number among hoptcp's seeds has no interval to correct, so no "
                     "reading can be a hit (rule 3)")
    elif counted:
        where_txt = f"the paper's value is reached at {'; '.join(st.label for st in counted)}"
    else:
        where_txt = "the paper's value is reached at no reading the text allows"
    conf = 1 - 0.05 / max(1, k)
    band_txt = f"[{lo_b * sc:.4g}, {hi_b * sc:.4g}]"
    ex_txt = ""
    if excluded:
        reasons = sorted({f"{st.excluded.match}: {st.excluded.why}" for st in excluded if st.excluded})
        ex_txt = f"; {len(excluded)} reading(s) the text excludes are shown, not counted ({'; '.join(reasons)})"
    u_txt = f" {claim.unit}" if claim.unit and claim.unit != "%" else claim.unit
    text = (f"unspecified: {u.quantity}, over {u.range} ({u.allows}); {k} textual reading(s), each judged by its "
            f"{conf:.2%} interval (Bonferroni over {k}) inside the band {band_txt}; {where_txt}{ex_txt} "
            f"[{'; '.join(show(st) for st in settings)}{u_txt and ' (' + u_txt.strip() + ')'}]")
    return Evidence(bool(counted) and not claim.rule.per_seed, text), settings


def _unspecified_seed_values(claim: Claim, ctx: Context, point: Mapping[str, Any]) -> dict[str, list[float]]:
    """Each setting of a claim's unspecified range measured on each seed's runs alone (the
    function is called once per seed), for a rule that reads per-seed values."""
    from .registry import need

    u = claim.unspecified
    assert u is not None
    out: dict[str, list[float]] = {}
    resample = _Resampler(ctx)
    for s in _seeds(ctx.runs_at(point)):
        one = resample([s])
        try:
            got = need("check", u.fn)(one, one.runs, point, **u.args)
        except (SpecError, ValueError, KeyError, ZeroDivisionError):
            continue
        for label, est, *_ in got:
            out.setdefault(str(label), []).append(float(est.mean))
    return out


def _seeds(runs: "pd.DataFrame") -> list[Any]:
    return sorted(set(runs["seed"])) if "seed" in runs.columns else []


class _Resampler:
    """Contexts whose runs are those of chosen seeds, drawn with replacement: the k-th draw is
    relabelled seed k + 1, so a seed drawn twice counts twice; each has an empty cache."""

    def __init__(self, ctx: Context):
        import numpy as np

        self.ctx = ctx
        self.runs = ctx.runs.reset_index(drop=True).copy()  # one block per dtype: fast row takes
        seed = self.runs["seed"].to_numpy() if "seed" in self.runs.columns else np.zeros(len(self.runs))
        self.rows = {s: np.flatnonzero(seed == s) for s in _seeds(self.runs)}

    def __call__(self, seeds: list[Any]) -> Context:
        import numpy as np

        rows = [self.rows[s] for s in seeds]
        take = np.concatenate(rows) if rows else np.zeros(0, dtype=int)
        runs = self.runs.take(take).reset_index(drop=True)
        runs["seed"] = np.repeat(np.arange(1, len(rows) + 1), [len(r) for r in rows])
        runs.attrs = dict(self.ctx.runs.attrs)
        return dataclasses.replace(self.ctx, runs=runs, cache={})


def seed_values(claim: Claim, ctx: Context, point: Mapping[str, Any]) -> list[float]:
    """The claim's value on each seed's runs alone (a check function is called once per seed)."""
    out = []
    resample = _Resampler(ctx)
    for s in _seeds(ctx.runs_at(point)):
        one = resample([s])
        try:
            out.append(float(_estimate(claim, one, one.runs_at(point), point).mean))
        except (SpecError, ValueError, KeyError, ZeroDivisionError):
            out.append(math.nan)
    return out


def ns2_agreement(claim: Claim, ctx: Context, point: Mapping[str, Any], ours: Estimate,
                  theirs: Estimate) -> Agreement:
    """Whether hoptcp's and ns-2.35's values of a claim agree at a point (module
    :mod:`hoptcp.reproduce.agreement`): TOST on the per-run values of a metric; a bootstrap over
    seeds of the check function for anything else."""
    margin = claim.agreement_margin
    if isinstance(margin, (int, float)):
        margin = float(margin) / claim.scale  # stated in the unit as shown
    m = margin_for(claim.paper_at(point), ours.mean, margin)
    nctx = ctx.for_ns2()
    assert nctx is not None
    if claim.value:
        return tost(ctx.runs_at(point)[claim.value], nctx.runs_at(point)[claim.value], m)

    def value_of(c: Context) -> Callable[[Any], float]:
        resample, memo = _Resampler(c), dict[tuple[Any, ...], float]()

        def f(seeds: Any) -> float:
            key = tuple(sorted(seeds))  # the value depends on which seeds were drawn, not their order
            if key not in memo:
                r = resample(list(key))
                try:
                    memo[key] = float(_estimate(claim, r, r.runs_at(point), point).mean)
                except (SpecError, ValueError, KeyError, ZeroDivisionError):
                    memo[key] = math.nan
            return memo[key]
        return f

    return bootstrap(_seeds(ctx.runs_at(point)), _seeds(nctx.runs_at(point)), value_of(ctx), value_of(nctx), m)


def reference_agreement(claim: Claim, ctx: Context, point: Mapping[str, Any], ours: Estimate,
                        theirs: Estimate) -> tuple[Agreement, bool]:
    """The equivalence test of hoptcp against the entry's reference on the claim's own quantity:
    on the agreement sweep (seeds fixed in advance from a pilot, :func:`agreement_contexts`) when
    the entry has one, else on the stored pilot runs (shown, but it earns nothing: rule 5)."""
    pair = agreement_contexts(ctx)
    if pair is None:
        return ns2_agreement(claim, ctx, point, ours, theirs), False
    ours_ctx, ref_ctx, plan = pair
    n = plan.get("claims", {}).get(claim.name, {}).get("n")
    margin = plan.get("claims", {}).get(claim.name, {}).get("margin")
    if n is None or margin is None:
        return ns2_agreement(claim, ctx, point, ours, theirs), False
    seeds = list(plan["seeds"])[: int(n)]
    a = _restrict(ours_ctx, seeds)
    b = _restrict(ref_ctx, seeds)
    a.ns2 = b.runs
    try:
        est = _estimate(claim, a, a.runs_at(point), point)
        got = ns2_agreement(dataclasses.replace(claim, agreement_margin=float(margin) * claim.scale), a, point, est,
                            theirs)
    except (SpecError, ValueError, KeyError, ZeroDivisionError):
        return ns2_agreement(claim, ctx, point, ours, theirs), False
    return got, True


def _restrict(ctx: Context, seeds: list[Any]) -> Context:
    runs = ctx.runs[ctx.runs["seed"].isin(seeds)].reset_index(drop=True) if "seed" in ctx.runs.columns else ctx.runs
    runs.attrs = dict(ctx.runs.attrs)
    return dataclasses.replace(ctx, runs=runs, cache={}, ns2=None)


def agreement_contexts(ctx: Context) -> "tuple[Context, Context, dict[str, Any]] | None":
    """hoptcp's and the reference's runs of the entry's agreement sweep (and its plan), or None.
    Set by :func:`reproduce` from ``ns2data/<id>@agreement.*``."""
    got = ctx.cache.get("agreement")
    return got if isinstance(got, tuple) else None


def _measure(claim: Claim, ctx: Context, point: Mapping[str, Any]) -> tuple[Estimate, float | None]:
    """hoptcp's estimate for a claim at a point of ``ctx``'s sweep, and the reference value."""
    from .registry import need

    est = _estimate(claim, ctx, ctx.runs_at(point), point)
    ref = None
    if claim.reference:
        ref_point = point if claim.per_point or len(ctx.points) != 1 else ctx.points[0]
        ref = float(need("reference", claim.reference)(ctx, ref_point))
    return est, ref


def _estimate(claim: Claim, ctx: Context, runs: "pd.DataFrame", point: Mapping[str, Any]) -> Estimate:
    """The claim's value from ``runs`` (a metric's mean, or its check function)."""
    from .registry import need

    if claim.check:
        got = need("check", claim.check)(ctx, runs, point, **claim.check_args)
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


def claim_on(ctx: Context, claim: Claim, point: Mapping[str, Any]) -> tuple[Estimate, bool | None, str]:
    """A claim measured on another sweep, typically a side experiment that switches the suspected
    cause: (estimate, whether the claim's own rule holds there, deviation text). ``point`` selects
    that sweep's runs (it may name extra parameters, such as the side sweep's ``duration_s``); the
    paper's number is the one of the claim at the same point. For evidence functions."""
    try:
        est, ref = _measure(claim, ctx, point)
    except (SpecError, ValueError, KeyError) as exc:
        return Estimate(math.nan, math.nan, 0, math.nan), None, str(exc)
    holds, dev = rule_holds(claim, ctx, point, est, ref)
    return est, holds, dev


def _evidence(claim: Claim, ctx: Context, point: Mapping[str, Any]) -> Evidence | None:
    """The claim's evidence for a failing point: "differs" needs it shown; a text alone is not enough."""
    from .registry import need

    if not claim.evidence:
        return None
    try:
        got = need("evidence", claim.evidence)(ctx, claim, point)
    except (SpecError, ValueError, KeyError, ZeroDivisionError) as exc:
        return Evidence(None, f"could not be evaluated: {exc}")
    if isinstance(got, tuple) and len(got) == 2:
        got = Evidence(*got)
    if not isinstance(got, Evidence):
        raise SpecError(f"evidence '{claim.evidence}' returned {got!r}; expected Evidence(shown, text)")
    return got


@dataclass
class Reproduction:
    entry: Entry
    quick: bool
    claims: list[ClaimResult]
    figures: list[Path]
    report: Path
    runs: "pd.DataFrame"
    context: Context | None = None
    values: dict[str, Any] = field(default_factory=dict)
    #: seconds the sweeps took (runs from the store included)
    elapsed: float = 0.0

    @property
    def verdict(self) -> str:
        return overall_verdict(self.claims)

    def run_line(self) -> str:
        """How many runs the report rests on (main and side sweeps), how many were simulated now, and the time."""
        ctxs = [self.context, *self.context.sides.values()] if self.context is not None else []
        frames = [c.runs for c in ctxs] or [self.runs]
        n = sum(len(f) for f in frames)
        ran = sum(int(f.attrs.get("ran", 0)) for f in frames)
        return (f"{self.entry.id}: {n} runs ({ran} simulated now, {n - ran} from the store), "
                f"sweeps {self.elapsed:.1f} s")


#: the overall verdict of an entry that checks no claim (hoptcp's own studies, e.g. modern-tcp)
STUDY = "study, no claims"


def overall_verdict(claims: list[ClaimResult]) -> str:
    """The worst verdict of the paper claims (of every claim when an entry has no paper claim)."""
    counted = [c for c in claims if c.claim.counted] or claims
    return min((c.verdict for c in counted), key=VERDICT_ORDER.index, default="no data")


def run_text(ctx: Context) -> str:
    """How the sweep was run: "10 seeds × 300 s", or "quick: 2 seeds × 100 s"."""
    seeds = ctx.spec.seeds if ctx.spec.seeds is not None else _seeds(ctx.runs)
    durs = set(ctx.spec.grid.get("duration_s") or ctx.spec.zip.get("duration_s") or [])
    if not durs:
        dur = ctx.spec.set.get("duration_s", ctx.spec.scenario.document.get("duration_s"))
        durs = {dur} if dur is not None else set()
    d = " / ".join(f"{float(x):g} s" for x in sorted(durs)) if durs else "? s"
    n = len(list(seeds))
    return f"{'quick: ' if ctx.quick else ''}{n} seed{'' if n == 1 else 's'} × {d}"


def reproduce(entry_id: str | Entry, out: str | Path, *, quick: bool = False,
              store: str | Path = DEFAULT_STORE, jobs: int | None = None, dask: Any = None,
              progress: bool = True) -> Reproduction:
    """Run an entry's sweep (cached in ``store``) and write ``out/report.md``, figures and ``results.csv``."""
    entry = entry_id if isinstance(entry_id, Entry) else get_entry(entry_id)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    kw = {"store": store, "jobs": jobs, "dask": dask, "progress": progress}
    t0 = time.perf_counter()
    ctx = _run(entry, entry.sweep_spec(quick), entry.derive_fn(), quick, None, kw)
    for side in entry.sides:
        ctx.sides[side.name] = _run(entry, side.sweep_spec(entry.id, quick), side.derive_fn(), quick, side.name, kw)
    for side_ctx in ctx.sides.values():
        side_ctx.sides = ctx.sides
    elapsed = time.perf_counter() - t0
    ctx.ns2 = ns2_results.load(entry, quick)
    runs = ctx.runs
    ctx.cache["agreement"] = _agreement_pair(entry, ctx, quick, kw)
    claims = [evaluate_claim(c, ctx) for c in entry.claims]
    judge_tables(claims, ctx)
    by_name = {c.claim.name: c for c in claims}
    values = {"run": run_text(ctx), **entry_values(entry, ctx)}
    figures = []
    from .registry import need

    for f in entry.figures:
        fig = need("figure", f.function)(ctx, by_name, f.options)
        path = out / f.file
        fig.savefig(path)
        figures.append(path)
    _write_csv(runs, entry.metrics, out / "results.csv")
    for name, side_ctx in ctx.sides.items():
        _write_csv(side_ctx.runs, entry.metrics, out / f"side-{name}.csv", side=True)
    report = out / "report.md"
    report.write_text(_report_md(ctx, claims, figures, elapsed, store, values), encoding="utf-8")
    write_verdicts(entry, claims, out / "verdicts.csv")
    return Reproduction(entry, quick, claims, figures, report, runs, ctx, values, elapsed)


def _agreement_pair(entry: Entry, ctx: Context, quick: bool,
                    kw: Mapping[str, Any]) -> "tuple[Context, Context, dict[str, Any]] | None":
    """The entry's agreement sweep (rule 5): the stored reference runs ``ns2data/<id>@agreement``
    and hoptcp's runs of the same sweep with the same seeds (from the store, run if missing).
    None in a quick run or without one."""
    if quick:
        return None
    from ..ns2 import stored

    plan = stored.info(entry.id, side="agreement")
    ref = stored.load_side(entry.id, "agreement") if plan is not None else None
    if plan is None or ref is None:
        return None
    spec = stored.agreement_spec(entry, plan)
    ours = _run(entry, spec, entry.derive_fn(), False, "agreement", kw)
    ref_ctx = dataclasses.replace(ours, runs=ref, ns2=None, cache={})
    return ours, ref_ctx, plan


#: the columns of verdicts.csv (one row per claim; docs/campaigns.md says what each holds)
VERDICT_COLUMNS = ("entry", "claim", "paper", "headline", "counted", "verdict", "evidence", "method", "reading",
                   "reading_textual", "reading_quote", "settings", "hit_setting", "ci_low", "ci_high", "band_low",
                   "band_high", "paired", "gap", "margin", "eq_diff", "eq_ci_low", "eq_ci_high", "n_hoptcp", "n_ref",
                   "readings")


def _deciding_row(c: ClaimResult) -> PointRow | None:
    """The row that gives a claim its verdict (the first with the claim's verdict)."""
    return next((r for r in c.rows if r.verdict == c.verdict), c.rows[0] if c.rows else None)


#: gain checks whose arms cannot be paired by seed (each says why in its docstring): Jain's index
#: over per-flow goodputs averaged over the seeds has no per-seed value
UNPAIRED_GAINS = frozenset({"gap_http_random_jain_gain", "gap_http_jain_margin"})


def _paired(claim: Claim) -> bool | None:
    """For a gain claim: whether its value is computed per seed on shared seeds (every gain check
    pairs its arms through hoptcp.stats.paired_gain and its kin, tested in test_paired_gains.py,
    but those of :data:`UNPAIRED_GAINS`; a metric's mean is not a gain). None: not a gain."""
    if not claim.is_gain:
        return None
    return claim.check is not None and claim.check not in UNPAIRED_GAINS


def verdict_record(entry: Entry, c: ClaimResult) -> dict[str, Any]:
    """One row of verdicts.csv: the claim's verdict and what earned it."""
    cl, r = c.claim, _deciding_row(c)
    rec: dict[str, Any] = {k: "" for k in VERDICT_COLUMNS}
    rec.update(entry=entry.id, claim=cl.name, headline=cl.headline, counted=cl.counted, verdict=c.verdict)
    paired = _paired(cl)
    rec["paired"] = "" if paired is None else paired
    if r is None:
        return rec
    sc = cl.scale

    def num(x: float | None) -> Any:
        return "" if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x) * sc, 6)

    paper = cl.paper_at(r.point)
    rec["paper"] = num(paper)
    rec["band_low"], rec["band_high"] = num(r.band[0]), num(r.band[1])
    rec["ci_low"], rec["ci_high"] = num(r.estimate.low), num(r.estimate.high)
    rec["n_hoptcp"] = r.estimate.n
    if paper is not None and not math.isnan(r.estimate.mean):
        rec["gap"] = num(abs(paper - r.estimate.mean))
    rec["reading"], rec["reading_textual"] = "default", True
    rec["evidence"] = "rule"
    u = cl.unspecified
    textual_settings = [st for st in r.settings if st.textual]
    if u is not None and r.settings:
        rec["settings"] = len(textual_settings)
        rec["evidence"] = "range"
        rec["readings"] = "; ".join(f"{st.label}: {num(st.mean)} [{num(st.low)}, {num(st.high)}]"
                                    + ("" if st.textual else " (excluded)") for st in r.settings)
    if c.verdict == "unspecified" and r.reading is not None:
        hit = next(st for st in r.settings if st.label == r.reading)
        rec.update(reading=hit.label, reading_textual=hit.textual, reading_quote=u.quote if u else "",
                   hit_setting=hit.label, ci_low=num(hit.low), ci_high=num(hit.high),
                   method="bootstrap" if hit.method == "bootstrap" else "tost")
    a = r.agreement
    if a is not None:
        rec.update(margin=num(a.margin), eq_diff=num(a.difference), eq_ci_low=num(a.low90), eq_ci_high=num(a.high90),
                   n_hoptcp=a.n_a, n_ref=a.n_b, method="tost" if a.method.startswith("TOST") else "bootstrap")
    if c.verdict == "differs":
        rec["evidence"] = cl.reference_kind
    return rec


def write_verdicts(entry: Entry, claims: list[ClaimResult], path: Path) -> None:
    """``verdicts.csv`` of one report: one row per claim (:data:`VERDICT_COLUMNS`)."""
    import csv

    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(VERDICT_COLUMNS))
        w.writeheader()
        for c in claims:
            w.writerow({k: ("true" if v is True else "false" if v is False else v)
                        for k, v in verdict_record(entry, c).items()})


def _write_csv(runs: "pd.DataFrame", metrics: tuple[str, ...] | None, path: Path, side: bool = False) -> None:
    """One row per run: the parameters and the entry's metrics (all metrics when it names none).
    A side sweep may switch off what a pattern names (e.g. the gateway's counters): for its
    file, patterns that match none of its metrics are left out."""
    cols = list(runs.columns)
    if metrics is not None:
        names = runs.attrs.get("metrics", [])
        if side:
            metrics = tuple(p for p in metrics if any(fnmatch.fnmatchcase(n, p) for n in names))
        keep = select_metrics(names, metrics)
        cols = [c for c in cols if c not in runs.attrs.get("metrics", []) or c in keep]
    runs[cols].to_csv(path, index=False)


def _run(entry: Entry, spec: SweepSpec, derive: Callable[[Mapping[str, Any]], Mapping[str, Any]] | None,
         quick: bool, name: str | None, kw: Mapping[str, Any]) -> Context:
    runs = run_sweep(spec, derive=derive, **kw)
    return Context(entry, spec, runs, derive, quick, name)


def text_scenario(ctx: Context) -> Callable[[], Mapping[str, Any]]:
    """For ``{scenario.KEY}`` in the texts: the scenario the main sweep starts from (its [set] applied)."""
    def resolved() -> Mapping[str, Any]:
        if "text_scenario" not in ctx.cache:
            ctx.cache["text_scenario"] = ctx.spec.scenario.with_overrides(ctx.spec.set).resolved()
        return ctx.cache["text_scenario"]
    return resolved


def entry_values(entry: Entry, ctx: Context) -> dict[str, Any]:
    """The generated values that fill the placeholders of an entry's texts."""
    from .registry import need

    values: dict[str, Any] = {}
    for name in entry.values:
        got = need("values", name)(ctx)
        if not isinstance(got, Mapping):
            raise SpecError(f"values '{name}' returned {type(got).__name__}; expected a mapping name -> value")
        twice = sorted(set(got) & set(values))
        if twice:
            raise SpecError(f"entry '{entry.id}': value(s) {', '.join(twice)} given by more than one values function")
        values.update(got)
    return values


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
    if meta is None and plan.ports:
        return (f"no stored runs yet: the entry's cure exists in ns-2.35 only as our clean-room port(s) "
                f"{', '.join(f'`{p}`' for p in plan.ports)} (ns2/ports/), whose own comparison with hoptcp is in "
                f"docs/validation.md; `hoptcp ns2 build --with-ports` and `hoptcp ns2 reproduce-data {entry.id} "
                "--ns-binary DIR/src/ns` make them")
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
    if meta.get("ports"):
        text += f"; ns-2.35 built with our ports {', '.join(f'`{p}`' for p in meta['ports'])} (ns2/ports/)"
    if meta.get("note"):
        text += f". {meta['note']}"
    return text


def _values(vals: list[Any]) -> str:
    if len(vals) > 6 and all(isinstance(v, int) for v in vals) and vals == list(range(vals[0], vals[-1] + 1)):
        return f"{vals[0]}..{vals[-1]}"
    return ", ".join(map(str, vals))


def _report_md(ctx: Context, claims: list[ClaimResult], figures: list[Path], elapsed: float, store: Any,
               values: Mapping[str, Any]) -> str:
    import hoptcp

    entry, quick = ctx.entry, ctx.quick
    L: list[str] = []
    L.append(f"# {entry.title}")
    L.append("")
    L.append(f"**{entry.id}** · {entry.paper}" + (f" · {entry.where}" if entry.where != "-" else ""))
    if entry.citation:
        L.append("")
        L.append(f"Source: {entry.citation}")
    if entry.description:
        L += ["", entry.description]
    if quick:
        L += ["", f"**{run_text(ctx)}.** Seeds and run lengths stated in the description, notes and captions "
              "without this mark are those of the full run, not of this report."]
    # an entry without claims is a study of this project's: it measures and judges nothing
    overall = overall_verdict(claims) if entry.claims else STUDY
    L += ["", f"Overall verdict: **{overall}** ({run_text(ctx)}" + ("; paper claims only" if any(
        not c.claim.counted for c in claims) else "") + ")"]

    L += ["", "## What was run", "", "| | |", "|---|---|"]
    L.append(f"| run | {run_text(ctx)} |")
    L += _sweep_rows(ctx, entry.scenario_label, entry.derive)
    sim_wall = sum(_wall(c.runs) for c in (ctx, *ctx.sides.values()))
    L.append(f"| simulation wall time | {sim_wall:.1f} s summed over runs{' (side sweeps included)' if ctx.sides else ''}; "
             f"this invocation took {elapsed:.1f} s |")
    L.append(f"| hoptcp | core {_bridge.version()}, package {hoptcp.__version__} |")
    L.append(f"| build | `{build_name()}` |")
    L.append(f"| store | `{Path(str(store)).name}` (the results store; no machine path), sweep `{ctx.spec.name}` |")
    L.append(f"| ns-2.35 | {_ns2_line(entry, ctx.ns2, quick)} |")
    L.append(f"| date | {_dt.datetime.now(_dt.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} |")
    for side in entry.sides:
        L += _side_md(side, ctx.sides[side.name])

    L += ["", "## Claims"]
    if not entry.claims:
        L += ["", "None: this is hoptcp's own study. It measures and judges nothing; its numbers are in the notes."]
    for c in claims:
        L += _claim_md(c, values, entry.id, ctx.ns2 is not None, text_scenario(ctx))

    if figures:
        L += ["", "## Figures"]
        for f, spec_f in zip(figures, entry.figures):
            caption = render(spec_f.caption, values, f"entry '{entry.id}' figure {spec_f.file} caption",
                             text_scenario(ctx))
            L += ["", f"![{caption or f.stem}]({f.name})"]
            if caption:
                L += ["", f"*{caption}*"]
    notes = render(entry.notes, values, f"entry '{entry.id}' notes", text_scenario(ctx)) if entry.notes else ""
    L += ["", "## Notes", "", notes or "No known differences recorded for this entry."]
    L += ["", (VERDICT_LEGEND + " " if entry.claims else "") + "Per-run numbers are in `results.csv`"
          + (" and `side-NAME.csv`." if entry.sides else "."), ""]
    return "\n".join(L)


VERDICT_LEGEND = (
    "Verdicts (docs/campaigns.md, \"Verdict rules\"): **pass**: the rule holds for hoptcp's mean (against a number "
    "the paper printed, the rule is a tolerance on both sides; `within seed range` places a number the paper took "
    "from one run among hoptcp's per-seed values); **differs**: it does not, and a second implementation (ns-2.35, "
    "the authors' code, or our ns-2.35 port of the cure) agrees with hoptcp on the claim's own quantity and "
    "scenario: an equivalence test with a margin below half the gap between the paper and hoptcp, on at least 10 "
    "seeds per side fixed in advance from a pilot; side experiments are shown and earn nothing; **unspecified**: it "
    "does not, the paper leaves a quantity it depends on undefined, and a reading the text allows (declared with "
    "the sentence that allows it, before the run) reaches the paper's value: its interval at confidence 1 − 0.05/k "
    "over the range's k textual readings lies inside the rule's band, the same entry's cure does not lose under it, "
    "and the same reading reaches every row of the claim's table; readings the text excludes are shown and never "
    "counted; **fail**: none of these; **no data** / **error**: the value could not be computed. Gains are "
    "computed per seed on shared seeds (paired). hoptcp and a reference **agree** when the 90% confidence interval "
    "of the difference of their values lies within ± the margin (two one-sided Welch tests at 5%, TOST; a "
    "bootstrap over seeds for values not averaged over runs); they **differ** when the 95% interval excludes 0 "
    "and they do not agree; **undecided** otherwise or with fewer than 3 seeds on either side. Claims marked side "
    "experiment, duplicate or this project's requirement are shown but not counted in the paper tallies or the "
    "overall verdict.")


def build_name() -> str:
    """The core build every number of a report comes from."""
    return _bridge.version()


def _wall(runs: "pd.DataFrame") -> float:
    return float(runs["wall_time_s"].sum()) if "wall_time_s" in runs.columns and len(runs) else 0.0


def _sweep_rows(ctx: Context, scenario_label: str, derive: str | None) -> list[str]:
    """Table rows describing one sweep: scenario, settings, grid, seeds, run counts."""
    spec, runs = ctx.spec, ctx.runs
    L = [f"| scenario | `{scenario_label}` |"]
    if spec.set:
        L.append("| fixed settings | " + ", ".join(f"`{k} = {v}`" for k, v in spec.set.items()) + " |")
    for k, v in spec.grid.items():
        L.append(f"| grid | `{k}` = {_values(v)} |")
    for k, v in spec.zip.items():
        L.append(f"| varied together | `{k}` = {_values(v)} |")
    if derive:
        L.append(f"| per-point builder | `{derive}` ({where('derive', derive)}) |")
    seeds = spec.seeds if spec.seeds is not None else sorted(set(runs["seed"])) if len(runs) else []
    L.append(f"| seeds | {_values(list(seeds))} |")
    L.append(f"| runs | {len(runs)} ({runs.attrs.get('ran', 0)} simulated now, {runs.attrs.get('cached', 0)} "
             "from the store) |")
    return L


def _side_md(side: SideSweep, ctx: Context) -> list[str]:
    L = ["", f"### Side experiment `{side.name}`", ""]
    if side.description:
        L += [side.description, ""]
    L += ["| | |", "|---|---|"]
    L += _sweep_rows(ctx, side.scenario_label, side.derive)
    L.append(f"| store sweep | `{ctx.spec.name}` |")
    return L


def _claim_columns(c: ClaimResult, with_ns2: bool) -> list[tuple[str, Callable[[PointRow], str]]]:
    """The columns of a claim's table: (header, cell of a row)."""
    cl = c.claim

    def paper(r: PointRow) -> str:
        printed = cl.paper_at(r.point)
        return _num(printed, cl) if printed is not None else "-"

    def hoptcp(r: PointRow) -> str:
        est = r.estimate
        ci = "" if math.isnan(est.ci) else f" ± {est.ci * cl.scale:.3g}"
        return "-" if math.isnan(est.mean) else f"{_num(est.mean, cl)}{ci}"

    def agreed(r: PointRow) -> str:
        a = r.agreement
        return "-" if a is None else a.verdict

    ns2 = [("ns-2.35 (mean ± 95% CI)", lambda r: _est(r.ns2, cl)),
           ("n", lambda r: str(r.ns2.n) if r.ns2 is not None else "-"),
           ("hoptcp vs ns-2.35", agreed)] if with_ns2 else []
    return [
        ("point", lambda r: r.label),
        ("paper", paper),
        ("reference", lambda r: _num(r.reference, cl) if r.reference is not None else "-"),
        ("hoptcp (mean ± 95% CI)", hoptcp),
        ("n", lambda r: str(r.estimate.n)),
        *ns2,
        ("deviation", lambda r: r.deviation),
        ("verdict", lambda r: f"**{r.verdict}**"),
        ("rule", lambda r: cl.rule.text),
    ]


def _claim_md(c: ClaimResult, values: Mapping[str, Any], entry_id: str, with_ns2: bool = False,
              scenario: Callable[[], Mapping[str, Any]] | None = None) -> list[str]:
    cl = c.claim
    kind = "" if cl.counted else f" ({CLAIM_KINDS[cl.kind]}, not counted in the paper tallies)"
    L = ["", f"### {cl.name}: {c.verdict}{kind}", ""]
    L.append(f"Paper: {cl.paper}" + (f" (printed value {cl.paper_value:g})" if cl.paper_value is not None else ""))
    args = ", ".join(f"{k} = {v!r}" for k, v in cl.check_args.items())
    how = (f"check `{cl.check}`{f' ({args})' if args else ''} ({where('check', cl.check)})" if cl.check
           else f"mean of metric `{cl.value}` over the runs")
    L.append(f"hoptcp value: {how}; ± is the 95% confidence half-width (Student t over seeds).")
    if cl.reference:
        L.append(f"Reference: `{cl.reference}` ({where('reference', cl.reference)}).")
    cols = _claim_columns(c, with_ns2)
    L += ["", "| " + " | ".join(h for h, _ in cols) + " |", "|" + "---|" * len(cols)]
    L += ["| " + " | ".join(md_cell(cell(r)) for _, cell in cols) + " |" for r in c.rows]
    if cl.known_difference:
        text = render(cl.known_difference, values, f"entry '{entry_id}' claim '{cl.name}' known_difference",
                      scenario)
        L += ["", f"Known difference: {text}"]
    L += _evidence_md(c)
    read = [r for r in c.rows if r.verdict == "unspecified" and r.reading is not None]
    if read and cl.unspecified is not None:
        u = cl.unspecified
        L += ["", f"Judged under one reading for the whole table `{cl.group}` (rule 2): **{read[0].reading}**; "
              f"the text that leaves it open: \"{u.quote}\"."]
    tested = [r for r in c.rows if r.agreement is not None]
    ref = {"ns2": "ns-2.35", "authors-code": "the authors' code in ns-2.35", "ns2-port": "our ns-2.35 port"}[
        cl.reference_kind]

    def tested_text(r: PointRow) -> str:
        src = ("the agreement sweep (seeds fixed in advance from the pilot)" if r.fixed_seeds else
               "the stored pilot runs (they can show agreement, not earn \"differs\")")
        t = f"{r.agreement.text}, on {src}"  # type: ignore[union-attr]
        if r.differs is not None and r.holds is False:
            t += f"; rule 5: {'earned' if r.differs.earned else 'not earned'} ({r.differs.why})"
        return t

    if tested:
        L += ["", f"hoptcp against {ref}, tested over seeds:" if len(tested) > 1 else
              f"hoptcp against {ref}, tested over seeds: {tested_text(tested[0])}."]
        if len(tested) > 1:
            L += [""] + [f"- {r.label}: {tested_text(r)}" for r in tested]
    return L


def md_cell(text: str) -> str:
    """A Markdown table cell: a '|' in the text escaped, so the row keeps its header's cells."""
    return str(text).replace("\\|", "|").replace("|", "\\|")


def _evidence_md(c: ClaimResult) -> list[str]:
    cl = c.claim
    failing = [r for r in c.rows if r.holds is False]
    if not cl.evidence and not cl.unspecified:
        if failing:
            return ["", "Evidence: none produced by this entry, so a failing rule is a **fail**."]
        return []
    if cl.evidence:
        head = (f"Evidence (`{cl.evidence}`, {where('evidence', cl.evidence)}; a side experiment: shown, it earns no "
                "verdict)")
    else:
        u = cl.unspecified
        assert u is not None
        head = f"Unspecified in the paper (`{u.fn}`, {where('check', u.fn)})"
    if not failing:
        return ["", f"{head}: not evaluated, the rule holds."]

    def line(r: PointRow) -> str:
        e = r.evidence
        status = "not computed" if e is None or e.shown is None else "shown" if e.shown else "not shown"
        return f"**{status}**: {e.text if e is not None else ''}".rstrip(": ")

    if len(c.rows) == 1:
        return ["", f"{head}: {line(failing[0])}"]
    return ["", f"{head}, for each point where the rule fails:", ""] + [f"- {r.label}: {line(r)}" for r in failing]


@dataclass(frozen=True)
class AllPlan:
    """What ``reproduce all`` will do: runs per entry, how many the store holds already, and the
    expected simulation time of the rest (None: nothing to estimate it from)."""

    entries: list[tuple[str, int, int, float | None]]  # (id, runs, stored, expected seconds of the runs to do)

    @property
    def runs(self) -> int:
        return sum(n for _, n, _, _ in self.entries)

    @property
    def stored(self) -> int:
        return sum(k for _, _, k, _ in self.entries)

    def expected_s(self, workers: int) -> tuple[float, int]:
        """(expected wall seconds of the runs still to do on ``workers`` cores, entries with runs to
        do and nothing to estimate them from)."""
        total, unknown = 0.0, 0
        for _, n, k, todo_s in self.entries:
            if n > k and todo_s is None:
                unknown += 1
            elif n > k and todo_s is not None:
                total += todo_s
        return total / max(1, workers), unknown

    def line(self, workers: int, dask: bool) -> str:
        secs, unknown = self.expected_s(workers)
        where = "on the Dask cluster (estimated for one core)" if dask else f"on {workers} core{'s' if workers > 1 else ''}"
        eta = (f"about {_duration(secs)} {where}" if secs or not unknown else "unknown")
        more = f"; nothing to estimate {unknown} entr{'y' if unknown == 1 else 'ies'} from" if unknown else ""
        return (f"reproduce all: {len(self.entries)} entries, {self.runs} runs, {self.stored} already in the store, "
                f"{self.runs - self.stored} to run; expected {eta}{more} (from the same runs' times under earlier "
                "builds in the store, else the simulation time summed in the earlier reports)")


    def end_line(self, after: "AllPlan", reports: int, core: str, wall_s: float, workers: int, dask: bool) -> str:
        """The last line of ``reproduce all``: its wall time and run count. ``after`` is the plan
        counted again at the end: the runs the store gained are the runs made during the call."""
        where = "on the Dask cluster" if dask else f"on {workers} core{'s' if workers > 1 else ''}"
        return (f"reproduce all: {reports} reports from core {core} in {_duration(wall_s)} ({wall_s:,.0f} s wall, "
                f"{where}); {after.runs:,} runs: {self.stored:,} already in the store, "
                f"{after.stored - self.stored:,} run now, {after.runs - after.stored:,} missing")


def expected_todo_s(n: int, todo: int, past: list[float], earlier_report_s: float | None) -> float | None:
    """Expected simulation seconds of ``todo`` of an entry's ``n`` runs: the same runs' times under
    earlier builds (``past``, those known), scaled up to the runs with no earlier time; without any,
    the earlier report's summed time pro rata; None if neither exists."""
    if todo == 0:
        return 0.0
    if past:
        return sum(past) * todo / len(past)
    if earlier_report_s is not None and n:
        return earlier_report_s * todo / n
    return None


def _duration(secs: float) -> str:
    if secs < 90:
        return f"{secs:.0f} s"
    if secs < 5400:
        return f"{secs / 60:.0f} min"
    return f"{secs / 3600:.1f} h"


def _earlier_wall(report: Path) -> float | None:
    """The simulation wall time an earlier report of the same entry summed over its runs."""
    import re

    if not report.is_file():
        return None
    m = re.search(r"^\| simulation wall time \| ([0-9.]+) s summed", report.read_text(encoding="utf-8"), re.M)
    return float(m[1]) if m else None


def plan_all(entries: list[Entry], out: Path, *, quick: bool, store: str | Path = DEFAULT_STORE) -> AllPlan:
    """Count the runs of every entry (main and side sweeps) and those the store already holds."""
    from ..store import Store
    from ..sweep import plan

    rows = []
    with Store(store) as db:
        for e in entries:
            n = k = 0
            past: list[float] = []
            try:
                for spec, derive in [(e.sweep_spec(quick), e.derive_fn()),
                                     *[(s.sweep_spec(e.id, quick), s.derive_fn()) for s in e.sides]]:
                    p = plan(spec, derive)
                    keys = [t.key for t in p.tasks]
                    have = db.existing(keys, p.version)
                    n += len(keys)
                    k += len(have)
                    missing = [key for key in keys if key not in have]
                    past.extend(db.past_wall_times(missing, p.version).values())
            except SpecError:
                continue  # reported when the entry runs
            rows.append((e.id, n, k, expected_todo_s(n, n - k, past, _earlier_wall(out / e.id / "report.md"))))
    return AllPlan(rows)


def reproduce_all(out: str | Path, *, quick: bool = False, store: str | Path = DEFAULT_STORE,
                  jobs: int | None = None, dask: Any = None, progress: bool = True,
                  only: list[str] | None = None) -> Path:
    """Reproduce every entry (or those named in ``only``) into ``out/<id>/`` from this build, and
    write ``out/index.md`` and ``out/headlines.md`` from the reports. Runs already in the store
    are not run again, so an interrupted call resumes where it stopped."""
    import os

    from ..runner import log
    from .index import headlines_md, index_md, read_report

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    entries = [get_entry(i) for i in only] if only else catalogue()
    the_plan = plan_all(entries, out, quick=quick, store=store)
    workers = jobs or os.cpu_count() or 1
    print(the_plan.line(workers, dask is not None), flush=True)
    t0 = time.perf_counter()
    summaries, errors = [], []
    for entry in entries:
        try:
            rep = reproduce(entry, out / entry.id, quick=quick, store=store, jobs=jobs, dask=dask,
                            progress=progress)
        except (SpecError, RunError) as exc:
            errors.append(f"| {entry.id} | {entry.title} | {entry.paper} | **error** | {exc} |")
            log(f"reproduce all: {entry.id}: error: {exc}", True)
            continue
        summaries.append(read_report(entry, rep.report))
    index = out / "index.md"
    index.write_text(index_md(summaries) + ("\nEntries that could not be reproduced:\n\n| entry | title | paper | "
                                            "verdict | error |\n|---|---|---|---|---|\n" + "\n".join(errors) + "\n"
                                            if errors else ""), encoding="utf-8")
    (out / "headlines.md").write_text(headlines_md(summaries), encoding="utf-8")
    wall = time.perf_counter() - t0
    after = plan_all(entries, out, quick=quick, store=store)
    print(the_plan.end_line(after, len(summaries), build_name(), wall, workers, dask is not None)
          + (f"; {len(errors)} entries failed" if errors else ""), flush=True)
    return index
