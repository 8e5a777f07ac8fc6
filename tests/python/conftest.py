"""Test setup: import hoptcp from the source tree when it is not installed, and
provide the FakeCore test double plus the ``core`` marker for real-core tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent

if importlib.util.find_spec("hoptcp") is None:  # not installed: use the source tree
    sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(HERE))

import hoptcp  # noqa: E402
from hoptcp import _bridge  # noqa: E402

from fake_core import FakeCore  # noqa: E402

#: the directory holding the `hoptcp` package under test (for subprocesses)
PKG_PARENT = str(Path(hoptcp.__file__).resolve().parents[1])


def real_core_problem() -> str | None:
    """None when the compiled core is importable and has the whole contract."""
    try:
        _bridge.core()
    except _bridge.CoreUnavailableError as exc:
        return str(exc)
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    problem = real_core_problem()
    if problem is None:
        return
    skip = pytest.mark.skip(reason=problem)
    for item in items:
        if "core" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def default_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test's default results store is its own file: tests never write the user's store."""
    path = tmp_path / "default-store" / "results.db"
    monkeypatch.setenv("HOPTCP_STORE", str(path))
    return path


@pytest.fixture
def fake_core():
    """Install a FakeCore as hoptcp's core for the duration of a test."""
    fake = FakeCore()
    with _bridge.use_core(fake):
        yield fake


@pytest.fixture
def real_core():
    """Make sure the compiled core is the active one (undoing any fake)."""
    import hoptcp._core as compiled

    with _bridge.use_core(compiled):
        yield compiled


@pytest.fixture
def subprocess_env(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Environment for child processes that must import the same hoptcp."""
    import os

    path = os.pathsep.join(filter(None, [PKG_PARENT, str(HERE), os.environ.get("PYTHONPATH")]))
    monkeypatch.setenv("PYTHONPATH", path)
    env = dict(os.environ)
    env["PYTHONPATH"] = path
    return env


SCENARIO_TOML = """
duration_s = 5.0
seed = 3

[topology]
kind = "chain"
hops = 4
spacing_m = 200.0

[tcp]
max_window = 8

[[flows]]
src = 0
dst = 4
transport = "tcp"
app = "ftp"
"""


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    p = tmp_path / "chain.toml"
    p.write_text(SCENARIO_TOML)
    return p


@pytest.fixture
def lib(monkeypatch):
    """Reproduction-entry functions for one test: a function set as an attribute
    (``lib.name = fn``) is registered under its attribute name for every kind until the test ends."""
    from hoptcp.reproduce import registry

    registry.registered("check")  # load the real modules first

    class TestFunctions:
        def __setattr__(self, name, fn):
            for kind in registry.KINDS:
                monkeypatch.setitem(registry._FUNCTIONS[kind], name, fn)
            object.__setattr__(self, name, fn)

    return TestFunctions()
