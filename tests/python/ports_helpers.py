"""Shared by the tests of the ns-2.35 ports: runs need a binary built with them
(``HOPTCP_NS2_PORTS``), and a probe says whether that binary holds one port."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Callable

import pytest

needs_ports = pytest.mark.skipif(not os.environ.get("HOPTCP_NS2_PORTS"),
                                 reason="HOPTCP_NS2_PORTS (a built ns with the ports) unset")


def has_port(ns: str, probe: str) -> bool:
    """Whether the Tcl command ``probe`` runs without error in ``ns`` (a class or variable of the port)."""
    proc = subprocess.run([ns], input=f"puts [catch {{{probe}}}]\nexit 0\n", capture_output=True, text=True,
                          timeout=60, check=False)
    return proc.stdout.strip().endswith("0")


def tcl_settings(script: str, obj: str, keep: Callable[[str], bool] = lambda _: True) -> dict[str, str]:
    """Every ``<obj> set <var> <value>`` line of an exported script, as {var: value} (``keep``: which vars)."""
    out = {}
    for line in script.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[:2] == [obj, "set"] and keep(parts[2]):
            out[parts[2]] = parts[3]
    return out


def last_error_on_stock_ns(tmp_path: Path, tcl: str) -> str:
    """Runs an exported script on stock ns-2.35 (skips without one), which must stop with exit 1: its last line."""
    stock = Path("/usr/bin/ns")
    if not stock.is_file():
        pytest.skip("no stock ns-2.35 at /usr/bin/ns")
    script = tmp_path / "s.tcl"
    script.write_text(tcl)
    proc = subprocess.run([str(stock), str(script), str(tmp_path / "out")], capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 1
    return proc.stderr.strip().splitlines()[-1]
