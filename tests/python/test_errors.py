"""Every input that once ended in a Python traceback: one line on stderr, exit status 2."""

from __future__ import annotations

import os
import resource
import sqlite3
import subprocess
import sys

import pytest

import hoptcp
from hoptcp import ScenarioError, SpecError
from hoptcp.cli import main


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line(code, out, err, fragment, status=2):
    assert code == status, (code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("hoptcp: error: "), err
    assert fragment in lines[0], lines[0]
    assert "Traceback" not in err + out


@pytest.fixture
def files(tmp_path, scenario_file):
    latin = tmp_path / "latin1.toml"
    latin.write_bytes("duration_s = 1.0 # caf\xe9\n".encode("latin-1"))
    binary = tmp_path / "binary.toml"
    binary.write_bytes(bytes(range(256)) * 4)
    nul = tmp_path / "nul.toml"
    nul.write_bytes(b"duration_s = 1.0\x00\n")
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not an sqlite database, just text" * 100)
    other = tmp_path / "other.db"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE songs (title TEXT)")
    con.commit()
    con.close()
    empty_grid = tmp_path / "empty-grid.toml"
    empty_grid.write_text(f'scenario = "{scenario_file.name}"\n[grid]\n')
    empty_zip = tmp_path / "empty-zip.toml"
    empty_zip.write_text(f'scenario = "{scenario_file.name}"\n[zip]\n')
    return {"scenario": scenario_file, "latin": latin, "binary": binary, "nul": nul, "junk": junk,
            "other": other, "empty_grid": empty_grid, "empty_zip": empty_zip, "tmp": tmp_path}


@pytest.mark.parametrize("args, fragment", [
    (["run", "{scenario}", "--seed", "-1"], "seed: invalid value -1; expected an integer from 0 to 9223372036854775807"),
    (["run", "{scenario}", "--seed", "18446744073709551616"], "seed: invalid value 18446744073709551616"),
    (["run", "{scenario}", "--seed", "9223372036854775808"], "expected an integer from 0 to"),
    (["run", "{latin}"], "is not a UTF-8 text file"),
    (["run", "{binary}"], "is not a UTF-8 text file"),
    (["run", "{nul}"], "invalid TOML"),
    (["sweep", "{latin}"], "is not a UTF-8 text file"),
    (["run", "{scenario}", "--pcap", "{tmp}/no/such/dir/t.pcapng"], "does not exist"),
    (["run", "{scenario}", "--pcap", "{tmp}"], "is a directory"),
    (["results", "list", "--store", "{junk}"], "is not a hoptcp results store"),
    (["results", "show", "--store", "{other}"], "SQLite database but not a hoptcp results store"),
    (["sweep", "{empty_grid}"], "[grid] is empty"),
    (["sweep", "{empty_zip}"], "[zip] is empty"),
    (["plot", "-x", "a", "-y", "b", "-o", "x.xyz"], "unknown image format 'xyz'"),
    (["plot", "-x", "a", "-y", "b", "--where", "nokey"], "--where 'nokey': expected KEY=VALUE"),
    (["bench", "--only", "nosuch"], "--only nosuch: no such bench scenario"),
    (["bench", "--sweep-jobs", "x"], "--sweep-jobs 'x'"),
    (["reproduce", "all", "--check"], "--check needs one entry id"),
])
def test_former_tracebacks_are_one_line(fake_core, capsys, files, args, fragment):
    args = [a.format(**files) for a in args]
    assert_one_line(*run_cli(capsys, *args), fragment)


def test_store_that_is_not_a_store_through_a_sweep(fake_core, capsys, files, tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(f'scenario = "{files["scenario"].name}"\n[grid]\n"tcp.max_window" = [1, 2]\n')
    assert_one_line(*run_cli(capsys, "sweep", spec, "--store", files["junk"]), "is not a hoptcp results store")
    assert files["junk"].read_bytes().startswith(b"this is not")  # left as it was


@pytest.mark.parametrize("address", ["tcp://host", "tcp://", "host", "tcp://host:port"])
def test_dask_address_without_port(fake_core, capsys, tmp_path, scenario_file, address):
    spec = tmp_path / "spec.toml"
    spec.write_text(f'scenario = "{scenario_file.name}"\n[grid]\n"tcp.max_window" = [1, 2]\n')
    assert_one_line(*run_cli(capsys, "sweep", spec, "--store", tmp_path / "r.db", "--dask", address),
                    f"--dask {address}: expected a scheduler address with a port")
    assert not (tmp_path / "r.db").exists()  # refused before anything started


def test_dask_address_from_python_without_port(fake_core, tmp_path, scenario_file):
    pytest.importorskip("distributed")
    with pytest.raises(SpecError, match="dask: invalid scheduler address"):
        hoptcp.sweep(scenario_file, grid={"tcp.max_window": [1]}, store=tmp_path / "r.db", dask="tcp://", progress=False)


def test_plot_to_an_unknown_format_after_a_sweep(fake_core, capsys, tmp_path, scenario_file):
    db = tmp_path / "r.db"
    hoptcp.sweep(scenario_file, grid={"tcp.max_window": [1, 2]}, replications=2, store=db, name="p", progress=False)
    code, out, err = run_cli(capsys, "plot", "--store", db, "-x", "tcp.max_window", "-y", "aggregate_goodput_bps",
                             "-o", tmp_path / "fig.xyz")
    assert_one_line(code, out, err, "unknown image format 'xyz'; use one of")
    assert not (tmp_path / "fig.xyz").exists()


@pytest.mark.parametrize("seed", [-1, 2**63, 2**64, 1.5, "3", True])
def test_api_seed_out_of_range_is_a_scenario_error(fake_core, scenario_file, seed):
    with pytest.raises(ScenarioError, match="seed: invalid value"):
        hoptcp.run(scenario_file, seed=seed)


def test_api_accepts_the_whole_seed_range(fake_core, scenario_file):
    assert hoptcp.run(scenario_file, seed=0).seed == 0
    assert hoptcp.run(scenario_file, seed=2**63 - 1).seed == 2**63 - 1


def test_api_errors_are_the_projects_types(fake_core, tmp_path, scenario_file):
    with pytest.raises(SpecError, match="does not exist"):
        hoptcp.run(scenario_file, pcap=tmp_path / "missing" / "t.pcapng")
    with pytest.raises(SpecError, match=r"\[grid\] is empty"):
        hoptcp.sweep(scenario_file, grid={}, store=tmp_path / "r.db", progress=False)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"\x00garbage" * 64)
    with pytest.raises(SpecError, match="not a hoptcp results store"):
        hoptcp.Store(junk)
    latin = tmp_path / "l.toml"
    latin.write_bytes(b"\xff\xfe")
    with pytest.raises(ScenarioError, match="not a UTF-8 text file"):
        hoptcp.Scenario.load(latin)


@pytest.mark.core
@pytest.mark.parametrize("line, fragment", [
    ("seed = 18446744073709551616", "`seed` = 18446744073709551616: expected an integer from 0 to 9223372036854775807"),
    ("seed = -3", "`seed` = integer `-3`"),
])
def test_seed_in_a_scenario_file_names_the_range(real_core, capsys, tmp_path, scenario_file, line, fragment):
    p = tmp_path / "s.toml"
    p.write_text(scenario_file.read_text().replace("seed = 3", line))
    assert_one_line(*run_cli(capsys, "run", p), fragment)


# --- endless input (issue 21) -------------------------------------------------------------

def _hoptcp_limited(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """The CLI in a child with 1 GiB of address space: the old behaviour (reading
    /dev/zero until the OOM killer) fails fast instead of taking the machine;
    the timeout turns a wait on a FIFO into a failure, it measures nothing."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30))

    return subprocess.run([sys.executable, "-m", "hoptcp", *args], capture_output=True, text=True, timeout=60,
                          preexec_fn=limit, env=env)


@pytest.mark.parametrize("command", [["run"], ["sweep"], ["ns2", "export"]])
def test_endless_inputs_are_refused(tmp_path, subprocess_env, command):
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    for path, kind in (("/dev/zero", "is a device"), (str(fifo), "is a FIFO")):
        p = _hoptcp_limited(subprocess_env, *command, path)
        lines = p.stderr.strip().splitlines()
        assert p.returncode == 2 and len(lines) == 1, p.stderr
        assert lines[0].startswith("hoptcp: error: ") and f"{path} {kind}, not a regular file" in lines[0], lines


def test_oversized_scenario_file_is_refused_unread(capsys, tmp_path):
    from hoptcp._toml import MAX_FILE_BYTES

    big = tmp_path / "big.toml"
    with open(big, "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)  # sparse: nothing to read, and nothing is
    code, out, err = run_cli(capsys, "run", big)
    assert_one_line(code, out, err, f"is {MAX_FILE_BYTES + 1:,} bytes; the limit is 64 MiB")
    with pytest.raises(ScenarioError, match="a device, not a regular file"):
        hoptcp.Scenario.load("/dev/zero")
    with pytest.raises((ScenarioError, SpecError), match="a device, not a regular file"):
        hoptcp.sweep("/dev/zero", grid={"tcp.max_window": [1]})
