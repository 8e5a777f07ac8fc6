"""Stored ns-2.35 results of reproduction entries: the hook for three-way reports.

``load(entry, quick)`` gives the ns-2.35 runs of an entry as a DataFrame, or None when none
are stored. The contract with check, evidence, values and figure functions (which see it as
``ctx.ns2``) is only this: one row per ns-2.35 run, the swept parameters (dotted keys as in the
entry's sweep) and ``seed`` as columns, and metrics under the same names as hoptcp's
(``aggregate_goodput_bps``, ``flow.0.avg_cwnd``, ``drops.mac_rts_retry``, ...). An evidence
function can then show that ns-2.35 agrees with hoptcp where both differ from the paper.

No ns-2.35 results are stored yet: the data files and their loader come with
``hoptcp ns2`` (issue 10, items 1-3).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from .catalogue import Entry


def load(entry: "Entry", quick: bool = False) -> "pd.DataFrame | None":
    """The stored ns-2.35 runs of ``entry``, or None."""
    return None
