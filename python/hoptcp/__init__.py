"""hoptcp: fast packet-level simulation of TCP over multihop IEEE 802.11 networks.

>>> import hoptcp
>>> sc = hoptcp.Scenario.load("examples/chain7.toml").with_(tcp__max_window=3)
>>> r = hoptcp.run(sc, seed=1)              # r.flows, r.nodes, r.drops: DataFrames
>>> df = hoptcp.sweep(sc, grid={"tcp.max_window": range(1, 9)}, replications=5)
>>> hoptcp.summarize(df, metrics=["aggregate_goodput_bps"])

Names are imported from their submodules on first use, and heavy dependencies
(pandas, scipy, matplotlib, dask) only when a function needs them, so the
command line starts in tens of milliseconds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import _lazy
from .errors import ScenarioError, SpecError

if TYPE_CHECKING:
    from .models import model
    from .results import RunResult
    from .runner import run
    from .scenario import Scenario
    from .stats import batch_means, flow_batch_means, jain, mean_ci, summarize
    from .store import Store
    from .sweep import SweepSpec, load, sweep
    from .viewer import view

_getattr = _lazy.exports(__name__, {
    "model": "models", "RunResult": "results", "run": "runner", "Scenario": "scenario",
    "batch_means": "stats", "flow_batch_means": "stats", "jain": "stats", "mean_ci": "stats", "summarize": "stats",
    "Store": "store", "SweepSpec": "sweep", "load": "sweep", "sweep": "sweep", "view": "viewer",
})


def _package_version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover
        return "0+unknown"
    try:
        return version("hoptcp")
    except PackageNotFoundError:
        return "0+source"


def __getattr__(name: str) -> object:  # PEP 562
    if name == "__version__":  # importlib.metadata only when asked
        globals()["__version__"] = v = _package_version()
        return v
    return _getattr(name)

__all__ = ["Scenario", "run", "view", "sweep", "load", "summarize", "model", "RunResult", "SpecError",
           "ScenarioError", "SweepSpec", "mean_ci", "batch_means", "flow_batch_means", "jain", "Store",
           "__version__"]
