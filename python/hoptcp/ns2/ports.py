"""The ns-2.35 ports of the papers' cures (``ns2/ports/<port>/``), applied to a source tree.

A port is our own files plus anchored insertions into ns-2.35's files (the format is in
``ns2/ports/README.md``). Applying a port copies its ``files/`` into the tree, adds its objects
to ``Makefile.in``, its class defaults to ``tcl/lib/ns-default.tcl`` and its insertions, each
wrapped in marker comments so that applying it again replaces the blocks with the manifest's
current text (make then recompiles only what changed).
"""

from __future__ import annotations

import hashlib
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from .._toml import TOMLDecodeError, tomllib
from ..errors import SpecError

#: where the ports live in a source checkout (python/hoptcp/ns2 -> the repository's ns2/ports)
DEFAULT_PORTS_DIR = Path(__file__).resolve().parents[3] / "ns2" / "ports"
#: the object Makefile.in's list always has, after which the ports' objects go
OBJECT_ANCHOR = "tcp/tcp-newreno.o"
POSITIONS = ("after", "before")


@dataclass(frozen=True)
class Insertion:
    id: str
    file: str
    anchor: str
    position: str
    text: str


@dataclass(frozen=True)
class Port:
    name: str
    root: Path
    description: str
    objects: tuple[str, ...]
    defaults: str
    probe: str
    insertions: tuple[Insertion, ...]
    files: tuple[Path, ...] = field(default=())

    @property
    def digest(self) -> str:
        """12 hex digits of SHA-256 over the port's files (paths and contents, sorted)."""
        h = hashlib.sha256()
        for p in sorted(q for q in self.root.rglob("*") if q.is_file() and "__pycache__" not in q.parts):
            h.update(p.relative_to(self.root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
        return h.hexdigest()[:12]

    @property
    def label(self) -> str:
        return f"{self.name}@{self.digest}"


def available(ports_dir: Path = DEFAULT_PORTS_DIR) -> list[str]:
    """The ports that have a manifest, sorted by name."""
    if not ports_dir.is_dir():
        return []
    return sorted(d.name for d in ports_dir.iterdir() if (d / "port.toml").is_file())


def _str(man: dict[str, object], key: str, where: str, default: str | None = None) -> str:
    v = man.get(key, default)
    if not isinstance(v, str):
        raise SpecError(f"{where}: '{key}' = {v!r} (allowed: a string)")
    return v


def load(name: str, ports_dir: Path = DEFAULT_PORTS_DIR) -> Port:
    """Read and check ``ports_dir/name/port.toml``; one clear error line otherwise."""
    root = ports_dir / name
    path = root / "port.toml"
    if not path.is_file():
        have = ", ".join(available(ports_dir)) or "none"
        raise SpecError(f"--with-ports {name}: no {path} (available ports: {have})")
    try:
        man = tomllib.loads(path.read_text(encoding="utf-8"))
    except TOMLDecodeError as e:
        raise SpecError(f"{path}: not valid TOML ({e})") from None
    where = str(path)
    allowed = {"name", "description", "objects", "defaults", "probe", "insert"}
    unknown = sorted(set(man) - allowed)
    if unknown:
        raise SpecError(f"{where}: unknown key '{unknown[0]}' (allowed: {', '.join(sorted(allowed))})")
    if _str(man, "name", where, name) != name:
        raise SpecError(f"{where}: name = {man['name']!r} (allowed: {name!r}, the directory's name)")
    objects = man.get("objects", [])
    if not isinstance(objects, list) or not all(isinstance(o, str) and o.endswith(".o") for o in objects):
        raise SpecError(f"{where}: objects = {objects!r} (allowed: a list of object paths ending in .o)")
    ins: list[Insertion] = []
    ids: set[str] = set()
    for i, raw in enumerate(man.get("insert", [])):
        w = f"{where}: insert #{i + 1}"
        if not isinstance(raw, dict):
            raise SpecError(f"{w}: not a table")
        extra = sorted(set(raw) - {"id", "file", "anchor", "position", "text"})
        if extra:
            raise SpecError(f"{w}: unknown key '{extra[0]}' (allowed: anchor, file, id, position, text)")
        one = Insertion(_str(raw, "id", w), _str(raw, "file", w), _str(raw, "anchor", w),
                        _str(raw, "position", w, "after"), _str(raw, "text", w))
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", one.id) or one.id in ids:
            raise SpecError(f"{w}: id = {one.id!r} (allowed: unique, letters, digits, '_', '-', '.')")
        if one.position not in POSITIONS:
            raise SpecError(f"{w}: position = {one.position!r} (allowed: after, before)")
        if not one.anchor.strip():
            raise SpecError(f"{w}: anchor is empty (allowed: a substring of exactly one line)")
        ids.add(one.id)
        ins.append(one)
    files_dir = root / "files"
    files = tuple(sorted(p for p in files_dir.rglob("*") if p.is_file())) if files_dir.is_dir() else ()
    return Port(name, root, _str(man, "description", where, ""), tuple(objects),
                _str(man, "defaults", where, ""), _str(man, "probe", where, ""), tuple(ins), files)


def parse_names(spec: str, ports_dir: Path = DEFAULT_PORTS_DIR) -> list[str]:
    """``all`` or a comma-separated list of port names."""
    if spec.strip() in ("", "all"):
        names = available(ports_dir)
        if not names:
            raise SpecError(f"--with-ports: no ports under {ports_dir}")
        return names
    return [n.strip() for n in spec.split(",") if n.strip()]


# --- applying a port ------------------------------------------------------------------------------

def _comment(file: str) -> str:
    return "#" if file.endswith((".tcl", ".in", ".sh")) or "Makefile" in file else "//"


def _markers(port: str, ins_id: str, file: str) -> tuple[str, str]:
    c = _comment(file)
    return f"{c} hoptcp-port:{port}:{ins_id} begin", f"{c} hoptcp-port:{port}:{ins_id} end"


_BLOCK = re.compile(r"^[ \t]*(?://|#) hoptcp-port:([^:\s]+):(\S+) begin\n.*?^[ \t]*(?://|#) hoptcp-port:\1:\2 end\n",
                    re.M | re.S)


def _split(text: str) -> list[tuple[str, tuple[str, str] | None]]:
    out: list[tuple[str, tuple[str, str] | None]] = []
    pos = 0
    for m in _BLOCK.finditer(text):
        out.append((text[pos:m.start()], None))
        out.append((m.group(0), (m.group(1), m.group(2))))
        pos = m.end()
    out.append((text[pos:], None))
    return out


def _remove(text: str, port: str, ins_id: str) -> str:
    return "".join(s for s, key in _split(text) if key != (port, ins_id))


def insert(text: str, port: str, ins: Insertion) -> str:
    """``text`` with the insertion's block placed at its anchor (replacing an earlier block)."""
    text = _remove(text, port, ins.id)
    begin, end = _markers(port, ins.id, ins.file)
    lines = text.splitlines(keepends=True)
    # anchors are matched only outside every port's blocks
    inside, depth_key = [False] * len(lines), None
    for i, line in enumerate(lines):
        m = re.match(r"^[ \t]*(?://|#) hoptcp-port:(\S+) (begin|end)$", line.rstrip("\n"))
        if m and m.group(2) == "begin":
            depth_key = m.group(1)
        inside[i] = depth_key is not None
        if m and m.group(2) == "end":
            depth_key = None
    hits = [i for i, line in enumerate(lines) if not inside[i] and ins.anchor in line]
    if len(hits) != 1:
        raise SpecError(f"port {port}, insertion {ins.id}: the anchor {ins.anchor!r} matches {len(hits)} lines "
                        f"of {ins.file} (allowed: exactly 1)")
    body = ins.text if ins.text.endswith("\n") else ins.text + "\n"
    block = f"{begin}\n{body}{end}\n"
    at = hits[0] + 1 if ins.position == "after" else hits[0]
    if at > 0 and not lines[at - 1].endswith("\n"):
        lines[at - 1] += "\n"
    lines.insert(at, block)
    return "".join(lines)


def add_objects(makefile_in: str, port: Port) -> str:
    """Makefile.in with the port's objects after :data:`OBJECT_ANCHOR` (each once)."""
    for obj in port.objects:
        if re.search(rf"(?<![\w/.-]){re.escape(obj)}(?![\w.-])", makefile_in):
            continue
        makefile_in, n = re.subn(rf"{re.escape(OBJECT_ANCHOR)}(\s)", rf"{OBJECT_ANCHOR} {obj}\1", makefile_in, count=1)
        if n != 1:
            raise SpecError(f"port {port.name}: Makefile.in has no {OBJECT_ANCHOR} to add {obj} after")
    return makefile_in


def add_defaults(ns_default: str, port: Port) -> str:
    """ns-default.tcl with the port's class defaults in one marked block (replaced on a re-run)."""
    if not port.defaults.strip():
        return _remove(ns_default, port.name, "defaults")
    text = _remove(ns_default, port.name, "defaults")
    begin, end = _markers(port.name, "defaults", "ns-default.tcl")
    body = port.defaults.strip("\n") + "\n"
    return text.rstrip("\n") + "\n\n" + f"{begin}\n{body}{end}\n"


def _rewrite(path: Path, new: str) -> bool:
    """Write ``new`` if it differs; whether it did."""
    if path.read_text(encoding="utf-8", errors="replace") != new:
        path.write_text(new, encoding="utf-8")
        return True
    return False


def stale_objects(tree: Path, headers: list[Path]) -> list[Path]:
    """The object files of sources that include one of ``headers`` (ns-2's Makefile has no header
    dependencies, so make would keep them with the header's old layout)."""
    if not headers:
        return []
    names = {h.name for h in headers}
    pat = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
    out = []
    for src in tree.rglob("*.cc"):
        obj = src.with_suffix(".o")
        if not obj.is_file():
            continue
        text = src.read_text(encoding="utf-8", errors="replace")
        if any(Path(inc).name in names for inc in pat.findall(text)):
            out.append(obj)
    return sorted(out)


def apply(port: Port, tree: Path) -> None:
    """Apply ``port`` to the ns-2.35 tree at ``tree`` (idempotent)."""
    headers: list[Path] = []
    for f in port.files:
        dst = tree / f.relative_to(port.root / "files")
        if not dst.is_file() or dst.read_bytes() != f.read_bytes():
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(f, dst)
            if dst.suffix == ".h":
                headers.append(dst)
    mk = tree / "Makefile.in"
    _rewrite(mk, add_objects(mk.read_text(encoding="utf-8", errors="replace"), port))
    nd = tree / "tcl" / "lib" / "ns-default.tcl"
    _rewrite(nd, add_defaults(nd.read_text(encoding="utf-8", errors="replace"), port))
    by_file: dict[str, list[Insertion]] = {}
    for ins in port.insertions:
        by_file.setdefault(ins.file, []).append(ins)
    for name, items in by_file.items():
        target = tree / name
        if not target.is_file():
            raise SpecError(f"port {port.name}: no file {name} in the ns-2.35 tree (insertion {items[0].id})")
        text = target.read_text(encoding="utf-8", errors="replace")
        for ins in items:
            text = insert(text, port.name, ins)
        if _rewrite(target, text) and target.suffix == ".h":
            headers.append(target)
    for obj in stale_objects(tree, headers):
        obj.unlink()
