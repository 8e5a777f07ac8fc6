//! Settings that are valid but have no effect in the run they describe. Each
//! becomes one line of the report's `warnings` (printed by `hoptcp run`), so
//! that a silent no-op is never mistaken for a result.

use super::resolved::{Resolved, Routing, Tcp};
use super::schema::{Scenario, TcpVariantSpec, TransportKind};
use crate::net::ldm::LdmEstimate;
use crate::net::MarkAction;
use crate::stats::series::SeriesKind;
use serde::Serialize;

/// Does anything in the network set CE on ECN-capable packets?
pub fn has_ecn_marker(sc: &Resolved) -> bool {
    link_red_marks(sc) || ldm_marks(sc)
}

fn link_red_marks(sc: &Resolved) -> bool {
    sc.mac.link_red.get().is_some_and(|r| r.enabled && r.params.action.marks())
}

fn ldm_marks(sc: &Resolved) -> bool {
    sc.ip.ldm.get().is_some_and(|l| l.enabled && l.action.marks())
}

/// The initial TTL every packet of the run starts with.
fn initial_ttl(sc: &Resolved) -> u32 {
    match &sc.routing {
        Routing::Static => sc.ip.ttl,
        Routing::Aodv { aodv } => aodv.params().network_diameter as u32,
    }
}

/// The keys of a mechanism's table that differ from its defaults while the
/// mechanism itself is off: they would otherwise vanish without a word.
fn changed_while_off<T: Serialize + Default>(table: &str, spec: Option<&T>, enabled: bool) -> Option<String> {
    let spec = spec.filter(|_| !enabled)?;
    let (Ok(serde_json::Value::Object(set)), Ok(serde_json::Value::Object(default))) =
        (serde_json::to_value(spec), serde_json::to_value(T::default()))
    else {
        return None;
    };
    let changed: Vec<String> = set
        .iter()
        .filter(|(k, v)| k.as_str() != "enabled" && default.get(k.as_str()) != Some(*v))
        .map(|(k, v)| format!("{table}.{k} = {v}"))
        .collect();
    (!changed.is_empty()).then(|| {
        format!("{} set, but {table}.enabled = false: {} no effect in this run", changed.join(", "), {
            if changed.len() == 1 {
                "it has"
            } else {
                "they have"
            }
        })
    })
}

/// Settings of the parsed scenario that resolution will drop because their
/// table is disabled. Link RED's keys still count when pacing is on with a
/// trigger that reads its retry average (resolution keeps the table then).
pub(crate) fn set_while_disabled(sc: &Scenario) -> Vec<String> {
    let pacing = sc.mac.adaptive_pacing.as_ref();
    let pacing_on = pacing.is_some_and(|p| p.enabled);
    let link_red = sc.mac.link_red.as_ref();
    let red_kept =
        link_red.is_some_and(|r| r.enabled) || (pacing_on && pacing.is_some_and(|p| p.trigger.uses_retry_average()));
    let ldm = sc.ip.ldm.as_ref();
    [
        changed_while_off("mac.adaptive_pacing", pacing, pacing_on),
        changed_while_off("mac.link_red", link_red, red_kept),
        changed_while_off("ip.ldm", ldm, ldm.is_some_and(|l| l.enabled)),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The warnings of a scenario and its planned flows (each flow's transport
/// and resolved TCP settings, in plan order).
pub fn warnings(sc: &Resolved, flows: &[(TransportKind, Tcp)]) -> Vec<String> {
    let ecn_flows = flows.iter().filter(|(transport, tcp)| *transport == TransportKind::Tcp && tcp.ecn).count();
    let mut out = Vec::new();
    out.extend(sc.ignored.iter().cloned());
    if ecn_flows > 0 && !has_ecn_marker(sc) {
        out.push(format!(
            "tcp.ecn = true ({} of {} flows), but nothing in the network marks packets: ECN has no effect in this \
             run (enable [ip.ldm] or [mac.link_red] with action = \"mark\")",
            ecn_flows,
            flows.len()
        ));
    }
    if let Some(l) = sc.ip.ldm.get().filter(|l| l.enabled) {
        if ldm_marks(sc) && ecn_flows == 0 {
            out.push(format!(
                "ip.ldm.action = \"{}\", but no flow is ECN-capable (tcp.ecn = false): {}",
                if l.action == MarkAction::MarkEctOnly { "mark_ect_only" } else { "mark" },
                if l.action == MarkAction::MarkEctOnly {
                    "LDM never acts in this run"
                } else {
                    "every packet LDM picks is dropped instead of marked"
                }
            ));
        }
        let ttl = initial_ttl(sc);
        if l.estimate == LdmEstimate::Estimated && !l.initial_ttls.contains(&ttl) {
            out.push(format!(
                "ip.ldm.initial_ttls = {:?} does not contain the initial TTL of this run's packets ({ttl}): LDM's hop \
                 estimates are off by the gap to the next convention",
                l.initial_ttls
            ));
        }
    }
    if link_red_marks(sc) && ecn_flows == 0 {
        let action = sc.mac.link_red.get().map(|r| r.params.action);
        out.push(if action == Some(MarkAction::MarkEctOnly) {
            "mac.link_red.action = \"mark_ect_only\", but no flow is ECN-capable (tcp.ecn = false): Link RED never \
             acts in this run"
                .to_string()
        } else {
            "mac.link_red.action = \"mark\", but no flow is ECN-capable (tcp.ecn = false): every packet Link RED \
             picks is dropped instead of marked"
                .to_string()
        });
    }
    for kind in &sc.stats.series {
        let unused = match kind {
            SeriesKind::Gateway => !sc.wired.get().and_then(|w| w.tcp_gap.get()).is_some_and(|g| g.enabled),
            SeriesKind::TcpAp => !flows.iter().any(|(_, tcp)| tcp.variant == TcpVariantSpec::TcpAp),
            SeriesKind::Bbr => !flows.iter().any(|(_, tcp)| tcp.variant == TcpVariantSpec::Bbr),
            SeriesKind::Cwnd | SeriesKind::Ssthresh | SeriesKind::Rtt | SeriesKind::Rto => {
                !flows.iter().any(|(transport, _)| *transport == TransportKind::Tcp)
            }
            _ => false,
        };
        if unused {
            out.push(format!(
                "stats.series contains \"{}\", but {}: that series is empty in this run",
                kind.name(),
                match kind {
                    SeriesKind::Gateway => "[wired.tcp_gap] is not enabled",
                    SeriesKind::TcpAp => "no flow runs TCP-AP (tcp.variant = \"tcp_ap\")",
                    SeriesKind::Bbr => "no flow runs BBR (tcp.variant = \"bbr\")",
                    _ => "no flow runs TCP",
                }
            ));
        }
    }
    out
}
