"""Stored ns-2.35 results of reproduction entries: the hook for three-way reports.

``load(entry, quick)`` gives the ns-2.35 runs of an entry as a DataFrame, or None when none
are stored for the settings of that run. The contract with check, evidence, values and figure
functions (which see it as ``ctx.ns2``): one row per ns-2.35 run, the swept parameters (dotted
keys as in the entry's sweep) and ``seed`` as columns, and metrics under the same names as
hoptcp's (``aggregate_goodput_bps``, ``flow.0.avg_cwnd_traced``, ``drops.mac_rts_retry``, ...;
ns-2 gives no usable-window average ``avg_cwnd`` and no per-node queue or MAC counters besides
retry drops), plus ``ns2.routes_ok``. Runs in which DSDV froze other routes than hoptcp's are
left out. The data files and how they are made: :mod:`hoptcp.ns2.stored`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .catalogue import Entry


def load(entry: "Entry", quick: bool = False) -> "pd.DataFrame | None":
    """The stored ns-2.35 runs of ``entry`` for its full (or quick) sweep's settings, or None."""
    from ..ns2 import stored

    return stored.load(entry.id, entry.sweep_spec(quick))


def load_side(entry: "Entry", side: str, quick: bool = False) -> "pd.DataFrame | None":
    """The stored ns-2.35 runs of ``entry``'s side sweep ``side`` (entries whose main sweep
    ns-2.35 cannot express), or None."""
    from ..ns2 import stored

    return stored.load_side(entry.id, side, entry.side(side).sweep_spec(entry.id, quick))
