"""hoptcp's build backend: maturin, with profile-guided optimisation (PGO) of the
compiled core when the Rust toolchain can do it.

PGO builds the extension twice. The first build is instrumented and runs a fixed
training set of scenarios (`TRAINING`). LLVM's `llvm-profdata` merges the counts,
and the second build optimises with them. Measured in docs/performance.md: 11-12 %
less CPU on the 7-hop chain, the 13x13 grid and 10,000 nodes.
Results are identical: the same code is compiled, only the optimiser's choices
change.

It needs `llvm-profdata` of the Rust toolchain's own LLVM
(`rustup component add llvm-tools`). Without it, or with `HOPTCP_PGO=0`, or if
any step fails, the build is maturin's plain one, and it says why in one line
(shown by `pip install -v`). The core reports which build it is
(`hoptcp._core.build()`, printed by `hoptcp bench`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

import maturin
from maturin import (  # noqa: F401  (the rest of PEP 517's interface, unchanged)
    build_sdist,
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = "python/hoptcp/scenarios/"

#: The training set: the bench's scenarios and some of the reproductions', shortened
#: (about 15 s instrumented). All inside the package, so a build from the sdist has them.
TRAINING: list[tuple[str, list[tuple[str, str]]]] = [
    ("bench/chain7-tcp.toml", []),
    ("bench/chain7-udp.toml", []),
    ("bench/chain7-aodv-tcp.toml", []),
    ("bench/gap-parallel-tcp.toml", []),
    ("bench/grid13-udp.toml", [("duration_s", "60")]),
    ("bench/random1000-tcp.toml", [("duration_s", "20")]),
    ("bench/random1000-aodv-tcp.toml", [("duration_s", "10")]),
    ("bench/random10000-tcp.toml", [("random_flows.count", "1000"), ("duration_s", "2")]),
    ("fu-chain.toml", [("duration_s", "50")]),
    ("ldm-chain.toml", [("duration_s", "50")]),
    ("gap-chain.toml", [("duration_s", "50")]),
    ("jiang-chain.toml", [("duration_s", "50")]),
]

#: Runs the training set with the instrumented core (argv: the list above, as repr()).
TRAIN = f"""
import ast, sys
from hoptcp import _core
for name, overrides in ast.literal_eval(sys.argv[1]):
    with open({SCENARIOS!r} + name, encoding="utf-8") as f:
        _core.run(f.read(), overrides, None, None)
"""


def build_wheel(wheel_directory: str, config_settings: Mapping[str, Any] | None = None,
                metadata_directory: str | None = None) -> str:
    return _build(maturin.build_wheel, wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory: str, config_settings: Mapping[str, Any] | None = None,
                   metadata_directory: str | None = None) -> str:
    return _build(maturin.build_editable, wheel_directory, config_settings, metadata_directory)


def _build(build: Callable[..., str], wheel_directory: str, config_settings: Mapping[str, Any] | None,
           metadata_directory: str | None) -> str:
    """`build` profile-guided if it can be; plain if not, or if the guided build fails."""
    with _profile_guided(config_settings) as guided:
        try:
            return build(wheel_directory, config_settings, metadata_directory)
        except Exception as exc:
            if not guided:
                raise
            _say(f"plain build (the profile-guided build failed: {exc})")
    return build(wheel_directory, config_settings, metadata_directory)


def _say(message: str) -> None:
    print(f"hoptcp build: {message}", file=sys.stderr, flush=True)


@contextmanager
def _env(**changes: str) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in changes}
    os.environ.update(changes)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextmanager
def _profile_guided(config_settings: Mapping[str, Any] | None) -> Iterator[bool]:
    """Within (yielding True): RUSTFLAGS and HOPTCP_PGO_BUILD set for a profile-guided
    build, if a profile could be made; else (yielding False) nothing changes."""
    if os.environ.get("HOPTCP_PGO", "1") == "0":
        _say("plain build (HOPTCP_PGO=0)")
        yield False
        return
    profile = None
    try:
        profile = _make_profile(config_settings)
    except Exception as exc:  # any failure: the plain build, never a failed install
        _say(f"plain build (profile-guided optimisation failed: {exc})")
    if profile is None:
        yield False
        return
    _say(f"profile-guided build ({profile})")
    with _env(**_rustflags_with(f"-Cprofile-use={profile}"), HOPTCP_PGO_BUILD="1"):
        yield True


def _rustflags_with(flag: str) -> dict[str, str]:
    """The user's compiler flags with `flag` added, in the variable cargo reads
    (CARGO_ENCODED_RUSTFLAGS wins over RUSTFLAGS; either wins over a cargo config
    file's `build.rustflags`, which a profile-guided build therefore leaves out)."""
    if "CARGO_ENCODED_RUSTFLAGS" in os.environ:
        encoded = os.environ["CARGO_ENCODED_RUSTFLAGS"]
        return {"CARGO_ENCODED_RUSTFLAGS": f"{encoded}\x1f{flag}" if encoded else flag}
    return {"RUSTFLAGS": " ".join(filter(None, [os.environ.get("RUSTFLAGS", ""), flag]))}


def _run(cmd: list[str], **kw: Any) -> str:
    """Run `cmd`; its stdout, or an error naming it with the last line it wrote."""
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        last = (p.stderr.strip() or p.stdout.strip() or f"exit status {p.returncode}").splitlines()[-1]
        raise RuntimeError(f"{Path(cmd[0]).name}: {last}")
    return p.stdout


def _llvm_profdata() -> Path | None:
    """The toolchain's own llvm-profdata (rustup's llvm-tools), or None."""
    sysroot = _run(["rustc", "--print", "sysroot"])
    info = _run(["rustc", "-vV"])
    host = next(line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith("host:"))
    tool = Path(sysroot.strip()) / "lib" / "rustlib" / host / "bin" / "llvm-profdata"
    return tool if tool.exists() else None


def _make_profile(config_settings: Mapping[str, Any] | None) -> Path | None:
    tool = _llvm_profdata()
    if tool is None:
        _say("plain build (no llvm-profdata: `rustup component add llvm-tools` enables profile-guided "
             "optimisation, about 10 % faster)")
        return None
    work = ROOT / "target" / "pgo"
    raw = work / "raw"
    shutil.rmtree(raw, ignore_errors=True)
    raw.mkdir(parents=True)
    profile = work / "hoptcp.profdata"
    with tempfile.TemporaryDirectory(prefix="hoptcp-pgo-") as tmp:
        _say("profile-guided optimisation: building the instrumented core")
        # Its own target directory: the two builds' caches stay apart, and rebuilds stay incremental.
        with _env(**_rustflags_with(f"-Cprofile-generate={raw}"), CARGO_TARGET_DIR=str(work / "instrumented")):
            wheel = maturin.build_wheel(tmp, config_settings)
        site = Path(tmp) / "site"
        with zipfile.ZipFile(Path(tmp) / wheel) as z:
            z.extractall(site)
        _say(f"profile-guided optimisation: training on {len(TRAINING)} scenarios")
        _run([sys.executable, "-c", TRAIN, repr(TRAINING)], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(site)})
    _run([str(tool), "merge", "-o", str(profile), str(raw)])
    return profile
