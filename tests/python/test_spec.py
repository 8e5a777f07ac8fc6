from pathlib import Path

import pytest

from hoptcp import SpecError, SweepSpec
from hoptcp.sweep import plan


def write_spec(tmp_path: Path, body: str, scenario_file: Path | None = None) -> Path:
    p = tmp_path / "spec.toml"
    head = f'scenario = "{scenario_file.name}"\n' if scenario_file else ""
    p.write_text(head + body)
    return p


def test_full_spec(fake_core, tmp_path, scenario_file):
    p = write_spec(tmp_path, """
name = "win"
replications = 3
metrics = ["aggregate_goodput_bps", "flow.*.avg_cwnd"]
[grid]
tcp.max_window = [1, 2, 4]
"mac.queue_limit" = [10, 50]
[zip]
"topology.hops" = [2, 3]
"flows.0.dst" = [2, 3]
[set]
duration_s = 2.0
""", scenario_file)
    spec = SweepSpec.load(p)
    assert spec.name == "win" and spec.seeds == [1, 2, 3]
    assert spec.grid == {"tcp.max_window": [1, 2, 4], "mac.queue_limit": [10, 50]}
    pts = spec.points()
    assert len(pts) == 3 * 2 * 2 and spec.run_count() == 36
    assert pts[0] == {"tcp.max_window": 1, "mac.queue_limit": 10, "topology.hops": 2, "flows.0.dst": 2}
    assert pts[1]["topology.hops"] == 3 and pts[1]["flows.0.dst"] == 3  # zipped together
    pl = plan(spec)
    assert len(pl.tasks) == 36 and len(pl.members) == 36 and pl.points == 12


def test_inline_scenario_and_name_default(fake_core, tmp_path):
    p = tmp_path / "inline.toml"
    p.write_text("""
seeds = [4, 7]
[scenario]
duration_s = 1.0
[scenario.topology]
kind = "chain"
hops = 2
[[scenario.flows]]
src = 0
dst = 2
[grid]
"tcp.max_window" = [2, 3]
""")
    spec = SweepSpec.load(p)
    assert spec.name == "inline" and spec.seeds == [4, 7]
    assert plan(spec).tasks[0].scenario_json


def test_default_seed_is_the_scenarios(fake_core, scenario_file):
    spec = SweepSpec.build(scenario_file, grid={"tcp.max_window": [1]})
    assert spec.seeds is None and [t.seed for t in plan(spec).tasks] == [3]


def test_identical_points_share_runs(fake_core, scenario_file):
    # 0 and 0.0 are different points that resolve to the same scenario: one run serves both
    pl = plan(SweepSpec.build(scenario_file, grid={"flows.0.start_s": [0, 0.0]}, seeds=[1]))
    assert len(pl.members) == 2 and len(pl.tasks) == 1


@pytest.mark.parametrize("body, message", [
    ('scenario = "chain.toml"\ngird = {}', "unknown key 'gird' (did you mean 'grid'?)"),
    ('grid = {"tcp.max_window" = [1]}', "missing key 'scenario'"),
    ('scenario = "nope.toml"', 'scenario = "nope.toml": file not found'),
    ('scenario = 3', "expected a file path or a [scenario] table"),
    ('scenario = "chain.toml"\n[grid]\n"tcp.max_window" = []', "grid.tcp.max_window: the list is empty"),
    ('scenario = "chain.toml"\n[grid]\n"tcp.max_window" = 3', "grid.tcp.max_window: expected a list of values, got 3"),
    ('scenario = "chain.toml"\n[zip]\na = [1, 2]\nb = [1]', "zip: all lists must have the same length; a has 2, b has 1"),
    ('scenario = "chain.toml"\nseeds = [1]\nreplications = 2', "either seeds"),
    ('scenario = "chain.toml"\nseeds = []', "seeds: the list is empty"),
    ('scenario = "chain.toml"\nseeds = [1, 1]', "seeds: 1 is listed twice"),
    ('scenario = "chain.toml"\nseeds = [-1]', "seeds: invalid value -1"),
    ('scenario = "chain.toml"\nreplications = 0', "replications: invalid value 0"),
    ('scenario = "chain.toml"\nmetrics = "x"', "metrics: expected a list"),
    ('scenario = "chain.toml"\nname = ""', "name: expected a non-empty string"),
    ('scenario = "chain.toml"\ngrid = 3', "grid: expected a table"),
    ('scenario = "chain.toml"\n[grid]\n"tcp.max_window" = [1]\n[set]\n"tcp.max_window" = 2',
     "set.tcp.max_window: key already given in [grid]"),
    ('scenario = "chain.toml"\n[grid\n', "invalid TOML"),
])
def test_bad_specs(fake_core, tmp_path, scenario_file, body, message):
    p = tmp_path / "spec.toml"
    p.write_text(body)
    with pytest.raises(SpecError) as exc:
        SweepSpec.load(p)
    assert message in str(exc.value)
    assert "\n" not in str(exc.value)


def test_unknown_scenario_key_found_up_front(fake_core, scenario_file):
    spec = SweepSpec.build(scenario_file, grid={"tcp.max_widow": [1, 2]})
    with pytest.raises(SpecError, match=r"point tcp.max_widow=1: unknown key 'tcp.max_widow'"):
        plan(spec)
    spec = SweepSpec.build(scenario_file, grid={"topology.kind": ["chain", "ring"]})
    with pytest.raises(SpecError, match=r'point topology.kind="ring": topology.kind: invalid value "ring"'):
        plan(spec)
    with pytest.raises(SpecError, match=r"scenario with \[set\]"):
        plan(SweepSpec.build(scenario_file, set={"mac.bogus": 1}))


def test_missing_spec_file(tmp_path):
    with pytest.raises(SpecError, match="sweep spec not found"):
        SweepSpec.load(tmp_path / "none.toml")


def test_api_accepts_ranges_and_arrays(fake_core, scenario_file):
    np = pytest.importorskip("numpy")
    spec = SweepSpec.build(scenario_file, grid={"tcp.max_window": range(1, 4), "flows.0.start_s": np.array([0.0, 1.0])},
                           seeds=range(3))
    assert spec.grid["tcp.max_window"] == [1, 2, 3] and spec.seeds == [0, 1, 2]
    assert spec.name.startswith("chain-")
    with pytest.raises(SpecError, match="expected a list"):
        SweepSpec.build(scenario_file, grid={"tcp.max_window": "123"})
