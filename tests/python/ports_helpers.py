"""Shared by the tests of the ns-2.35 ports: runs need a binary built with them
(``HOPTCP_NS2_PORTS``), and a probe says whether that binary holds one port."""

from __future__ import annotations

import os
import subprocess

import pytest

needs_ports = pytest.mark.skipif(not os.environ.get("HOPTCP_NS2_PORTS"),
                                 reason="HOPTCP_NS2_PORTS (a built ns with the ports) unset")


def has_port(ns: str, probe: str) -> bool:
    """Whether the Tcl command ``probe`` runs without error in ``ns`` (a class or variable of the port)."""
    proc = subprocess.run([ns], input=f"puts [catch {{{probe}}}]\nexit 0\n", capture_output=True, text=True,
                          timeout=60, check=False)
    return proc.stdout.strip().endswith("0")
