"""The reproduction catalogue: declarative entries in ``entries/<id>.toml``.

An entry names the paper and figure, a base scenario (a file under the package's
``scenarios/`` folder, or an inline table), the sweep to run (with a smaller
``[quick]`` variant for CI), the claims to check and the figures to draw.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Mapping

from .. import _toml
from ..errors import SpecError
from ..scenario import Scenario
from ..sweep import SweepSpec

ENTRY_KEYS = {"id", "title", "paper", "citation", "figure", "table", "description", "scenario", "derive",
              "metrics", "notes", "sweep", "quick", "claims", "figures"}
SWEEP_KEYS = {"grid", "zip", "set", "seeds", "replications"}
QUICK_KEYS = SWEEP_KEYS | {"duration_s"}
CLAIM_KEYS = {"name", "paper", "paper_value", "paper_by", "paper_values", "value", "check", "reference", "rule", "per_point",
              "known_difference", "unit", "scale"}
FIGURE_KEYS_REQUIRED = {"function", "file"}

_NUM = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_REF = rf"(reference|model|paper|{_NUM})"


@dataclass(frozen=True)
class Rule:
    """A verdict rule, written in words and evaluated here.

    Forms: ``within P% of reference|paper|NUMBER``, ``within D of ...`` (absolute),
    ``within A..B``, ``at least X``, ``at most X`` (X a number, ``reference`` or ``paper``).
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
        raise SpecError(f"rule '{text}': not understood; write 'within P% of reference', 'within D of paper', "
                        "'within A..B', 'at least X' or 'at most X'")

    @property
    def needs(self) -> str | None:
        return self.target if isinstance(self.target, str) else None

    def evaluate(self, value: float, reference: float | None, paper: float | None, scale: float = 1.0,
                 unit: str = "") -> tuple[bool | None, str]:
        """(holds, deviation text); holds is None when a number is missing. Absolute
        deviations are shown in the claim's unit (values times ``scale``)."""
        u = f" {unit}" if unit and unit != "%" else unit
        if value is None or math.isnan(value):
            return None, "no value"
        if self.kind == "range":
            return self.a <= value <= self.b, f"{value * scale:.4g}{u} in [{self.a * scale:g}, {self.b * scale:g}]"
        target = {"reference": reference, "paper": paper}.get(self.target, self.target)  # type: ignore[arg-type]
        if target is None or (isinstance(target, float) and math.isnan(target)):
            return None, f"no {self.target} value"
        target = float(target)
        diff = value - target
        if self.kind == "rel":
            rel = diff / abs(target) if target else math.inf
            return abs(rel) <= self.a / 100, f"{rel:+.2%}"
        shown = f"{diff * scale:+.4g}{u}"
        if self.kind == "abs":
            return abs(diff) <= self.a, shown
        if self.kind == "min":
            return value >= target, shown
        return value <= target, shown


def _target(s: str) -> str | float:
    if s in ("reference", "model"):
        return "reference"
    if s == "paper":
        return "paper"
    return float(s)


@dataclass(frozen=True)
class Claim:
    name: str
    paper: str
    rule: Rule
    value: str | None = None  # a metric aggregated over runs (mean ± CI) ...
    check: str | None = None  # ... or a function in checks.py
    reference: str | None = None  # a function in checks.py giving the reference value per point
    paper_value: float | None = None
    #: per-point printed numbers: the value of sweep parameter ``paper_by`` -> the paper's number
    paper_by: str | None = None
    paper_values: tuple[tuple[Any, float], ...] = ()
    per_point: bool = False
    known_difference: str = ""
    unit: str = ""
    scale: float = 1.0

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

    def sweep_spec(self, quick: bool = False) -> SweepSpec:
        s = dict(self.sweep)
        if quick:
            q = dict(self.quick)
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
        name = f"reproduce/{self.id}" + ("/quick" if quick else "")
        try:
            return SweepSpec.build(self.scenario, name=name, grid=s.get("grid"), zip=s.get("zip"),
                                   set=s.get("set"), seeds=s.get("seeds"), replications=s.get("replications"),
                                   description=self.title)
        except SpecError as exc:
            raise SpecError(f"entry '{self.id}'{' [quick]' if quick else ''}: {exc}") from None

    def run_count(self, quick: bool = False) -> int:
        return self.sweep_spec(quick).run_count()

    def derive_fn(self) -> Callable[[Mapping[str, Any]], Mapping[str, Any]] | None:
        if not self.derive:
            return None
        from .registry import need

        fn = need("derive", self.derive)
        base = self.scenario
        return lambda params: fn(params, base)


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
    from .registry import find

    where = str(path) if path else "entry"
    _check_keys(where, doc, ENTRY_KEYS)
    eid = _need(where, doc, "id", str)
    if path is not None and path.stem != eid:
        raise SpecError(f"{where}: id '{eid}' must match the file name '{path.stem}'")
    sc = _need(where, doc, "scenario", (str, dict))
    if isinstance(sc, str):
        file = _scenarios_dir() / sc
        if not file.is_file():
            raise SpecError(f"{where}: scenario '{sc}' not found under {_scenarios_dir()}")
        scenario, label = Scenario.load(file), f"hoptcp/scenarios/{sc}"
    else:
        scenario, label = Scenario.from_dict(sc, name=eid), "inline [scenario]"
    sweep = doc.get("sweep", {})
    quick = doc.get("quick", {})
    for name, table, allowed in (("sweep", sweep, SWEEP_KEYS), ("quick", quick, QUICK_KEYS)):
        if not isinstance(table, dict):
            raise SpecError(f"{where}: [{name}] must be a table")
        _check_keys(f"{where} [{name}]", table, allowed)
    derive = doc.get("derive")
    if derive is not None and find("derive", str(derive)) is None:
        raise SpecError(f"{where}: derive = '{derive}': no such function in hoptcp.reproduce.builders or .lib")
    claims = []
    for i, c in enumerate(doc.get("claims", [])):
        cw = f"{where} claims[{i}]"
        _check_keys(cw, c, CLAIM_KEYS)
        if ("value" in c) == ("check" in c):
            raise SpecError(f"{cw}: give exactly one of 'value' (a metric) or 'check' (a function in checks.py)")
        if "check" in c and find("check", c["check"]) is None:
            raise SpecError(f"{cw}: check = '{c['check']}': no such function in hoptcp.reproduce.checks or .lib")
        ref = c.get("reference")
        if ref is not None and find("reference", ref) is None:
            raise SpecError(f"{cw}: reference = '{ref}': no such function in hoptcp.reproduce.checks or .lib")
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
        if rule.needs == "paper" and "paper_value" not in c and "paper_values" not in c:
            raise SpecError(f"{cw}: rule '{rule.text}' compares with the paper, but no 'paper_value' "
                            "(or 'paper_by' + 'paper_values') is given")
        claims.append(Claim(
            name=_need(cw, c, "name", str), paper=_need(cw, c, "paper", str), rule=rule, value=c.get("value"),
            check=c.get("check"), reference=ref, paper_value=c.get("paper_value"),
            paper_by=c.get("paper_by"), paper_values=tuple((p[0], float(p[1])) for p in pairs),
            per_point=bool(c.get("per_point", False)), known_difference=c.get("known_difference", ""),
            unit=c.get("unit", ""), scale=float(c.get("scale", 1.0))))
    figs = []
    for i, f in enumerate(doc.get("figures", [])):
        fw = f"{where} figures[{i}]"
        for k in FIGURE_KEYS_REQUIRED:
            _need(fw, f, k, str)
        if find("figure", f["function"]) is None:
            raise SpecError(f"{fw}: function '{f['function']}': no such function in hoptcp.reproduce.figures or .lib")
        opts = {k: v for k, v in f.items() if k not in ("function", "file", "caption")}
        figs.append(FigureSpec(f["function"], f["file"], f.get("caption", ""), opts))
    where_txt = " / ".join(str(doc[k]) for k in ("figure", "table") if k in doc) or "-"
    metrics = doc.get("metrics")
    entry = Entry(
        id=eid, title=_need(where, doc, "title", str), paper=_need(where, doc, "paper", str),
        citation=doc.get("citation", ""), where=where_txt, description=doc.get("description", "").strip(),
        scenario=scenario, scenario_label=label, sweep=sweep, quick=quick, claims=tuple(claims),
        figures=tuple(figs), metrics=tuple(metrics) if metrics is not None else None, derive=derive,
        notes=doc.get("notes", "").strip(), path=path)
    entry.sweep_spec(False)  # validate both sweeps now
    entry.sweep_spec(True)
    return entry


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
