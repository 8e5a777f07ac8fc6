"""A fast start: the command line loads only what a command uses.

Each case runs in a fresh interpreter (a module imported by another test would
hide an import) and inspects ``sys.modules``; no timing is asserted here
(start-up time is measured by ``hoptcp bench``)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import ROOT

HEAVY = ("pandas", "matplotlib", "scipy", "dask", "distributed", "numpy", "pyarrow")
#: hoptcp's own modules that `run` and `--help` have no use for
UNUSED_BY_RUN = ("hoptcp.sweep", "hoptcp.store", "hoptcp.stats", "hoptcp.runner", "hoptcp.ns2.exporter",
                 "hoptcp.ns2.run", "hoptcp.reproduce", "hoptcp.plotting", "hoptcp.bench", "hoptcp.peers")


def _modules_after(env: dict[str, str], argv: list[str]) -> tuple[int, str, list[str]]:
    """Exit status, stdout and the loaded modules of interest after ``hoptcp ARGV``."""
    code = ("import io, json, sys, contextlib; from hoptcp.cli import main; out = io.StringIO()\n"
            f"with contextlib.redirect_stdout(out): rc = main({argv!r})\n"
            f"names = {list(HEAVY + UNUSED_BY_RUN)!r}\n"
            "print(json.dumps([rc, out.getvalue(), [m for m in names if m in sys.modules]]))")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    rc, out, loaded = json.loads(proc.stdout.strip().splitlines()[-1])
    return rc, out, loaded


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"]])
def test_help_loads_no_heavy_or_unused_module(subprocess_env, argv):
    rc, out, loaded = _modules_after(subprocess_env, argv)
    assert rc == 0 and "Usage: hoptcp" in out
    assert loaded == []


@pytest.mark.core
def test_run_of_the_chain_example_loads_no_heavy_module(subprocess_env):
    rc, out, loaded = _modules_after(subprocess_env, ["run", "examples/chain7.toml", "--set", "duration_s=5"])
    assert rc == 0 and "aggregate goodput" in out and "Flows" in out
    assert [m for m in loaded if m in HEAVY] == []


@pytest.mark.core
def test_run_json_loads_no_heavy_module_nor_the_runner(subprocess_env):
    """`hoptcp run X --json` prints the core's document: no table library, no runner."""
    rc, out, loaded = _modules_after(subprocess_env, ["run", "examples/chain7.toml", "--set", "duration_s=0.01",
                                                      "--json"])
    assert rc == 0 and json.loads(out)["duration_s"] == 0.01
    assert loaded == []


def test_public_names_resolve_on_first_use(subprocess_env):
    """`hoptcp.sweep` and `hoptcp.ns2.crosscheck` are functions even when their
    submodules were imported first (as the command line does)."""
    code = ("import hoptcp.sweep, hoptcp.ns2.crosscheck, hoptcp, hoptcp.ns2, sys\n"
            "from hoptcp import sweep\n"
            "assert 'pandas' not in sys.modules\n"
            "print(callable(hoptcp.sweep), hoptcp.sweep is sweep, hoptcp.sweep.__module__,\n"
            "      hoptcp.ns2.crosscheck.__module__, callable(hoptcp.ns2.crosscheck),\n"
            "      hoptcp.Scenario.__name__, hoptcp.summarize.__module__, hoptcp.ns2.export.__module__)")
    proc = subprocess.run([sys.executable, "-c", code], env=subprocess_env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "True", "hoptcp.sweep", "hoptcp.ns2.crosscheck", "True", "Scenario",
                                   "hoptcp.stats", "hoptcp.ns2.exporter"]


def test_unknown_public_name_is_an_attribute_error():
    import hoptcp
    import hoptcp.ns2

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        hoptcp.nope  # noqa: B018
    with pytest.raises(AttributeError, match="'hoptcp.ns2' has no attribute 'nope'"):
        hoptcp.ns2.nope  # noqa: B018
