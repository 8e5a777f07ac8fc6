//! Random streams derived from (run seed, entity, purpose).
//!
//! Every random draw in a run comes from a stream that belongs to one entity
//! (a node, a flow, the topology) and one purpose (MAC backoff, CBR jitter,
//! ...). Adding a draw for one purpose therefore never shifts the numbers seen
//! by another, and the same seed gives the same run on every machine.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// What a stream is used for; part of the stream's identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum StreamPurpose {
    MacBackoff = 1,
    AppTraffic = 2,
    Topology = 3,
    FlowSelection = 4,
    RoutingJitter = 5,
    LinkRed = 6,
    // 7 was reserved for a marking stream no mechanism uses (LDM has its
    // own); left unused so the other streams keep their seeds.
    Transport = 8,
    /// HTTP-like traffic: page sizes and think times.
    Http = 9,
    /// Low Delay Marking's per-node marking draws (`net/ldm.rs`).
    Ldm = 10,
}

/// SplitMix64 finaliser: a bijective mix so nearby inputs give unrelated seeds.
fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One independent, reproducible stream of random numbers.
#[derive(Clone, Debug)]
pub struct RngStream {
    rng: Pcg64Mcg,
}

impl RngStream {
    pub fn new(seed: u64, entity: u64, purpose: StreamPurpose) -> Self {
        let a = mix64(seed);
        let b = mix64(a ^ entity.wrapping_mul(0xD6E8_FEB8_6659_FD93));
        let c = mix64(b ^ (purpose as u64).wrapping_mul(0xA076_1D64_78BD_642F));
        let d = mix64(c ^ 0x5851_F42D_4C95_7F2D);
        let state = ((c as u128) << 64) | d as u128;
        RngStream { rng: Pcg64Mcg::from_seed(state.to_le_bytes()) }
    }

    /// Uniform integer in `0..n` (n > 0).
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        self.rng.random_range(0..n)
    }

    /// Uniform float in [0, 1).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        self.rng.random::<f64>()
    }

    /// Uniform float in [lo, hi).
    #[inline]
    pub fn uniform_in(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// True with probability `p`.
    #[inline]
    pub fn bernoulli(&mut self, p: f64) -> bool {
        p > 0.0 && self.uniform() < p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_identity_same_numbers() {
        let mut a = RngStream::new(7, 3, StreamPurpose::MacBackoff);
        let mut b = RngStream::new(7, 3, StreamPurpose::MacBackoff);
        for _ in 0..100 {
            assert_eq!(a.below(1024), b.below(1024));
        }
    }

    #[test]
    fn different_identity_different_numbers() {
        let draw = |s, e, p| {
            let mut r = RngStream::new(s, e, p);
            (0..16).map(|_| r.below(1 << 20)).collect::<Vec<_>>()
        };
        let base = draw(1, 1, StreamPurpose::MacBackoff);
        assert_ne!(base, draw(2, 1, StreamPurpose::MacBackoff));
        assert_ne!(base, draw(1, 2, StreamPurpose::MacBackoff));
        assert_ne!(base, draw(1, 1, StreamPurpose::AppTraffic));
    }

    #[test]
    fn below_is_roughly_uniform() {
        let mut r = RngStream::new(42, 0, StreamPurpose::MacBackoff);
        let mut counts = [0u32; 31];
        for _ in 0..310_000 {
            counts[r.below(31) as usize] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "count {c}");
        }
    }
}
