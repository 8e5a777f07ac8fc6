"""The build backend (build_backend/hoptcp_pgo.py): when it builds with profile-guided
optimisation, when it falls back to maturin's plain build, and that a failure on the way
never fails the install. maturin is replaced by a recorder: these tests build nothing."""

import importlib.util
import os
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


class Recorder(types.ModuleType):
    """A stand-in for maturin's PEP 517 module: records the environment of each build."""

    def __init__(self):
        super().__init__("maturin")
        self.builds = []
        for name in ("build_sdist", "get_requires_for_build_editable", "get_requires_for_build_sdist",
                     "get_requires_for_build_wheel", "prepare_metadata_for_build_editable",
                     "prepare_metadata_for_build_wheel"):
            setattr(self, name, lambda *a, **k: None)

    def build_wheel(self, wheel_directory, config_settings=None, metadata_directory=None):
        self.builds.append(("wheel", os.environ.get("RUSTFLAGS"), os.environ.get("HOPTCP_PGO_BUILD")))
        return "hoptcp.whl"

    def build_editable(self, wheel_directory, config_settings=None, metadata_directory=None):
        self.builds.append(("editable", os.environ.get("RUSTFLAGS"), os.environ.get("HOPTCP_PGO_BUILD")))
        return "hoptcp.whl"


@pytest.fixture
def backend(monkeypatch):
    maturin = Recorder()
    monkeypatch.setitem(sys.modules, "maturin", maturin)
    spec = importlib.util.spec_from_file_location("hoptcp_pgo", ROOT / "build_backend" / "hoptcp_pgo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setenv("RUSTFLAGS", "-Cdebuginfo=0")
    monkeypatch.delenv("HOPTCP_PGO", raising=False)
    monkeypatch.delenv("HOPTCP_PGO_BUILD", raising=False)
    return module, maturin


def test_a_profile_goes_to_the_build_and_the_environment_is_restored(backend, monkeypatch, capsys):
    module, maturin = backend
    monkeypatch.setattr(module, "_make_profile", lambda settings: Path("/p/hoptcp.profdata"))
    assert module.build_wheel("out") == "hoptcp.whl"
    assert maturin.builds == [("wheel", "-Cdebuginfo=0 -Cprofile-use=/p/hoptcp.profdata", "1")]
    assert os.environ["RUSTFLAGS"] == "-Cdebuginfo=0" and "HOPTCP_PGO_BUILD" not in os.environ
    assert "hoptcp build: profile-guided build" in capsys.readouterr().err
    module.build_editable("out")
    assert maturin.builds[-1] == ("editable", "-Cdebuginfo=0 -Cprofile-use=/p/hoptcp.profdata", "1")


def test_encoded_flags_get_the_profile_where_cargo_reads_them(backend, monkeypatch):
    module, maturin = backend
    monkeypatch.setenv("CARGO_ENCODED_RUSTFLAGS", "-C\x1ftarget-cpu=native")
    monkeypatch.setattr(module, "_make_profile", lambda settings: Path("/p/hoptcp.profdata"))
    builds = []
    monkeypatch.setattr(maturin, "build_wheel", lambda *a, **k: builds.append(
        (os.environ["CARGO_ENCODED_RUSTFLAGS"], os.environ["RUSTFLAGS"])) or "hoptcp.whl")
    module.build_wheel("out")
    # cargo ignores RUSTFLAGS when CARGO_ENCODED_RUSTFLAGS is set: the flag goes there
    assert builds == [("-C\x1ftarget-cpu=native\x1f-Cprofile-use=/p/hoptcp.profdata", "-Cdebuginfo=0")]
    assert os.environ["CARGO_ENCODED_RUSTFLAGS"] == "-C\x1ftarget-cpu=native"


def test_hoptcp_pgo_0_builds_plain_without_trying(backend, monkeypatch, capsys):
    module, maturin = backend
    monkeypatch.setenv("HOPTCP_PGO", "0")
    monkeypatch.setattr(module, "_make_profile", lambda settings: pytest.fail("no profile is made"))
    module.build_wheel("out")
    assert maturin.builds == [("wheel", "-Cdebuginfo=0", None)]
    assert capsys.readouterr().err == "hoptcp build: plain build (HOPTCP_PGO=0)\n"


def test_without_llvm_profdata_the_build_is_plain_and_says_how_to_get_it(backend, monkeypatch, capsys):
    module, maturin = backend
    monkeypatch.setattr(module, "_llvm_profdata", lambda: None)
    module.build_wheel("out")
    assert maturin.builds == [("wheel", "-Cdebuginfo=0", None)]
    err = capsys.readouterr().err
    assert err.startswith("hoptcp build: plain build (no llvm-profdata") and "rustup component add llvm-tools" in err


def test_a_failure_on_the_way_never_fails_the_install(backend, monkeypatch, capsys, tmp_path):
    module, maturin = backend

    def instrumented_build_fails(wheel_directory, config_settings=None, metadata_directory=None):
        raise RuntimeError("cargo: error: could not compile `hoptcp-core`")

    monkeypatch.setattr(module, "_llvm_profdata", lambda: Path("/bin/true"))
    monkeypatch.setattr(module, "ROOT", tmp_path)
    calls = []
    monkeypatch.setattr(maturin, "build_wheel", lambda *a, **k: calls.append(a) or instrumented_build_fails(*a))
    module.build_editable("out")
    assert len(calls) == 1  # the instrumented build was tried...
    assert maturin.builds == [("editable", "-Cdebuginfo=0", None)]  # ...and the plain build made the wheel
    err = capsys.readouterr().err
    assert "plain build (profile-guided optimisation failed: cargo: error: could not compile" in err


def test_a_failed_profile_guided_build_is_done_again_plainly(backend, monkeypatch, capsys):
    module, maturin = backend
    monkeypatch.setattr(module, "_make_profile", lambda settings: Path("/p/hoptcp.profdata"))

    def fails_with_the_profile(wheel_directory, config_settings=None, metadata_directory=None):
        maturin.builds.append(("wheel", os.environ.get("RUSTFLAGS"), os.environ.get("HOPTCP_PGO_BUILD")))
        if os.environ.get("HOPTCP_PGO_BUILD"):
            raise RuntimeError("rustc: error: invalid profile data")
        return "hoptcp.whl"

    monkeypatch.setattr(maturin, "build_wheel", fails_with_the_profile)
    assert module.build_wheel("out") == "hoptcp.whl"
    assert maturin.builds == [("wheel", "-Cdebuginfo=0 -Cprofile-use=/p/hoptcp.profdata", "1"),
                              ("wheel", "-Cdebuginfo=0", None)]
    assert "plain build (the profile-guided build failed: rustc: error: invalid profile data)" in capsys.readouterr().err


def test_a_failing_plain_build_fails_the_install(backend, monkeypatch):
    module, maturin = backend
    monkeypatch.setenv("HOPTCP_PGO", "0")

    def fails(*args, **kw):
        raise RuntimeError("cargo: error: could not compile")

    monkeypatch.setattr(maturin, "build_wheel", fails)
    with pytest.raises(RuntimeError, match="could not compile"):
        module.build_wheel("out")


def test_a_failing_tool_is_named_with_its_last_line(backend):
    module, _ = backend
    with pytest.raises(RuntimeError, match=r"^python\S*: boom$"):
        module._run([sys.executable, "-c", "import sys; print('first', file=sys.stderr); sys.exit('boom')"])


def test_the_training_scenarios_are_in_the_package(backend):
    module, _ = backend
    for name, _overrides in module.TRAINING:
        assert (ROOT / module.SCENARIOS / name).is_file(), name


@pytest.mark.core
def test_the_core_says_how_it_was_built(real_core):
    from hoptcp import _bridge

    assert _bridge.build() in ("profile-guided", "plain")
