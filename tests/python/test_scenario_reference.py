"""`hoptcp scenario show` and docs/scenario-reference.md, both generated from the core's
declaration of every scenario key (on its field, crates/hoptcp-core/src/scenario/schema.rs). That the
declarations match what the parser accepts is checked in crates/hoptcp-core/src/scenario/keys_tests.rs."""

import json
from pathlib import Path

import pytest

from hoptcp import Scenario
from hoptcp.cli import main
from hoptcp.reproduce.catalogue import catalogue
from hoptcp.scenario_reference import DOC_PATH, not_written, reference_markdown, show_toml

pytestmark = pytest.mark.core

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))


def _entry_scenarios():
    for e in catalogue():
        yield pytest.param(e.scenario, id=e.id)
        for s in e.sides:
            yield pytest.param(s.scenario, id=f"{e.id}/{s.name}")


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_reference_document_is_current(real_core):
    doc = ROOT / DOC_PATH
    assert doc.is_file(), f"{DOC_PATH} is missing: run hoptcp scenario reference -o {DOC_PATH}"
    assert doc.read_text(encoding="utf-8") == reference_markdown(), \
        f"{DOC_PATH} is out of date: run hoptcp scenario reference -o {DOC_PATH}"


def test_reference_has_one_row_per_declared_key(real_core):
    from hoptcp import _bridge

    text = reference_markdown()
    keys = [k["key"] for k in _bridge.scenario_keys()["keys"]]
    for key in keys:
        assert text.count(f"| `{key}` |") == 1, key
    # The keys the issue found missing from docs/, spelled as a user writes them.
    for key in ["rows", "cols", "leaves", "radius_m", "nodes", "width_m", "height_m", "topology_seed",
                "require_connected", "positions", "chains", "chain_gap_m", "gateway"]:
        assert f"| `topology.{key}` |" in text, key
    for heading in ["## `[random_flows]`", "## `[wired]`", "## `[[wired.links]]`", "## `[mac.link_red]`",
                    "## `[mac.adaptive_pacing]`", "## `[ip.ldm]`", "## `[tcp.ap]`", "## `[routing.aodv]`",
                    "## `[[flows]]`", "## `[stats]`"]:
        assert heading in text, heading
    # The one default the issue found written twice: the schema's 20 is the declared (and run) value.
    assert "| `tcp.max_window` | integer or \"wstar\" | 20 | 1..=1000000 | packets |" in text


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_show_loads_back_to_the_same_scenario_examples(real_core, path):
    sc = Scenario.load(path)
    again = Scenario.from_toml(show_toml(sc))
    assert again.resolved() == sc.resolved()
    assert again.hash() == sc.hash()


@pytest.mark.parametrize("sc", list(_entry_scenarios()))
def test_show_loads_back_to_the_same_scenario_entries(real_core, sc):
    again = Scenario.from_toml(show_toml(sc))
    assert again.resolved() == sc.resolved()


def test_show_prints_every_filled_default_and_overrides(real_core, capsys, tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('[topology]\nkind = "chain"\nhops = 7\n[[flows]]\nsrc = 0\ndst = 7\ntransport = "tcp"\n')
    code, out, err = run_cli(capsys, "scenario", "show", f, "--set", "tcp.max_window=5", "--set", "radio.standard=ofdm")
    assert code == 0, err
    lines = set(out.splitlines())
    # Set in the file or by --set, and filled in by resolution (OFDM's CWmin and rates).
    for line in ["max_window = 5", "hops = 7", "cw_min = 15", "cw_max = 1023", "data_rate_mbps = 54.0",
                 "basic_rate_mbps = 6.0", "queue_limit = 50", "app = \"ftp\"", "ttl = 64"]:
        assert line in lines, line
    assert "#   mac.backoff_slots = \"exact\"" in lines
    assert "#   stats.batches: unset (no batch-means stop rule)" in lines
    code, out, err = run_cli(capsys, "scenario", "show", ROOT / "examples/chain7.toml", "--json")
    assert code == 0, err
    assert json.loads(out) == Scenario.load(ROOT / "examples/chain7.toml").resolved()


def test_show_bad_key_is_one_line_naming_it(real_core, capsys):
    code, out, err = run_cli(capsys, "scenario", "show", ROOT / "examples/chain7.toml", "--set", "tcp.max_windw=3")
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "tcp.max_windw" in lines[0] and "max_window" in lines[0], err
    code, out, err = run_cli(capsys, "scenario", "show", ROOT / "examples/chain7.toml", "--set", "tcp.max_window=0")
    assert code == 2 and "`tcp.max_window` = 0: must be an integer in 1..=1000000" in err, err


def test_not_written_follows_the_topology_kind(real_core):
    base = ('[[flows]]\nsrc = 0\ndst = 1\ntransport = "udp"\nrate_bps = 1e4\n')
    chain = Scenario.from_toml('[topology]\nkind = "chain"\nhops = 2\n' + base).resolved()
    random = Scenario.from_toml('[topology]\nkind = "random"\nnodes = 6\nwidth_m = 300\nheight_m = 300\n'
                                'require_connected = false\n' + base).resolved()
    assert not any(line.startswith("topology.") for line in not_written(chain))
    assert "topology.topology_seed: unset (the run seed)" in not_written(random)
    assert "[wired]: absent. A wired domain behind one Internet gateway; absent: all wireless." in not_written(chain)
    # A table the scenario has is not called absent.
    gap = Scenario.load(ROOT / "examples/gap-chain.toml").resolved()
    assert not any(line.startswith("[wired]") for line in not_written(gap))


def test_reference_check_fails_on_a_stale_file(real_core, capsys, tmp_path):
    out_file = tmp_path / "ref.md"
    code, _, err = run_cli(capsys, "scenario", "reference", "-o", out_file, "--check")
    assert code == 2 and "is missing" in err
    code, _, err = run_cli(capsys, "scenario", "reference", "-o", out_file)
    assert code == 0, err
    code, _, err = run_cli(capsys, "scenario", "reference", "-o", out_file, "--check")
    assert code == 0, err
    out_file.write_text(out_file.read_text().replace("| 300.0 |", "| 200.0 |"))
    code, _, err = run_cli(capsys, "scenario", "reference", "-o", out_file, "--check")
    assert code == 2 and "is out of date" in err, err
