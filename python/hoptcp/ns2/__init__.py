"""ns-2.35 in the loop: the simulator behind the papers, as hoptcp's reference.

- :func:`export` writes an ns-2.35 Tcl script equivalent to a scenario
  (``hoptcp ns2 export``); what ns-2.35 cannot express raises :class:`Ns2Unsupported`.
- :func:`run_ns2` runs it under ``ns`` and parses the traces into a report with
  hoptcp's keys (goodput, drops by cause and kind, per-node retry drops, RTOs,
  retransmissions, the traced cwnd_ average).
- :func:`crosscheck` runs a scenario in both simulators over seeds and compares
  each metric with Welch's t (``hoptcp crosscheck``).
- :mod:`hoptcp.ns2.validation` is the ``validation/ns2/`` suite behind
  ``docs/validation.md``; :mod:`hoptcp.ns2.stored` the ns-2.35 results stored in
  the repository for the reproduction reports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _lazy

if TYPE_CHECKING:
    from .compare import Welch, welch
    from .crosscheck import Crosscheck, crosscheck
    from .exporter import Export, Ns2Unsupported, export
    from .run import available, run_ns2

# imported on first use: ``hoptcp ns2 ...`` and ``hoptcp crosscheck`` are registered on the
# command line without loading the exporter and the trace parser
__getattr__ = _lazy.exports(__name__, {
    "Welch": "compare", "welch": "compare", "Crosscheck": "crosscheck", "crosscheck": "crosscheck",
    "Export": "exporter", "Ns2Unsupported": "exporter", "export": "exporter", "available": "run", "run_ns2": "run",
})

__all__ = ["Crosscheck", "Export", "Ns2Unsupported", "Welch", "available", "crosscheck", "export", "run_ns2",
           "welch"]
