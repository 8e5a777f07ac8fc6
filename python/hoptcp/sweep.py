"""Sweep specifications (TOML or API) and the sweep driver.

A sweep is a base scenario, a set of points (Cartesian ``grid`` × one ``zip``
dimension, plus fixed ``set`` overrides) and a list of seeds. Every point is
resolved by the core before anything runs, so a typo fails in a second, not
after an hour.
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from . import _bridge, _toml
from .errors import Interrupted, ScenarioError, SpecError
from .results import flatten_metrics
from .runner import ClaimingSource, Progress, RunError, Task, TaskSource, default_run, execute, log
from .scenario import Scenario, as_scenario, canonical_json, canonical_scenario, scenario_hash
from .store import DEFAULT_STORE, Store, make_frame, select_metrics

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

SPEC_KEYS = ("name", "description", "scenario", "seeds", "replications", "metrics", "grid", "zip", "set",
             "series")


def _fmt(v: Any) -> str:
    try:
        return json.dumps(v)
    except TypeError:
        return repr(v)


def _did_you_mean(key: str, allowed: Iterable[str]) -> str:
    close = difflib.get_close_matches(key, list(allowed), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _as_list(where: str, value: Any) -> list[Any]:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise SpecError(f"{where}: expected a list of values, got {_fmt(value)}"
                        + (" (fixed values belong in [set])" if where.startswith("grid") else ""))
    items = value.tolist() if hasattr(value, "tolist") else list(value)
    if not items:
        raise SpecError(f"{where}: the list is empty; give at least one value")
    for v in items:
        try:
            _toml.literal(v)
        except TypeError as exc:
            raise SpecError(f"{where}: {exc}") from None
    return items


def _table(where: str, value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SpecError(f"{where}: expected a table of dotted keys, got {_fmt(value)}")
    return _toml.flatten(value)


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep: scenario, points and seeds."""

    name: str
    scenario: Scenario
    grid: dict[str, list[Any]] = field(default_factory=dict)
    zip: dict[str, list[Any]] = field(default_factory=dict)
    set: dict[str, Any] = field(default_factory=dict)
    seeds: list[int] | None = None  # None: the scenario's own seed
    metrics: list[str] | None = None
    description: str = ""

    # --- construction ---------------------------------------------------------------
    @classmethod
    def build(cls, scenario: Scenario | str | Path, *, name: str | None = None,
              grid: Mapping[str, Any] | None = None, zip: Mapping[str, Any] | None = None,
              set: Mapping[str, Any] | None = None, seeds: Iterable[int] | None = None,
              replications: int | None = None, metrics: Sequence[str] | None = None,
              description: str = "", series: Sequence[str] | None = None) -> "SweepSpec":
        sc = as_scenario(scenario)
        if series is not None:
            # Time series every run records (and the store keeps): stats.series at every point.
            if isinstance(series, str) or not all(isinstance(k, str) and k for k in series):
                raise SpecError(f"series: expected a list of series kinds, e.g. [\"cwnd\"], got {_fmt(series)}")
            if "stats.series" in _table("set", set):
                raise SpecError("series: stats.series is also given in [set]; give it once")
            set = {**_table("set", set), "stats.series": list(series)}
        grid_t = {k: _as_list(f"grid.{k}", v) for k, v in _table("grid", grid).items()}
        zip_t = {k: _as_list(f"zip.{k}", v) for k, v in _table("zip", zip).items()}
        set_t = _table("set", set)
        for section, given, table in (("grid", grid, grid_t), ("zip", zip, zip_t)):
            if given is not None and not table:
                raise SpecError(f"[{section}] is empty; give at least one key = [values], or leave [{section}] "
                                "out to run the scenario as it is")
        if zip_t:
            lengths = {k: len(v) for k, v in zip_t.items()}
            if len({n for n in lengths.values()}) > 1:  # (`set` is a parameter here)
                detail = ", ".join(f"{k} has {n}" for k, n in lengths.items())
                raise SpecError(f"zip: all lists must have the same length; {detail}")
        seen: dict[str, str] = {}
        for section, table in (("grid", grid_t), ("zip", zip_t), ("set", set_t)):
            for k in table:
                if k in seen:
                    raise SpecError(f"{section}.{k}: key already given in [{seen[k]}]; give each key once")
                seen[k] = section
        for k, v in set_t.items():
            try:
                _toml.literal(v)
            except TypeError as exc:
                raise SpecError(f"set.{k}: {exc}") from None
        seed_list = _seeds(seeds, replications)
        if metrics is not None:
            if isinstance(metrics, str) or not isinstance(metrics, Iterable):
                raise SpecError(f"metrics: expected a list of metric names, got {_fmt(metrics)}")
            metrics = list(metrics)
            if not metrics or not all(isinstance(m, str) and m for m in metrics):
                raise SpecError(f"metrics: expected a non-empty list of metric names, got {_fmt(metrics)}")
        spec = cls(name or "", sc, grid_t, zip_t, set_t, seed_list, metrics, description)
        if not name:
            spec = cls(f"{sc.name}-{spec.digest()[:8]}", sc, grid_t, zip_t, set_t, seed_list, metrics, description)
        return spec

    @classmethod
    def from_dict(cls, doc: Mapping[str, Any], base_dir: str | Path = ".", *,
                  default_name: str = "sweep", origin: str = "sweep spec") -> "SweepSpec":
        if "scenario" not in doc and {"topology", "flows"} & set(doc):
            raise SpecError(f"{origin}: a scenario file, not a sweep spec: run it with hoptcp run {origin}; "
                            "to sweep it, write a spec with scenario = \"<this file>\" and a [grid] "
                            "(experiments/window.toml, docs/campaigns.md)")
        for key in doc:
            if key not in SPEC_KEYS:
                raise SpecError(f"{origin}: unknown key '{key}'{_did_you_mean(key, SPEC_KEYS)}; "
                                f"allowed: {', '.join(SPEC_KEYS)}")
        if "scenario" not in doc:
            raise SpecError(f"{origin}: missing key 'scenario' (a path to a scenario file, "
                            "relative to the spec, or an inline [scenario] table)")
        base = Path(base_dir)
        sc_val = doc["scenario"]
        if isinstance(sc_val, str):
            path = base / sc_val
            if not path.is_file():
                raise SpecError(f"{origin}: scenario = {_fmt(sc_val)}: file not found ({path})")
            try:
                scenario = Scenario.load(path)
            except ScenarioError as exc:
                raise SpecError(str(exc)) from None
        elif isinstance(sc_val, Mapping):
            scenario = Scenario.from_dict(sc_val, base_dir=base, name=default_name)
        else:
            raise SpecError(f"{origin}: scenario: expected a file path or a [scenario] table, got {_fmt(sc_val)}")
        name = doc.get("name", default_name)
        if not isinstance(name, str) or not name.strip():
            raise SpecError(f"{origin}: name: expected a non-empty string, got {_fmt(name)}")
        desc = doc.get("description", "")
        if not isinstance(desc, str):
            raise SpecError(f"{origin}: description: expected a string, got {_fmt(desc)}")
        try:
            return cls.build(scenario, name=name, grid=doc.get("grid"), zip=doc.get("zip"), set=doc.get("set"),
                             seeds=doc.get("seeds"), replications=doc.get("replications"),
                             metrics=doc.get("metrics"), description=desc, series=doc.get("series"))
        except SpecError as exc:
            raise SpecError(f"{origin}: {exc}") from None

    @classmethod
    def load(cls, path: str | Path) -> "SweepSpec":
        p = Path(path)
        text = _toml.read_file(p, "sweep spec", SpecError)
        try:
            doc = _toml.loads(text)
        except _toml.TOMLDecodeError as exc:
            raise SpecError(f"{p}: invalid TOML: {exc}") from None
        return cls.from_dict(doc, p.resolve().parent, default_name=p.stem, origin=str(p))

    def with_set(self, pairs: Sequence[tuple[str, str]]) -> "SweepSpec":
        """This sweep with overrides (dotted key, TOML value text; ``--set``) at every
        point. They replace the spec's [set] value of the same key; a key the sweep
        varies ([grid] or [zip]) is refused, as the points would override it."""
        import dataclasses

        for key, _ in pairs:
            for section, table in (("grid", self.grid), ("zip", self.zip)):
                if key in table:
                    raise SpecError(f"--set {key}: the sweep varies this key in [{section}]; "
                                    "change its values in the sweep spec instead")
        keys = {k for k, _ in pairs}
        return dataclasses.replace(self, scenario=self.scenario.with_raw(pairs),
                                   set={k: v for k, v in self.set.items() if k not in keys})

    # --- views ----------------------------------------------------------------------
    @property
    def param_keys(self) -> list[str]:
        return [*self.grid, *self.zip]

    def points(self) -> list[dict[str, Any]]:
        """Parameter dicts, grid keys varying slowest-first, then the zipped lists together."""
        dims: list[list[dict[str, Any]]] = [[{k: v} for v in vals] for k, vals in self.grid.items()]
        if self.zip:
            keys = list(self.zip)
            dims.append([dict(zip(keys, combo)) for combo in zip(*self.zip.values())])
        out = []
        for combo in itertools.product(*dims):
            p: dict[str, Any] = {}
            for part in combo:
                p.update(part)
            out.append(p)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "scenario": self.scenario.toml,
                "scenario_overrides": list(self.scenario.overrides), "grid": self.grid, "zip": self.zip,
                "set": self.set, "seeds": self.seeds, "metrics": self.metrics}

    def digest(self) -> str:
        d = self.to_dict()
        d.pop("name")
        return hashlib.sha256(canonical_json(d).encode()).hexdigest()

    def run_count(self) -> int:
        return len(self.points()) * (len(self.seeds) if self.seeds else 1)


def _seeds(seeds: Iterable[int] | None, replications: int | None) -> list[int] | None:
    if seeds is not None and replications is not None:
        raise SpecError("give either seeds (a list) or replications (a count), not both")
    if replications is not None:
        if isinstance(replications, bool) or not isinstance(replications, int) or replications < 1:
            raise SpecError(f"replications: invalid value {_fmt(replications)}; expected an integer >= 1")
        return list(range(1, replications + 1))
    if seeds is None:
        return None
    if isinstance(seeds, (str, bytes, Mapping)) or not isinstance(seeds, Iterable):
        raise SpecError(f"seeds: expected a list of integers, got {_fmt(seeds)} (or use replications = N)")
    out = seeds.tolist() if hasattr(seeds, "tolist") else list(seeds)
    if not out:
        raise SpecError("seeds: the list is empty; give at least one seed")
    for s in out:
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise SpecError(f"seeds: invalid value {_fmt(s)}; expected integers >= 0")
    if len(set(out)) != len(out):
        dup = next(s for s in out if out.count(s) > 1)
        raise SpecError(f"seeds: {dup} is listed twice; seeds must be distinct")
    return out


# --- planning -------------------------------------------------------------------------

@dataclass
class Plan:
    spec: SweepSpec
    version: str
    tasks: list[Task]  # unique by (scenario_hash, seed)
    members: list[tuple[dict[str, Any], int, str]]  # (params, seed, scenario_hash) in sweep order

    @property
    def points(self) -> int:
        return len({json.dumps(p) for p, _, _ in self.members})


Derive = Callable[[Mapping[str, Any]], Mapping[str, Any]]


def plan(spec: SweepSpec, derive: Derive | None = None) -> Plan:
    """Resolve every point with the core (SpecError on the first invalid one)."""
    base = spec.scenario.with_overrides(spec.set)
    try:
        base_resolved = base.resolved()
    except ScenarioError as exc:
        raise SpecError(f"sweep '{spec.name}': scenario{' with [set]' if spec.set else ''}: {exc}") from None
    seeds = spec.seeds if spec.seeds is not None else [int(base_resolved.get("seed", 1))]
    tasks: dict[tuple[str, int], Task] = {}
    members = []
    for params in spec.points():
        sc = base.with_overrides(params)
        if derive is not None:
            sc = sc.with_overrides(derive(params))
        try:
            resolved = sc.resolved()
        except ScenarioError as exc:
            point = ", ".join(f"{k}={_fmt(v)}" for k, v in params.items())
            raise SpecError(f"sweep '{spec.name}': point {point}: {exc}") from None
        scenario_doc = canonical_scenario(resolved)
        h = scenario_hash(scenario_doc)
        for seed in seeds:
            members.append((params, seed, h))
            if (h, seed) not in tasks:
                tasks[(h, seed)] = Task(h, seed, sc.toml, sc.overrides, params, scenario_doc)
    return Plan(spec, _bridge.version(), list(tasks.values()), members)


# --- driver ---------------------------------------------------------------------------

def run_sweep(spec: SweepSpec, *, store: str | Path | Store = DEFAULT_STORE, jobs: int | None = None,
              dask: Any = None, progress: bool = True, derive: Derive | None = None,
              run_fn: Any = None) -> "pd.DataFrame":
    """Run what the store lacks; return one row per (point, seed) of this sweep.

    Runs that another process is simulating on the same store are not run twice:
    this sweep waits for them (and takes them over if that process dies). Ctrl-C
    stops the runs in progress and raises :class:`hoptcp.errors.Interrupted`
    saying how many runs of the sweep are stored.
    """
    the_plan = plan(spec, derive)
    own = not isinstance(store, Store)
    try:
        db = store if isinstance(store, Store) else Store(store)
    except SpecError as exc:
        assert not isinstance(store, Store)
        return _all_cached(spec, the_plan, store, exc, progress)
    try:
        version = the_plan.version
        db.register_sweep(spec.name, spec.to_dict(), version, the_plan.members)
        have = db.existing([t.key for t in the_plan.tasks], version)
        todo = [t for t in the_plan.tasks if t.key not in have]
        n_runs = len(the_plan.members)
        log(f"sweep '{spec.name}': {the_plan.points} points x {len(spec.seeds or [0])} seeds = {n_runs} runs; "
            f"{len(the_plan.tasks) - len(todo)} cached, {len(todo)} to run  (store {db.path})", progress)

        n_todo = len(todo)
        t0 = time.perf_counter()
        bar = Progress(n_todo, spec.name, enabled=progress and n_todo > 0)
        try:
            with bar:
                if spec.metrics is not None and the_plan.tasks:
                    # Check the metric names on one result before running everything.
                    if have:
                        probe = next(t for t in the_plan.tasks if t.key in have)
                    else:
                        probe, todo = todo[0], todo[1:]
                        _store_result(db, spec, version, probe,
                                      (run_fn or default_run)(probe.toml, probe.overrides, probe.seed))
                        bar.advance()
                    select_metrics(list(flatten_metrics(db.result(probe.scenario_hash, probe.seed, version) or {})),
                                   spec.metrics)
                source = (ClaimingSource(db, version, todo, batch=1 if dask is None else len(todo))
                          if db.path != ":memory:" else TaskSource(todo))
                stats = execute(source, lambda task, js: _store_result(db, spec, version, task, js,
                                                                       remote=dask is not None),
                                run_fn=run_fn, jobs=jobs, dask=dask, progress=bar, description=spec.name)
        except KeyboardInterrupt:
            stored = len(db.existing([t.key for t in the_plan.tasks], version))
            raise Interrupted(f"sweep '{spec.name}' interrupted: {stored} of {len(the_plan.tasks)} runs are stored "
                              f"in {db.path}; run the same command again to run the other "
                              f"{len(the_plan.tasks) - stored}") from None
        if n_todo:
            elsewhere = f" ({stats.done_elsewhere} more by another process on this store)" if stats.done_elsewhere else ""
            log(f"sweep '{spec.name}': ran {n_todo - stats.done_elsewhere} simulations in "
                f"{time.perf_counter() - t0:.1f} s{elsewhere}", progress)
        df = make_frame(db.rows(spec.name, version), spec.metrics)
        df.attrs.update(sweep=spec.name, store=db.path, cached=len(the_plan.tasks) - n_todo,
                        ran=n_todo - stats.done_elsewhere if n_todo else 0, hoptcp_version=version)
        return df
    finally:
        if own:
            db.close()


def _all_cached(spec: SweepSpec, the_plan: Any, store: str | Path, refused: SpecError,
                progress: bool) -> "pd.DataFrame":
    """A sweep on a store that cannot be written: its results when every run is there already
    (nothing to run, nothing written); else the refusal, with how many runs are missing."""
    path = Path(store).expanduser()
    if not path.is_file():
        raise refused
    try:
        db = Store(store, read_only=True)
    except SpecError:
        raise refused from None
    try:
        version = the_plan.version
        have = db.existing([t.key for t in the_plan.tasks], version)
        missing = len(the_plan.tasks) - len(have)
        if missing:
            raise SpecError(f"{refused}; {missing} of {len(the_plan.tasks)} runs of sweep '{spec.name}' are not in "
                            "it") from None
        log(f"sweep '{spec.name}': all {len(the_plan.members)} runs cached in {db.path}, which cannot be written: "
            "shown as stored, nothing run", progress)
        df = make_frame(db.member_rows(spec.name, version, the_plan.members), spec.metrics)
        df.attrs.update(sweep=spec.name, store=db.path, cached=len(the_plan.tasks), ran=0, hoptcp_version=version)
        return df
    finally:
        db.close()


def _store_result(db: Store, spec: SweepSpec, version: str, task: Task, result_json: str,
                  remote: bool = False) -> None:
    raw = json.loads(result_json)
    got = raw.get("hoptcp_version", version)
    if remote and got != version:  # a run from another machine must come from the same simulator
        raise RunError(f"a worker runs hoptcp {got} but this process runs {version}; "
                       "install the same hoptcp on every worker")
    db.put(scenario_hash=task.scenario_hash, seed=task.seed, version=version, sweep=spec.name,
           params=task.params, scenario_json=task.scenario_json, metrics=flatten_metrics(raw),
           result_json=result_json, wall_time_s=raw.get("wall_time_s"))


def sweep(scenario: Scenario | str | Path | SweepSpec, grid: Mapping[str, Any] | None = None,
          zip: Mapping[str, Any] | None = None, seeds: Iterable[int] | None = None,
          replications: int | None = None, set: Mapping[str, Any] | None = None,
          metrics: Sequence[str] | None = None, store: str | Path | Store = DEFAULT_STORE,
          jobs: int | None = None, dask: Any = None, progress: bool = True, name: str | None = None,
          derive: Derive | None = None) -> "pd.DataFrame":
    """Run a parameter sweep (cached in ``store``) and return one row per run.

    ``scenario`` is a :class:`Scenario`, a scenario file, a sweep spec file (``*.toml``
    with a ``scenario`` key) or a :class:`SweepSpec`. ``derive(params)`` may return
    extra overrides computed from a point (e.g. a flow list that depends on n).
    """
    if isinstance(scenario, SweepSpec):
        spec = scenario
    elif isinstance(scenario, (str, Path)) and _is_spec_file(scenario):
        if any(x is not None for x in (grid, zip, seeds, replications, set, metrics, name)):
            raise SpecError("pass grid/seeds/... either in the sweep spec file or as arguments, not both")
        spec = SweepSpec.load(scenario)
    else:
        spec = SweepSpec.build(scenario, name=name, grid=grid, zip=zip, set=set, seeds=seeds,
                               replications=replications, metrics=metrics)
    return run_sweep(spec, store=store, jobs=jobs, dask=dask, progress=progress, derive=derive)


def _is_spec_file(path: str | Path) -> bool:
    try:
        doc = _toml.loads(_toml.read_file(Path(path), "file", ValueError))
    except (OSError, ValueError):  # unreadable, not a regular file, not UTF-8, not TOML: not a spec
        return False
    return "scenario" in doc


def load(store: str | Path = DEFAULT_STORE, sweep: str | None = None, where: Any = None,
         metrics: Sequence[str] | None = None, version: str | None = None) -> "pd.DataFrame":
    """Load finished runs from a store: one row per run, params and metrics as columns.

    ``where`` filters rows: a dict ``{column: value or list of values}`` or a
    ``DataFrame.query`` string (quote dotted names with backticks).
    """
    if str(store) != ":memory:" and not Path(store).is_file():
        raise SpecError(f"store not found: {store}")
    with Store(store, read_only=str(store) != ":memory:") as db:
        df = db.frame(sweep, version, metrics)
    attrs = dict(df.attrs)
    if where is not None:
        if isinstance(where, str):
            df = df.query(where)
        elif isinstance(where, Mapping):
            for col, val in where.items():
                if col not in df.columns:
                    raise SpecError(f"where: no column '{col}'{_did_you_mean(col, df.columns)}")
                many = isinstance(val, Iterable) and not isinstance(val, (str, bytes))
                df = df[df[col].isin(list(val))] if many else df[df[col] == val]
        else:
            raise SpecError(f"where: expected a dict or a query string, got {type(where).__name__}")
        df = df.reset_index(drop=True)
        df.attrs.update(attrs)
    return df
