"""Shared by the tests that run ns-2.35: they skip where no ``ns`` is installed."""

from __future__ import annotations

import pytest

from hoptcp.ns2 import available

needs_ns = pytest.mark.skipif(not available(), reason="ns-2 is not installed (no `ns` on PATH)")
