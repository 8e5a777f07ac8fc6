//! One entry point for every model with JSON parameters, used by the Python
//! API and `hoptcp model`. Parameters have the papers' defaults; unknown keys
//! are errors.

use super::common::{Access, BackoffDraw, TCP_IP_OVERHEAD_BYTES, UDP_IP_OVERHEAD_BYTES};
use super::linkdrop::LoadModel;
use super::*;
use crate::mac::{FrameFormat, Standard, Timing};
use serde::Deserialize;
use serde_json::{json, Value};

fn bad(e: impl std::fmt::Display) -> ModelError {
    ModelError::InvalidParameter(e.to_string())
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Transport {
    Udp,
    Tcp,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WStarArgs {
    #[serde(default = "chain")]
    topology: Topology,
    hops: u32,
}
fn chain() -> Topology {
    Topology::Chain
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, default)]
struct PhyArgs {
    standard: Standard,
    data_rate_mbps: f64,
    basic_rate_mbps: f64,
    frame_format: FrameFormat,
    access: Access,
    transport: Transport,
    payload_bytes: u32,
    distance_m: f64,
    /// Contention window bounds; absent: the standard's (as a scenario's
    /// `mac.cw_min`/`cw_max` default).
    cw_min: Option<u32>,
    cw_max: Option<u32>,
}

impl Default for PhyArgs {
    fn default() -> Self {
        PhyArgs {
            standard: Standard::Dsss,
            data_rate_mbps: 2.0,
            basic_rate_mbps: 1.0,
            frame_format: FrameFormat::Ns2,
            access: Access::RtsCts,
            transport: Transport::Udp,
            payload_bytes: 1460,
            distance_m: 200.0,
            cw_min: None,
            cw_max: None,
        }
    }
}

impl PhyArgs {
    fn timing(&self) -> Result<Timing, ModelError> {
        for r in [self.data_rate_mbps, self.basic_rate_mbps] {
            if !self.standard.rates_mbps().contains(&r) {
                return Err(bad(format!(
                    "rate {r} Mb/s is not one of {:?} for {}",
                    self.standard.rates_mbps(),
                    self.standard.name()
                )));
            }
        }
        let mut t = Timing::new(self.standard, self.data_rate_mbps, self.basic_rate_mbps);
        t.cw_min = self.cw_min.unwrap_or(t.cw_min);
        t.cw_max = self.cw_max.unwrap_or(t.cw_max);
        if t.cw_min == 0 || t.cw_max < t.cw_min {
            return Err(bad(format!("cw_min = {}, cw_max = {}: need 1 <= cw_min <= cw_max", t.cw_min, t.cw_max)));
        }
        Ok(t)
    }
    fn overhead(&self) -> u32 {
        match self.transport {
            Transport::Udp => UDP_IP_OVERHEAD_BYTES,
            Transport::Tcp => TCP_IP_OVERHEAD_BYTES,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BianchiArgs {
    stations: u32,
    /// "ns2" (ns-2's DCF mapped on) or "classic" (Bianchi 2000).
    #[serde(default = "ns2_variant")]
    variant: String,
    /// Attempts per packet before a drop (a scenario's
    /// `mac.short_retry_limit`); absent: the variant's (ns2: 7, classic: none).
    retry_limit: Option<u32>,
    #[serde(flatten)]
    phy: PhyArgs,
}
fn ns2_variant() -> String {
    "ns2".into()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkDropArgs {
    b_star: f64,
    c_star: f64,
    #[serde(default = "seven")]
    retry_limit: u32,
    #[serde(default = "printed")]
    load: LoadModel,
    /// Evaluate at this many backlogged nodes...
    m: Option<f64>,
    /// ... or over m = 1..=m_max ...
    m_max: Option<u32>,
    /// ... or from measured per-node backlog probabilities ...
    backlog: Option<Vec<f64>>,
    /// ... or from measured concurrency: c(m) RTS initiators and b(m)
    /// successful DATA senders at load m (the TR's Fig. 7 method; needs m).
    c: Option<f64>,
    b: Option<f64>,
}
fn seven() -> u32 {
    7
}
fn printed() -> LoadModel {
    LoadModel::Printed
}

fn parse<T: for<'de> Deserialize<'de>>(params: &Value) -> Result<T, ModelError> {
    serde_json::from_value(params.clone()).map_err(bad)
}

/// Evaluate model `name` ("wstar", "single_hop", "bianchi", "linkdrop").
pub fn evaluate(name: &str, params: &Value) -> Result<Value, ModelError> {
    match name {
        "wstar" => {
            let a: WStarArgs = parse(params)?;
            if a.hops == 0 {
                return Err(bad("hops must be at least 1"));
            }
            let best = optimal_window(a.topology, a.hops);
            Ok(
                json!({"topology": a.topology, "hops": a.hops, "wstar": best, "formulas": wstar::all_formulas(a.topology, a.hops)}),
            )
        }
        "single_hop" => {
            let a: PhyArgs = parse(params)?;
            let p = SingleHopParams {
                timing: a.timing()?,
                format: a.frame_format,
                access: a.access,
                draw: BackoffDraw::Ns2,
                payload_bytes: a.payload_bytes,
                ip_overhead_bytes: a.overhead(),
                distance_m: a.distance_m,
            };
            Ok(to_json(&single_hop(&p)))
        }
        "bianchi" => {
            let a: BianchiArgs = parse(params)?;
            if a.stations == 0 {
                return Err(bad("stations must be at least 1"));
            }
            let mut p = match a.variant.as_str() {
                "ns2" => BianchiParams::ns2(a.stations, a.phy.payload_bytes),
                "classic" => BianchiParams::classic(a.stations, a.phy.payload_bytes),
                other => return Err(bad(format!("variant \"{other}\": allowed values are \"ns2\", \"classic\""))),
            };
            if a.retry_limit.is_some() {
                p.retry_limit = a.retry_limit;
            }
            p.timing = a.phy.timing()?;
            p.format = a.phy.frame_format;
            p.access = a.phy.access;
            p.ip_overhead_bytes = a.phy.overhead();
            p.prop_delay_s = common::propagation_delay_s(a.phy.distance_m);
            Ok(to_json(&saturation_throughput(&p)?))
        }
        "linkdrop" => {
            let a: LinkDropArgs = parse(params)?;
            let lp = LinkDropParams { b_star: a.b_star, c_star: a.c_star, retry_limit: a.retry_limit, load: a.load };
            lp.validate()?;
            if let Some(b) = &a.backlog {
                return Ok(to_json(&predict_from_backlog(b, &lp)?));
            }
            match (a.m, a.c, a.b) {
                (Some(m), Some(c), Some(b)) => {
                    if !(b > 0.0 && c >= b && m >= c) {
                        return Err(bad(format!("need 0 < b <= c <= m (got m = {m}, c = {c}, b = {b})")));
                    }
                    return Ok(to_json(&LinkDropPoint::from_counts(m, c, b, a.retry_limit)));
                }
                (_, None, None) => {}
                _ => return Err(bad("measured counts need all of m, c and b")),
            }
            if let Some(m) = a.m {
                return Ok(to_json(&link_drop_at(m, &lp)?));
            }
            let m_max = a.m_max.unwrap_or((a.c_star * 2.0).ceil() as u32).max(1);
            Ok(json!({"params": lp, "curve": link_drop_curve(&lp, m_max)?}))
        }
        other => Err(bad(format!("unknown model \"{other}\"; models: wstar, single_hop, bianchi, linkdrop"))),
    }
}

fn to_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("model results serialize")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_hop_default_is_the_papers_case() {
        let v = evaluate("single_hop", &json!({})).unwrap();
        let g = v["goodput_bps"].as_f64().unwrap();
        assert!((g - 1_532_272.0).abs() < 1.0, "{g}");
    }

    #[test]
    fn wstar_chain_7() {
        let v = evaluate("wstar", &json!({"topology": "chain", "hops": 7})).unwrap();
        assert_eq!(v["wstar"]["rounded"], 2);
    }

    #[test]
    fn linkdrop_from_measured_counts() {
        let v = evaluate("linkdrop", &json!({"b_star": 2, "c_star": 3, "m": 4.0, "c": 3.0, "b": 2.0})).unwrap();
        // H = 1 - b/c = 1/3, per the measured counts.
        assert!((v["hidden"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-12, "{v}");
        assert!(evaluate("linkdrop", &json!({"b_star": 2, "c_star": 3, "m": 4.0, "c": 3.0})).is_err());
        assert!(evaluate("linkdrop", &json!({"b_star": 2, "c_star": 3, "m": 2.0, "c": 3.0, "b": 2.0})).is_err());
    }

    #[test]
    fn bianchi_takes_the_scenarios_retry_limit_and_windows() {
        let at = |extra: Value| {
            let mut p = json!({"stations": 10});
            p.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            evaluate("bianchi", &p).unwrap()
        };
        // ns2 variant: 7 attempts unless the scenario says otherwise.
        assert_eq!(at(json!({})), at(json!({"retry_limit": 7, "cw_min": 31, "cw_max": 1023})));
        let four = at(json!({"retry_limit": 4}));
        let p = four["p"].as_f64().unwrap();
        assert!((four["drop_probability"].as_f64().unwrap() - p.powi(4)).abs() < 1e-15, "{four}");
        assert_ne!(four["tau"], at(json!({}))["tau"]);
        // A smaller CWmin: more attempts per slot, more collisions.
        assert!(at(json!({"cw_min": 15}))["p"].as_f64().unwrap() > at(json!({}))["p"].as_f64().unwrap());
        let e = evaluate("bianchi", &json!({"stations": 3, "cw_min": 64, "cw_max": 32})).unwrap_err();
        assert!(e.to_string().contains("cw_min = 64, cw_max = 32"), "{e}");
    }

    #[test]
    fn unknown_keys_and_models_are_errors() {
        assert!(evaluate("wstar", &json!({"hops": 7, "hopz": 1})).is_err());
        assert!(evaluate("nope", &json!({})).is_err());
        assert!(evaluate("bianchi", &json!({"stations": 5, "data_rate_mbps": 3})).is_err());
    }
}
