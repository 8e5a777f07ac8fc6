import json
import subprocess
import sys

import pytest

from hoptcp.cli import main


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def assert_user_error(code, out, err, fragment):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hoptcp: error: "), err
    assert fragment in lines[0]
    assert "Traceback" not in err + out


@pytest.fixture
def spec_file(tmp_path, scenario_file):
    p = tmp_path / "spec.toml"
    p.write_text(f'scenario = "{scenario_file.name}"\nname = "w"\nreplications = 3\n'
                 'metrics = ["aggregate_goodput_bps", "flow.*.avg_cwnd"]\n[grid]\n"tcp.max_window" = [1, 2]\n')
    return p


def test_run_tables(fake_core, capsys, scenario_file):
    code, out, err = run_cli(capsys, "run", scenario_file, "--set", "tcp.max_window=3", "--seed", "4")
    assert code == 0, err
    for text in ("Flows", "Nodes (MAC and interface queue)", "Drops by cause", "Jain fairness", "seed 4",
                 "tcp.max_window=3", "avg cwnd", "queue max", "queue_overflow"):
        assert text in out


def test_run_json_is_one_document(fake_core, capsys, scenario_file, tmp_path):
    code, out, err = run_cli(capsys, "run", scenario_file, "--json", "--seed", "2", "--pcap", tmp_path / "x.pcap",
                             "--pcap-view", "network")  # the (fake) core writes it
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["seed"] == 2 and doc["flows"][0]["transport"] == "tcp"
    assert (tmp_path / "x.pcap").exists()


@pytest.mark.parametrize("args, fragment", [
    (["run", "missing.toml"], "scenario file not found: missing.toml"),
    (["run", "{scenario}", "--set", "tcp.max_windw=3"], "unknown key 'tcp.max_windw'"),
    (["run", "{scenario}", "--set", "topology.kind=ring"], 'topology.kind: invalid value "ring"'),
    (["run", "{scenario}", "--set", "nonsense"], "--set 'nonsense': expected KEY=VALUE"),
    (["run", "{scenario}", "--set", "=3"], "expected KEY=VALUE"),
    (["run", "{bad}"], "invalid TOML"),
    (["run", "{scenario}", "--seed", "x"], "'x' is not a valid integer"),
    (["run"], "Missing argument"),
    (["frobnicate"], "No such command 'frobnicate'"),
    (["sweep", "nope.toml"], "sweep spec not found"),
    (["sweep", "{badspec}"], "unknown key 'gird'"),
    (["sweep", "{scenario}"], "a scenario file, not a sweep spec: run it with hoptcp run "),
    (["results", "list", "--store", "none.db"], "store not found: none.db"),
    (["model", "wstar", "--hops", "x"], "expected an integer"),
    (["model", "wstar", "--hops", "0"], "hops: invalid value 0"),
    (["model", "bianchi", "-n", "5", "-p", "oops"], "--param 'oops'"),
])
def test_user_errors_exit_2_with_one_line(fake_core, capsys, tmp_path, scenario_file, args, fragment):
    bad = tmp_path / "bad.toml"
    bad.write_text("[topology\n")
    badspec = tmp_path / "badspec.toml"
    badspec.write_text(f'scenario = "{scenario_file.name}"\ngird = {{}}\n')
    args = [a.format(scenario=scenario_file, bad=bad, badspec=badspec) for a in args]
    assert_user_error(*run_cli(capsys, *args), fragment)


def test_sweep_results_export_plot(fake_core, capsys, tmp_path, spec_file):
    db = tmp_path / "r.db"
    code, out, err = run_cli(capsys, "sweep", spec_file, "--store", db, "-j", "2")
    assert code == 0, err
    assert "6 runs; 0 cached, 6 to run" in err and "aggregate_goodput_bps (mean ± 95% CI)" in out
    code, out, err = run_cli(capsys, "sweep", spec_file, "--store", db, "--quiet")
    assert code == 0 and out == "" and err == ""
    assert fake_core.runs == 6

    code, out, err = run_cli(capsys, "results", "list", "--store", db)
    assert code == 0 and "w" in out and "6/6" in out
    code, out, err = run_cli(capsys, "results", "show", "--store", db, "-m", "flow.*.avg_cwnd")
    assert code == 0 and "flow.0.avg_cwnd" in out and "tcp.max_window" in out
    code, out, err = run_cli(capsys, "results", "export", "--store", db, "--sweep", "w")
    assert code == 0 and out.splitlines()[0].startswith("sweep,tcp.max_window,seed,") and len(out.splitlines()) == 7
    pq = tmp_path / "r.parquet"
    code, out, err = run_cli(capsys, "results", "export", "--store", db, "-o", pq)
    if code == 0:
        import pandas as pd

        assert len(pd.read_parquet(pq)) == 6
    code, out, err = run_cli(capsys, "results", "export", "--store", db, "--format", "parquet")
    assert_user_error(code, out, err, "needs -o FILE")
    png = tmp_path / "p.png"
    code, out, err = run_cli(capsys, "plot", "--store", db, "--sweep", "w", "-x", "tcp.max_window",
                             "-y", "aggregate_goodput_bps", "-o", png)
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, out, err = run_cli(capsys, "plot", "--store", db, "-x", "tcp.max_window", "-y", "nope", "-o", png)
    assert_user_error(code, out, err, "-y nope: sweep 'w' has no such column (all of them: hoptcp results columns "
                                      "--sweep w)")
    code, out, err = run_cli(capsys, "plot", "--store", db, "-x", "tcp.max_window", "-y", "aggregate_goodput",
                             "-o", png)
    assert_user_error(code, out, err, "-y aggregate_goodput: sweep 'w' has no such column; closest: "
                                      "aggregate_goodput_bps")
    assert len(err) < 300  # one short line, not the list of every column
    code, out, err = run_cli(capsys, "plot", "--store", db, "-x", "tcp.max_windw", "-y", "aggregate_goodput_bps",
                             "-o", png)
    assert_user_error(code, out, err, "-x tcp.max_windw: sweep 'w' has no such column; closest: tcp.max_window")
    code, out, err = run_cli(capsys, "results", "columns", "--store", db)
    lines = out.splitlines()
    assert code == 0 and lines[0] == "tcp.max_window\tparameter" and "aggregate_goodput_bps\tmetric" in lines
    code, out, err = run_cli(capsys, "results", "columns", "--store", db, "flow.0.*")
    assert code == 0 and out and all(line.startswith("flow.0.") for line in out.splitlines())
    code, out, err = run_cli(capsys, "results", "show", "--store", db, "--sweep", "zz")
    assert_user_error(code, out, err, "--sweep zz: not in store")


def test_plot_refuses_to_mix_settings(fake_core, capsys, tmp_path, scenario_file):
    import hoptcp

    db = tmp_path / "r.db"
    hoptcp.sweep(scenario_file, grid={"tcp.max_window": [1, 2], "mac.queue_limit": [5, 6]}, replications=2,
                 store=db, name="two", progress=False)
    code, out, err = run_cli(capsys, "plot", "--store", db, "-x", "tcp.max_window", "-y", "aggregate_goodput_bps",
                             "-o", tmp_path / "p.png")
    assert_user_error(code, out, err, "parameter 'mac.queue_limit' also varies")
    code, out, err = run_cli(capsys, "plot", "--store", db, "-x", "tcp.max_window", "-y", "aggregate_goodput_bps",
                             "--hue", "mac.queue_limit", "-o", tmp_path / "p.png")
    assert code == 0, err


def test_model_commands(fake_core, capsys):
    code, out, err = run_cli(capsys, "model", "wstar", "--topology", "chain", "--hops", "8")
    assert code == 0 and "wstar" in out and "2" in out
    code, out, err = run_cli(capsys, "model", "bianchi", "-n", "5,10", "--json")
    doc = json.loads(out)
    assert code == 0 and [d["stations"] for d in doc] == [5, 10]
    code, out, err = run_cli(capsys, "model", "single-hop", "--payload-bytes", "1460", "--data-rate-mbps", "2",
                             "--json")
    assert code == 0 and json.loads(out)["goodput_bps"] > 0
    code, out, err = run_cli(capsys, "model", "linkdrop", "-p", "hops=4")
    assert code == 0 and "p_drop" in out


def test_version_and_help(fake_core, capsys):
    code, out, err = run_cli(capsys, "--version")
    assert code == 0 and "core 0.0.0-fake, plain build" in out
    code, out, err = run_cli(capsys, "--help")
    assert code == 0 and "reproduce" in out and "sweep" in out


def test_cli_start_does_not_import_heavy_modules(subprocess_env):
    code = ("import sys, hoptcp, hoptcp.cli; "
            "heavy = [m for m in ('pandas', 'matplotlib', 'scipy', 'numpy', 'distributed') if m in sys.modules]; "
            "print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], env=subprocess_env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_run_command_does_not_import_pandas(subprocess_env, scenario_file):
    code = ("import sys, fake_core; fake_core.install(); from hoptcp.cli import main; "
            f"rc = main(['run', {str(scenario_file)!r}]); "
            "print('HEAVY', [m for m in ('pandas', 'matplotlib', 'scipy') if m in sys.modules]); sys.exit(rc)")
    out = subprocess.run([sys.executable, "-c", code], env=subprocess_env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "HEAVY []" in out.stdout


# --- issue 21: sweep --set, export formats, output paths, closed pipes ---------------------

def test_sweep_set_applies_to_every_point(fake_core, capsys, tmp_path, spec_file):
    import hoptcp

    db = tmp_path / "r.db"
    code, out, err = run_cli(capsys, "sweep", spec_file, "--store", db, "-q", "--set", "mac.queue_limit=7",
                             "--set", "duration_s=2.5")
    assert code == 0, err
    with hoptcp.Store(db) as s:
        scenarios = [json.loads(r[0]) for r in s._db.execute("SELECT scenario FROM runs")]
    assert len(scenarios) == 6
    assert {(sc["mac"]["queue_limit"], sc["duration_s"]) for sc in scenarios} == {(7, 2.5)}
    assert sorted({sc["tcp"]["max_window"] for sc in scenarios}) == [1, 2]
    code, out, err = run_cli(capsys, "sweep", spec_file, "--store", db, "--set", "tcp.max_window=3")
    assert_user_error(code, out, err, "--set tcp.max_window: the sweep varies this key in [grid]")
    code, out, err = run_cli(capsys, "sweep", spec_file, "--store", db, "--set", "mac.queue_limit")
    assert_user_error(code, out, err, "--set 'mac.queue_limit': expected KEY=VALUE")


def test_sweep_set_replaces_the_specs_set_value(fake_core, tmp_path, scenario_file):
    from hoptcp.sweep import SweepSpec

    spec = SweepSpec.build(scenario_file, name="s", grid={"tcp.max_window": [1]}, set={"mac.queue_limit": 4})
    changed = spec.with_set([("mac.queue_limit", "9")])
    from hoptcp.sweep import plan

    assert {t.scenario_json and json.loads(t.scenario_json)["mac"]["queue_limit"] for t in plan(changed).tasks} == {9}
    assert {json.loads(t.scenario_json)["mac"]["queue_limit"] for t in plan(spec).tasks} == {4}


def test_export_format_from_the_suffix_and_no_silent_overwrite(fake_core, capsys, tmp_path, spec_file):
    import pandas as pd

    db = tmp_path / "r.db"
    assert run_cli(capsys, "sweep", spec_file, "--store", db, "-q")[0] == 0
    csv, js = tmp_path / "r.csv", tmp_path / "r.json"
    assert run_cli(capsys, "results", "export", "--store", db, "-o", csv)[0] == 0
    assert run_cli(capsys, "results", "export", "--store", db, "-o", js)[0] == 0
    from_csv, from_json = pd.read_csv(csv), pd.read_json(js)
    assert len(from_csv) == len(from_json) == 6
    assert from_json["aggregate_goodput_bps"].tolist() == pytest.approx(from_csv["aggregate_goodput_bps"].tolist())
    xlsx = tmp_path / "r.xlsx"
    code, out, err = run_cli(capsys, "results", "export", "--store", db, "-o", xlsx)
    assert_user_error(code, out, err, f"-o {xlsx}: unknown export format '.xlsx'; give a file ending in .csv")
    assert not xlsx.exists()
    code, out, err = run_cli(capsys, "results", "export", "--store", db, "-o", tmp_path / "r.parquet",
                             "--format", "csv")
    assert_user_error(code, out, err, "the file name says parquet")
    csv.write_text("keep me")
    code, out, err = run_cli(capsys, "results", "export", "--store", db, "-o", csv)
    assert_user_error(code, out, err, f"-o {csv}: the file exists; add --force to overwrite it")
    assert csv.read_text() == "keep me"
    assert run_cli(capsys, "results", "export", "--store", db, "-o", csv, "--force")[0] == 0
    assert len(pd.read_csv(csv)) == 6
    code, out, err = run_cli(capsys, "results", "export", "--store", db, "-o", tmp_path / "no" / "r.csv")
    assert_user_error(code, out, err, "does not exist")


def test_outputs_in_missing_directories_are_refused(fake_core, capsys, tmp_path, spec_file, scenario_file):
    db = tmp_path / "r.db"
    assert run_cli(capsys, "sweep", spec_file, "--store", db, "-q")[0] == 0
    png = tmp_path / "missing" / "p.png"
    code, out, err = run_cli(capsys, "plot", "--store", db, "-x", "tcp.max_window", "-y", "aggregate_goodput_bps",
                             "-o", png)
    assert_user_error(code, out, err, f"directory {png.parent} does not exist")
    tcl = tmp_path / "missing" / "x.tcl"
    code, out, err = run_cli(capsys, "ns2", "export", scenario_file, "-o", tcl)
    assert_user_error(code, out, err, f"directory {tcl.parent} does not exist")
    assert not png.parent.exists()


def test_pcap_node_needs_a_trace_file(capsys, scenario_file):
    code, out, err = run_cli(capsys, "run", scenario_file, "--pcap-node", "1")
    assert_user_error(code, out, err, "--pcap-node 1: give the trace file with --pcap FILE")
    code, out, err = run_cli(capsys, "run", scenario_file, "--pcap", "x.pcapng", "--pcap-node", "-1")
    assert_user_error(code, out, err, "-1 is not in the range x>=0")


@pytest.mark.core
def test_a_closed_pipe_ends_quietly(subprocess_env, scenario_file):
    """Output into a pipe whose reader has gone (`hoptcp ... | head -1` once head
    exits): status 0 and nothing on stderr, whatever prints the output."""
    import os

    for args in (["run", str(scenario_file)], ["run", str(scenario_file), "--json"],
                 ["model", "bianchi", "-n", "5,10,20"], ["reproduce", "--list"]):
        r, w = os.pipe()
        os.close(r)  # the reader is gone before anything is written
        try:
            p = subprocess.run([sys.executable, "-m", "hoptcp", *args], stdout=w, stderr=subprocess.PIPE,
                               env=subprocess_env, timeout=120)
        finally:
            os.close(w)
        assert p.returncode == 0 and p.stderr == b"", (args, p.returncode, p.stderr.decode())


@pytest.mark.core
def test_trace_write_failure_and_one_nodes_trace(real_core, capsys, tmp_path):
    sc = tmp_path / "chain.toml"
    sc.write_text('duration_s = 0.5\n[topology]\nkind = "chain"\nhops = 3\n[[flows]]\nsrc = 0\ndst = 3\n'
                  'transport = "tcp"\n')
    code, out, err = run_cli(capsys, "run", sc, "--pcap", "/dev/full")
    assert code == 1 and err.strip() == ("hoptcp: error: writing the packet trace /dev/full failed: "
                                         "No space left on device (os error 28)"), err
    one = tmp_path / "n1.pcapng"
    code, out, err = run_cli(capsys, "run", sc, "--pcap", one, "--pcap-node", "1")
    assert code == 0 and one.stat().st_size > 1000 and "--pcap-node N" not in out, err
    code, out, err = run_cli(capsys, "run", sc, "--pcap", one, "--pcap-node", "4")
    assert_user_error(code, out, err, "`pcap_node` = 4: the scenario's wireless nodes are 0 to 3")


@pytest.mark.core
def test_a_huge_chain_reports_the_nodes_that_took_part(real_core):
    import hoptcp

    sc = hoptcp.Scenario.from_toml('duration_s = 0.011\n[topology]\nkind = "chain"\nhops = 1000000\n'
                                   '[[flows]]\nsrc = 0\ndst = 7\ntransport = "tcp"\n')
    r = hoptcp.run(sc)
    assert r.summary["nodes"] == 1_000_001
    assert list(r.nodes.index) == list(range(9))  # the flow's nodes and the two that sense node 7


@pytest.mark.core
def test_scenario_show_positions(real_core, capsys, tmp_path):
    sc = tmp_path / "cross.toml"
    sc.write_text('[topology]\nkind = "cross"\nhops = 4\n[[flows]]\nsrc = 0\ndst = 8\ntransport = "tcp"\n')
    code, out, err = run_cli(capsys, "scenario", "show", sc, "--positions")
    assert code == 0, err
    rows = [line.split("\t") for line in out.splitlines() if not line.startswith(("#", "node"))]
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("0", "0", "0"), ("1", "200", "0"), ("2", "400", "0"), ("3", "600", "0"), ("4", "800", "0"),
        ("5", "400", "-400"), ("6", "400", "-200"), ("7", "400", "200"), ("8", "400", "400")]
    assert rows[0][3] == "flow 0 source" and rows[8][3] == "flow 0 destination"
    assert "# flow 0: 0 -> 8, path 0 1 2 7 8" in out
    code, out, err = run_cli(capsys, "scenario", "show", sc, "--positions", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["nodes"][5] == {"id": 5, "x": 400.0, "y": -400.0} and doc["flows"][0]["path"][2] == 2
    rnd = tmp_path / "random.toml"
    rnd.write_text('[topology]\nkind = "random"\nnodes = 30\nwidth_m = 600\nheight_m = 600\n'
                   '[[flows]]\nsrc = 0\ndst = 1\ntransport = "tcp"\n')
    outs = []
    for seed in (1, 1, 2):
        code, out, err = run_cli(capsys, "scenario", "show", rnd, "--positions", "--json", "--seed", str(seed))
        assert code == 0, err
        outs.append(json.loads(out)["nodes"])
    assert outs[0] == outs[1] != outs[2]  # drawn from the run seed
    code, out, err = run_cli(capsys, "scenario", "show", sc, "--seed", "3")
    assert_user_error(code, out, err, "--seed 3: only with --positions")
