//! Adaptive pacing (Fu et al. 2003, Algorithm 2): after a DATA frame is
//! acknowledged, a node whose pacing switch is on adds the transmission time
//! of that packet "plus the overhead" to its random post-transmission
//! backoff, so that the next hop can forward the packet before this node
//! contends again (link-layer coordination over two hops instead of one).
//! Only after a success: a retry or a drop draws the ordinary backoff.
//!
//! The papers leave two things open, and both readings of each are options
//! (docs/model.md gives the default's reasons):
//! - how long the extra wait is ([`PacingExtra`]): the whole frame exchange
//!   of the packet just sent (RTS + CTS + DATA + ACK airtimes and 3·SIFS with
//!   RTS/CTS, DATA + SIFS + ACK without), or the DATA frame's airtime alone
//!   (PLCP and MAC header included): "TX_Time(DATA) + overhead" with the
//!   overhead undefined;
//! - how it elapses ([`PacingWait`]): added to the backoff counter, which
//!   freezes while the medium is busy ("adds to that backoff period"), or as
//!   a timer that runs whether the medium is busy or idle, during which the
//!   node does not contend, its ordinary backoff drawn when it ends ("backoff
//!   an additional packet transmission time ... besides its current deferral
//!   period": the wait spent while the next hop forwards).
//!
//! The switch is set when the MAC takes a packet from the queue (Link RED's
//! `LinkLayerSend`), from the retry average and Link RED's `min_th`. The two
//! papers disagree on when it is on; both readings are options:
//! - [`PacingTrigger::BelowMinTh`]: on while avg_retry < min_th (tech report,
//!   Algorithm 1 and §5.1 text; the LDM paper describes it the same way);
//! - [`PacingTrigger::AtOrAboveMinTh`]: on while avg_retry ≥ min_th (INFOCOM,
//!   Algorithm 1 and §6.2 text);
//! - [`PacingTrigger::Always`]: on for every packet.

use super::dcf::MacParams;
use crate::engine::Time;
use crate::wire::{Frame, BROADCAST};

/// When the pacing switch is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum PacingTrigger {
    /// Tech report reading: avg_retry < min_th.
    #[default]
    BelowMinTh,
    /// INFOCOM reading: avg_retry ≥ min_th.
    AtOrAboveMinTh,
    Always,
}

impl PacingTrigger {
    /// Is pacing on at retry average `avg` with threshold `min_th`?
    #[inline]
    pub fn is_on(self, avg: f64, min_th: f64) -> bool {
        match self {
            PacingTrigger::BelowMinTh => avg < min_th,
            PacingTrigger::AtOrAboveMinTh => avg >= min_th,
            PacingTrigger::Always => true,
        }
    }

    /// Does this trigger read the retry average?
    pub fn uses_retry_average(self) -> bool {
        self != PacingTrigger::Always
    }
}

/// How the extra wait elapses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum PacingWait {
    /// Added to the post-transmission backoff counter: it counts down only
    /// while the medium is idle.
    #[default]
    FrozenBackoff,
    /// A timer from the ACK's end that runs through busy medium; the node
    /// does not contend until it expires, then draws its ordinary backoff.
    Timer,
}

impl PacingWait {
    /// Left out of a scenario's canonical form (and results-store key).
    pub fn is_default(&self) -> bool {
        *self == PacingWait::default()
    }
}

/// How long the extra wait is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize, strum::VariantNames)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum PacingExtra {
    /// The whole frame exchange of the packet just sent.
    #[default]
    Exchange,
    /// The DATA frame's airtime (PLCP preamble and header, MAC header and FCS included).
    Data,
}

impl PacingExtra {
    /// Left out of a scenario's canonical form (and results-store key).
    pub fn is_default(&self) -> bool {
        *self == PacingExtra::default()
    }

    /// The extra wait after `data` was acknowledged.
    pub fn duration(self, data: &Frame, p: &MacParams) -> Time {
        match self {
            PacingExtra::Exchange => exchange_time(data, p),
            PacingExtra::Data => data.airtime,
        }
    }
}

/// The duration of one frame exchange carrying `data`.
pub fn exchange_time(data: &Frame, p: &MacParams) -> Time {
    let rts = data.bytes >= p.rts_threshold && data.ra != BROADCAST;
    if rts {
        p.rts_time + p.cts_time + data.airtime + p.ack_time + 3 * p.timing.sifs
    } else {
        data.airtime + p.timing.sifs + p.ack_time
    }
}

/// One node's pacing switch and what it cost.
#[derive(Clone, Debug)]
pub struct AdaptivePacing {
    pub trigger: PacingTrigger,
    pub wait: PacingWait,
    pub extra: PacingExtra,
    on: bool,
    on_since: Time,
    on_total: Time,
    extra_total: Time,
    extra_count: u64,
}

impl AdaptivePacing {
    /// The switch starts off, except with `Always`, where it is on from time 0.
    pub fn new(trigger: PacingTrigger) -> Self {
        AdaptivePacing {
            trigger,
            wait: PacingWait::default(),
            extra: PacingExtra::default(),
            on: trigger == PacingTrigger::Always,
            on_since: 0,
            on_total: 0,
            extra_total: 0,
            extra_count: 0,
        }
    }

    /// The same switch with another reading of the wait.
    pub fn with_reading(self, wait: PacingWait, extra: PacingExtra) -> Self {
        AdaptivePacing { wait, extra, ..self }
    }

    /// Set the switch at `now` for the packet the MAC is taking.
    #[inline]
    pub fn set(&mut self, now: Time, avg: f64, min_th: f64) {
        let on = self.trigger.is_on(avg, min_th);
        if on != self.on {
            if self.on {
                self.on_total += now - self.on_since;
            } else {
                self.on_since = now;
            }
            self.on = on;
        }
    }

    #[cfg(test)] // only the unit tests read it
    pub fn is_on(&self) -> bool {
        self.on
    }

    /// The extra wait after `data` was acknowledged (0 when off).
    #[inline]
    pub fn extra_after_success(&mut self, data: &Frame, p: &MacParams) -> Time {
        if !self.on {
            return 0;
        }
        let extra = self.extra.duration(data, p);
        self.extra_total += extra;
        self.extra_count += 1;
        extra
    }

    /// Time the switch was on up to `now`.
    pub fn active_time(&self, now: Time) -> Time {
        self.on_total + if self.on { now.saturating_sub(self.on_since) } else { 0 }
    }

    /// Total extra backoff added, and how many times.
    pub fn extra_totals(&self) -> (Time, u64) {
        (self.extra_total, self.extra_count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mac::{FrameFormat, Standard, Timing};

    fn params() -> MacParams {
        MacParams::new(Timing::new(Standard::Dsss, 2.0, 1.0), FrameFormat::Ns2, 0, 7, 4, 10.0)
    }

    fn data(p: &MacParams, ip_bytes: u32) -> Frame {
        crate::mac::test_frames::data(p, 0, 1, ip_bytes)
    }

    #[test]
    fn triggers_read_the_papers_two_ways() {
        let (below, above, always) = (PacingTrigger::BelowMinTh, PacingTrigger::AtOrAboveMinTh, PacingTrigger::Always);
        assert!(below.is_on(0.1, 0.5) && !below.is_on(0.5, 0.5) && !below.is_on(0.9, 0.5));
        assert!(!above.is_on(0.1, 0.5) && above.is_on(0.5, 0.5) && above.is_on(0.9, 0.5));
        assert!(always.is_on(0.0, 0.5) && always.is_on(9.0, 0.5));
    }

    #[test]
    fn extra_is_one_exchange_of_the_packet_and_only_when_on() {
        let p = params();
        let d = data(&p, 1500);
        // 2 Mb/s DSSS, ns-2 sizes: RTS 20 B, CTS/ACK 14 B at 1 Mb/s with a 192 µs PLCP.
        let rts = 192_000 + 20 * 8 * 1000;
        let ctl = 192_000 + 14 * 8 * 1000;
        let dat = 192_000 + 1534 * 8 * 500;
        assert_eq!(exchange_time(&d, &p), rts + ctl + dat + ctl + 3 * 10_000);
        let mut ap = AdaptivePacing::new(PacingTrigger::BelowMinTh);
        assert!(!ap.is_on());
        assert_eq!(ap.extra_after_success(&d, &p), 0, "off before the first packet sets it");
        ap.set(1_000, 0.1, 0.5);
        assert_eq!(ap.extra_after_success(&d, &p), exchange_time(&d, &p));
        ap.set(2_000, 0.7, 0.5);
        assert_eq!(ap.extra_after_success(&d, &p), 0);
        assert_eq!(ap.extra_totals(), (exchange_time(&d, &p), 1));
        // Without RTS/CTS the exchange is DATA + SIFS + ACK.
        let basic = MacParams { rts_threshold: 3000, ..p.clone() };
        assert_eq!(exchange_time(&d, &basic), dat + 10_000 + ctl);
    }

    #[test]
    fn active_time_accumulates_while_on() {
        let mut ap = AdaptivePacing::new(PacingTrigger::AtOrAboveMinTh);
        ap.set(100, 0.0, 0.5); // off
        ap.set(200, 0.6, 0.5); // on from 200
        ap.set(250, 0.8, 0.5); // still on
        ap.set(500, 0.1, 0.5); // off at 500
        assert_eq!(ap.active_time(1_000), 300);
        ap.set(900, 0.5, 0.5); // on again (at min_th counts as at or above)
        assert_eq!(ap.active_time(1_000), 400);
        let always = AdaptivePacing::new(PacingTrigger::Always);
        assert!(always.is_on());
        assert_eq!(always.active_time(1_000), 1_000);
    }
}
