"""hoptcp view: the page's payload (hand-made run), and the page itself in headless Chromium on
the 7-hop chain and a 1,000-node random run (skipped when Chromium or its driver is missing)."""

from __future__ import annotations

import base64
import json
import re
import shutil
import zlib
from pathlib import Path

import numpy as np
import pytest

from hoptcp import SpecError
from hoptcp.cli import main
from hoptcp.viewer import View, build_payload

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
RANDOM1000 = ROOT / "python" / "hoptcp" / "scenarios" / "bench" / "random1000-tcp.toml"


def _columns(meta: dict, blob: str) -> dict[str, np.ndarray]:
    data = zlib.decompress(base64.b64decode(blob))
    return {k: np.frombuffer(data, dtype=dt, count=n, offset=off) for k, (dt, off, n) in meta["columns"].items()}


def _hand_made_run() -> dict:
    """Three frames by node 0 to node 1: an RTS at 1 ms, a DATA at 2 ms lost in a collision, a
    retry DATA at 5 ms, the last attempt before a retry-limit drop; a drop at 6 ms."""
    names = {"frame_kinds": ["rts", "cts", "data", "ack"], "fates": ["received", "collided"],
             "drop_causes": ["queue_overflow", "mac_rts_retry", "mac_data_retry"]}
    return {
        "duration_s": 0.01, "seed": 7, "hoptcp_version": "test", "flows": [{"id": 0, "src": 0, "dst": 1}],
        "air": {**names, "x": [0.0, 200.0], "y": [0.0, 0.0],
                "frames": {"start_ns": [1_000_000, 2_000_000, 5_000_000], "airtime_ns": [352_000, 5_000_000, 5_000_000],
                           "tx": [0, 0, 0], "kind": [0, 2, 2], "ra": [1, 1, 1], "retry": [0, 0, 1],
                           "bytes": [20, 1000, 1000], "nav_ns": [0, 0, 0], "packet": [-1, 0, 0],
                           "retry_drop": [0, 0, 1]},
                "rx": {"frame": [0, 1], "node": [1, 1], "fate": [0, 1], "t_ns": [1_352_667, 7_000_667]},
                "drops": {"t_ns": [6_000_000], "node": [0], "cause": [2], "packet": [0]},
                "packets": {"uid": [9], "kind": [1], "flow": [0], "src": [0], "dst": [1], "ip_bytes": [1040],
                            "ttl": [32], "hop": [0], "seq": [42], "ack": [0]}},
        "time_series": {"mac": {"metrics": ["state", "retries", "drops"], "keyed_by": "node",
                                "time_s": [0.0, 0.001, 0.004], "flow": [0, 0, 1], "metric": [0, 0, 0],
                                "value": [0.0, 3.0, 4.0]}},
    }


def test_payload_packs_the_window_of_a_hand_made_run():
    meta, blob = build_payload(_hand_made_run(), {"name": "hand", "radio": {"tx_range_m": 250.0}}, 0.0015, 0.01)
    c = _columns(meta, blob)
    # The RTS (1 ms) is before the window: two frames, starts as microsecond steps from 1.5 ms.
    assert meta["frames"] == 2 and list(np.cumsum(c["f.start"])) == [500, 3500]
    assert list(c["f.kind"]) == [2, 2] and list(c["f.seq"]) == [42, 42] and list(c["f.flags"]) == [0, 3]
    # The lost DATA is frame 0 of the window; the drop at 6 ms is 4.5 ms into it.
    assert list(c["l.frame"]) == [0] and list(c["l.fate"]) == [1]
    assert list(c["d.t"]) == pytest.approx([0.0045]) and meta["drop_causes"][c["d.cause"][0]] == "mac_data_retry"
    # Node 0's MAC state before the window (tx since 1 ms) is carried to its start.
    assert list(np.cumsum(c["mac.t"])) == [0, 2500] and list(c["mac.id"]) == [0, 1] and list(c["mac.v"]) == [3, 4]
    assert meta["tx_range"] == 250.0 and meta["x"] == [0.0, 200.0]
    with pytest.raises(SpecError, match="to > from"):
        build_payload(_hand_made_run(), {}, 0.005, 0.002)
    with pytest.raises(SpecError, match="no air trace"):
        build_payload({"duration_s": 1.0}, {})


def test_view_shows_inline_in_an_isolated_frame():
    v = View("<html><script>x = '\"'</script></html>")
    h = v._repr_html_()
    assert h.startswith("<iframe srcdoc=") and "&quot;" in h and "<script>" not in h


def _driver():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chromium or not driver:
        pytest.skip("Chromium and chromedriver are not installed (apt-get install chromium chromium-driver): "
                    "the viewer's browser test is skipped")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (pip install selenium)")
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    o = Options()
    o.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900",
              "--disable-background-networking"):
        o.add_argument(a)
    return webdriver.Chrome(service=Service(driver), options=o)


def _exercise(d, page: Path) -> dict:
    """Open ``page`` (no network: a file:// URL, nothing else is requested), play, scrub to a
    drop; return what changed."""
    import time

    d.get(page.as_uri())
    for _ in range(200):
        state = d.execute_script("return window.hoptcpViewer && (window.hoptcpViewer.ready || window.hoptcpViewer.error)")
        if state:
            break
        time.sleep(0.05)
    assert state is True, f"viewer did not start: {state}"
    loaded = d.execute_script("return {t: hoptcpViewer.t, onAir: hoptcpViewer.onAir, paths: hoptcpViewer.pathsDrawn, "
                              "ticks: hoptcpViewer.plotTicks, withPath: hoptcpViewer.meta.flows.filter("
                              "f => f.path.length >= 2).length, flows: hoptcpViewer.meta.flows.length}")
    canvas = "return document.getElementById('topo').toDataURL()"
    before, x0 = d.execute_script(canvas), d.execute_script("return hoptcpViewer.cursorX")
    d.execute_script("hoptcpViewer.setSpeed(0.05); hoptcpViewer.play()")
    time.sleep(0.6)
    played = d.execute_script("return [hoptcpViewer.t, hoptcpViewer.draws, hoptcpViewer.cursorX]")
    d.execute_script("hoptcpViewer.pause()")
    after_play = d.execute_script(canvas)
    assert d.execute_script("return hoptcpViewer.nextDrop()") is True, "the run has a drop to jump to"
    t_drop, x_drop = d.execute_script("return [hoptcpViewer.t, hoptcpViewer.cursorX]")
    at_drop = d.execute_script(canvas)
    d.execute_script("hoptcpViewer.setMode('queue')")
    errors = [e for e in d.get_log("browser") if e.get("level") == "SEVERE"]
    return {"before": before, "after_play": after_play, "at_drop": at_drop, "x0": x0, "played": played,
            "t_drop": t_drop, "x_drop": x_drop, "errors": errors, "loaded": loaded}


@pytest.mark.core
def test_chain_and_a_thousand_nodes_play_and_scrub_in_chromium(real_core, tmp_path, capsys):
    d = _driver()
    try:
        chain = tmp_path / "chain7.html"
        assert main(["view", str(EXAMPLES / "chain7.toml"), "--set", "duration_s=60", "-o", str(chain)]) == 0
        assert chain.stat().st_size < 5_000_000
        text = chain.read_text()
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), "the page must not fetch anything"
        big = tmp_path / "random1000.html"
        assert main(["view", str(RANDOM1000), "--set", "duration_s=2", "-o", str(big)]) == 0
        grid_toml, grid = tmp_path / "grid.toml", tmp_path / "grid.html"
        grid_toml.write_text('duration_s = 5\n[topology]\nkind = "grid"\nrows = 5\ncols = 5\n'
                             '[[flows]]\nsrc = 0\ndst = 24\ntransport = "tcp"\n'
                             '[[flows]]\nsrc = 4\ndst = 20\ntransport = "tcp"\nmax_window = 8\n'
                             '[[flows]]\nsrc = 10\ndst = 14\ntransport = "tcp"\n')
        assert main(["view", str(grid_toml), "-o", str(grid)]) == 0
        for page in (chain, big, grid):
            r = _exercise(d, page)
            assert not r["errors"], r["errors"]
            # it opens with frames on the air (not at an empty t = 0) and every flow's path drawn
            loaded = r["loaded"]
            assert loaded["t"] > 0 and loaded["onAir"] >= 1, f"{page.name}: nothing on the air at load: {loaded}"
            assert loaded["paths"] == loaded["withPath"] > 0, f"{page.name}: {loaded}"
            if page is not big:  # every flow delivered: every path is there
                assert loaded["withPath"] == loaded["flows"], f"{page.name}: {loaded}"
            assert loaded["ticks"]["y"] >= 3 and loaded["ticks"]["x"] >= 3, f"{page.name}: axes: {loaded}"
            assert r["played"][0] > 0 and r["played"][1] > 3, f"{page.name}: time did not advance"
            assert r["after_play"] != r["before"] and r["at_drop"] != r["after_play"], f"{page.name}: canvas unchanged"
            assert r["played"][2] > r["x0"] and r["x_drop"] != r["played"][2], f"{page.name}: plot cursor did not move"
            assert r["t_drop"] > r["played"][0], f"{page.name}: next drop is not ahead"
    finally:
        d.quit()
    meta = json.loads(re.search(r'<script id="meta" type="application/json">(.*?)</script>', text).group(1))
    assert meta["frames"] > 10_000 and meta["to"] == 60.0
    assert meta["flows"][0]["path"] == list(range(8)) and meta["flows"][0]["max_window"] == 32
    grid_meta = json.loads(re.search(r'<script id="meta" type="application/json">(.*?)</script>',
                                     grid.read_text()).group(1))
    for f in grid_meta["flows"]:
        assert f["path"][0] == f["src"] and f["path"][-1] == f["dst"] and len(f["path"]) >= 5
    assert [f["max_window"] for f in grid_meta["flows"]] == [20, 8, 20]
    capsys.readouterr()


def test_view_rejects_a_bad_window(capsys):
    code = main(["view", str(EXAMPLES / "chain7.toml"), "--from", "5", "--to", "2"])
    err = capsys.readouterr().err
    assert code == 2 and "--from 5.0 --to 2.0: the window must have to > from" in err and "Traceback" not in err
