//! Fu et al.'s optimal TCP window W*: the number of packets in flight that
//! keeps every spatially reusable slot busy under a perfect scheduler
//! (tech report §3.1.2 and appendix 9.2; INFOCOM §4).
//!
//! With l-bit packets, raw capacity C and one packet per hop in flight, a
//! packet crosses h hops in RTT = h·l/C. If each flow gets C/k of the channel
//! (k slots per packet in the bottleneck neighbourhood), W* = (C/k)·RTT/l:
//!
//! * chain: nodes 4 hops apart can send together, k = 4, RTT = h·l/C,
//!   W* = h/4;
//! * cross (two flows crossing at the centre): 8 mutually interfering links
//!   around the crossing, k = 8, RTT = (h − 4 + 8)·l/C, W* = ⌈(h + 4)/8⌉;
//! * grid (4 flows, appendix): 8 + 3 + 3 = 14 slots at the intersections,
//!   RTT = (h − 5 + 14)·l/C, W* = ⌈(h + 9)/14⌉; the tech report's §3.2.1 text
//!   quotes ⌈(h + 5)/10⌉ instead. Both are exposed, named.

/// Topologies with a published W* formula.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Topology {
    /// h-hop chain, one flow end to end.
    Chain,
    /// 13-node cross, two flows crossing at the centre (h hops each).
    Cross,
    /// 13×13 grid, flows along rows and columns (h hops each).
    Grid,
}

/// W* for one formula.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct WStar {
    /// The formula's real value before rounding (h/4, (h+4)/8, …), packets.
    pub exact: f64,
    /// The window to use: the ceiling of `exact`, packets.
    pub rounded: u32,
    /// The formula, e.g. "ceil(h/4)".
    pub formula: &'static str,
}

const CHAIN: &str = "ceil(h/4)";
const CROSS: &str = "ceil((h+4)/8)";
/// Grid formula derived in the tech report's appendix 9.2 (and listed in the
/// project README).
pub const GRID_APPENDIX: &str = "ceil((h+9)/14)";
/// Grid formula quoted in the tech report's §3.2.1 text for the 4-flow case.
pub const GRID_TEXT: &str = "ceil((h+5)/10)";

fn wstar(hops: u32, add: u32, div: u32, formula: &'static str) -> WStar {
    WStar { exact: (hops + add) as f64 / div as f64, rounded: (hops + add).div_ceil(div), formula }
}

/// Chain: W* = h/4 (rounded up).
pub fn chain(hops: u32) -> WStar {
    wstar(hops, 0, 4, CHAIN)
}

/// Cross: W* = ⌈(h + 4)/8⌉.
pub fn cross(hops: u32) -> WStar {
    wstar(hops, 4, 8, CROSS)
}

/// Grid, appendix derivation: W* = ⌈(h + 9)/14⌉.
pub fn grid_appendix(hops: u32) -> WStar {
    wstar(hops, 9, 14, GRID_APPENDIX)
}

/// Grid, §3.2.1 text: W* = ⌈(h + 5)/10⌉.
pub fn grid_text(hops: u32) -> WStar {
    wstar(hops, 5, 10, GRID_TEXT)
}

/// W* per flow of `hops` hops; the grid uses the appendix formula.
pub fn optimal_window(topology: Topology, hops: u32) -> WStar {
    match topology {
        Topology::Chain => chain(hops),
        Topology::Cross => cross(hops),
        Topology::Grid => grid_appendix(hops),
    }
}

/// Every published formula for the topology (the grid has two).
pub fn all_formulas(topology: Topology, hops: u32) -> Vec<WStar> {
    match topology {
        Topology::Grid => vec![grid_appendix(hops), grid_text(hops)],
        t => vec![optimal_window(t, hops)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_values() {
        // 7-hop chain: 1.75 → 2 (Table 2 of the tech report, Table 3 of the
        // INFOCOM paper); the tech report's text and Fig. 2 say 3.
        let w = optimal_window(Topology::Chain, 7);
        assert_eq!((w.exact, w.rounded, w.formula), (1.75, 2, "ceil(h/4)"));
        assert_eq!(chain(8).rounded, 2);
        assert_eq!(chain(8).exact, 2.0);
        assert_eq!(chain(9).rounded, 3);
        assert_eq!(chain(6).rounded, 2);
        assert_eq!(chain(48).rounded, 12);
    }

    #[test]
    fn cross_and_grid_values() {
        // Cross, h = 6: 10/8 = 1.25 → 2 (both papers: 2 per flow).
        let w = optimal_window(Topology::Cross, 6);
        assert_eq!((w.exact, w.rounded), (1.25, 2));
        // Grid, h = 12: appendix 21/14 = 1.5 → 2, text 17/10 = 1.7 → 2.
        let w = optimal_window(Topology::Grid, 12);
        assert_eq!((w.exact, w.rounded, w.formula), (1.5, 2, GRID_APPENDIX));
        assert_eq!(grid_text(12).rounded, 2);
        // They first disagree at h = 16: ⌈25/14⌉ = 2 vs ⌈21/10⌉ = 3.
        let first = (1..100).find(|&h| grid_appendix(h).rounded != grid_text(h).rounded);
        assert_eq!(first, Some(16));
        assert_eq!(all_formulas(Topology::Grid, 16).iter().map(|w| w.rounded).collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(all_formulas(Topology::Chain, 16).len(), 1);
    }

    #[test]
    fn serializes() {
        let s = serde_json::to_string(&chain(7)).unwrap();
        assert_eq!(s, r#"{"exact":1.75,"rounded":2,"formula":"ceil(h/4)"}"#);
    }
}
