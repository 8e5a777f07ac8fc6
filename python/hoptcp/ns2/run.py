"""Running exported scenarios under ns-2.35 and storing the results.

One run exports the scenario, runs ``ns`` in a temporary directory, parses what it
wrote (:mod:`hoptcp.ns2.trace`) and returns a report with hoptcp's keys. Runs are
cached in the results store like hoptcp's own, under the version
:func:`ns2_version` (ns-2.35 plus a digest of the exporter and parser), so a
changed exporter never reuses old runs.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from ..errors import SpecError
from ..results import flatten_metrics
from ..runner import RunError, Task, execute, log
from ..scenario import Scenario
from ..store import DEFAULT_STORE, Store, make_frame
from . import exporter as _export
from . import trace as _trace

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: the ns-2 binary (``HOPTCP_NS`` overrides the name or path)
NS_ENV = "HOPTCP_NS"


def ns_binary() -> str | None:
    """Path of the ``ns`` executable, or None when ns-2 is not installed."""
    return shutil.which(os.environ.get(NS_ENV, "ns"))


def available() -> bool:
    return ns_binary() is not None


def use_binary(path: str, option: str = "--ns-binary") -> None:
    """Run ns-2 from ``path`` in this process and the runs it starts (sets ``HOPTCP_NS``).

    For TCP-AP's ns-2-code variant this is a binary built by ``hoptcp ns2 build``."""
    p = Path(path)
    if not p.is_file() or not os.access(p, os.X_OK):
        raise SpecError(f"{option} {path}: not an executable file (an ns-2.35 binary, e.g. the one "
                        "`hoptcp ns2 build` prints)")
    os.environ[NS_ENV] = str(p.resolve())


#: Scenarios whose exported scripts stand for the exporter in the store version: between them
#: they use every topology, traffic, TCP and MAC option the exporter maps.
VERSION_PROBES = (
    """duration_s = 20\n[topology]\nkind = "chain"\nhops = 3\nspacing_m = 200\n[tcp]\nmax_window = 8
initial_ssthresh = 4\nmin_rto_s = 1.0\n[stats]\nwarmup_s = 5\n
[[flows]]\nsrc = 0\ndst = 3\ntransport = "tcp"\napp = "ftp"\nstop_s = 15\n
[[flows]]\nsrc = 3\ndst = 0\ntransport = "udp"\nrate_bps = 1e5\npacket_bytes = 1000\njitter = 0.5\nstart_s = 1\n""",
    """duration_s = 20\n[topology]\nkind = "cross"\nhops = 4\nspacing_m = 200\n[radio]\ncs_range_m = 400
capture_db = 6\ndata_rate_mbps = 1\n[mac]\nrts_threshold_bytes = 3000\nqueue_limit = 10\nshort_retry_limit = 5
long_retry_limit = 3\ncw_min = 15\n[ip]\nll_delay_us = 10\n[tcp]\nvariant = "vegas"\n
[[flows]]\nsrc = 0\ndst = 4\ntransport = "tcp"\napp = "ftp"\ncount = 2\n""",
    """duration_s = 20\n[topology]\nkind = "grid"\nrows = 3\ncols = 3\nspacing_m = 200\n[tcp]\nvariant = "reno"
delayed_ack = true\necn = true\npayload_bytes = 512\ninitial_window = 1\n
[[flows]]\nsrc = 0\ndst = 2\ntransport = "tcp"\napp = "ftp"\n""",
    """duration_s = 20\n[topology]\nkind = "random"\nnodes = 12\nwidth_m = 600\nheight_m = 600\n
[random_flows]\ncount = 2\ntransport = "udp"\nrate_bps = 2e5\npacket_bytes = 1460\n""",
    # hybrid: wired-cum-wireless, a wired TCP-AP sender (the authors' agent), a pause, series
    """duration_s = 20\n[topology]\nkind = "chain"\nhops = 2\nspacing_m = 200\n[stats]\nthroughput_interval_s = 2
[tcp]\nvariant = "tcp_ap"\n[tcp.ap]\nprofile = "ns2"\n[wired]\nnodes = 2\nbandwidth_mbps = 10\ndelay_ms = 40\n
[[flows]]\nsrc = 4\ndst = 0\ntransport = "tcp"\napp = "ftp"\npauses = [[5.0, 8.0]]\n""",
)


def ns2_version() -> str:
    """Store version of ns-2 runs (:func:`_ns2_version`) for the ns binary in use."""
    return _ns2_version(built_from())


@lru_cache(maxsize=4)
def _ns2_version(build: str) -> str:
    """Store version of ns-2 runs. It changes when the parser's code changes (its syntax tree
    without docstrings) or when the scripts exported for :data:`VERSION_PROBES` change (the
    banner naming hoptcp's version left out), so runs are reused across changes that do not
    alter what ns-2 simulates and what is read back."""
    h = hashlib.sha256()
    h.update(_code_digest(Path(_trace.__file__ or "").read_text(encoding="utf-8")).encode())
    for text in VERSION_PROBES:
        exp = _export.export(Scenario.from_toml(text), 1)
        h.update(exp.tcl.split("\n", 1)[1].encode())
        h.update(json.dumps(exp.meta(), sort_keys=True).encode())
    if build:  # a binary of `hoptcp ns2 build`: its ports' digests, TCP-AP, the AODV mode
        h.update(build.encode())
    return f"ns-2.35+export.{h.hexdigest()[:12]}"


def built_from() -> str:
    """What `hoptcp ns2 build` put into the ns binary in use (its BUILD.txt: the ports with their
    digests, TCP-AP, the AODV mode); "" for any other ns, such as Debian's."""
    ns = ns_binary()
    if not ns:
        return ""
    build = Path(ns).resolve().parent.parent / "BUILD.txt"
    if not build.is_file():
        return ""
    return "\n".join(ln for ln in build.read_text(encoding="utf-8").splitlines() if not ln.startswith("ns-2.35 built"))


def _code_digest(source: str) -> str:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str)):
            body[0] = ast.Pass()
    return ast.dump(tree, annotate_fields=False)


class Ns2Error(RunError):
    """ns-2 failed on an exported script."""


def run_ns2(scenario: Scenario, seed: int | None = None, *, keep: str | Path | None = None,
            timeout_s: float | None = None) -> dict[str, Any]:
    """Run ``scenario`` under ns-2.35; return its report (hoptcp's keys) with an ``ns2`` section.

    ``keep``: a directory to leave the script and ns-2's output files in.
    """
    ns = ns_binary()
    if ns is None:
        raise Ns2Error("ns-2 is not installed (no `ns` on PATH; Debian/Ubuntu: apt-get install ns2)")
    exp = _export.export(scenario, seed)
    meta = exp.meta()
    with tempfile.TemporaryDirectory(prefix="hoptcp-ns2-") as tmp:
        work = Path(keep) if keep is not None else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        script = work / "scenario.tcl"
        script.write_text(exp.tcl, encoding="utf-8")
        out = work / "out"
        t = time.perf_counter()
        try:
            proc = subprocess.run([ns, str(script), str(out)], check=False, cwd=work, capture_output=True, text=True,
                                  timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise Ns2Error(f"ns-2 did not finish within {timeout_s:g} s") from None
        wall = time.perf_counter() - t
        if _export.TCP_AP_CLASS in (proc.stderr or "") and "invalid command name" in (proc.stderr or ""):
            raise Ns2Error(f"{ns} has no {_export.TCP_AP_CLASS}: build one with `hoptcp ns2 build` and run with "
                           f"--ns-binary PATH or {NS_ENV}=PATH")
        if proc.returncode != 0 or not Path(f"{out}.stats").exists():
            tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
            raise Ns2Error(f"ns-2 failed (exit {proc.returncode}): {tail}")
        rep, problems = _trace.read_run(out, meta, int(scenario.with_raw([]).resolved()["seed"])
                                        if seed is None else seed)
    rep["wall_time_s"] = wall
    rep["hoptcp_version"] = ns2_version()
    rep["ns2"].update({"route_problems": problems, "t0": exp.t0, "notes": exp.notes})
    return rep


def run_json(toml_text: str, overrides: Sequence[tuple[str, str]], seed: int) -> str:
    """:data:`hoptcp.runner.RunFn` for ns-2: a run as JSON text."""
    return json.dumps(run_ns2(Scenario(toml_text, tuple(overrides)), seed))


# --- sweeps of ns-2 runs ------------------------------------------------------------------

def ns2_metrics(raw: dict[str, Any]) -> dict[str, Any]:
    """Flat metrics of an ns-2 report; ``ns2.routes_ok`` says whether DSDV froze hoptcp's routes."""
    m = flatten_metrics({k: v for k, v in raw.items() if k != "ns2"})
    # Per-interval series (lists) as JSON text, so the stored ns-2.35 data files can carry them.
    for fid, v in ((raw.get("series") or {}).get("flows") or {}).items():
        m[f"series.{fid}"] = json.dumps(v)
    info = raw.get("ns2", {})
    m["ns2.routes_ok"] = not info.get("route_problems")
    m["ns2.arp_drops"] = info.get("arp_drops", 0)
    return m


def run_sweep(spec: Any, *, store: str | Path | Store = DEFAULT_STORE, jobs: int | None = None,
              progress: bool = True, derive: Any = None) -> "pd.DataFrame":
    """Run a :class:`hoptcp.sweep.SweepSpec` under ns-2.35 (what the store lacks), return its frame.

    The frame has hoptcp's metric names (those ns-2 gives) and ``ns2.routes_ok``.
    """
    from ..sweep import plan

    if not available():
        raise Ns2Error("ns-2 is not installed (no `ns` on PATH; Debian/Ubuntu: apt-get install ns2)")
    the_plan = plan(spec, derive)
    version = ns2_version()
    name = f"{spec.name}@ns2"
    own = not isinstance(store, Store)
    db = store if isinstance(store, Store) else Store(store)
    try:
        db.register_sweep(name, spec.to_dict(), version, the_plan.members)
        have = db.existing([t.key for t in the_plan.tasks], version)
        todo = [t for t in the_plan.tasks if t.key not in have]
        log(f"ns-2 '{spec.name}': {len(the_plan.members)} runs; {len(the_plan.tasks) - len(todo)} cached, "
            f"{len(todo)} to run  (store {db.path})", progress)

        def stored(task: Task, js: str) -> None:
            raw = json.loads(js)
            db.put(scenario_hash=task.scenario_hash, seed=task.seed, version=version, sweep=name,
                   params=task.params, scenario_json=task.scenario_json, metrics=ns2_metrics(raw),
                   result_json=js, wall_time_s=raw.get("wall_time_s"))

        execute(todo, stored, run_fn=run_json, jobs=jobs, progress=progress, description=f"{spec.name} (ns-2)")
        df = make_frame(db.rows(name, version), None)
        df.attrs.update(sweep=name, store=db.path, simulator="ns-2.35", hoptcp_version=version)
        return df
    finally:
        if own:
            db.close()


def check_installed() -> None:
    if not available():
        raise SpecError("ns-2 is not installed (no `ns` on PATH; Debian/Ubuntu: apt-get install ns2)")
