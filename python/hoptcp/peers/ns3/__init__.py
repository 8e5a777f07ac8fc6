"""ns-3 as a peer: a scenario program shipped with hoptcp (``static.cc``), compiled on
first use against the system's ns-3 (found with ``pkg-config``; Debian: ``apt-get
install libns3-dev``) into hoptcp's cache directory, one build per source, ns-3
version and compiler. It runs a hoptcp scenario with static routes: the nodes at
hoptcp's positions, each flow along hoptcp's path (from the core's plan), bulk TCP
(NewReno, or BBR as ns-3.37's ``TcpBbr`` paced at the sender) and CBR UDP flows.

The program stands for ns-2.35's model as far as ns-3 allows (``ns2_like.h``):
two-ray ground, ns-2's transmit power, frames decoded above the power at the scenario's
reception range (preamble detection) and sensed above the power at its carrier-sense
range (``RxSensitivity`` and energy detection), 802.11b DSSS at the scenario's data and
basic rates, RTS/CTS before every frame, ns-2's retry limits and 50-packet interface
queue, static routes, TCP without SACK or timestamps, one ACK per segment. What
still differs from ns-2.35 (and hoptcp's ns2 profile): ns-3 decides reception on the
signal to interference-plus-noise ratio with an error model (ns-2: a capture ratio
between two frames), waits no EIFS after a frame it only sensed, adds an 8-byte LLC/SNAP
header, gives no frame up for unanswered RTSs (it checks RTS/CTS-protected frames
against the long retry limit, which only unacknowledged data frames raise), and the maximum
window is the sender's buffer (ns-2: a cap on the congestion window); docs/performance.md
lists the rest and the goodputs measured.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import tempfile
from importlib import resources
from pathlib import Path
from typing import Any, Mapping

from ...errors import RunError

#: the ns-3 modules the programs link (pkg-config names)
MODULES = ("ns3-core", "ns3-network", "ns3-internet", "ns3-wifi", "ns3-mobility", "ns3-applications",
           "ns3-propagation", "ns3-traffic-control", "ns3-point-to-point")
#: the scenario program shipped here (``static.cc``)
PROGRAM = "static"
#: the wired-only program (``wired.cc``: point-to-point links, NewReno or BBR; :mod:`.bbr_check`)
WIRED = "wired"
#: the headers the programs include (part of each build's identity)
HEADERS = ("ns2_like.h", "peer_apps.h", "tcp_probe.h")
#: ``HOPTCP_NS3_CACHE`` overrides where built programs are kept
CACHE_ENV = "HOPTCP_NS3_CACHE"


class PeerError(RunError):
    """ns-3 could not build or run the peer program, or cannot express the scenario (the
    command line prints it as one line, exit status 1)."""


def _pkg_config(*args: str) -> str | None:
    exe = shutil.which("pkg-config")
    if exe is None:
        return None
    proc = subprocess.run([exe, *args], capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else None


def compiler() -> str | None:
    return shutil.which(os.environ.get("CXX", "c++"))


def version() -> str | None:
    """The system's ns-3 version (``3.37``), or None when ns-3's development files or a C++
    compiler are missing."""
    if compiler() is None or _pkg_config("--exists", *MODULES) is None:
        return None
    return _pkg_config("--modversion", "ns3-core")


def available() -> bool:
    return version() is not None


def _flags() -> list[str]:
    """Compiler and linker flags from pkg-config, without the absolute paths of files that are
    not installed (Debian's ns-3 .pc files name libgsl.so, which only libgsl-dev installs; the
    ns-3 libraries already link the runtime library)."""
    out = _pkg_config("--cflags", "--libs", *MODULES) or ""
    flags: list[str] = []
    for f in shlex.split(out):
        if f.startswith("/") and not Path(f).exists():
            continue
        if f.startswith("-I") and not Path(f[2:]).is_dir():
            continue
        if f not in flags or not f.startswith(("-I", "-l")):
            flags.append(f)
    return flags


def _source_dir() -> Path:
    return Path(str(resources.files(__name__)))


def cache_dir() -> Path:
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    from platformdirs import user_cache_path

    return user_cache_path("hoptcp") / "ns3"


def build(program: str = PROGRAM) -> Path:
    """The compiled scenario program (built now if this source, ns-3 and compiler have no build yet);
    ``program``: :data:`PROGRAM` or :data:`WIRED`."""
    cxx, ver = compiler(), version()
    if cxx is None or ver is None:
        raise PeerError("ns-3 is not installed (pkg-config finds no ns3-core; Debian: apt-get install libns3-dev)")
    src = _source_dir()
    flags = _flags()
    digest = hashlib.sha256()
    for part in [ver, cxx, *flags, *((src / h).read_text() for h in HEADERS),
                 (src / f"{program}.cc").read_text()]:
        digest.update(part.encode() + b"\0")
    target = cache_dir() / f"{program}-ns{ver}-{digest.hexdigest()[:16]}"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        out = Path(tmp) / program
        cmd = [cxx, "-O2", "-std=c++17", "-I", str(src), "-o", str(out), str(src / f"{program}.cc"), *flags]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            tail = " | ".join(proc.stderr.strip().splitlines()[-3:]) or f"exit status {proc.returncode}"
            raise PeerError(f"building the ns-3 program failed ({shlex.join(cmd)}): {tail}")
        os.replace(out, target)  # atomic: a concurrent build never sees half a binary
    for old in target.parent.glob(f"{program}-ns*"):
        if old != target:
            old.unlink(missing_ok=True)  # builds of older sources are never used again
    return target


def _unsupported(key: str, value: Any, allowed: str) -> PeerError:
    return PeerError(f"the ns-3 peer program cannot run this scenario: {key} = {value!r}; it runs {allowed}")


#: (resolved key, the value the program implements, what that is)
_FIXED = (("routing.protocol", "static", "static routes"), ("radio.standard", "dsss", "802.11b DSSS"),
          ("mac.rts_threshold_bytes", 0, "RTS/CTS before every frame"),
          ("mac.short_retry_limit", 7, "ns-2's short retry limit 7"), ("mac.long_retry_limit", 4, "ns-2's long retry limit 4"),
          ("mac.cw_min", 31, "802.11b's CWmin 31"), ("mac.cw_max", 1023, "802.11b's CWmax 1023"))
#: per-flow TCP keys the program takes (one value for every TCP flow)
_TCP = ("variant", "payload_bytes", "max_window", "initial_window", "initial_ssthresh", "min_rto_s")
#: the congestion controls the program runs (ns-3's TcpNewReno, TcpBbr)
_VARIANTS = ("newreno", "bbr")


def scenario_args(resolved: Mapping[str, Any], plan: Mapping[str, Any]) -> list[str]:
    """The program's arguments for a resolved scenario and the core's plan of it (positions,
    flows with their paths): static routes along every flow's path, and back for TCP's ACKs."""
    for key, want, allowed in _FIXED:
        table, name = key.split(".")
        if resolved[table][name] != want:
            raise _unsupported(key, resolved[table][name], allowed)
    routes: dict[tuple[int, int], int] = {}

    def route(path: list[int], key: str) -> None:
        for i, node in enumerate(path[:-1]):
            if routes.setdefault((node, path[-1]), path[i + 1]) != path[i + 1]:
                raise _unsupported(key, path, "flows whose paths agree on every node's next hop to a destination")

    flows, tcp = [], None
    for i, f in enumerate(plan["flows"]):
        key = f"flows[{i}]"
        if f["transport"] == "tcp" and f["app"] == "ftp":
            settings = {k: f["tcp"][k] for k in _TCP}
            t = f["tcp"]
            if t["variant"] not in _VARIANTS:
                raise _unsupported(f"{key}.tcp.variant", t["variant"], " or ".join(_VARIANTS))
            if t["delayed_ack"] or t["ecn"] or t.get("sack"):
                raise _unsupported(f"{key}.tcp", t, "one ACK per segment, no ECN, no SACK")
            if tcp is not None and settings != tcp:
                raise _unsupported(f"{key}.tcp", settings, f"one TCP setting for every flow ({tcp})")
            tcp = settings
            flows.append(f"tcp,{f['src']},{f['dst']},{f['start_s']}")
            route(list(reversed(f["path"])), key)
        elif f["transport"] == "udp" and f["app"] == "cbr":
            flows.append(f"udp,{f['src']},{f['dst']},{f['start_s']},{f['rate_bps']},{f['packet_bytes']},{f['jitter']}")
        else:
            raise _unsupported(f"{key}.app", f["app"], "FTP over TCP and CBR over UDP")
        if f.get("stop_s", resolved["duration_s"]) != resolved["duration_s"]:
            raise _unsupported(f"{key}.stop_s", f["stop_s"], "flows that run to the end")
        route(list(f["path"]), key)
    radio, mac = resolved["radio"], resolved["mac"]
    # ns-3's command line refuses an empty value ("--routes="): such an argument is left out
    lists = {"positions": [f"{x!r},{y!r}" for x, y in plan["positions"]],
             "routes": [f"{n},{d},{h}" for (n, d), h in sorted(routes.items())], "flows": flows}
    args = [f"--{key}={';'.join(items)}" for key, items in lists.items() if items] + [
            f"--txPowerW={radio['tx_power_w']}", f"--antennaHeight={radio['antenna_height_m']}",
            f"--frequency={radio['frequency_hz']}", f"--rxRange={radio['tx_range_m']}",
            f"--csRange={radio['cs_range_m']}", f"--dataMbps={radio['data_rate_mbps']}",
            f"--basicMbps={radio['basic_rate_mbps']}", f"--queue={mac['queue_limit']}",
            f"--duration={resolved['duration_s']}", f"--seed={resolved['seed']}"]
    if tcp is not None:
        args += [f"--variant={tcp['variant']}", f"--payload={tcp['payload_bytes']}", f"--maxWindow={tcp['max_window']}",
                 f"--initialWindow={tcp['initial_window']}", f"--initialSsthresh={tcp['initial_ssthresh']}",
                 f"--minRto={tcp['min_rto_s']}"]
    return args


def scenario_command(scenario: Any) -> list[str]:
    """The whole command that runs a :class:`hoptcp.Scenario` in ns-3 (builds the program first)."""
    from ... import _bridge

    plan = json.loads(_bridge.plan_json(scenario.toml, scenario.overrides))
    return [str(build()), *scenario_args(scenario.resolved(), plan)]


def parse_output(stdout: str) -> dict[str, Any]:
    """The JSON line the program prints last."""
    lines = [line for line in stdout.strip().splitlines() if line.startswith("{")]
    if not lines:
        raise PeerError(f"the ns-3 program printed no result line (output: {stdout.strip()[-200:]!r})")
    return dict(json.loads(lines[-1]))
