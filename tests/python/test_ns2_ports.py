"""The ns-2.35 ports' manifests and how `hoptcp ns2 build` applies them (without compiling ns-2).

The clean-room ports themselves (ns2/ports/<port>/) have their own tests; here a hand-made
port is applied to a hand-made tree: anchors, markers, idempotence, the one-line errors.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hoptcp.errors import SpecError
from hoptcp.ns2 import build as nb
from hoptcp.ns2 import ports as pl

MANIFEST = '''name = "toy"
description = "a hand-made port"
objects = ["mac/toy.o"]
defaults = """
Mac/Toy set gain_ 2
"""

[[insert]]
id = "hook"
file = "mac/mac.cc"
anchor = "void Mac::recv("
text = "    toy_hook();"

[[insert]]
id = "tcl"
file = "tcl/lib/ns-lib.tcl"
anchor = "proc create-wireless-node"
position = "before"
text = "# the toy's Tcl line"
'''


def make(tmp_path: Path, manifest: str = MANIFEST) -> tuple[Path, Path]:
    ports_dir = tmp_path / "ports"
    root = ports_dir / "toy"
    (root / "files" / "mac").mkdir(parents=True)
    (root / "port.toml").write_text(manifest)
    (root / "files" / "mac" / "toy.cc").write_text("// the toy\n")
    tree = tmp_path / "tree"
    for rel, text in {"mac/mac.cc": "int x;  // Mac\nvoid Mac::recv(Packet* p)\n{\n}\n",
                      "tcl/lib/ns-lib.tcl": "set a 1\nproc create-wireless-node args {\n}\n",
                      "tcl/lib/ns-default.tcl": "Mac set bandwidth_ 2e6\n",
                      "Makefile.in": "OBJ_CC = \\\n\ttcp/tcp-newreno.o tcp/tcp-rfc793edu.o \\\n"}.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_text(text)
    return ports_dir, tree


def snapshot(tree: Path) -> dict[str, str]:
    return {str(p.relative_to(tree)): p.read_text() for p in sorted(tree.rglob("*")) if p.is_file()}


def test_a_port_is_applied_once_with_marked_blocks(tmp_path: Path) -> None:
    ports_dir, tree = make(tmp_path)
    port = pl.load("toy", ports_dir)
    pl.apply(port, tree)
    mac = (tree / "mac" / "mac.cc").read_text()
    assert mac == ("int x;  // Mac\nvoid Mac::recv(Packet* p)\n// hoptcp-port:toy:hook begin\n    toy_hook();\n"
                   "// hoptcp-port:toy:hook end\n{\n}\n")
    tcl = (tree / "tcl" / "lib" / "ns-lib.tcl").read_text()
    assert tcl.index("# hoptcp-port:toy:tcl begin") < tcl.index("proc create-wireless-node")
    assert "tcp/tcp-newreno.o mac/toy.o tcp/tcp-rfc793edu.o" in (tree / "Makefile.in").read_text()
    assert (tree / "mac" / "toy.cc").read_text() == "// the toy\n"
    assert "Mac/Toy set gain_ 2\n" in (tree / "tcl" / "lib" / "ns-default.tcl").read_text()
    once = snapshot(tree)
    pl.apply(pl.load("toy", ports_dir), tree)
    assert snapshot(tree) == once


def test_a_changed_manifest_replaces_its_blocks_and_nothing_else(tmp_path: Path) -> None:
    ports_dir, tree = make(tmp_path)
    pl.apply(pl.load("toy", ports_dir), tree)
    (ports_dir / "toy" / "port.toml").write_text(MANIFEST.replace("toy_hook();", "toy_hook(p);"))
    pl.apply(pl.load("toy", ports_dir), tree)
    mac = (tree / "mac" / "mac.cc").read_text()
    assert "toy_hook(p);" in mac and "toy_hook();" not in mac and mac.count("hoptcp-port:toy:hook begin") == 1


def test_the_digest_follows_the_ports_files(tmp_path: Path) -> None:
    ports_dir, _ = make(tmp_path)
    before = pl.load("toy", ports_dir).digest
    assert len(before) == 12 and pl.load("toy", ports_dir).label == f"toy@{before}"
    (ports_dir / "toy" / "files" / "mac" / "toy.cc").write_text("// the toy, changed\n")
    assert pl.load("toy", ports_dir).digest != before


@pytest.mark.parametrize("change, message", [
    (('anchor = "void Mac::recv("', 'anchor = "Mac"'), r"insertion hook: the anchor 'Mac' matches 2 lines"),
    (('anchor = "void Mac::recv("', 'anchor = "nowhere"'), r"matches 0 lines of mac/mac.cc"),
])
def test_an_anchor_must_match_exactly_one_line(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    ports_dir, tree = make(tmp_path, MANIFEST.replace(*change))
    with pytest.raises(SpecError, match=message) as exc:
        pl.apply(pl.load("toy", ports_dir), tree)
    assert "\n" not in str(exc.value)


def test_an_anchor_inside_another_ports_block_does_not_count(tmp_path: Path) -> None:
    ports_dir, tree = make(tmp_path)
    pl.apply(pl.load("toy", ports_dir), tree)
    # a second port anchored on the first one's text: the first port's lines are not ns-2's
    other = ports_dir / "other"
    other.mkdir()
    (other / "port.toml").write_text('[[insert]]\nid = "x"\nfile = "mac/mac.cc"\nanchor = "toy_hook"\ntext = "y"\n')
    with pytest.raises(SpecError, match="matches 0 lines"):
        pl.apply(pl.load("other", ports_dir), tree)


@pytest.mark.parametrize("manifest, message", [
    ('name = "toy"\ncolour = 1\n', r"unknown key 'colour'"),
    ('name = "other"\n', r"name = 'other' \(allowed: 'toy'"),
    ('objects = ["mac/toy.cc"]\n', r"objects = \['mac/toy.cc'\] \(allowed: a list of object paths ending in .o\)"),
    ('[[insert]]\nid = "a"\nfile = "f"\nanchor = "x"\nposition = "inside"\ntext = ""\n',
     r"position = 'inside' \(allowed: after, before\)"),
    ('[[insert]]\nid = "a"\nfile = "f"\nanchor = "x"\ntext = ""\n[[insert]]\nid = "a"\nfile = "f"\nanchor = "y"\n'
     'text = ""\n', r"insert #2: id = 'a' \(allowed: unique"),
    ('name = ', r"not valid TOML"),
])
def test_a_bad_manifest_is_one_line(tmp_path: Path, manifest: str, message: str) -> None:
    ports_dir, _ = make(tmp_path, manifest)
    with pytest.raises(SpecError, match=message) as exc:
        pl.load("toy", ports_dir)
    assert "\n" not in str(exc.value)


def test_an_unknown_port_names_the_available_ones(tmp_path: Path) -> None:
    ports_dir, _ = make(tmp_path)
    with pytest.raises(SpecError, match=r"--with-ports nope: no .* \(available ports: toy\)"):
        pl.load("nope", ports_dir)
    assert pl.parse_names("all", ports_dir) == ["toy"] and pl.parse_names("a, b", ports_dir) == ["a", "b"]


def test_aodv_hello_mode_toggles_the_link_layer_define() -> None:
    stock = "#define AODV_LINK_LAYER_DETECTION\n#define AODV_USE_LL_METRIC\n"
    hello = nb.aodv_mode(stock, hello=True)
    assert "#define AODV_LINK_LAYER_DETECTION\n" not in hello and "#define AODV_USE_LL_METRIC" in hello
    assert nb.aodv_mode(hello, hello=False) == stock and nb.aodv_mode(hello, hello=True) == hello


def test_build_without_tcpap_checks_only_the_ns2_tree(tmp_path: Path) -> None:
    from test_ns2_hybrid import make_trees

    _, ns2 = make_trees(tmp_path)
    assert nb.check_sources(None, ns2).tcpap is None


def test_build_cli_needs_something_to_add(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from hoptcp.cli import main
    from test_ns2_hybrid import make_trees

    _, ns2 = make_trees(tmp_path)
    assert main(["ns2", "build", "--ns2-src", str(ns2)]) == 2
    err = capsys.readouterr().err
    assert "nothing to add: give --with-tcpap, --with-ports or --aodv-hello" in err


@pytest.mark.skipif(not os.environ.get("HOPTCP_NS2_PORTS"), reason="HOPTCP_NS2_PORTS (a built ns with the ports) unset")
def test_the_built_binary_names_its_ports() -> None:
    ns = Path(os.environ["HOPTCP_NS2_PORTS"])
    build_txt = ns.parent.parent / "BUILD.txt"
    assert build_txt.is_file() and "port " in build_txt.read_text()


def test_the_hello_build_marks_itself_for_exported_scripts() -> None:
    nd = "Agent/AODV set x_ 0\n"
    marked = nb.hello_marker(nd, hello=True)
    assert marked.endswith(nb.HELLO_MARK + "\n") and nb.hello_marker(marked, hello=True) == marked
    assert nb.hello_marker(marked, hello=False) == nd


def test_an_aodv_hello_export_is_guarded_and_the_mac_one_is_not() -> None:
    from hoptcp.ns2.exporter import AODV_HELLO_GUARD, export
    from hoptcp.scenario import Scenario

    root = Path(__file__).resolve().parents[2]
    sc = Scenario.load(root / "examples" / "chain7.toml").with_overrides(
        {"routing.protocol": "aodv", "duration_s": 10.0})
    hello = export(sc.with_overrides({"routing.aodv.link_detection": "hello"}), 1).tcl
    mac = export(sc, 1).tcl
    assert AODV_HELLO_GUARD in hello and AODV_HELLO_GUARD not in mac
    assert "hoptcp ns2 build --aodv-hello" in AODV_HELLO_GUARD


@pytest.mark.skipif(not os.environ.get("HOPTCP_NS2_HELLO"), reason="HOPTCP_NS2_HELLO (an ns built --aodv-hello) unset")
def test_the_hello_binary_runs_a_hello_export(tmp_path: Path) -> None:
    import subprocess

    from hoptcp.ns2.exporter import export
    from hoptcp.scenario import Scenario

    root = Path(__file__).resolve().parents[2]
    sc = Scenario.load(root / "examples" / "chain7.toml").with_overrides(
        {"routing.protocol": "aodv", "routing.aodv.link_detection": "hello", "duration_s": 5.0})
    script = tmp_path / "h.tcl"
    script.write_text(export(sc, 1).tcl)
    ok = subprocess.run([os.environ["HOPTCP_NS2_HELLO"], str(script), str(tmp_path / "o")], capture_output=True,
                        text=True, timeout=120)
    assert ok.returncode == 0 and "needs ns-2.35 with AODV's HELLO" not in ok.stderr


def test_a_changed_header_makes_its_includers_objects_stale(tmp_path: Path) -> None:
    ports_dir, tree = make(tmp_path, MANIFEST + '''
[[insert]]
id = "member"
file = "mac/mac.h"
anchor = "class Mac {"
text = "    int toy_;"
''')
    (tree / "mac" / "mac.h").write_text("class Mac {\n};\n")
    for name, inc in (("mac.cc", '#include "mac.h"\n'), ("ll.cc", "#include <mac.h>\n"), ("other.cc", "int y;\n")):
        (tree / "mac" / name).write_text(inc + (tree / "mac" / name).read_text() if (tree / "mac" / name).exists()
                                         else inc)
        (tree / "mac" / name).with_suffix(".o").write_text("obj")
    pl.apply(pl.load("toy", ports_dir), tree)
    left = sorted(p.name for p in (tree / "mac").glob("*.o"))
    assert left == ["other.o"], "the objects of mac.cc and ll.cc include the changed mac.h"
    for name in ("mac.o", "ll.o"):
        (tree / "mac" / name).write_text("obj")
    pl.apply(pl.load("toy", ports_dir), tree)  # nothing changed: nothing is stale
    assert sorted(p.name for p in (tree / "mac").glob("*.o")) == ["ll.o", "mac.o", "other.o"]


def test_the_validation_page_shows_each_ports_table_and_disagreements(tmp_path: Path) -> None:
    from hoptcp.ns2.validation import ports_section

    d = tmp_path / "ports"
    d.mkdir()
    assert ports_section(d) == ""
    (d / "toy.toml").write_text('seeds = [1, 2]\n\n[[case]]\nname = "c1"\ngroup = "g"\nwhat = "a case"\n'
                                'toml = """duration_s = 1.0"""\n')
    (d / "toy-results.json").write_text('{"cases": {}, "hoptcp_version": "v1"}')
    (d / "toy-disagreements.md").write_text("# toy\n\n## 1. A first disagreement\n\ntext\n\n## Open\n")
    text = ports_section(d)
    assert "### `toy`" in text and "- 1. A first disagreement" in text and "- Open" in text


def test_runs_of_a_built_ns_are_stored_under_its_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hoptcp.ns2 import run

    monkeypatch.delenv("HOPTCP_NS", raising=False)
    stock = run.ns2_version()
    (tmp_path / "src").mkdir()
    ns = tmp_path / "src" / "ns"
    ns.write_text("#!/bin/sh\n")
    ns.chmod(0o755)
    (tmp_path / "BUILD.txt").write_text("ns-2.35 built by hoptcp ns2 build from /x\ntcpap no\naodv link-layer\n"
                                        "port toy@0123456789ab\n")
    monkeypatch.setenv("HOPTCP_NS", str(ns))
    assert run.built_from() == "tcpap no\naodv link-layer\nport toy@0123456789ab"
    built = run.ns2_version()
    assert built != stock
    (tmp_path / "BUILD.txt").write_text("tcpap no\naodv link-layer\nport toy@ba9876543210\n")
    assert run.ns2_version() not in (stock, built), "another port digest, another store version"
