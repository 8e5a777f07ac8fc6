//! Hooks through which link-layer mechanisms from the papers plug into the
//! DCF without touching its state machine. The default policy is plain
//! 802.11 and costs one enum match per hook; Fu et al.'s Link RED
//! (`link_red.rs`) and adaptive pacing (`adaptive_pacing.rs`) are the other
//! variant. The DCF calls:
//! - [`LinkPolicy::on_link_send`] when it takes a unicast packet from the
//!   queue (Algorithm 1's `LinkLayerSend`): sets the pacing switch, and
//!   returns Link RED's verdict on the packet;
//! - [`LinkPolicy::on_tx_done`] when it is done with that packet (acked or
//!   given up), with the packet's failed attempts (`GetMacRetries`);
//! - [`LinkPolicy::extra_backoff_after_success`] after an ACK (Algorithm 2).

use super::adaptive_pacing::AdaptivePacing;
use super::dcf::MacParams;
use super::frame::Frame;
use super::link_red::{LinkRed, RetryAverage};
use crate::engine::time::to_secs;
use crate::engine::Time;
use crate::net::MarkAction;

/// A link-layer policy, dispatched by enum (no boxing on the hot path).
#[derive(Clone, Debug, Default)]
pub enum LinkPolicy {
    /// Standard 802.11 DCF.
    #[default]
    Standard,
    /// Fu et al.'s link layer: Link RED and/or adaptive pacing.
    Fu(FuLink),
}

/// Link RED and adaptive pacing at one node, sharing one retry average.
#[derive(Clone, Debug)]
pub struct FuLink {
    pub retry_avg: RetryAverage,
    /// Link RED's min_th: its marking threshold and the pacing trigger's.
    pub min_th: f64,
    /// None: Link RED off (the average is still kept for pacing).
    pub red: Option<LinkRed>,
    pub pacing: Option<AdaptivePacing>,
    pub counters: LinkCounters,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct LinkCounters {
    pub marks: u64,
    pub drops: u64,
    /// Unicast packets taken from the queue, and the sum of the retry
    /// average seen by each (for its mean).
    pub sends: u64,
    pub avg_sum: f64,
}

/// The per-node report of Fu et al.'s link layer (flattened into the node).
#[derive(Clone, Debug, serde::Serialize)]
pub struct LinkReport {
    /// Packets Link RED marked CE (ECN-capable packets, `action = "mark"`).
    pub lred_marks: u64,
    /// Packets Link RED dropped (non-ECT ones it picked, or `action = "drop"`).
    pub lred_drops: u64,
    /// Mean retry average seen when the MAC took a packet (the number
    /// compared with `min_th`).
    pub lred_avg_retry: f64,
    /// Seconds the pacing switch was on.
    pub pacing_active_s: f64,
    /// Extra backoffs added after successes, and their total length (s).
    pub pacing_backoffs: u64,
    pub pacing_extra_s: f64,
}

impl LinkPolicy {
    /// The MAC takes a unicast packet from the queue at `now`. Returns what
    /// Link RED wants done with it (None: send it as it is).
    #[inline]
    pub fn on_link_send(&mut self, now: Time) -> Option<MarkAction> {
        match self {
            LinkPolicy::Standard => None,
            LinkPolicy::Fu(f) => {
                let avg = f.retry_avg.value();
                f.counters.sends += 1;
                f.counters.avg_sum += avg;
                if let Some(ap) = f.pacing.as_mut() {
                    ap.set(now, avg, f.min_th);
                }
                f.red.as_mut().and_then(|r| r.decide(avg))
            }
        }
    }

    /// Link RED's mark or drop was carried out.
    #[inline]
    pub fn count_signal(&mut self, marked: bool) {
        if let LinkPolicy::Fu(f) = self {
            if marked {
                f.counters.marks += 1;
            } else {
                f.counters.drops += 1;
            }
        }
    }

    /// The MAC is done with a unicast packet after `failed` failed attempts.
    #[inline]
    pub fn on_tx_done(&mut self, failed: u32) {
        if let LinkPolicy::Fu(f) = self {
            f.retry_avg.update(failed);
        }
    }

    /// Extra time added to the post-transmission backoff after the DATA
    /// frame `data` was acknowledged.
    #[inline]
    pub fn extra_backoff_after_success(&mut self, data: &Frame, p: &MacParams) -> Time {
        match self {
            LinkPolicy::Standard => 0,
            LinkPolicy::Fu(f) => f.pacing.as_mut().map_or(0, |ap| ap.extra_after_success(data, p)),
        }
    }

    /// The report of the run up to `end` (None for standard 802.11).
    pub fn report(&self, end: Time) -> Option<LinkReport> {
        let LinkPolicy::Fu(f) = self else { return None };
        let (extra, n) = f.pacing.as_ref().map_or((0, 0), |ap| ap.extra_totals());
        let c = &f.counters;
        Some(LinkReport {
            lred_marks: c.marks,
            lred_drops: c.drops,
            lred_avg_retry: if c.sends > 0 { c.avg_sum / c.sends as f64 } else { 0.0 },
            pacing_active_s: f.pacing.as_ref().map_or(0.0, |ap| to_secs(ap.active_time(end))),
            pacing_backoffs: n,
            pacing_extra_s: to_secs(extra),
        })
    }
}
