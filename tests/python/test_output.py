"""Readable output: tables at 80 columns, one number convention, the sweep's
metrics in results show, plot filters, reproduce --check, drop causes."""

from __future__ import annotations

import io
import json

import pytest

import hoptcp
from hoptcp.cli import _fmt, _print_summary, main


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("value, text", [
    (0, "0"), (999, "999"), (1000, "1,000"), (1234567, "1,234,567"), (-12345, "-12,345"),
    (0.5, "0.5"), (3.14159, "3.142"), (999.94, "999.9"), (1234.5, "1,234"), (1234567.8, "1,234,568"),
    (0.000123, "0.000123"), (1.5e-7, "1.5e-07"), (2.5e16, "2.5e+16"), (float("nan"), "-"), (None, "-"),
    (True, "yes"),
])
def test_one_number_convention(value, text):
    assert _fmt(value) == text


def test_summary_at_80_columns_keeps_parameters_readable(fake_core, scenario_file, tmp_path):
    from rich.console import Console

    df = hoptcp.sweep(scenario_file, grid={"tcp.max_window": [1, 2], "mac.queue_limit": [10, 50]},
                      set={"tcp.payload_bytes": 1000}, replications=2, store=tmp_path / "r.db", progress=False,
                      name="wide")
    metrics = ["aggregate_goodput_bps", "fairness_jain", "flow.0.avg_cwnd", "flow.0.avg_rtt_s",
               "flow.0.retransmissions", "node.0.queue_max"]
    buf = io.StringIO()
    _print_summary(df, metrics, console=Console(file=buf, width=80, highlight=False))
    text = buf.getvalue()
    lines = text.splitlines()
    assert max(len(ln) for ln in lines) <= 80, text
    assert "tcp.max_window" in text and "mac.queue_limit" in text  # parameter names whole
    assert "…" not in text  # nothing cut to an ellipsis
    assert "aggregate_goodput" in text
    assert "not shown for width:" in text and "node.0.queue_max" in text  # dropped metrics are named
    wide = io.StringIO()
    _print_summary(df, metrics, console=Console(file=wide, width=400, highlight=False))
    assert "not shown" not in wide.getvalue()


def test_results_show_uses_the_sweeps_metrics(fake_core, capsys, tmp_path, scenario_file):
    db = tmp_path / "r.db"
    hoptcp.sweep(scenario_file, grid={"tcp.max_window": [1, 2]}, replications=2, store=db, progress=False,
                 name="m", metrics=["flow.*.avg_cwnd"])
    code, out, err = run_cli(capsys, "results", "show", "--store", db)
    assert code == 0 and "flow.0.avg_cwnd" in out and "aggregate_goodput_bps" not in out
    code, out, err = run_cli(capsys, "results", "show", "--store", db, "-m", "fairness_jain")  # -m wins
    assert code == 0 and "fairness_jain" in out and "avg_cwnd" not in out


def test_plot_where_logx_ymin(fake_core, capsys, tmp_path, scenario_file, monkeypatch):
    db = tmp_path / "r.db"
    hoptcp.sweep(scenario_file, grid={"tcp.max_window": [1, 2, 4], "mac.queue_limit": [5, 6]}, replications=2,
                 store=db, name="two", progress=False)
    from hoptcp import plotting

    seen = {}
    real = plotting.plot_sweep

    def spy(df, *a, **kw):
        seen.update(rows=len(df), queue=set(df["mac.queue_limit"]), **kw)
        ax = real(df, *a, **kw)
        seen.update(xscale=ax.get_xscale(), ylim=ax.get_ylim())
        return ax

    monkeypatch.setattr(plotting, "plot_sweep", spy)
    png = tmp_path / "p.png"
    code, out, err = run_cli(capsys, "plot", "--store", db, "-x", "tcp.max_window", "-y", "aggregate_goodput_bps",
                             "--where", "mac.queue_limit=6", "--logx", "--ymin", "0", "-o", png)
    assert code == 0, err
    assert seen["rows"] == 6 and seen["queue"] == {6}
    assert seen["xscale"] == "log" and seen["ylim"][0] == 0.0
    assert png.read_bytes()[:4] == b"\x89PNG"
    code, out, err = run_cli(capsys, "plot", "--store", db, "-x", "tcp.max_window", "-y", "aggregate_goodput_bps",
                             "--where", "mac.queue_limit=7", "-o", png)
    assert code == 2 and "--where mac.queue_limit=7: no run has this value; values there: 5, 6" in err
    code, out, err = run_cli(capsys, "plot", "--store", db, "-x", "tcp.max_window", "-y", "aggregate_goodput_bps",
                             "--where", "mac.queue_limimt=7", "-o", png)
    assert code == 2 and "did you mean 'mac.queue_limit'" in err


class _Claim:
    def __init__(self, name, verdict):
        self.verdict, self.summary = verdict, "x"
        self.claim = type("C", (), {"name": name})()


@pytest.mark.parametrize("verdicts, check, status", [
    (["pass", "differs"], True, 0), (["pass", "fail"], True, 1), (["pass", "fail"], False, 0),
])
def test_reproduce_check_exit_status(fake_core, capsys, tmp_path, monkeypatch, verdicts, check, status):
    from hoptcp import reproduce as rep

    result = type("R", (), {"claims": [_Claim(f"c{i}", v) for i, v in enumerate(verdicts)],
                            "report": tmp_path / "report.md", "run_line": lambda self: "single-hop: 2 runs"})()
    monkeypatch.setattr(rep, "reproduce", lambda *a, **kw: result)
    code, out, err = run_cli(capsys, "reproduce", "single-hop", "--quick", *(["--check"] if check else []))
    assert code == status and "single-hop: 2 runs" in out
    if status:
        assert err.strip() == "hoptcp: check failed: single-hop: 1 claim(s) fail: c1"


def test_run_table_hides_drop_causes_that_dropped_nothing(fake_core, capsys, scenario_file):
    code, out, err = run_cli(capsys, "run", scenario_file)
    assert code == 0 and "queue_overflow" in out
    assert "no_route" not in out and "ttl" not in out  # always zero in the fake core's result
    code, out, err = run_cli(capsys, "run", scenario_file, "--json")
    assert json.loads(out)["drops"]["no_route"] == 0  # still in the full result


def test_long_run_warns_once_with_its_estimate():
    from hoptcp.progress import RunProgress

    now = [0.0]
    out = io.StringIO()
    bar = RunProgress("big", show=False, clock=lambda: now[0], stream=out)
    with bar:
        now[0] = 0.5
        bar.update(0.25)  # 2 s in all: no warning
        assert out.getvalue() == ""
        now[0] = 1.0
        bar.update(1e-9)  # 1e9 s: about 31.7 years
        bar.update(2e-9)
    lines = out.getvalue().splitlines()
    assert lines == ["hoptcp: warning: big will take about 31.7 years of wall time at this speed "
                     "(0.00% simulated in 1.0 s); Ctrl-C stops it"]
    short = RunProgress("day", show=False, clock=lambda: now[0], stream=io.StringIO())
    with short:
        now[0] += 2.0
        short.update(1.0 / 86000)  # 2 s for 1/86000: 47.8 h, more than a day
    assert "about 47 h 46 min of wall time" in short.stream.getvalue()


# --- issue 21: readable model tables, plot axes, warnings ------------------------------

@pytest.mark.core
def test_bianchi_table_is_one_row_per_n_within_100_columns(real_core, capsys):
    from rich.cells import cell_len

    code, out, err = run_cli(capsys, "model", "bianchi", "-n", "5,10,20,50", "--payload-bytes", "1000")
    assert code == 0, err
    lines = [ln.rstrip() for ln in out.splitlines()]
    assert max(cell_len(ln) for ln in lines) <= 100, out
    assert "…" not in out
    rows = [ln for ln in lines if ln.split("│")[0].strip() in {"5", "10", "20", "50"}]
    assert [r.split("│")[0].strip() for r in rows] == ["5", "10", "20", "50"]
    model = json.loads(run_cli(capsys, "model", "bianchi", "-n", "5,10,20,50", "--payload-bytes", "1000",
                               "--json")[1])
    for row, m in zip(rows, model):
        cells = [c.strip() for c in row.split("│")]
        assert cells[-3] == f"{m['goodput_bps'] / 1e6:.4g}"  # Mb/s
        assert cells[1] == f"{m['tau']:.4g}"


def test_plot_axes_have_readable_names_and_units(fake_core, tmp_path, scenario_file):
    from hoptcp import plotting

    df = hoptcp.sweep(scenario_file, grid={"tcp.max_window": [1, 2], "mac.queue_limit": [5, 6]},
                      replications=2, store=tmp_path / "r.db", progress=False, name="u")
    fig = plotting.new_figure()
    ax = plotting.plot_sweep(df, x="tcp.max_window", y="aggregate_goodput_bps", hue="mac.queue_limit",
                             ax=fig.add_subplot())
    mean = df[(df["tcp.max_window"] == 1) & (df["mac.queue_limit"] == 5)]["aggregate_goodput_bps"].mean()
    unit, factor = ("Mb/s", 1e-6) if df["aggregate_goodput_bps"].max() >= 1e6 else ("kb/s", 1e-3)
    assert ax.get_xlabel() == "TCP maximum window (packets)"
    assert ax.get_ylabel() == f"aggregate goodput ({unit}), mean ± 95% CI"
    assert ax.lines[0].get_ydata()[0] == pytest.approx(mean * factor)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["interface queue limit = 5",
                                                                    "interface queue limit = 6"]
    assert plotting.describe("flow.0.avg_rtt_s", [0.05]) == ("flow 0 average RTT (ms)", 1e3)
    assert plotting.describe("aggregate_goodput_bps", [2.5e6]) == ("aggregate goodput (Mb/s)", 1e-6)
    assert plotting.describe("aggregate_goodput_bps", [2.5e5]) == ("aggregate goodput (kb/s)", 1e-3)


@pytest.mark.core
def test_warnings_keep_their_bracketed_section_names(real_core, capsys, tmp_path):
    sc = tmp_path / "ecn.toml"
    sc.write_text('duration_s = 0.2\n[topology]\nkind = "chain"\nhops = 2\n[tcp]\necn = true\n'
                  '[[flows]]\nsrc = 0\ndst = 2\ntransport = "tcp"\n')
    code, out, err = run_cli(capsys, "run", sc)
    assert code == 0, err
    warning = next(ln for ln in out.splitlines() if ln.startswith("warning:"))
    assert "(enable [ip.ldm] or [mac.link_red] with action" in warning, warning


def test_glob_metrics_that_are_zero_everywhere_are_not_shown(fake_core, capsys, tmp_path, scenario_file):
    from rich.console import Console

    db = tmp_path / "r.db"
    df = hoptcp.sweep(scenario_file, grid={"tcp.max_window": [1, 2]}, replications=2, store=db, progress=False,
                      name="d", metrics=["aggregate_goodput_bps", "drops.*"])
    zero = [m for m in df.attrs["metrics"] if m.startswith("drops.") and (df[m] == 0).all()]
    nonzero = [m for m in df.attrs["metrics"] if m.startswith("drops.") and m not in zero]
    assert "drops.ttl" in zero and nonzero  # the fake core never drops for ttl; it does overflow queues
    buf = io.StringIO()
    _print_summary(df, list(df.attrs["metrics"]), console=Console(file=buf, width=1000), patterns=["drops.*"])
    out = buf.getvalue()
    assert all(f"{m} (mean" not in out for m in zero) and all(f"{m} (mean" in out for m in nonzero)
    assert f"{len(zero)} metrics zero in every run not shown" in out
    code, out, err = run_cli(capsys, "results", "show", "--store", db, "-m", "drops.ttl")  # named: shown
    assert code == 0 and "drops.ttl (mean" in out


def test_crosscheck_help_names_the_default_store(capsys):
    code, out, err = run_cli(capsys, "crosscheck", "--help")
    assert code == 0 and "$HOPTCP_STORE" in out and "hoptcp-results.db" not in out


def test_docs_link_only_to_files_in_the_repository():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    pages = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    bad = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                bad.append(f"{page.relative_to(root)}: {target}")
        bad += [f"{page.relative_to(root)}: mentions {m}" for m in re.findall(r"\.\./shared/\S+|\bshared/\S+\.md", text)]
    assert not bad, bad
