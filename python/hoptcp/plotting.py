"""Plots (matplotlib): a sweep metric's mean with 95% CI against a parameter, and the time
series a run recorded (``stats.series``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from .errors import SpecError

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def new_figure(width: float = 6.0, height: float = 4.0) -> "Figure":
    """A figure drawn with the Agg canvas, without touching pyplot's global state."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=120, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


#: readable names of the usual parameters and metrics (others are derived from the column name)
NAMES = {
    "tcp.max_window": "TCP maximum window (packets)", "tcp.payload_bytes": "TCP payload (bytes)",
    "tcp.variant": "TCP variant", "mac.queue_limit": "interface queue limit (packets)",
    "mac.rts_threshold_bytes": "RTS threshold (bytes)", "topology.hops": "hops", "topology.rows": "grid rows",
    "topology.spacing_m": "node spacing (m)", "radio.data_rate_mbps": "data rate (Mb/s)",
    "radio.cs_range_m": "carrier-sense range (m)", "duration_s": "simulated time (s)", "seed": "seed",
    "fairness_jain": "Jain's fairness index", "drops.total": "drops (packets)",
}
#: words written differently in labels
_WORDS = {"rtt": "RTT", "cwnd": "cwnd", "tcp": "TCP", "udp": "UDP", "cbr": "CBR", "mac": "MAC", "rts": "RTS",
          "cts": "CTS", "ack": "ACK", "avg": "average", "jain": "Jain", "aodv": "AODV", "ldm": "LDM", "lred": "LRED"}


def _words(name: str) -> str:
    return " ".join(_WORDS.get(w, w) for w in name.replace(".", " ").replace("_", " ").split())


def describe(column: str, values: Any = None) -> tuple[str, float]:
    """(axis label with unit, factor to multiply values by) for a column: bit rates
    in kb/s or Mb/s (chosen from ``values``' magnitude), seconds in s or ms."""
    if column in NAMES:
        return NAMES[column], 1.0
    import math

    peak = 0.0
    if values is not None:
        finite = [abs(float(v)) for v in values if v is not None and math.isfinite(float(v))]
        peak = max(finite, default=0.0)
    for suffix, units in (("_bps", ((1e6, "Mb/s", 1e-6), (0.0, "kb/s", 1e-3))),
                          ("_s", ((1.0, "s", 1.0), (0.0, "ms", 1e3))),
                          ("_bytes", ((0.0, "bytes", 1.0),)), ("_m", ((0.0, "m", 1.0),)),
                          ("_mbps", ((0.0, "Mb/s", 1.0),)), ("_pps", ((0.0, "packets/s", 1.0),))):
        if column.endswith(suffix):
            unit, factor = next((u, f) for lo, u, f in units if peak >= lo)
            return f"{_words(column[:-len(suffix)])} ({unit})", factor
    return _words(column), 1.0


def plot_sweep(df: "pd.DataFrame", x: str, y: str, hue: str | None = None, ax: "Axes | None" = None, *,
               confidence: float = 0.95, xlabel: str | None = None, ylabel: str | None = None,
               title: str | None = None, scale: float | None = None, logx: bool = False, ymin: float | None = None,
               **errorbar_kw: Any) -> "Axes":
    """Mean of ``y`` per value of ``x`` (one line per ``hue``) with CI error bars.

    Axes are labelled with readable names and units (:func:`describe`): bit rates
    are drawn in kb/s or Mb/s unless ``scale`` (a factor) and ``ylabel`` are given.
    Other parameters of the sweep must be constant: filter first (``hoptcp.load(...,
    where=...)``) or pass one as ``hue``, so that no mean silently mixes settings.
    """
    from .stats import summarize

    for col in filter(None, (x, y, hue)):
        if col not in df.columns:
            import difflib

            close = difflib.get_close_matches(col, [str(c) for c in df.columns], n=3, cutoff=0.6)
            hint = f"; closest: {', '.join(close)}" if close else ""
            raise SpecError(f"no column '{col}'{hint} (every column: df.columns, or hoptcp results columns)")
    by = [x] + ([hue] if hue else [])
    others = [p for p in df.attrs.get("params", []) if p not in by and df[p].nunique(dropna=False) > 1]
    if others:
        raise SpecError(f"parameter '{others[0]}' also varies in this sweep; plot it with --hue {others[0]} "
                        "or select one value of it first")
    summ = summarize(df, by=by, metrics=[y], confidence=confidence).sort_values(by)
    if ax is None:
        import matplotlib.pyplot as plt

        ax = plt.gca()
    y_label, y_factor = describe(y, summ[y].tolist())
    if scale is None:
        scale = y_factor
    elif ylabel is None:
        y_label = _words(y) + ("" if scale == 1.0 else f" (x {scale:g})")
    hue_label = describe(hue)[0].split(" (")[0] if hue else ""
    groups = summ.groupby(hue, sort=True) if hue else [(None, summ)]
    for key, g in groups:
        key = key[0] if isinstance(key, tuple) and len(key) == 1 else key
        yerr = g[f"{y}_ci"].fillna(0.0) * scale
        ax.errorbar(g[x], g[y] * scale, yerr=yerr, marker="o", capsize=3,
                    label=None if hue is None else f"{hue_label} = {key}", **errorbar_kw)
    ax.set_xlabel(xlabel or describe(x)[0])
    ax.set_ylabel(ylabel or f"{y_label}, mean ± {confidence:.0%} CI")
    if title:
        ax.set_title(title)
    if hue:
        ax.legend()
    if logx:
        ax.set_xscale("log")
    if ymin is not None:
        ax.set_ylim(bottom=ymin)
    ax.grid(True, alpha=0.3)
    return ax


def select_rows(df: "pd.DataFrame", conditions: Sequence[tuple[str, Any]]) -> "pd.DataFrame":
    """Rows whose column equals the value for every (column, value); one clear
    error for an unknown column or a value no run has."""
    import difflib

    attrs = dict(df.attrs)
    for col, value in conditions:
        if col not in df.columns:
            close = difflib.get_close_matches(col, [str(c) for c in df.columns], n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else f"; parameters: {', '.join(attrs.get('params', []))}"
            raise SpecError(f"--where {col}: no such column{hint}")
        kept = df[df[col] == value]
        if kept.empty:
            values = ", ".join(map(str, sorted(df[col].dropna().unique().tolist(), key=str)[:20]))
            raise SpecError(f"--where {col}={value}: no run has this value; values there: {values}")
        df = kept
    df = df.reset_index(drop=True)
    df.attrs.update(attrs)
    return df


def check_image_path(path: str | Path) -> None:
    """An image file name whose suffix matplotlib can write."""
    suffix = Path(path).suffix.lower().lstrip(".")
    formats = sorted(new_figure().canvas.get_supported_filetypes())
    if suffix not in formats:
        raise SpecError(f"-o {path}: unknown image format '{suffix or '(no suffix)'}'; "
                        f"use one of {', '.join('.' + f for f in formats)}")


def save(fig: "Figure", path: str | Path) -> Path:
    check_image_path(path)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    return path


def save_sweep_plot(df: "pd.DataFrame", path: str | Path, **kw: Any) -> Path:
    fig = new_figure()
    plot_sweep(df, ax=fig.add_subplot(), **kw)
    return save(fig, path)


#: panels drawn when no metric is named
DEFAULT_SERIES_METRICS = ("rtt_wireless_s", "variation", "rate_pps", "queue")
#: metrics that are samples (drawn as dots) rather than states (drawn as steps)
SAMPLE_METRICS = frozenset({"rtt_wireless_s", "rtt_wired_s", "goodput_bps"})


def plot_time_series(runs: Sequence[tuple[str, Any]], fig: "Figure", *, kind: str | None = None,
                     metrics: Sequence[str] | None = None, flows: Sequence[int] | None = None,
                     xlim: tuple[float | None, float | None] = (None, None), logy: bool = False,
                     ymin: float | None = None) -> list["Axes"]:
    """One panel per metric (shared time axis), one line per (run, series kind, flow).

    ``runs`` are (label, :class:`~hoptcp.results.RunResult`) pairs; ``kind`` picks one series
    (default: every kind each run holds). Samples (RTTs, goodput) are dots, states steps.
    """
    from .results import PACING_SERIES_KINDS

    frames = []
    for label, r in runs:
        held = [k for k in PACING_SERIES_KINDS if k in (r.raw.get("time_series") or {})]
        kinds = [kind] if kind is not None else held
        if not kinds:
            raise SpecError(f"run {label}: no time series; run it with hoptcp run --series gateway --json")
        for k in kinds:
            df = r.time_series(k)
            if flows:
                df = df[df["flow"].isin(list(flows))]
            frames.append((label if len(kinds) == 1 else f"{label} {k}", df))
    wanted = list(metrics) if metrics else [m for m in DEFAULT_SERIES_METRICS
                                             if any((df["metric"] == m).any() for _, df in frames)]
    known = {str(m) for _, df in frames for m in df["metric"].cat.categories}
    for m in wanted:
        if m not in known:
            raise SpecError(f"--metric {m}: unknown; metrics: {', '.join(sorted(known))}")
    if not wanted:
        raise SpecError("the selected series hold no points (check --flow and --series)")
    axes = fig.subplots(len(wanted), 1, sharex=True, squeeze=False)[:, 0]
    for ax, m in zip(axes, wanted):
        for label, df in frames:
            d = df[df["metric"] == m]
            for fid, g in d.groupby("flow", sort=True):
                name = f"{label} flow {fid}"
                if m in SAMPLE_METRICS:
                    ax.plot(g["time_s"], g["value"], ".", markersize=2, label=name)
                else:
                    ax.step(g["time_s"], g["value"], where="post", linewidth=0.8, label=name)
        ax.set_ylabel(m)
        if logy:
            ax.set_yscale("log")
        elif ymin is not None:
            ax.set_ylim(bottom=ymin)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize="small", markerscale=4)
    axes[-1].set_xlabel("time (s)")
    axes[-1].set_xlim(*xlim)
    return list(axes)


def save_time_series_plot(runs: Sequence[tuple[str, Any]], path: str | Path, **kw: Any) -> Path:
    check_image_path(path)
    n = len(kw.get("metrics") or DEFAULT_SERIES_METRICS)
    fig = new_figure(7.0, 1.8 * n + 0.8)
    plot_time_series(runs, fig, **kw)
    return save(fig, path)


#: the panels ``hoptcp plot-run`` can draw, in this order
RUN_PANELS = ("cwnd", "ssthresh", "rtt", "rto", "goodput", "queue", "mac")
#: the windows the cwnd panel can draw (the first is the default: the papers' window size)
WINDOWS = ("effective", "cwnd", "cwnd_traced")
WINDOW_LABELS = {"effective": "window min(cwnd, MaxWin)\n(packets)",
                 "cwnd": "cwnd incl. fast-recovery\ninflation (packets)",
                 "cwnd_traced": "ns-2 cwnd_ (packets)"}


def _grid(df: "pd.DataFrame", key: str, ids: Sequence[int], t: Any, end: float) -> Any:
    """Step functions of ``df`` (one per id, metric filtered already) sampled at times ``t``:
    an array ids × times, NaN before an id's first point."""
    import numpy as np

    out = np.full((len(ids), len(t)), np.nan)
    for row, i in enumerate(ids):
        g = df[df[key] == i]
        if len(g):
            idx = np.searchsorted(g["time_s"].to_numpy(), t, side="right") - 1
            vals = g["value"].to_numpy()
            out[row] = np.where(idx >= 0, vals[np.clip(idx, 0, None)], np.nan)
    return out


def plot_run(r: Any, fig: "Figure", panels: Sequence[str], *, flows: Sequence[int] | None = None,
             nodes: Sequence[int] | None = None, xlim: tuple[float | None, float | None] = (None, None),
             goodput_bin_s: float = 1.0, window: str = "effective") -> list["Axes"]:
    """The classic figures of one run, one panel per series kind, on a shared time axis:
    the window per flow as steps (``window``: ``effective`` = min(cwnd, MaxWin), whose time
    average is the report's avg_cwnd, with each flow's MaxWin drawn dashed; ``cwnd``, with
    fast-recovery inflation; ``cwnd_traced``, ns-2's ``cwnd_``), ssthresh per flow as steps;
    RTT samples as dots; the RTO with its timeouts
    marked; goodput per flow in ``goodput_bin_s`` bins; queue length and MAC state per node
    as a node × time map (a chain reads top to bottom)."""
    import numpy as np

    from .results import MAC_STATES

    for p in panels:
        if p not in RUN_PANELS:
            raise SpecError(f"--series {p}: unknown; plot-run draws {', '.join(RUN_PANELS)}")
    if window not in WINDOWS:
        raise SpecError(f"--window {window}: unknown; expected one of {', '.join(WINDOWS)}")
    caps = r.window_caps() if "cwnd" in panels else {}
    end = float(r.raw.get("duration_s") or 0.0)
    lo = xlim[0] if xlim[0] is not None else 0.0
    hi = xlim[1] if xlim[1] is not None else end
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    for ax, kind in zip(axes, panels):
        df = r.timeseries(kind)
        key = "node" if kind in ("queue", "mac") else "flow"
        keep = nodes if key == "node" else flows
        if keep:
            df = df[df[key].isin(list(keep))]
        if kind in ("queue", "mac"):
            metric = "queue" if kind == "queue" else "state"
            d = df[df["metric"] == metric]
            ids = sorted(int(i) for i in d[key].unique())
            if not ids:
                ax.text(0.5, 0.5, f"no {kind} points", ha="center", transform=ax.transAxes)
                continue
            t = np.linspace(lo, hi, 1200)
            z = _grid(d, key, ids, t, end)
            if kind == "queue":
                im = ax.imshow(z, aspect="auto", origin="upper", interpolation="nearest", cmap="viridis",
                               extent=(lo, hi, len(ids) - 0.5, -0.5))
                fig.colorbar(im, ax=ax, label="queue (packets)", pad=0.01)
            else:
                from matplotlib.colors import ListedColormap

                cmap = ListedColormap(["#f2f2f2", "#f6c85f", "#9dd866", "#ca472f", "#0b84a5"])
                im = ax.imshow(z, aspect="auto", origin="upper", interpolation="nearest", cmap=cmap, vmin=-0.5,
                               vmax=len(MAC_STATES) - 0.5, extent=(lo, hi, len(ids) - 0.5, -0.5))
                cb = fig.colorbar(im, ax=ax, ticks=range(len(MAC_STATES)), pad=0.01)
                cb.ax.set_yticklabels(MAC_STATES)
            step = max(1, len(ids) // 12)
            ax.set_yticks(range(0, len(ids), step), [str(i) for i in ids[::step]])
            ax.set_ylabel("node")
            continue
        for fid, g in df.groupby(key, sort=True):
            name = f"flow {fid}"
            if kind == "cwnd":
                shown = window if window != "effective" or int(fid) in caps else "cwnd"
                g = g[g["metric"] == shown]
                line = ax.step(g["time_s"], g["value"], where="post", linewidth=0.8, label=name)[0]
                if int(fid) in caps:
                    ax.axhline(caps[int(fid)], color=line.get_color(), linestyle="--", linewidth=0.8,
                               label=f"MaxWin flow {fid} = {caps[int(fid)]:g}")
            elif kind == "ssthresh":
                ax.step(g["time_s"], g["value"], where="post", linewidth=0.8, label=name)
            elif kind == "rtt":
                ax.plot(g["time_s"], g["value"] * 1e3, ".", markersize=2, label=name)
            elif kind == "rto":
                rto = g[g["metric"] == "rto_s"]
                line = ax.step(rto["time_s"], rto["value"], where="post", linewidth=0.8, label=name)[0]
                tos = g[g["metric"] == "timeouts"]
                if len(tos):
                    at = np.searchsorted(rto["time_s"].to_numpy(), tos["time_s"].to_numpy(), side="right") - 1
                    ax.plot(tos["time_s"], rto["value"].to_numpy()[np.clip(at, 0, None)], "x",
                            color=line.get_color(), markersize=5)
            elif kind == "goodput":
                edges = np.arange(0.0, end + goodput_bin_s, goodput_bin_s)
                cum = np.interp(edges, g["time_s"].to_numpy(), g["value"].to_numpy(), left=0.0)
                ax.step(edges[1:], np.diff(cum) * 8 / goodput_bin_s / 1e3, where="pre", linewidth=0.8,
                        label=name)
        ax.set_ylabel({"cwnd": WINDOW_LABELS[window], "ssthresh": "ssthresh (packets)", "rtt": "RTT (ms)",
                       "rto": "RTO (s), x = timeout", "goodput": "goodput (kb/s)"}[kind])
        ax.grid(True, alpha=0.3)
        if df[key].nunique() > 1 or (kind == "cwnd" and caps):
            ax.legend(fontsize="small", ncol=4)
    axes[-1].set_xlabel("time (s)")
    axes[-1].set_xlim(lo, hi)
    return list(axes)


def save_run_plot(r: Any, path: str | Path, panels: Sequence[str], **kw: Any) -> Path:
    check_image_path(path)
    fig = new_figure(8.0, 2.2 * len(panels) + 0.8)
    plot_run(r, fig, panels, **kw)
    return save(fig, path)
