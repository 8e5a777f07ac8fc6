//! `max_window = "wstar"`: the restrained-window TCP of Fu et al. and Lee et
//! al. as one key. Each flow named this way gets the W* of its static path
//! (models/wstar.rs, rounded up: ⌈h/4⌉ on chains and other topologies,
//! ⌈(h+4)/8⌉ on the cross, ⌈(h+9)/14⌉ on the grid), so the resolved scenario,
//! its canonical form and its hash carry the number, never the name.

use super::build::Plan;
use super::error::ScenarioError;
use super::resolved::{Inherit, Resolved};
use super::schema::{TopologyKind, TransportKind};
use crate::models::wstar;
use toml::{Table, Value};

pub const NAME: &str = "wstar";

/// Which keys said "wstar".
#[derive(Debug, Default)]
pub struct Named {
    tcp: bool,
    flows: Vec<usize>,
}

impl Named {
    pub fn any(&self) -> bool {
        self.tcp || !self.flows.is_empty()
    }
}

/// Replace every `max_window = "wstar"` in the raw table by a placeholder
/// window (resolved later) and remember where it was. Any other string is
/// an error naming both allowed forms.
pub fn take(root: &mut Table) -> Result<Named, ScenarioError> {
    let mut named = Named::default();
    let check = |key: &str, v: &mut Value| -> Result<bool, ScenarioError> {
        match v {
            Value::String(s) if s == NAME => {
                *v = Value::Integer(1);
                Ok(true)
            }
            Value::String(s) => Err(ScenarioError::value(
                key,
                format!("\"{s}\""),
                format!(
                    "must be an integer in {} or \"wstar\" (the W* of the flow's path)",
                    super::keys::TCP_MAX_WINDOW.range_text()
                ),
            )),
            _ => Ok(false),
        }
    };
    if let Some(v) = root.get_mut("tcp").and_then(Value::as_table_mut).and_then(|t| t.get_mut("max_window")) {
        named.tcp = check("tcp.max_window", v)?;
    }
    if let Some(flows) = root.get_mut("flows").and_then(Value::as_array_mut) {
        for (i, f) in flows.iter_mut().enumerate() {
            if let Some(v) = f.as_table_mut().and_then(|t| t.get_mut("max_window")) {
                if check(&format!("flows.{i}.max_window"), v)? {
                    named.flows.push(i);
                }
            }
        }
    }
    Ok(named)
}

/// W* of an h-hop flow in `kind`'s topology.
pub fn for_path(kind: TopologyKind, hops: u32) -> u32 {
    let t = match kind {
        TopologyKind::Cross => wstar::Topology::Cross,
        TopologyKind::Grid => wstar::Topology::Grid,
        _ => wstar::Topology::Chain,
    };
    wstar::optimal_window(t, hops).rounded.max(1)
}

/// Set each named flow's window to the W* of its planned path; a flow that
/// inherits `tcp.max_window = "wstar"` gets its own override, and
/// `tcp.max_window` itself becomes the first flow's W*. Returns the plan,
/// built once: the windows change no path, so only the flows' TCP settings
/// are brought up to date.
pub fn resolve(sc: &mut Resolved, named: &Named) -> Result<Plan, ScenarioError> {
    if named.tcp && !sc.random_flows.is_absent() {
        return Err(ScenarioError::value(
            "tcp.max_window",
            "\"wstar\"",
            "needs flows listed in [[flows]]: random flows' paths are only drawn when the network is built (give a number)",
        ));
    }
    let plan = super::build(sc)?;
    let mut at = 0usize;
    let mut first = None;
    for (i, f) in sc.flows.iter_mut().enumerate() {
        let hops = plan.flows[at].path.len().saturating_sub(1) as u32;
        at += f.replicas() as usize;
        if named.flows.contains(&i)
            || (named.tcp && f.tcp.max_window.is_inherited() && f.transport == TransportKind::Tcp)
        {
            let w = for_path(sc.topology.kind(), hops);
            f.tcp.max_window = Inherit::Own(w);
            first.get_or_insert(w);
        }
    }
    if named.tcp {
        sc.tcp.max_window = first.unwrap_or(sc.tcp.max_window);
    }
    // As `build` would plan them now: [[flows]] entries first, `count` plans each.
    let mut plan = plan;
    let link_rate_bps = plan.mac.timing.data_rate_bps;
    for (p, tcp) in plan.flows.iter_mut().zip(super::build::flow_tcp(sc)) {
        if let Some(cfg) = p.tcp.as_mut() {
            *cfg = super::build::tcp_config(&tcp, link_rate_bps);
        }
    }
    plan.warnings = super::build::plan_warnings(sc, &plan.flows);
    plan.scenario = sc.clone();
    Ok(plan)
}
