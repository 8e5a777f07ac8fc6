"""hoptcp: fast packet-level simulation of TCP over multihop IEEE 802.11 networks.

>>> import hoptcp
>>> sc = hoptcp.Scenario.load("examples/chain7.toml").with_(tcp__max_window=3)
>>> r = hoptcp.run(sc, seed=1)              # r.flows, r.nodes, r.drops: DataFrames
>>> df = hoptcp.sweep(sc, grid={"tcp.max_window": range(1, 9)}, replications=5)
>>> hoptcp.summarize(df, metrics=["aggregate_goodput_bps"])

Heavy dependencies (pandas, scipy, matplotlib, dask) are imported only when used.
"""

from __future__ import annotations

from .errors import ScenarioError, SpecError
from .models import model
from .results import RunResult
from .runner import run
from .scenario import Scenario
from .stats import batch_means, flow_batch_means, jain, mean_ci, summarize
from .store import Store
from .sweep import SweepSpec, load, sweep  # binds the function over the submodule name


def _package_version() -> str:
    try:
        from importlib.metadata import PackageNotFoundError, version
    except ImportError:  # pragma: no cover
        return "0+unknown"
    try:
        return version("hoptcp")
    except PackageNotFoundError:
        return "0+source"


def __getattr__(name: str) -> str:  # PEP 562: importlib.metadata only when asked
    if name == "__version__":
        globals()["__version__"] = v = _package_version()
        return v
    raise AttributeError(f"module 'hoptcp' has no attribute '{name}'")

__all__ = ["Scenario", "run", "sweep", "load", "summarize", "model", "RunResult", "SpecError",
           "ScenarioError", "SweepSpec", "mean_ci", "batch_means", "flow_batch_means", "jain", "Store",
           "__version__"]
