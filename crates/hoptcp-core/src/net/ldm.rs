//! Low Delay Marking (Lee, Li, Agu, Claypool, Kinicki 2003, §III): an
//! IP-layer marker at every forwarding node that ECN-marks a flow's packets
//! so that, over the whole path, the marking rate p_mark = k/w² keeps the
//! TCP window w near the optimum w_opt = h/(4·n) (h hops, n flows through
//! the node; eq. (1)–(3), k = 0.76 from Morris). Sans-IO: the simulator
//! hands [`LdmNode::decide`] what it knows about a forwarded packet and
//! applies the answer with `ecn::signal`.
//!
//! * **Hops** (§III-B): per flow (the unordered pair of endpoints, so that a
//!   flow's data and its ACKs share one record) the node averages the hops
//!   travelled by packets in each direction, read from the TTL as
//!   `initial − ttl` where `initial` is the smallest conventional initial TTL
//!   at or above the TTL seen (the paper assumes 128 or 256; hoptcp's own
//!   conventions are 30 under AODV, ns-2's NETWORK_DIAMETER, and `ip.ttl`,
//!   64, under static routing). The TTL is read after this node's decrement,
//!   so the data's hops from its source plus the ACKs' hops from theirs is
//!   the path length h (the paper's 6 + 5 = 11 example).
//! * **Flows** (§III-C, after Morris): a fixed bit vector; each packet sets
//!   the bit its flow hashes to, and the number of set bits is n. Bits are
//!   cleared round robin, one every `clear_period / bits`, so every bit is
//!   cleared once per period; clearing a bit clears the hop record kept
//!   under it. Flows that hash to the same bit count once (and share the
//!   record): the estimator's collision error, as printed.
//! * **Per-node probability** (eq. (4), consistent form): the h − 1
//!   forwarding nodes share p_mark equally, p_node = 1 − (1 − p_mark)^(1/(h−1)).
//!   The paper prints (1 − p_mark)^(1/(h−1)), the probability of *not*
//!   marking at a node.
//! * **Oracle** (what the paper's evaluation did: hops and flows "known ahead
//!   of time by each router"): the caller passes the true h and n instead.

use crate::engine::{RngStream, Time};

/// Where the hop and flow counts come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum LdmEstimate {
    /// From the TTLs and the bit vector, as §III-B and §III-C describe.
    #[default]
    Estimated,
    /// The true path length and number of flows (the paper's evaluation).
    Oracle,
}

/// LDM as a run uses it: the marker's constants, what it does to a picked
/// packet, and where its counts come from.
#[derive(Clone, Debug, PartialEq)]
pub struct LdmConfig {
    pub params: LdmParams,
    pub action: crate::wire::MarkAction,
    pub estimate: LdmEstimate,
}

/// The marker's constants.
#[derive(Clone, Debug, PartialEq)]
pub struct LdmParams {
    /// k of p = k/w² (Morris: 0.76).
    pub k: f64,
    /// Hops per packet of window: w_opt = h/(hops_per_window·n) (Fu et al.: 4).
    pub hops_per_window: f64,
    /// A w_opt at or below this is replaced by `floor_window` (the paper: a
    /// w_opt of 1 or less uses 2, since p = 0.76 would cause timeouts).
    pub min_window: f64,
    pub floor_window: f64,
    /// A fixed target window instead of h/(4n) (None: the paper's w_opt).
    pub target_window: Option<f64>,
    /// Bits of the flow-count vector.
    pub flow_bits: u32,
    /// Every bit is cleared once per this period.
    pub clear_period: Time,
    /// Conventional initial TTLs, ascending.
    pub initial_ttls: Vec<u8>,
}

impl Default for LdmParams {
    fn default() -> Self {
        LdmParams {
            k: 0.76,
            hops_per_window: 4.0,
            min_window: 1.0,
            floor_window: 2.0,
            target_window: None,
            flow_bits: 64,
            clear_period: 4 * crate::engine::NS_PER_S,
            initial_ttls: vec![30, 64, 128, 255],
        }
    }
}

/// Hops travelled by a packet read at a node with TTL `ttl`: the smallest
/// conventional initial TTL at or above it, minus it (None if above all).
pub fn hops_from_ttl(ttl: u8, initial_ttls: &[u8]) -> Option<u32> {
    initial_ttls.iter().find(|&&i| i >= ttl).map(|&i| (i - ttl) as u32)
}

/// The window LDM aims at for a flow of `hops` hops among `flows` flows.
pub fn target_window(hops: f64, flows: f64, p: &LdmParams) -> f64 {
    let w = p.target_window.unwrap_or(hops / (p.hops_per_window * flows.max(1.0)));
    if w <= p.min_window {
        p.floor_window
    } else {
        w
    }
}

/// End-to-end marking probability for window `w`: k/w², at most 1 (eq. (2)).
pub fn path_probability(w: f64, p: &LdmParams) -> f64 {
    (p.k / (w * w)).min(1.0)
}

/// The per-node share of `p_mark` over the h − 1 forwarding nodes of an
/// h-hop path, so that 1 − (1 − p_node)^(h−1) = p_mark. Zero when the path
/// has no forwarding node.
pub fn node_probability(p_mark: f64, hops: f64) -> f64 {
    if hops <= 1.0 || p_mark <= 0.0 {
        return 0.0;
    }
    if p_mark >= 1.0 {
        return 1.0;
    }
    1.0 - (1.0 - p_mark).powf(1.0 / (hops - 1.0))
}

/// What the node sees of a packet it forwards.
#[derive(Clone, Copy, Debug)]
pub struct Forwarded {
    pub src: u32,
    pub dst: u32,
    /// The flow's port number (hoptcp: one port per flow at both ends).
    pub port: u32,
    /// TTL after this node's decrement.
    pub ttl: u8,
    /// Carries data (a TCP segment with payload, or UDP): the packets whose
    /// rate LDM controls. ACKs feed the hop estimate but are never marked.
    pub data: bool,
}

/// True hop and flow counts for the oracle variant.
#[derive(Clone, Copy, Debug)]
pub struct Oracle {
    pub hops: u32,
    pub flows: u32,
}

/// Averages of the hops travelled by one flow's packets in each direction.
#[derive(Clone, Copy, Debug, Default)]
struct HopRecord {
    sum: [u32; 2],
    n: [u32; 2],
}

impl HopRecord {
    fn path_hops(&self) -> Option<f64> {
        if self.n[0] == 0 || self.n[1] == 0 {
            return None;
        }
        Some(self.sum[0] as f64 / self.n[0] as f64 + self.sum[1] as f64 / self.n[1] as f64)
    }
}

/// Per-node counters, in the node report.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct LdmCounters {
    /// Data packets LDM considered.
    pub ldm_packets: u64,
    /// Of those, picked and marked CE.
    pub ldm_marks: u64,
    /// Picked but not ECN-capable, so dropped (action "mark" or "drop").
    pub ldm_drops: u64,
}

/// One node's LDM state: the flow bit vector with a hop record per bit.
#[derive(Clone, Debug)]
pub struct LdmNode {
    bits: Vec<u64>,
    records: Vec<HopRecord>,
    /// The next bit to clear, and when.
    clear_next: u32,
    clear_at: Time,
    rng: RngStream,
    pub counters: LdmCounters,
}

/// The bit a flow hashes to: a SplitMix64 mix of its unordered endpoint
/// pair and port (both directions of a connection land on the same bit).
pub fn flow_bit(src: u32, dst: u32, port: u32, bits: u32) -> u32 {
    let (lo, hi) = if src <= dst { (src, dst) } else { (dst, src) };
    let mut z = ((lo as u64) << 32 | hi as u64) ^ (port as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    (z % bits as u64) as u32
}

impl LdmNode {
    pub fn new(p: &LdmParams, rng: RngStream) -> Self {
        let words = p.flow_bits.div_ceil(64) as usize;
        LdmNode {
            bits: vec![0; words],
            records: vec![HopRecord::default(); p.flow_bits as usize],
            clear_next: 0,
            clear_at: Self::clear_step(p),
            rng,
            counters: LdmCounters::default(),
        }
    }

    fn clear_step(p: &LdmParams) -> Time {
        (p.clear_period / p.flow_bits as Time).max(1)
    }

    /// Clear the bits (and their records) due by `now`.
    fn age(&mut self, now: Time, p: &LdmParams) {
        let step = Self::clear_step(p);
        if now >= self.clear_at + p.clear_period {
            // Idle for a whole period: everything is stale.
            self.bits.iter_mut().for_each(|w| *w = 0);
            self.records.iter_mut().for_each(|r| *r = HopRecord::default());
            self.clear_at = now - (now - self.clear_at) % step + step;
            return;
        }
        while now >= self.clear_at {
            let b = self.clear_next as usize;
            self.bits[b / 64] &= !(1u64 << (b % 64));
            self.records[b] = HopRecord::default();
            self.clear_next = (self.clear_next + 1) % p.flow_bits;
            self.clear_at += step;
        }
    }

    /// Estimated number of active flows: the set bits.
    pub fn flow_estimate(&self) -> u32 {
        self.bits.iter().map(|w| w.count_ones()).sum()
    }

    /// Record the packet in the bit vector and its flow's hop record.
    pub fn observe(&mut self, now: Time, pk: &Forwarded, p: &LdmParams) {
        self.age(now, p);
        let b = flow_bit(pk.src, pk.dst, pk.port, p.flow_bits) as usize;
        self.bits[b / 64] |= 1u64 << (b % 64);
        if let Some(h) = hops_from_ttl(pk.ttl, &p.initial_ttls) {
            let dir = (pk.src > pk.dst) as usize;
            let r = &mut self.records[b];
            r.sum[dir] += h;
            r.n[dir] += 1;
        }
    }

    /// Estimated path length of the packet's flow (None until packets of
    /// both directions have been seen since its bit was last cleared).
    pub fn hop_estimate(&self, pk: &Forwarded, p: &LdmParams) -> Option<f64> {
        self.records[flow_bit(pk.src, pk.dst, pk.port, p.flow_bits) as usize].path_hops()
    }

    /// This node's marking probability for the packet.
    pub fn probability(&self, pk: &Forwarded, oracle: Option<Oracle>, p: &LdmParams) -> f64 {
        let (h, n) = match oracle {
            Some(o) => (o.hops as f64, o.flows as f64),
            None => match self.hop_estimate(pk, p) {
                Some(h) => (h, self.flow_estimate() as f64),
                None => return 0.0,
            },
        };
        node_probability(path_probability(target_window(h, n, p), p), h)
    }

    /// A packet this node forwards: observe it and say whether to give it
    /// the congestion signal. Only data packets are ever picked.
    pub fn decide(&mut self, now: Time, pk: &Forwarded, oracle: Option<Oracle>, p: &LdmParams) -> bool {
        if oracle.is_none() {
            self.observe(now, pk, p);
        }
        if !pk.data {
            return false;
        }
        self.counters.ldm_packets += 1;
        let pn = self.probability(pk, oracle, p);
        self.rng.bernoulli(pn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::StreamPurpose;
    use crate::engine::NS_PER_S as SECOND;

    fn node(p: &LdmParams) -> LdmNode {
        LdmNode::new(p, RngStream::new(1, 0, StreamPurpose::Ldm))
    }

    fn data(src: u32, dst: u32, port: u32, ttl: u8) -> Forwarded {
        Forwarded { src, dst, port, ttl, data: true }
    }

    /// Node 3 of the 7-hop chain 0..7 under static routing (initial TTL
    /// 64) after data from node 0 that travelled 3 hops (TTL 61 after its
    /// decrement); and the ACK from node 7 that travelled 4 (TTL 60).
    fn middle_of_seven(p: &LdmParams) -> (LdmNode, Forwarded, Forwarded) {
        let mut n = node(p);
        let d = data(0, 7, 0, 61);
        n.observe(0, &d, p);
        (n, d, Forwarded { src: 7, dst: 0, port: 0, ttl: 60, data: false })
    }

    #[test]
    fn ttl_hop_estimate_uses_the_nearest_initial_ttl_above() {
        let ttls = [30, 64, 128, 255];
        assert_eq!(hops_from_ttl(29, &ttls), Some(1), "AODV's diameter 30, one hop");
        assert_eq!(hops_from_ttl(30, &ttls), Some(0));
        assert_eq!(hops_from_ttl(58, &ttls), Some(6), "static routing's 64");
        assert_eq!(hops_from_ttl(250, &ttls), Some(5));
        // The paper's conventions (128, 256 read as 255): its 250/251 example.
        let paper = [128, 255];
        assert_eq!(hops_from_ttl(250, &paper), Some(5));
        // A TTL above every convention gives no estimate.
        assert_eq!(hops_from_ttl(200, &[30, 64]), None);
        // Conventions that miss AODV's 30 misread its TTLs: 29 is taken for
        // 32 - 3, two hops too many.
        assert_eq!(hops_from_ttl(29, &[32, 64]), Some(3));
    }

    #[test]
    fn hop_estimate_adds_both_directions_at_a_middle_node() {
        let p = LdmParams::default();
        let (mut n, d, ack) = middle_of_seven(&p);
        assert_eq!(n.hop_estimate(&d, &p), None, "no ACK seen yet");
        n.observe(1, &ack, &p);
        assert_eq!(n.hop_estimate(&d, &p), Some(7.0));
        assert_eq!(n.hop_estimate(&ack, &p), Some(7.0), "one record for both directions");
        // Averages: a route of 5 data hops seen once more moves the mean.
        n.observe(2, &data(0, 7, 0, 59), &p);
        assert_eq!(n.hop_estimate(&d, &p), Some(4.0 + 4.0));
    }

    #[test]
    fn flow_estimate_counts_bits_and_collisions_undercount() {
        let p = LdmParams { flow_bits: 64, ..Default::default() };
        let mut n = node(&p);
        // Three flows on distinct bits count as three; their ACKs add nothing.
        let flows: Vec<(u32, u32, u32)> = (0..200)
            .map(|i| (i, i + 50, i))
            .filter(|&(s, d, f)| flow_bit(s, d, f, 64) != flow_bit(0, 7, 0, 64))
            .take(2)
            .chain([(0, 7, 0)])
            .collect();
        let distinct: std::collections::BTreeSet<u32> = flows.iter().map(|&(s, d, f)| flow_bit(s, d, f, 64)).collect();
        for &(s, d, f) in &flows {
            n.observe(0, &data(s, d, f, 60), &p);
            n.observe(0, &Forwarded { src: d, dst: s, port: f, ttl: 60, data: false }, &p);
        }
        assert_eq!(n.flow_estimate(), distinct.len() as u32);
        // Two flows that hash to the same bit count once.
        let b = flow_bit(0, 7, 0, 64);
        let twin = (1..100_000u32).find(|&f| flow_bit(0, 7, f, 64) == b).unwrap();
        let before = n.flow_estimate();
        n.observe(0, &data(0, 7, twin, 60), &p);
        assert_eq!(n.flow_estimate(), before, "a colliding flow is not counted");
        // A tiny vector saturates: 10 flows in 4 bits read as at most 4.
        let small = LdmParams { flow_bits: 4, ..Default::default() };
        let mut s = node(&small);
        for f in 0..10 {
            s.observe(0, &data(1, 2, f, 60), &small);
        }
        assert!(s.flow_estimate() <= 4 && s.flow_estimate() >= 2);
    }

    #[test]
    fn bits_are_cleared_once_per_period_with_their_records() {
        let p = LdmParams { flow_bits: 8, clear_period: 8 * SECOND, ..Default::default() };
        let mut n = node(&p);
        let d = data(0, 7, 0, 61);
        n.observe(0, &d, &p);
        n.observe(0, &Forwarded { src: 7, dst: 0, port: 0, ttl: 60, data: false }, &p);
        assert_eq!(n.flow_estimate(), 1);
        // Just before a full period the flow's bit may or may not have been
        // cleared, but after one period with no packet every bit has been.
        n.age(8 * SECOND, &p);
        assert_eq!(n.flow_estimate(), 0);
        assert_eq!(n.hop_estimate(&d, &p), None, "the record goes with its bit");
        // A busy flow keeps its bit: it is set again at once after a clear.
        for t in 0..100 {
            n.observe(t * SECOND / 10 + 9 * SECOND, &d, &p);
            assert_eq!(n.flow_estimate(), 1);
        }
    }

    #[test]
    fn per_node_probability_composes_to_the_end_to_end_target() {
        for h in [3.0, 7.0, 15.0, 24.0] {
            for w in [2.0, 3.5, 6.0] {
                let p_mark = 0.76 / (w * w);
                let pn = node_probability(p_mark, h);
                let end_to_end = 1.0 - (1.0 - pn).powf(h - 1.0);
                assert!((end_to_end - p_mark).abs() < 1e-12, "h {h} w {w}: {end_to_end} vs {p_mark}");
                assert!(pn < p_mark, "each node marks less than the path");
            }
        }
        assert_eq!(node_probability(0.3, 1.0), 0.0, "one hop: no forwarding node");
        assert_eq!(node_probability(1.0, 5.0), 1.0);
    }

    #[test]
    fn target_window_follows_eq_1_with_the_floor() {
        let p = LdmParams::default();
        // 24 hops, 1 flow: w = 6, p = 0.76/36.
        assert_eq!(target_window(24.0, 1.0, &p), 6.0);
        assert!((path_probability(6.0, &p) - 0.76 / 36.0).abs() < 1e-15);
        // Eq. (3): p_mark = 12.16 n²/h².
        let w = target_window(15.0, 1.0, &p);
        assert!((path_probability(w, &p) - 12.16 / 225.0).abs() < 1e-12);
        // 7 hops, 3 flows: 7/12 <= 1, so 2 is used.
        assert_eq!(target_window(7.0, 3.0, &p), 2.0);
        assert_eq!(target_window(4.0, 1.0, &p), 2.0, "exactly 1 also uses the floor");
        // A fixed target overrides h/(4n).
        let fixed = LdmParams { target_window: Some(3.0), ..Default::default() };
        assert_eq!(target_window(24.0, 1.0, &fixed), 3.0);
    }

    #[test]
    fn oracle_and_estimate_agree_when_the_estimate_is_exact() {
        let p = LdmParams::default();
        let (mut n, d, ack) = middle_of_seven(&p);
        n.observe(0, &ack, &p);
        let est = n.probability(&d, None, &p);
        let ora = n.probability(&d, Some(Oracle { hops: 7, flows: 1 }), &p);
        assert_eq!(est, ora);
        let want = node_probability(0.76 / (1.75 * 1.75), 7.0);
        assert!((ora - want).abs() < 1e-15);
        // The oracle with 3 flows uses the floor window 2.
        let three = n.probability(&d, Some(Oracle { hops: 7, flows: 3 }), &p);
        assert!((three - node_probability(0.19, 7.0)).abs() < 1e-15);
    }

    #[test]
    fn marking_rate_matches_the_probability_and_acks_are_never_picked() {
        let p = LdmParams::default();
        let mut n = node(&p);
        let o = Some(Oracle { hops: 7, flows: 1 });
        let d = data(0, 7, 0, 61);
        let k = 200_000;
        let marks = (0..k).filter(|&t| n.decide(t, &d, o, &p)).count();
        let want = n.probability(&d, o, &p);
        let got = marks as f64 / k as f64;
        assert!((got - want).abs() < 4.0 * (want * (1.0 - want) / k as f64).sqrt(), "{got} vs {want}");
        assert_eq!(n.counters.ldm_packets, k);
        let ack = Forwarded { data: false, ..d };
        assert!((0..10_000).all(|t| !n.decide(t, &ack, o, &p)));
        assert_eq!(n.counters.ldm_packets, k, "ACKs are not counted as considered");
    }
}
