"""The ``hoptcp`` command's fast lane (``hoptcp run SCENARIO --json``): which
arguments take it, that it prints what the full command line prints, and that
every mistake still gets the full command line's one line."""

import json
import subprocess
import sys

import pytest

from hoptcp import cli, entry


def outcome(capsys, main, args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("args, request_", [
    (["run", "a.toml", "--json"], ("a.toml", [], None)),
    (["run", "--json", "a.toml"], ("a.toml", [], None)),
    (["run", "a.toml", "--json", "--set", "tcp.max_window=3", "--set=duration_s=5", "--seed", "7"],
     ("a.toml", ["tcp.max_window=3", "duration_s=5"], 7)),
    (["run", "a.toml", "--seed=1", "--json", "--seed", "2"], ("a.toml", [], 2)),  # the last one wins, as in click
    (["run", "a.toml", "--set", "--json", "--json"], ("a.toml", ["--json"], None)),  # click takes the word as the value
])
def test_the_lane_takes_run_json_with_set_and_seed(args, request_):
    assert entry.fast_run_request(args) == request_


@pytest.mark.parametrize("args", [
    [], ["run"], ["run", "a.toml"],  # no --json: the summary tables need rich
    ["run", "--json"], ["run", "a.toml", "b.toml", "--json"], ["run", "a.toml", "--json", "--help"],
    ["run", "a.toml", "--json", "--pcap", "t.pcapng"], ["run", "a.toml", "--json", "--series", "cwnd"],
    ["run", "a.toml", "--json", "--seed", "-1"], ["run", "a.toml", "--json", "--seed", "+3"],
    ["run", "a.toml", "--json", "--seed", "1_0"], ["run", "a.toml", "--json", "--seed"],
    ["run", "a.toml", "--json", "--set"], ["run", "a.toml", "--json", "--"], ["run", "-", "--json"],
    ["--version"], ["sweep", "a.toml", "--json"], ["scenario", "show", "a.toml"],
])
def test_everything_else_goes_to_the_full_command_line(args):
    assert entry.fast_run_request(args) is None


def test_the_lane_prints_what_the_full_command_line_prints(fake_core, capsys, scenario_file):
    args = ["run", scenario_file, "--json", "--set", "tcp.max_window=3", "--seed", "5", "--set", "tcp.max_window=4"]
    fast = outcome(capsys, entry.main, args)
    full = outcome(capsys, cli.main, args)
    assert (fast[0], fast[2]) == (full[0], full[2]) == (0, "")
    results = [json.loads(out) for _, out, _ in (fast, full)]
    for r in results:
        r.pop("wall_time_s")  # the one field that is not a result
    assert results[0] == results[1] and results[0]["seed"] == 5
    assert fast[1].endswith("}\n") and "\n" not in fast[1][:-1]  # one JSON document on one line, as click echoes it
    assert fake_core.runs == 2


@pytest.mark.parametrize("make_args", [
    lambda f, d: ["run", d / "missing.toml", "--json"],
    lambda f, d: ["run", d, "--json"],  # a directory
    lambda f, d: ["run", d / "bad.toml", "--json"],  # not TOML
    lambda f, d: ["run", f, "--json", "--set", "tcp.max_window"],
    lambda f, d: ["run", f, "--json", "--set", ".tcp=3"],
    lambda f, d: ["run", f, "--json", "--set", "flows.0.dst=99"],  # found by the core
    lambda f, d: ["run", f, "--json", "--seed", "99999999999999999999"],
])
def test_every_mistake_gets_the_full_command_lines_line(fake_core, capsys, scenario_file, make_args):
    (scenario_file.parent / "bad.toml").write_text("duration_s = = 3\n")
    args = make_args(scenario_file, scenario_file.parent)
    fast = outcome(capsys, entry.main, args)
    full = outcome(capsys, cli.main, args)
    assert fast == full
    code, out, err = fast
    assert code == 2 and out == "" and err.startswith("hoptcp: error: ") and len(err.splitlines()) == 1
    assert fake_core.runs == 0


class InterruptedCore:
    """A core whose run is stopped by Ctrl-C halfway."""

    from hoptcp.errors import ScenarioError

    def run(self, scenario_toml, overrides, seed, pcap, progress=None, progress_every_s=None):
        progress(0.5)
        raise KeyboardInterrupt


def test_ctrl_c_in_the_lane_says_how_far_the_run_got(capsys, scenario_file):
    from hoptcp import _bridge

    with _bridge.use_core(InterruptedCore()):
        fast = outcome(capsys, entry.main, ["run", scenario_file, "--json"])
        full = outcome(capsys, cli.main, ["run", scenario_file, "--json"])
    assert fast == full
    assert fast == (130, "", "hoptcp: interrupted: run interrupted at 50% of the simulated time: "
                             "single runs are not stored, nothing was kept\n")


@pytest.mark.core
def test_the_lane_imports_neither_click_nor_rich(real_core, scenario_file, subprocess_env):
    # nor pathlib, json or threading: a fifth of its start-up (docs/performance.md)
    code = (
        "import sys\n"
        "from hoptcp.entry import main\n"
        f"status = main(['run', {str(scenario_file)!r}, '--json', '--set', 'duration_s=0.5'])\n"
        "print(status, sorted(m for m in ('click', 'rich', 'hoptcp.cli', 'pandas', 'pathlib', 'json', 'threading')"
        " if m in sys.modules), file=sys.stderr)\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=subprocess_env, timeout=120)
    assert p.stderr.strip() == "0 []", p.stderr
    assert json.loads(p.stdout)["duration_s"] == 0.5


#: TOML the core's parser takes (TOML 1.1's additions, a byte-order mark) and Python's refuses
GOOD = 'duration_s = 0.02\nseed = 1\n[topology]\nkind = "chain"\nhops = 2\n'
FLOW = '[[flows]]\nsrc = 0\ndst = 2\ntransport = "tcp"\n'
LENIENT_TOML = {
    "byte-order mark": "\ufeff" + GOOD + FLOW,
    "trailing comma": GOOD.replace("[topology]", 'flows = [{src = 0, dst = 2, transport = "tcp",}]\n[topology]'),
    "newline in an inline table": GOOD.replace("[topology]", 'flows = [{src = 0,\n dst = 2, transport = "tcp"}]\n'
                                                             "[topology]"),
}


@pytest.mark.core
@pytest.mark.parametrize("name", LENIENT_TOML)
def test_the_lane_refuses_what_pythons_toml_parser_refuses(real_core, capsys, tmp_path, name):
    from hoptcp import _bridge

    text = LENIENT_TOML[name]
    _bridge.resolve_json(text)  # the core alone would run it
    f = tmp_path / "lenient.toml"
    f.write_text(text, encoding="utf-8")
    fast = outcome(capsys, entry.main, ["run", f, "--json"])
    assert fast == outcome(capsys, cli.main, ["run", f, "--json"])
    code, out, err = fast
    assert code == 2 and out == "" and "TOML" in err and len(err.splitlines()) == 1, fast


# --- the lane and the full command line agree on any arguments --------------------------

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

#: examples of the property (keep in step with docs/testing.md)
AGREEMENT_EXAMPLES = 300

#: words the lane takes (a lone "--seed" or "--set" takes the next word as its value; a lone
#: value is a second scenario, which sends the arguments to the full command line) ...
LANE_WORDS = ["--json", "--seed=3", "--seed=08", "--set=duration_s=0.01"] * 3 + ["--seed", "1", "--set", "duration_s=0.02"]
#: ... and words that send the arguments to the full command line
OTHER_WORDS = ["--seed=-2", "--", "-", "--help", "--series", "cwnd", "extra.toml", "--pcap"]
SETS = ["duration_s=0.02", "duration_s=-1", "duration_s=abc", "tcp.max_window=3", "tcp.max_window=0", "seed=4",
        "tcp.nosuch=1", ".tcp=1", "tcp.", "flows.0.dst=9", "flows.0.dst=1", "mac.queue_limit=2", "novalue", "=3"]
FILES = {"good": GOOD + FLOW,
         "bad-toml": "duration_s = = 1\n", "bad-key": "duration_s = 0.02\nnosuch = 1\n", "empty": ""}


def _normalised(result):
    code, out, err = result
    if code == 0 and out.startswith("{"):
        doc = json.loads(out)
        doc.pop("wall_time_s", None)
        out = doc
    return code, out, err


@pytest.mark.core
@settings(max_examples=AGREEMENT_EXAMPLES, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(file=st.sampled_from([*FILES, "missing"]), words=st.lists(st.sampled_from(LANE_WORDS), max_size=5),
       other=st.sampled_from([None] * 2 * len(OTHER_WORDS) + OTHER_WORDS),
       sets=st.lists(st.sampled_from(SETS), max_size=3), seed_at=st.integers(0, 6))  # seed_at: where --json goes
def test_the_lane_and_the_full_command_line_agree_on_any_arguments(real_core, capsys, tmp_path_factory, file, words,
                                                                    other, sets, seed_at):
    """Whatever the arguments, the console entry and the full command line give the same
    exit status, stderr and result (wall time aside). Only those the lane takes are run
    twice; for the others both are the same code."""
    d = tmp_path_factory.getbasetemp() / "agreement"
    if not d.exists():  # written once, for all the examples
        d.mkdir()
        for name, text in FILES.items():
            (d / f"{name}.toml").write_text(text)
    args = ["run", str(d / f"{file}.toml"), *words, *([other] if other else [])]
    for s in sets:
        args += ["--set", s]
    args.insert(min(1 + seed_at, len(args)), "--json")
    if entry.fast_run_request(args) is None:
        return
    fast = _normalised(outcome(capsys, entry.main, args))
    full = _normalised(outcome(capsys, cli.main, args))
    assert fast == full, args
    assert fast[0] in (0, 2) and len(fast[2].splitlines()) == (fast[0] != 0), (args, fast)
