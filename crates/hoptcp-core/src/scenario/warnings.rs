//! Settings that are valid but have no effect in the run they describe. Each
//! becomes one line of the report's `warnings` (printed by `hoptcp run`), so
//! that a silent no-op is never mistaken for a result.

use super::build::FlowPlan;
use super::schema::{Scenario, TransportKind};
use crate::net::MarkAction;

/// Does anything in the network set CE on ECN-capable packets?
pub fn has_ecn_marker(sc: &Scenario) -> bool {
    sc.mac.link_red.as_ref().is_some_and(|r| r.enabled && r.action.marks())
}

/// The warnings of a scenario and its planned flows.
pub fn warnings(sc: &Scenario, flows: &[FlowPlan]) -> Vec<String> {
    let ecn_flows: Vec<u32> =
        flows.iter().filter(|f| f.transport == TransportKind::Tcp && f.tcp.ecn).map(|f| f.id).collect();
    let mut out = Vec::new();
    if !ecn_flows.is_empty() && !has_ecn_marker(sc) {
        out.push(format!(
            "tcp.ecn = true ({} of {} flows), but nothing in the network marks packets: ECN has no effect in this \
             run (enable [mac.link_red] with action = \"mark\")",
            ecn_flows.len(),
            flows.len()
        ));
    }
    if has_ecn_marker(sc) && ecn_flows.is_empty() {
        let action = sc.mac.link_red.as_ref().map(|r| r.action);
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
    out
}
