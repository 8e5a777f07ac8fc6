"""The reproduction catalogue: declarative entries in ``entries/<id>.toml``.

An entry names the paper and figure, a base scenario (a file under the package's
``scenarios/`` folder, or an inline table), the sweep to run (with a smaller
``[quick]`` variant for CI; its values written with the point generators of
:mod:`.points`), the claims to check and the figures to draw, which name functions of
:mod:`.registry`; its texts quote numbers through the placeholders of :mod:`.texts`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

from .. import _toml
from ..errors import SpecError
from ..scenario import Scenario
from ..sweep import SweepSpec
from .points import expand_table
from .texts import check_text

if TYPE_CHECKING:  # pragma: no cover
    from .verdicts import Exclusion

ENTRY_KEYS = {"id", "title", "paper", "citation", "figure", "table", "description", "scenario", "derive",
              "metrics", "notes", "values", "sweep", "quick", "side", "claims", "figures", "unspecified"}
SWEEP_KEYS = {"grid", "zip", "set", "seeds", "replications"}
QUICK_KEYS = SWEEP_KEYS | {"duration_s"}
SIDE_KEYS = SWEEP_KEYS | {"name", "description", "scenario", "derive", "quick"}
CLAIM_KEYS = {"unspecified", "name", "paper", "paper_value", "paper_by", "paper_values", "value", "check", "reference", "rule", "per_point",
              "known_difference", "evidence", "unit", "scale", "kind", "agreement_margin", "headline", "table",
              "reference_kind"}
#: what a claim is: a statement of the paper (counted in the paper tallies) or something shown
#: beside them: a side experiment's diagnostic, a duplicate of a claim another entry scores, or a
#: requirement of this project's own issues
CLAIM_KINDS = {"paper": "paper claim", "side": "side experiment", "duplicate": "duplicate",
               "project": "this project's requirement"}
FIGURE_KEYS_REQUIRED = {"function", "file"}

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_REF = rf"(reference|model|paper|{_NUM})"


@dataclass(frozen=True)
class Rule:
    """A verdict rule, written in words and evaluated here.

    Forms: ``within P% of reference|paper|NUMBER``, ``within D of ...`` (absolute),
    ``within A..B``, ``at least X``, ``at most X`` (X a number, ``reference`` or ``paper``),
    and ``within seed range``: the paper's number, from one run, lies between the smallest and
    the largest of hoptcp's per-seed values (not compared with their mean).
    ``model`` is a synonym of ``reference``.
    """

    text: str
    kind: str
    a: float = math.nan
    b: float = math.nan
    target: str | float | None = None

    @classmethod
    def parse(cls, text: str) -> "Rule":
        t = " ".join(str(text).split()).lower()
        if m := re.fullmatch(rf"within ({_NUM}) ?% of {_REF}", t):
            return cls(text, "rel", float(m[1]), target=_target(m[2]))
        if m := re.fullmatch(rf"within ±? ?({_NUM}) of {_REF}", t):
            return cls(text, "abs", float(m[1]), target=_target(m[2]))
        if m := re.fullmatch(rf"within ({_NUM}) ?\.\. ?({_NUM})", t):
            return cls(text, "range", float(m[1]), float(m[2]))
        if m := re.fullmatch(rf"at (least|most) {_REF}", t):
            return cls(text, "min" if m[1] == "least" else "max", target=_target(m[2]))
        if re.fullmatch(r"(paper )?within (the )?seed range", t):
            return cls(text, "seedrange", target="paper")
        raise SpecError(f"rule '{text}': not understood; write 'within P% of reference', 'within D of paper', "
                        "'within A..B', 'at least X', 'at most X' or 'within seed range'")

    @property
    def needs(self) -> str | None:
        return self.target if isinstance(self.target, str) else None

    @property
    def two_sided(self) -> bool:
        """True for a tolerance on both sides (``within ...``); False for ``at least`` / ``at most``."""
        return self.kind in ("rel", "abs", "range", "seedrange")

    @property
    def per_seed(self) -> bool:
        """True when the rule reads hoptcp's per-seed values, not their mean."""
        return self.kind == "seedrange"

    def evaluate_seeds(self, values: list[float], paper: float | None, scale: float = 1.0,
                       unit: str = "") -> tuple[bool | None, str]:
        """``within seed range``: (holds, text) for the per-seed values of one point."""
        u = f" {unit}" if unit and unit != "%" else unit
        xs = [v for v in values if not math.isnan(v)]
        if not xs:
            return None, "no value"
        if paper is None:
            return None, "no paper value"
        lo, hi = min(xs), max(xs)
        inside = lo <= paper <= hi
        return inside, (f"paper {paper * scale:.4g}{u} {'inside' if inside else 'outside'} the range of "
                        f"{len(xs)} seeds [{lo * scale:.4g}, {hi * scale:.4g}]{u}")

    def evaluate(self, value: float, reference: float | None, paper: float | None, scale: float = 1.0,
                 unit: str = "") -> tuple[bool | None, str]:
        """(holds, deviation text); holds is None when a number is missing. Absolute
        deviations are shown in the claim's unit (values times ``scale``)."""
        u = f" {unit}" if unit and unit != "%" else unit
        if value is None or math.isnan(value):
            return None, "no value"
        if self.kind == "seedrange":
            return None, "needs per-seed values"
        if self.kind == "range":
            inside = self.a <= value <= self.b
            return inside, (f"{value * scale:.4g}{u} {'in' if inside else 'outside'} "
                            f"[{self.a * scale:g}, {self.b * scale:g}]")
        target = {"reference": reference, "paper": paper}.get(self.target, self.target)  # type: ignore[arg-type]
        if target is None or (isinstance(target, float) and math.isnan(target)):
            return None, f"no {self.target} value"
        target = float(target)
        diff = value - target
        # a failing deviation says what it breaks, so it does not read as a number that passed
        if self.kind == "rel":
            rel = diff / abs(target) if target else math.inf
            ok = abs(rel) <= self.a / 100
            return ok, f"{rel:+.2%}" + ("" if ok else f", beyond ±{self.a:g}%")
        shown = f"{diff * scale:+.4g}{u}"
        if self.kind == "abs":
            ok = abs(diff) <= self.a
            return ok, shown + ("" if ok else f", beyond ±{self.a * scale:g}{u}")
        ok = value >= target if self.kind == "min" else value <= target
        bound = f"{'below' if self.kind == 'min' else 'above'} {target * scale:.4g}{u}"
        return ok, shown + ("" if ok else f", {bound}")


def _target(s: str) -> str | float:
    if s in ("reference", "model"):
        return "reference"
    if s == "paper":
        return "paper"
    return float(s)


@dataclass(frozen=True)
class Unspecified:
    """A quantity the paper leaves undefined that the claim's number depends on, the plausible
    range its text allows, the paper's words that allow it, and a function that measures the
    claim at every setting of that range: ``f(ctx, runs, point, **args) -> [(setting, Estimate)]``.
    A failing claim whose paper value is reached at some setting of the range is "unspecified";
    reached nowhere, it stays "fail" and says what was tried."""

    quantity: str
    range: str
    allows: str
    fn: str
    args: Mapping[str, Any] = field(default_factory=dict)
    #: the papers' sentence that leaves the quantity open, verbatim (checked by scripts/check_quotes.py)
    quote: str = ""
    #: readings of the range the papers' text excludes: shown, never counted (rule 1)
    exclusions: tuple["Exclusion", ...] = ()
    #: the table or figure whose claims are judged under one reading (rule 2); default: the
    #: quantity's [unspecified.NAME] (or the claim's own name)
    table: str = ""
    #: the entry's cure claim whose gain under the same reading must not be below zero (rule 3)
    cure: str = ""


UNSPECIFIED_KEYS = {"quantity", "range", "allows", "fn"}
#: keys of a range that describe it (not arguments of its function)
UNSPECIFIED_META = {"quote", "excluded", "table", "cure"}
#: where a claim's second implementation comes from (verdicts.csv's ``evidence``)
REFERENCE_KINDS = ("ns2", "authors-code", "ns2-port")


@dataclass(frozen=True)
class Claim:
    name: str
    paper: str
    rule: Rule
    value: str | None = None  # a metric aggregated over runs (mean ± CI) ...
    check: str | None = None  # ... or a registered check function
    #: the keyword arguments of a parameterised check (``check = { fn = "...", arg = ... }``)
    check_args: Mapping[str, Any] = field(default_factory=dict)
    reference: str | None = None  # a registered function giving the reference value per point
    paper_value: float | None = None
    #: per-point printed numbers: the value of sweep parameter ``paper_by`` -> the paper's number
    paper_by: str | None = None
    paper_values: tuple[tuple[Any, float], ...] = ()
    per_point: bool = False
    #: why hoptcp may differ; shown with the claim, but only ``evidence`` can make a verdict "differs"
    known_difference: str = ""
    #: a function ``f(ctx, claim, point) -> Evidence`` that shows (or not) the cause of a failing rule
    evidence: str | None = None
    unit: str = ""
    scale: float = 1.0
    #: "paper" (counted in the paper tallies), "side", "duplicate" or "project" (shown only)
    kind: str = "paper"
    #: equivalence margin of the hoptcp / ns-2.35 agreement test: a number in the claim's unit as
    #: shown, or "P%" of the paper's value; None: the default (:mod:`hoptcp.reproduce.agreement`)
    agreement_margin: float | str | None = None
    #: one of the paper's headline results (docs/reproductions/headlines.md)
    headline: bool = False
    #: a quantity the paper leaves undefined, run over a declared range (:class:`Unspecified`)
    unspecified: "Unspecified | None" = None
    #: the table or figure the claim belongs to (rule 2: one reading per table)
    table: str = ""
    #: what the stored reference runs of the entry are: ns-2.35 ("ns2"), the authors' code
    #: built into ns-2.35 ("authors-code") or our ns-2.35 port of the cure ("ns2-port")
    reference_kind: str = "ns2"

    @property
    def group(self) -> str:
        """The table whose rows share one reading (rule 2)."""
        if self.table:
            return self.table
        if self.unspecified is not None and self.unspecified.table:
            return self.unspecified.table
        return self.name

    @property
    def is_gain(self) -> bool:
        """A cure or variant against its baseline (rule 4: computed per seed, paired)."""
        text = f"{self.name} {self.check or ''}".lower().replace("_", " ")
        return re.search(r"\bgains?\b", text) is not None

    @property
    def counted(self) -> bool:
        """Whether the claim counts in the paper tallies."""
        return self.kind == "paper"

    @property
    def printed(self) -> list[float]:
        """Every number the paper printed for this claim."""
        return [n for _, n in self.paper_values] if self.paper_by is not None else (
            [] if self.paper_value is None else [self.paper_value])

    def paper_at(self, point: Mapping[str, Any]) -> float | None:
        """The paper's printed number for a sweep point (or the claim's single one)."""
        if self.paper_by is not None:
            v = point.get(self.paper_by)
            for key, number in self.paper_values:
                if key == v or (isinstance(key, (int, float)) and isinstance(v, (int, float)) and float(key) == float(v)):
                    return number
            return None
        return self.paper_value


@dataclass(frozen=True)
class FigureSpec:
    function: str
    file: str
    caption: str = ""
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SideSweep:
    """A side experiment an entry declares (``[[side]]``): its own sweep, run and cached like the
    main one, whose runs checks, evidence, value and figure functions read with ``ctx.side(name)``."""

    name: str
    description: str
    scenario: Scenario
    scenario_label: str
    sweep: Mapping[str, Any]
    quick: Mapping[str, Any]
    derive: str | None = None

    def sweep_spec(self, entry_id: str, quick: bool = False) -> SweepSpec:
        return _build_spec(self.scenario, self.sweep, self.quick, quick, f"reproduce/{entry_id}/side/{self.name}",
                           f"entry '{entry_id}' side '{self.name}'", self.description)

    def derive_fn(self) -> Callable[[Mapping[str, Any]], Mapping[str, Any]] | None:
        return _derive_fn(self.derive, self.scenario)


def _build_spec(scenario: Scenario, sweep: Mapping[str, Any], quick_table: Mapping[str, Any], quick: bool,
                name: str, where: str, description: str) -> SweepSpec:
    """The sweep of an entry (or a side sweep), with the ``quick`` overrides applied when asked.
    Point generators (:mod:`.points`) are expanded first, so quick's keys replace expanded lists."""
    label = f"{where}{' [quick]' if quick else ''}"
    try:
        s = {**sweep, **{k: expand_table(k, sweep[k]) for k in ("grid", "zip") if k in sweep}}
        q = {**quick_table, **{k: expand_table(f"quick.{k}", quick_table[k]) for k in ("grid", "zip")
                               if k in quick_table}}
    except SpecError as exc:
        raise SpecError(f"{label}: {exc}") from None
    if quick:
        if "seeds" in q or "replications" in q:
            s.pop("seeds", None)
            s.pop("replications", None)
        s["set"] = {**_toml.flatten(s.get("set") or {}), **_toml.flatten(q.pop("set", None) or {})}
        if "duration_s" in q:
            s["set"]["duration_s"] = q.pop("duration_s")
        for k in ("grid", "zip"):
            if k in q:
                s[k] = {**_toml.flatten(s.get(k) or {}), **_toml.flatten(q.pop(k))}
        s.update(q)
    try:
        return SweepSpec.build(scenario, name=name + ("/quick" if quick else ""), grid=s.get("grid"),
                               zip=s.get("zip"), set=s.get("set"), seeds=s.get("seeds"),
                               replications=s.get("replications"), description=description)
    except SpecError as exc:
        raise SpecError(f"{label}: {exc}") from None


def _derive_fn(name: str | None, base: Scenario) -> Callable[[Mapping[str, Any]], Mapping[str, Any]] | None:
    if not name:
        return None
    from .registry import need

    fn = need("derive", name)
    return lambda params: fn(params, base)


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    paper: str
    citation: str
    where: str
    description: str
    scenario: Scenario
    scenario_label: str
    sweep: Mapping[str, Any]
    quick: Mapping[str, Any]
    claims: tuple[Claim, ...]
    figures: tuple[FigureSpec, ...]
    metrics: tuple[str, ...] | None = None
    derive: str | None = None
    notes: str = ""
    path: Path | None = None
    sides: tuple[SideSweep, ...] = ()
    #: functions ``f(ctx) -> {name: value}`` whose values fill ``{name}`` placeholders in the texts
    values: tuple[str, ...] = ()

    def sweep_spec(self, quick: bool = False) -> SweepSpec:
        return _build_spec(self.scenario, self.sweep, self.quick, quick, f"reproduce/{self.id}",
                           f"entry '{self.id}'", self.title)

    def run_count(self, quick: bool = False) -> int:
        """Runs of the main sweep and every side sweep."""
        return self.sweep_spec(quick).run_count() + sum(s.sweep_spec(self.id, quick).run_count() for s in self.sides)

    def derive_fn(self) -> Callable[[Mapping[str, Any]], Mapping[str, Any]] | None:
        return _derive_fn(self.derive, self.scenario)

    def side(self, name: str) -> SideSweep:
        for s in self.sides:
            if s.name == name:
                return s
        raise SpecError(f"entry '{self.id}': no side sweep '{name}'; declared: "
                        f"{', '.join(s.name for s in self.sides) or 'none'}")


def _entries_dir() -> Path:
    return Path(str(resources.files("hoptcp.reproduce") / "entries"))


def _scenarios_dir() -> Path:
    return Path(str(resources.files("hoptcp") / "scenarios"))


def _need(where: str, doc: Mapping[str, Any], key: str, typ: type | tuple[type, ...]) -> Any:
    if key not in doc:
        raise SpecError(f"{where}: missing key '{key}'")
    v = doc[key]
    if not isinstance(v, typ):
        names = typ.__name__ if isinstance(typ, type) else " or ".join(t.__name__ for t in typ)
        raise SpecError(f"{where}: {key} must be a {names}, got {v!r}")
    return v


def _check_keys(where: str, doc: Mapping[str, Any], allowed: set[str]) -> None:
    for k in doc:
        if k not in allowed:
            raise SpecError(f"{where}: unknown key '{k}'; allowed: {', '.join(sorted(allowed))}")


def parse_entry(doc: Mapping[str, Any], path: Path | None = None) -> Entry:
    where = str(path) if path else "entry"
    _check_keys(where, doc, ENTRY_KEYS)
    eid = _need(where, doc, "id", str)
    if path is not None and path.stem != eid:
        raise SpecError(f"{where}: id '{eid}' must match the file name '{path.stem}'")
    scenario, label = _scenario(where, _need(where, doc, "scenario", (str, dict)), eid)
    sweep = doc.get("sweep", {})
    quick = doc.get("quick", {})
    for name, table, allowed in (("sweep", sweep, SWEEP_KEYS), ("quick", quick, QUICK_KEYS)):
        if not isinstance(table, dict):
            raise SpecError(f"{where}: [{name}] must be a table")
        _check_keys(f"{where} [{name}]", table, allowed)
    derive = doc.get("derive")
    if derive is not None:
        _function(where, "derive", derive, "derive")
    values = doc.get("values", [])
    values = [values] if isinstance(values, str) else values
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise SpecError(f"{where}: values must be a function name or a list of them, got {doc.get('values')!r}")
    for v in values:
        _function(where, "values", v, "values")
    sides = _sides(where, doc.get("side", []), scenario, label, derive)
    quantities = _quantities(where, doc.get("unspecified", {}))
    claims = []
    for i, c in enumerate(doc.get("claims", [])):
        cw = f"{where} claims[{i}]"
        _check_keys(cw, c, CLAIM_KEYS)
        if ("value" in c) == ("check" in c):
            raise SpecError(f"{cw}: give exactly one of 'value' (a metric) or 'check' (a registered check function)")
        check, check_args = _check_ref(cw, c.get("check"))
        for key in ("reference", "evidence"):
            if key in c:
                _function(cw, key, c[key], key)
        kind = c.get("kind", "paper")
        if kind not in CLAIM_KINDS:
            raise SpecError(f"{cw}: kind = {kind!r}; allowed: {', '.join(CLAIM_KINDS)}")
        margin = c.get("agreement_margin")
        number = isinstance(margin, (int, float)) and not isinstance(margin, bool) and margin > 0
        pct = isinstance(margin, str) and re.fullmatch(rf"{_NUM} ?%", margin.strip()) is not None
        if margin is not None and not (number or pct):
            raise SpecError(f"{cw}: agreement_margin = {margin!r}; expected a positive number (in the claim's unit) "
                            "or a percentage of the paper's value such as \"5%\"")
        if not isinstance(c.get("headline", False), bool):
            raise SpecError(f"{cw}: headline = {c['headline']!r}; expected true or false")
        ref = c.get("reference")
        rule = Rule.parse(_need(cw, c, "rule", str))
        if rule.needs == "reference" and ref is None:
            raise SpecError(f"{cw}: rule '{rule.text}' compares with the reference, but no 'reference' is given")
        if ("paper_by" in c) != ("paper_values" in c):
            raise SpecError(f"{cw}: give 'paper_by' (a sweep parameter) and 'paper_values' ([[value, number], ...]) "
                            "together")
        pairs = c.get("paper_values", [])
        if not isinstance(pairs, list) or not all(isinstance(p, list) and len(p) == 2 and isinstance(p[1], (int, float))
                                                  for p in pairs):
            raise SpecError(f"{cw}: paper_values must be a list of [parameter value, printed number] pairs")
        if "paper_by" in c and not c.get("per_point"):
            raise SpecError(f"{cw}: paper_values are per point: set per_point = true")
        if rule.per_seed and "paper_value" not in c and "paper_values" not in c:
            raise SpecError(f"{cw}: rule '{rule.text}' places the paper's number among hoptcp's seeds, but no "
                            "'paper_value' (or 'paper_by' + 'paper_values') is given")
        if "paper_value" in c and not isinstance(c["paper_value"], (int, float)):
            raise SpecError(f"{cw}: paper_value must be a number, got {c['paper_value']!r}")
        if rule.needs == "paper" and "paper_value" not in c and "paper_values" not in c:
            raise SpecError(f"{cw}: rule '{rule.text}' compares with the paper, but no 'paper_value' "
                            "(or 'paper_by' + 'paper_values') is given")
        if "known_difference" in c:
            check_text(cw, "known_difference", c["known_difference"], values)
        unspecified = _unspecified(cw, c.get("unspecified"), quantities)
        claim = Claim(
            name=_need(cw, c, "name", str), paper=_need(cw, c, "paper", str), rule=rule, value=c.get("value"),
            check=check, check_args=check_args, reference=ref, paper_value=c.get("paper_value"),
            paper_by=c.get("paper_by"), paper_values=tuple((p[0], float(p[1])) for p in pairs),
            per_point=bool(c.get("per_point", False)), known_difference=c.get("known_difference", ""),
            evidence=c.get("evidence"), unit=c.get("unit", ""), scale=float(c.get("scale", 1.0)), kind=kind,
            agreement_margin=margin, headline=bool(c.get("headline", False)), unspecified=unspecified,
            table=str(c.get("table", "")), reference_kind=_reference_kind(cw, c.get("reference_kind", "ns2")))
        _check_rule_against_print(cw, claim)
        claims.append(claim)
    figs = []
    for i, f in enumerate(doc.get("figures", [])):
        fw = f"{where} figures[{i}]"
        for k in FIGURE_KEYS_REQUIRED:
            _need(fw, f, k, str)
        _function(fw, "function", f["function"], "figure")
        check_text(fw, "caption", f.get("caption", ""), values)
        opts = {k: v for k, v in f.items() if k not in ("function", "file", "caption")}
        figs.append(FigureSpec(f["function"], f["file"], f.get("caption", ""), opts))
    where_txt = " / ".join(str(doc[k]) for k in ("figure", "table") if k in doc) or "-"
    metrics = doc.get("metrics")
    notes = doc.get("notes", "").strip()
    check_text(where, "notes", notes, values)
    entry = Entry(
        id=eid, title=_need(where, doc, "title", str), paper=_need(where, doc, "paper", str),
        citation=doc.get("citation", ""), where=where_txt, description=doc.get("description", "").strip(),
        scenario=scenario, scenario_label=label, sweep=sweep, quick=quick, claims=tuple(claims),
        figures=tuple(figs), metrics=tuple(metrics) if metrics is not None else None, derive=derive,
        notes=notes, path=path, sides=sides, values=tuple(values))
    for quick_run in (False, True):  # validate every sweep now
        entry.sweep_spec(quick_run)
        for side in sides:
            side.sweep_spec(eid, quick_run)
    return entry


def _scenario(where: str, sc: Any, name: str) -> tuple[Scenario, str]:
    """A scenario file under the package's ``scenarios/`` folder, or an inline table."""
    if isinstance(sc, str):
        file = _scenarios_dir() / sc
        if not file.is_file():
            raise SpecError(f"{where}: scenario '{sc}' not found under {_scenarios_dir()}")
        return Scenario.load(file), f"hoptcp/scenarios/{sc}"
    return Scenario.from_dict(sc, name=name), "inline [scenario]"


def _function(where: str, key: str, name: Any, kind: str) -> None:
    from .registry import find, unknown

    if not isinstance(name, str) or find(kind, name) is None:
        raise SpecError(f"{where}: {key} = {name!r}: {unknown(kind, name)}")


def _quantities(where: str, doc: Any) -> dict[str, dict[str, Any]]:
    """An entry's ``[unspecified.NAME]`` tables: a quantity the paper leaves open, declared once
    (``quantity``, ``range``, ``allows``, optionally ``fn`` and its arguments) and named by claims
    with ``unspecified = { use = "NAME", ... }``."""
    if not isinstance(doc, dict) or not all(isinstance(v, dict) for v in doc.values()):
        raise SpecError(f"{where}: [unspecified.NAME] must be tables {{ quantity, range, allows, ... }}")
    return {name: dict(table) for name, table in doc.items()}


def _unspecified(where: str, doc: Any, quantities: Mapping[str, Mapping[str, Any]] | None = None) -> Unspecified | None:
    """A claim's ``unspecified = { quantity, range, allows, fn, ...arguments }``, or
    ``{ use = "NAME", ... }`` naming an entry's ``[unspecified.NAME]`` (the claim's keys win)."""
    if doc is None:
        return None
    if not isinstance(doc, dict):
        raise SpecError(f"{where}: unspecified must be a table {{ quantity, range, allows, fn, ... }}")
    table = ""
    if "use" in doc:
        known = quantities or {}
        if doc["use"] not in known:
            raise SpecError(f"{where}: unspecified.use = {doc['use']!r}; declared: "
                            f"{', '.join(sorted(known)) or 'none (add an [unspecified.NAME] table)'}")
        table = str(doc["use"])
        doc = {**known[doc["use"]], **{k: v for k, v in doc.items() if k != "use"}}
    for k in sorted(UNSPECIFIED_KEYS):
        if not isinstance(doc.get(k), str) or not doc[k].strip():
            raise SpecError(f"{where}: unspecified.{k} is missing (the quantity, its range, the paper's words "
                            "that leave it open, and the function that runs the range)")
    for k in ("quote", "table", "cure"):
        if k in doc and not isinstance(doc[k], str):
            raise SpecError(f"{where}: unspecified.{k} = {doc[k]!r} (allowed: a string)")
    args = {k: v for k, v in doc.items() if k not in UNSPECIFIED_KEYS | UNSPECIFIED_META}
    name, _ = _check_ref(f"{where} unspecified", {"fn": doc["fn"], **args})
    assert name is not None
    return Unspecified(doc["quantity"], doc["range"], doc["allows"], name, args, quote=doc.get("quote", ""),
                       exclusions=_exclusions(where, doc.get("excluded", [])), table=doc.get("table", table),
                       cure=doc.get("cure", ""))


def _exclusions(where: str, doc: Any) -> tuple["Exclusion", ...]:
    """``excluded = [{ match = "*timer*", why = "...", quote = "..." }, ...]``: readings the text excludes."""
    from .verdicts import Exclusion

    if not isinstance(doc, list):
        raise SpecError(f"{where}: unspecified.excluded = {doc!r} (allowed: a list of {{ match, why, quote }})")
    out = []
    for i, e in enumerate(doc):
        if not isinstance(e, dict) or set(e) - {"match", "why", "quote"} or not isinstance(e.get("match"), str) \
                or not isinstance(e.get("why"), str) or not isinstance(e.get("quote", ""), str):
            raise SpecError(f"{where}: unspecified.excluded[{i}] = {e!r} (allowed: {{ match = \"glob on the setting's "
                            "label\", why = \"...\", quote = \"the paper's sentence\" }})")
        out.append(Exclusion(e["match"], e["why"], e.get("quote", "")))
    return tuple(out)


def _reference_kind(where: str, kind: Any) -> str:
    if kind not in REFERENCE_KINDS:
        raise SpecError(f"{where}: reference_kind = {kind!r} (allowed: {', '.join(REFERENCE_KINDS)})")
    return str(kind)


def _check_ref(where: str, ref: Any) -> tuple[str | None, dict[str, Any]]:
    """A claim's ``check``: a function name, or a table ``{ fn = "name", arg = value, ... }`` whose
    other keys are the function's keyword arguments (checked against its signature now)."""
    import inspect

    from .registry import find

    if ref is None:
        return None, {}
    if isinstance(ref, str):
        _function(where, "check", ref, "check")
        return ref, {}
    if not isinstance(ref, dict) or not isinstance(ref.get("fn"), str):
        raise SpecError(f"{where}: check = {ref!r}; expected a function name or a table {{ fn = \"name\", ... }}")
    name, args = ref["fn"], {k: v for k, v in ref.items() if k != "fn"}
    _function(where, "check", name, "check")
    fn = find("check", name)
    try:
        inspect.signature(fn).bind(None, None, None, **args)  # type: ignore[arg-type]
    except TypeError as exc:
        raise SpecError(f"{where}: check '{name}' with {', '.join(args) or 'no arguments'}: {exc}") from None
    return name, args


def _sides(where: str, doc: Any, scenario: Scenario, label: str, derive: str | None) -> tuple[SideSweep, ...]:
    if not isinstance(doc, list):
        raise SpecError(f"{where}: side must be an array of tables ([[side]]), got {doc!r}")
    sides: list[SideSweep] = []
    for i, d in enumerate(doc):
        sw = f"{where} side[{i}]"
        if not isinstance(d, dict):
            raise SpecError(f"{sw}: must be a table")
        _check_keys(sw, d, SIDE_KEYS)
        name = _need(sw, d, "name", str)
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
            raise SpecError(f"{sw}: name '{name}': use letters, digits, '_', '-' and '.' (it names the sweep and a file)")
        if name in {s.name for s in sides}:
            raise SpecError(f"{sw}: side sweep '{name}' is declared twice")
        quick = _need(sw, d, "quick", dict)  # CI runs every entry --quick, sides included
        _check_keys(f"{sw} [side.quick]", quick, QUICK_KEYS)
        sc, lab = _scenario(sw, d["scenario"], name) if "scenario" in d else (scenario, label)
        side_derive = d.get("derive", derive) or None
        if side_derive is not None:
            _function(sw, "derive", side_derive, "derive")
        sweep = {k: v for k, v in d.items() if k in SWEEP_KEYS}
        sides.append(SideSweep(name, str(d.get("description", "")).strip(), sc, lab, sweep, quick, side_derive))
    return tuple(sides)


def _check_rule_against_print(where: str, claim: Claim) -> None:
    """A claim against a printed number needs a two-sided tolerance, and the printed number must pass it."""
    printed = claim.printed
    if not printed:
        return
    rule = claim.rule
    if not rule.two_sided:
        raise SpecError(f"{where}: rule '{rule.text}' is one-sided, but the claim compares with a printed number "
                        f"({', '.join(f'{p:g}' for p in printed)}); use 'within P% of paper', 'within D of paper' "
                        "or 'within A..B' (one-sided, 'a loss of about 4%' would be passed by 40%)")
    if rule.needs == "reference" or rule.per_seed:
        return
    for p in printed:
        if rule.evaluate(p, None, p)[0] is not True:
            raise SpecError(f"{where}: rule '{rule.text}' does not accept the paper's own number {p:g}")


def load_entry(path: str | Path) -> Entry:
    p = Path(path)
    try:
        doc = _toml.loads(p.read_text(encoding="utf-8"))
    except _toml.TOMLDecodeError as exc:
        raise SpecError(f"{p}: invalid TOML: {exc}") from None
    return parse_entry(doc, p)


def catalogue() -> list[Entry]:
    """Every entry shipped with hoptcp, sorted by id."""
    return [load_entry(p) for p in sorted(_entries_dir().glob("*.toml"))]


def get_entry(entry_id: str) -> Entry:
    path = _entries_dir() / f"{entry_id}.toml"
    if not path.is_file():
        ids = ", ".join(p.stem for p in sorted(_entries_dir().glob("*.toml")))
        raise SpecError(f"reproduce: no entry '{entry_id}'; entries: {ids} (or 'all')")
    return load_entry(path)
