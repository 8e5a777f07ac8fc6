"""Building ns-2.35 with the authors' TCP-AP (``hoptcp ns2 build``).

ElRakabawy, Klemm and Lindemann published their ns-2 implementation of TCP-AP
(``tcp/tcp-ap.cc``, ``tcp/tcp-ap.h``: ``Agent/TCP/Newreno/AP``, written for ns-2.29; the
repository ``mahaicheng/tcpap`` keeps a tree with it). This module builds a stock
ns-2.35 source tree with those two files added, from directories the user supplies;
neither project's code is part of hoptcp, only the steps below:

1. copy the ns-2.35 tree to ``OUT/src`` and the two files into its ``tcp/``;
2. add ``tcp/tcp-ap.o`` to ``Makefile.in``'s object list (after ``tcp/tcp-newreno.o``);
3. give the class's bound variables their defaults in ``tcl/lib/ns-default.tcl``, the
   values tcp-ap.cc's constructor starts from (ns-2 warns about every bound variable
   without a class default);
4. point ``configure`` at Debian's Tcl/Tk 8.6, OTcl and TclCL through a staging
   directory ``OUT/deps`` (configure looks for ``tclInt.h`` and ``init.tcl`` where
   Debian does not keep them: the private headers are under
   ``/usr/include/tcl8.6/tcl-private``, the script libraries under
   ``/usr/share/tcltk/tcl8.6`` and ``/usr/share/tcltk/tk8.6``);
5. after configure, undefine ``HAVE_INT64`` in ``autoconf.h``: Debian's TclCL is built
   without it, so its library has no ``TclObject::bind(const char*, int64_t*)`` and ns
   would not link (its queue monitors then count in ``int``, as in Debian's own ``ns``);
   PackMime's open-loop source binds an ``int64_t maxpkts_`` regardless, which becomes an
   ``int``;
6. compile with today's g++: ``-std=gnu++98`` (ns-2.35 predates C++11's narrowing
   and literal rules), ``-fpermissive``, and ``-DUSE_INTERP_RESULT`` (Tcl 8.6 hides
   ``interp->result`` without it), ``nice -n 10 make -j1`` by default;
7. check the binary creates an ``Agent/TCP/Newreno/AP`` with the expected defaults.

Run the result with ``HOPTCP_NS=OUT/src/ns`` or ``--ns-binary OUT/src/ns``.

The same steps build the ns-2.35 ports of the papers' cures (``ns2/ports/``, see
:mod:`hoptcp.ns2.ports`), with or without TCP-AP, and ns-2.35's AODV in its HELLO build
(``AODV_LINK_LAYER_DETECTION`` undefined, so link breaks are detected by missed HELLOs
instead of the MAC's failure callback). A tree built once is reused: a later build with other
ports or a changed port re-applies them and recompiles only what changed; the build writes
what it holds to ``OUT/BUILD.txt`` (ports with their digests, TCP-AP, the AODV mode).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from ..errors import SpecError

if TYPE_CHECKING:
    from .ports import Port

#: tcp-ap.cc's bound variables and the values its constructor sets (defaults for ns-default.tcl)
TCP_AP_DEFAULTS: dict[str, str] = {
    "n_factor_": "4",
    "rate_interval_": "0.05",
    "n_hop_delay_": "0",
    "avg_n_hop_delay_": "0",
    "coeff_var_": "0",
    "adev_": "0",
    "history_": "50",
    "delaybound_": "0.5",
    "alpha_": "0.7",
    "ll_bandwidth_": "2e6",
}
TCP_AP_FILES = ("tcp-ap.cc", "tcp-ap.h")
#: marks the block this script adds to ns-default.tcl (so a second run does not add it again)
DEFAULTS_MARK = "# hoptcp ns2 build: Agent/TCP/Newreno/AP"
#: where Debian keeps what configure needs (package in brackets)
DEBIAN_FILES: dict[str, str] = {
    "/usr/include/tcl8.6/tcl.h": "tcl8.6-dev",
    "/usr/include/tcl8.6/tcl-private/generic/tclInt.h": "tcl8.6-dev",
    "/usr/include/tcl8.6/tk.h": "tk8.6-dev",
    "/usr/include/otcl.h": "libotcl1-dev",
    "/usr/include/tclcl/tclcl.h": "libtclcl1-dev",
    "/usr/bin/tcl2c++": "tclcl",
    "/usr/share/tcltk/tcl8.6/init.tcl": "tcl8.6",
    "/usr/share/tcltk/tcl8.6/http1.0/http.tcl": "tcl8.6",
    "/usr/share/tcltk/tk8.6/tk.tcl": "tk8.6",
}
DEBIAN_LIB_DIRS = ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib")
DEBIAN_LIBS: dict[str, str] = {"libtcl8.6.so": "tcl8.6-dev", "libtk8.6.so": "tk8.6-dev",
                               "libotcl.so": "libotcl1-dev", "libtclcl.so": "libtclcl1-dev"}
#: compiler flags for ns-2.35 under today's g++ (see the module docstring)
CXX = "g++ -std=gnu++98"
CCOPT = "-O2 -Wall -Wno-write-strings -DUSE_INTERP_RESULT -fpermissive"


@dataclass(frozen=True)
class Sources:
    """Checked inputs of a build."""

    ns2: Path
    tcpap: dict[str, Path] | None
    version: str


def find_tcpap(tcpap_dir: Path) -> dict[str, Path]:
    """tcp-ap.cc and tcp-ap.h in the authors' tree (``tcp/``) or directly in ``tcpap_dir``."""
    for d in (tcpap_dir / "tcp", tcpap_dir):
        found = {name: d / name for name in TCP_AP_FILES}
        if all(p.is_file() for p in found.values()):
            return found
    raise SpecError(f"--with-tcpap {tcpap_dir}: no tcp/tcp-ap.cc and tcp/tcp-ap.h (nor tcp-ap.cc and tcp-ap.h) "
                    "there; expected the authors' tree, e.g. the repository mahaicheng/tcpap")


def check_sources(tcpap_dir: str | Path | None, ns2_dir: str | Path) -> Sources:
    """Both directories exist and hold what the build needs; one clear error otherwise."""
    tcpap, ns2 = (Path(tcpap_dir) if tcpap_dir is not None else None), Path(ns2_dir)
    if tcpap is not None and not tcpap.is_dir():
        raise SpecError(f"--with-tcpap {tcpap}: no such directory (the authors' TCP-AP tree, e.g. mahaicheng/tcpap)")
    if not ns2.is_dir():
        raise SpecError(f"--ns2-src {ns2}: no such directory (an ns-2.35 source tree, e.g. Debian's "
                        "ns2_2.35+dfsg.orig.tar.xz unpacked)")
    files = find_tcpap(tcpap) if tcpap is not None else None
    for rel in ("configure", "Makefile.in", "tcp/tcp-newreno.cc", "tcl/lib/ns-default.tcl", "VERSION"):
        if not (ns2 / rel).is_file():
            raise SpecError(f"--ns2-src {ns2}: no {rel} there (expected the top of an ns-2.35 source tree)")
    version = (ns2 / "VERSION").read_text(encoding="utf-8", errors="replace").strip()
    if version != "2.35":
        raise SpecError(f"--ns2-src {ns2}: VERSION says '{version}' (allowed: 2.35, the release hoptcp's "
                        "ns-2 exporter writes for)")
    if "tcp/tcp-newreno.o" not in (ns2 / "Makefile.in").read_text(encoding="utf-8", errors="replace"):
        raise SpecError(f"--ns2-src {ns2}: Makefile.in has no tcp/tcp-newreno.o to add tcp/tcp-ap.o after")
    return Sources(ns2, files, version)


def check_system() -> dict[str, Path]:
    """Debian's Tcl/Tk, OTcl and TclCL files, or one error naming the missing packages."""
    missing: dict[str, list[str]] = {}
    for f, pkg in DEBIAN_FILES.items():
        if not Path(f).exists():
            missing.setdefault(pkg, []).append(f)
    libs: dict[str, Path] = {}
    for lib, pkg in DEBIAN_LIBS.items():
        hit = next((Path(d) / lib for d in DEBIAN_LIB_DIRS if (Path(d) / lib).exists()), None)
        if hit is None:
            missing.setdefault(pkg, []).append(lib)
        else:
            libs[lib] = hit
    if shutil.which("g++") is None:
        missing.setdefault("g++", []).append("g++")
    if shutil.which("make") is None:
        missing.setdefault("make", []).append("make")
    if missing:
        pkgs = " ".join(sorted(missing))
        what = ", ".join(x for v in missing.values() for x in v)
        raise SpecError(f"ns-2.35 needs {what}: install them with `apt-get install {pkgs}`")
    return libs


# --- patch steps (each idempotent: a second run leaves the tree as it is) -------------------

def add_object(makefile_in: str) -> str:
    """Makefile.in with ``tcp/tcp-ap.o`` after ``tcp/tcp-newreno.o`` in the object list."""
    if "tcp/tcp-ap.o" in makefile_in:
        return makefile_in
    out, n = re.subn(r"tcp/tcp-newreno\.o(\s)", r"tcp/tcp-newreno.o tcp/tcp-ap.o\1", makefile_in, count=1)
    if n != 1:
        raise SpecError("Makefile.in: no tcp/tcp-newreno.o in the object list to add tcp/tcp-ap.o after")
    return out


def add_defaults(ns_default: str) -> str:
    """ns-default.tcl with the class defaults of ``Agent/TCP/Newreno/AP``'s bound variables."""
    if DEFAULTS_MARK in ns_default:
        return ns_default
    lines = [DEFAULTS_MARK + " (tcp-ap.cc's constructor values)"]
    lines += [f"Agent/TCP/Newreno/AP set {k} {v}" for k, v in TCP_AP_DEFAULTS.items()]
    return ns_default.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n"


def stage_deps(deps: Path, libs: dict[str, Path]) -> None:
    """A directory laid out as ns-2.35's configure looks for Tcl, Tk, OTcl and TclCL."""
    inc, lib, bindir = deps / "include", deps / "lib", deps / "bin"
    for d in (inc, lib, bindir):
        d.mkdir(parents=True, exist_ok=True)

    def link(target: Path, at: Path) -> None:
        if at.is_symlink() or at.exists():
            at.unlink()
        at.symlink_to(target)

    sources = [Path("/usr/include/tcl8.6"), Path("/usr/include/tcl8.6/tcl-private/generic"),
               Path("/usr/include/tcl8.6/tcl-private/unix"), Path("/usr/include/tclcl")]
    for d in sources:
        for h in sorted(d.glob("*.h")):
            if not (inc / h.name).exists():
                link(h, inc / h.name)
    link(Path("/usr/include/otcl.h"), inc / "otcl.h")
    for name, path in libs.items():
        link(path, lib / name)
    link(Path("/usr/share/tcltk/tcl8.6"), lib / "tcl8.6")
    link(Path("/usr/share/tcltk/tk8.6"), lib / "tk8.6")
    link(Path("/usr/bin/tcl2c++"), bindir / "tcl2c++")


def rewrite(path: Path, edit: Callable[[str], str]) -> None:
    """Apply a patch step to a file, writing only a changed text (make goes by modification times)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    new = edit(text)
    if new != text:
        path.write_text(new, encoding="utf-8")


def prepare(src: Sources, out: Path, libs: dict[str, Path]) -> Path:
    """Copy and patch the tree under ``out``; return the build directory."""
    tree = out / "src"
    if not tree.exists():
        shutil.copytree(src.ns2, tree, symlinks=True)
    if src.tcpap is not None:
        for name, path in src.tcpap.items():
            dst = tree / "tcp" / name
            if not dst.is_file() or dst.read_bytes() != path.read_bytes():
                shutil.copyfile(path, dst)
        rewrite(tree / "Makefile.in", add_object)
        rewrite(tree / "tcl" / "lib" / "ns-default.tcl", add_defaults)
    elif "tcp/tcp-ap.o" in (tree / "Makefile.in").read_text(encoding="utf-8", errors="replace"):
        raise SpecError(f"--out {out}: this tree was built with TCP-AP; build without it in another --out directory")
    stage_deps(out / "deps", libs)
    return tree


#: the line of aodv/aodv.h that selects MAC-layer link-break detection (ns-2.35's default)
AODV_LL_DEFINE = "#define AODV_LINK_LAYER_DETECTION"
AODV_HELLO_LINE = "/* #define AODV_LINK_LAYER_DETECTION (hoptcp ns2 build --aodv-hello: HELLO messages) */"


def aodv_mode(aodv_h: str, hello: bool) -> str:
    """aodv.h with link-layer detection on (ns-2.35's default) or off (its HELLO build)."""
    if hello:
        return re.sub(r"^#define AODV_LINK_LAYER_DETECTION\s*$", AODV_HELLO_LINE, aodv_h, flags=re.M)
    return aodv_h.replace(AODV_HELLO_LINE, AODV_LL_DEFINE)


#: ns-default.tcl's line that tells an exported script this ns has AODV's HELLO build
HELLO_MARK = "Agent/AODV set hoptcp_hello_build_ 1 ;# hoptcp ns2 build --aodv-hello"


def hello_marker(ns_default: str, hello: bool) -> str:
    """ns-default.tcl with (or without) :data:`HELLO_MARK`, which exported HELLO scripts check."""
    text = ns_default.replace(HELLO_MARK + "\n", "")
    return text.rstrip("\n") + "\n" + HELLO_MARK + "\n" if hello else text


def drop_int64(autoconf_h: str) -> str:
    """autoconf.h without ``HAVE_INT64`` (Debian's TclCL has no int64_t binds to link against)."""
    return re.sub(r"^#define HAVE_INT64 1$", "/* #undef HAVE_INT64 (hoptcp ns2 build: TclCL has no int64_t bind) */",
                  autoconf_h, flags=re.M)


#: files that bind an int64_t whatever HAVE_INT64 says (they become int: see :func:`drop_int64`)
INT64_BINDS = ("packmime/packmime_OL.h", "packmime/packmime_OL.cc")


def int_maxpkts(source: str) -> str:
    """PackMime's ``int64_t maxpkts_`` as ``int`` (TclCL without int64 binds)."""
    return re.sub(r"\bint64_t(\s+maxpkts_;)", r"int\1", source)


def configure_args(deps: Path) -> list[str]:
    d = str(deps)
    return ["./configure", f"--with-tcl={d}", f"--with-tk={d}", f"--with-otcl={d}", f"--with-tclcl={d}",
            "--with-tcl-ver=8.6", "--with-tk-ver=8.6"]


#: a script the built binary runs: the class exists and has tcp-ap.cc's defaults (a TCP agent needs
#: the scheduler a Simulator creates)
PROBE_TCL = """set ns [new Simulator]
set a [new Agent/TCP/Newreno/AP]
puts "n_factor_=[$a set n_factor_] history_=[$a set history_] delaybound_=[$a set delaybound_]"
exit 0
"""


def probe(ns: Path, workdir: Path) -> str:
    """Run the built ns on :data:`PROBE_TCL`; return what it printed (raises if it failed)."""
    script = workdir / "probe-tcpap.tcl"
    script.write_text(PROBE_TCL, encoding="utf-8")
    proc = subprocess.run([str(ns), str(script)], capture_output=True, text=True, timeout=60, check=False)
    line = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    if proc.returncode != 0 or not line.startswith("n_factor_=4 "):
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        raise SpecError(f"{ns}: the built ns-2 does not create Agent/TCP/Newreno/AP ({tail})")
    return line


def build(tcpap_dir: str | Path | None, ns2_dir: str | Path, out: str | Path, *, jobs: int = 1, nice: int = 10,
          ports: Sequence[str] = (), ports_dir: Path | None = None, aodv_hello: bool = False,
          log: Callable[[str], None] = print) -> Path:
    """Build ns-2.35 under ``out`` (with the authors' TCP-AP, the named ports of ``ns2/ports``, and
    AODV's HELLO build as asked); return the ``ns`` binary."""
    from . import ports as portlib

    src = check_sources(tcpap_dir, ns2_dir)
    libs = check_system()
    loaded = [portlib.load(p, ports_dir or portlib.DEFAULT_PORTS_DIR) for p in ports]
    outp = Path(out).resolve()
    outp.mkdir(parents=True, exist_ok=True)
    tree = prepare(src, outp, libs)
    built = (outp / "BUILD.txt").read_text(encoding="utf-8") if (outp / "BUILD.txt").is_file() else ""
    for name in re.findall(r"^port (\S+)@", built, flags=re.M):
        if name not in ports:
            raise SpecError(f"--out {outp}: this tree holds the port {name}; build other ports in another --out "
                            "directory (a port's insertions are not taken out again)")
    for port in loaded:
        portlib.apply(port, tree)
    aodv_h = tree / "aodv" / "aodv.h"
    before = aodv_h.read_text(encoding="utf-8", errors="replace")
    rewrite(aodv_h, lambda t: aodv_mode(t, aodv_hello))
    if aodv_h.read_text(encoding="utf-8", errors="replace") != before:
        # ns-2's Makefile has no header dependencies: recompile what includes aodv.h
        for obj in portlib.stale_objects(tree, [aodv_h]):
            obj.unlink()
    rewrite(tree / "tcl" / "lib" / "ns-default.tcl", lambda t: hello_marker(t, aodv_hello))
    logfile = outp / "build.log"
    env = dict(os.environ, CXX=CXX)
    with open(logfile, "a", encoding="utf-8") as fh:
        if not (tree / "Makefile").is_file():
            log(f"configure (log: {logfile})")
            rc = subprocess.run(configure_args(outp / "deps"), cwd=tree, env=env, stdout=fh, stderr=fh).returncode
            if rc != 0:
                raise SpecError(f"ns-2.35's configure failed (exit {rc}); see {logfile}")
        if (tree / "Makefile").stat().st_mtime < (tree / "Makefile.in").stat().st_mtime:
            log("Makefile.in changed: ./config.status --file=Makefile")
            rc = subprocess.run(["./config.status", "--file=Makefile"], cwd=tree, env=env, stdout=fh,
                                stderr=fh).returncode
            if rc != 0:
                raise SpecError(f"ns-2.35's config.status failed (exit {rc}); see {logfile}")
        rewrite(tree / "autoconf.h", drop_int64)
        for rel in INT64_BINDS:
            if (tree / rel).is_file():
                rewrite(tree / rel, int_maxpkts)
        log(f"make -j{jobs} under nice -n {nice} (tens of minutes; log: {logfile})")
        cmd = ["nice", "-n", str(nice), "make", f"-j{jobs}", f"CCOPT={CCOPT}", "ns"]
        rc = subprocess.run(cmd, cwd=tree, env=env, stdout=fh, stderr=fh).returncode
        if rc != 0:
            raise SpecError(f"building ns-2.35 failed (make exit {rc}); see {logfile}")
    ns = tree / "ns"
    if src.tcpap is not None:
        log(probe(ns, outp))
    for port in loaded:
        log(probe_port(ns, outp, port))
    lines = [f"ns-2.35 built by hoptcp ns2 build from {src.ns2}",
             f"tcpap {'yes' if src.tcpap is not None else 'no'}",
             f"aodv {'hello' if aodv_hello else 'link-layer'}"] + [f"port {p.label}" for p in loaded]
    (outp / "BUILD.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ns


def probe_port(ns: Path, workdir: Path, port: "Port") -> str:
    """Run the port's probe script on the built ns; it must print a line starting with ``ok``."""
    if not port.probe.strip():
        return f"{port.label}: applied (no probe)"
    script = workdir / f"probe-{port.name}.tcl"
    script.write_text(port.probe, encoding="utf-8")
    proc = subprocess.run([str(ns), str(script)], capture_output=True, text=True, timeout=60, check=False)
    out = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not any(line.startswith("ok") for line in out):
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        raise SpecError(f"{ns}: the port {port.name}'s probe failed ({tail})")
    return f"{port.label}: " + next(line for line in out if line.startswith("ok"))
