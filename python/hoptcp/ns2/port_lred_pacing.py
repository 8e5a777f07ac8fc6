"""Link RED and adaptive pacing in exported ns-2.35 scripts: ns-2.35 built with the
``lred-pacing`` port (``ns2/ports/lred-pacing``: bound variables of ``Mac/802_11`` and the
``lred-pacing-stats`` command, see its INTERFACE.md and CHOICES.md).

hoptcp's ``[mac.link_red]`` and ``[mac.adaptive_pacing]`` map onto the port's class variables:

==============================================  =============================================
hoptcp                                          ns-2.35 (``Mac/802_11 set ...``)
==============================================  =============================================
``link_red.enabled``                            ``lred_`` 0/1
``link_red.min_th``, ``max_th``, ``max_p``      ``lred_min_th_``, ``lred_max_th_``, ``lred_max_p_``
``link_red.weight``                             ``lred_weight_``
``link_red.action`` mark / mark_ect_only / drop ``lred_drop_`` 1 / 0 / 2
``adaptive_pacing.enabled``                     ``pace_`` 0/1
``adaptive_pacing.trigger`` below_min_th /      ``pace_trigger_`` 1 / 2 / 0
at_or_above_min_th / always
``adaptive_pacing.wait`` frozen_backoff / timer ``pace_wait_`` 0 / 2
``adaptive_pacing.extra`` exchange / data       ``pace_len_`` 1 / 0
==============================================  =============================================

The port's other readings keep their defaults: ``lred_count_`` 0 (a frame's retries are its
CTS and ACK timeouts), ``pace_eval_`` 0 (the trigger is read when the packet enters the MAC),
``pace_bytes_`` 0 (TX_Time of the frame just acknowledged). Any other value of a key is refused
with one line. The script stops on a binary without the port with one line, and records every
node's counters at the end (stats lines ``-37 <node>.<name> <value>``), which
:func:`add_counters` puts into the report's nodes with hoptcp's names.
"""

from __future__ import annotations

from typing import Any, Mapping

#: the first line of a script that needs the port: one clear line on a stock ns-2.35
GUARD = ('if {[catch {Mac/802_11 set lred_min_th_}]} {puts stderr "needs ns-2.35 built with hoptcp\'s ports '
         '(hoptcp ns2 build --with-ports lred-pacing): Mac/802_11 has no lred_min_th_"; exit 1}')
#: the stats-file id of the port's counters (issue #37)
STATS_ID = -37

ACTION = {"mark": 1, "mark_ect_only": 0, "drop": 2}
TRIGGER = {"below_min_th": 1, "at_or_above_min_th": 2, "always": 0}
WAIT = {"frozen_backoff": 0, "timer": 2}
EXTRA = {"exchange": 1, "data": 0}
#: hoptcp's defaults of the keys (docs/scenario-reference.md), for keys the resolved scenario leaves out
LINK_RED_DEFAULTS = {"min_th": 1.0, "max_th": 1.5, "max_p": 0.02, "weight": 0.125, "action": "mark"}
PACING_DEFAULTS = {"trigger": "below_min_th", "wait": "frozen_backoff", "extra": "exchange"}
#: the port's counter -> hoptcp's node metric
#: (hoptcp's lred_avg_retry is the mean of the average seen as each unicast packet leaves the
#: queue: the port's avg_retry_seen; its last value is lred_avg_retry_last)
COUNTERS = {"marks": "lred_marks", "drops": "lred_drops", "avg_retry_seen": "lred_avg_retry",
            "paced": "pacing_backoffs", "pace_time": "pacing_extra_s", "avg_retry": "lred_avg_retry_last",
            "avg_retry_tavg": "lred_avg_retry_tavg", "frames": "lred_frames", "retries": "lred_retries",
            "checked": "lred_checked"}
INTEGER = ("marks", "drops", "paced", "frames", "retries", "checked")


def _unsupported(msg: str) -> Exception:
    from .exporter import Ns2Unsupported

    return Ns2Unsupported(msg)


def enabled(mac: Mapping[str, Any]) -> bool:
    """Whether the scenario uses Link RED or adaptive pacing (and so needs the port)."""
    return bool((mac.get("link_red") or {}).get("enabled") or (mac.get("adaptive_pacing") or {}).get("enabled"))


def _pick(table: Mapping[str, int], value: Any, key: str) -> int:
    if value not in table:
        raise _unsupported(f"mac.{key} = {value!r} cannot be exported: the lred-pacing port has no such reading "
                           f"(allowed: {', '.join(table)})")
    return table[value]


def check(mac: Mapping[str, Any]) -> None:
    """Refuse, with one line, a setting the port cannot express."""
    mac_lines(mac)


def mac_lines(mac: Mapping[str, Any]) -> list[str]:
    """``Mac/802_11`` class settings for the resolved ``[mac]`` section (empty when both are off)."""
    if not enabled(mac):
        return []
    lr = {**LINK_RED_DEFAULTS, **mac["link_red"]} if mac.get("link_red") is not None else {}
    ap = {**PACING_DEFAULTS, **(mac.get("adaptive_pacing") or {})}
    out = ["# --- Link RED and adaptive pacing (Fu et al.): the lred-pacing port's Mac/802_11 variables"]
    out.append(f"Mac/802_11 set lred_ {1 if lr.get('enabled') else 0}")
    if lr:
        for key, var in (("min_th", "lred_min_th_"), ("max_th", "lred_max_th_"), ("max_p", "lred_max_p_"),
                         ("weight", "lred_weight_")):
            if key in lr:
                out.append(f"Mac/802_11 set {var} {float(lr[key])!r}")
        if "action" in lr:
            out.append(f"Mac/802_11 set lred_drop_ {_pick(ACTION, lr['action'], 'link_red.action')} "
                       f";# action = {lr['action']}")
    elif ap.get("enabled") and ap["trigger"] != "always":
        raise _unsupported("mac.adaptive_pacing.trigger = \"" + str(ap.get("trigger")) + "\" needs "
                           "[mac.link_red]'s min_th, which the resolved scenario lacks")
    out.append(f"Mac/802_11 set pace_ {1 if ap.get('enabled') else 0}")
    if ap.get("enabled"):
        out.append(f"Mac/802_11 set pace_trigger_ {_pick(TRIGGER, ap.get('trigger'), 'adaptive_pacing.trigger')} "
                   f";# trigger = {ap.get('trigger')}")
        out.append(f"Mac/802_11 set pace_wait_ {_pick(WAIT, ap.get('wait'), 'adaptive_pacing.wait')} "
                   f";# wait = {ap.get('wait')}")
        out.append(f"Mac/802_11 set pace_len_ {_pick(EXTRA, ap.get('extra'), 'adaptive_pacing.extra')} "
                   f";# extra = {ap.get('extra')}")
        unknown = set(ap) - {"enabled", "trigger", "wait", "extra"}
        if unknown:
            raise _unsupported(f"mac.adaptive_pacing.{sorted(unknown)[0]} cannot be exported: the lred-pacing port "
                               "does not know this key")
    unknown = set(lr) - {"enabled", "min_th", "max_th", "max_p", "weight", "action"}
    if unknown:
        raise _unsupported(f"mac.link_red.{sorted(unknown)[0]} cannot be exported: the lred-pacing port does not "
                           "know this key")
    out.append("")
    return out


def finish_lines() -> list[str]:
    """Lines for the script's ``finish`` proc: every node's counters into the stats file, and
    each TCP sender's ECN responses (``necnresponses_``, hoptcp's ``ecn_reductions``)."""
    return [
        "    global node_ opt",
        "    for {set i 0} {$i < $opt(nn)} {incr i} {",
        "        foreach {k v} [[$node_($i) set mac_(0)] lred-pacing-stats] "
        f"{{ puts $statsfd \"{STATS_ID} $i.$k $v\" }}",
        "    }",
        "    foreach i [array names src] {",
        f"        if {{![catch {{$src($i) set necnresponses_}} n]}} {{ puts $statsfd \"{STATS_ID} f$i.necn $n\" }}",
        "    }",
    ]


def add_counters(rep: dict[str, Any], recorded: Mapping[str, float]) -> None:
    """Put the recorded counters (``<node>.<name>`` -> value) into ``rep["nodes"]`` with hoptcp's names."""
    if not recorded:
        return
    nodes = {int(n["id"]): n for n in rep.get("nodes", [])}
    flows = {int(f["id"]): f for f in rep.get("flows", [])}
    for key, value in recorded.items():
        node, _, name = key.partition(".")
        if node.startswith("f") and name == "necn" and int(node[1:]) in flows:
            flows[int(node[1:])]["ecn_reductions"] = int(float(value))
        elif name in COUNTERS and not node.startswith("f") and int(node) in nodes:
            v = float(value)
            nodes[int(node)][COUNTERS[name]] = int(v) if name in INTEGER else v
