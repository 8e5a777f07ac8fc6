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

use super::adaptive_pacing::{AdaptivePacing, PacingWait};
use super::dcf::MacParams;
use super::link_red::{LinkRed, LinkRedParams, RetryAverage};
use crate::engine::time::to_secs;
use crate::engine::Time;
use crate::wire::Frame;
use crate::wire::MarkAction;

/// A link-layer policy, dispatched by enum (no boxing on the hot path).
#[derive(Clone, Debug, Default)]
pub enum LinkPolicy {
    /// Standard 802.11 DCF.
    #[default]
    Standard,
    /// Fu et al.'s link layer: Link RED and/or adaptive pacing.
    Fu(FuLink),
}

/// Fu et al.'s link layer as every node runs it (each node adds its own
/// random stream for Link RED).
#[derive(Clone, Debug)]
pub struct FuLinkConfig {
    /// EWMA weight of the retry average (Link RED's `weight`, kept for pacing too).
    pub weight: f64,
    /// Link RED's min_th: its marking threshold and the pacing trigger's.
    pub min_th: f64,
    /// None: Link RED off.
    pub red: Option<LinkRedParams>,
    /// Adaptive pacing as each node starts it (None: off).
    pub pacing: Option<AdaptivePacing>,
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

    /// How adaptive pacing's extra wait elapses (frozen backoff when pacing is off).
    #[inline]
    pub fn pacing_wait(&self) -> PacingWait {
        match self {
            LinkPolicy::Fu(FuLink { pacing: Some(ap), .. }) => ap.wait,
            _ => PacingWait::FrozenBackoff,
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

#[cfg(test)]
mod tests {
    //! The hooks driven through the DCF with a fake world and a fake clock:
    //! one RTS/CTS/DATA/ACK exchange by node 0 to node 1, its answers made by
    //! hand.
    use super::*;
    use crate::engine::{RngStream, StreamPurpose};
    use crate::mac::{
        test_frames, AdaptivePacing, Dcf, FrameFormat, LinkRedParams, MacEnv, MacTimer, Outgoing, PacingExtra,
        PacingTrigger, PacingWait, Standard, Timing, TxResult,
    };
    use crate::wire::{FrameKind, NO_PACKET};
    use std::collections::VecDeque;

    #[derive(Default)]
    struct Env {
        now: Time,
        timers: Vec<(MacTimer, Time, u32)>,
        sent: Vec<Frame>,
        queue: VecDeque<Outgoing>,
        done: Vec<(u32, TxResult)>,
        /// Packets that are ECN-capable (mark_ce succeeds on them).
        ect: Vec<u32>,
        marked: Vec<u32>,
    }

    impl MacEnv for Env {
        fn now(&self) -> Time {
            self.now
        }
        fn set_timer(&mut self, timer: MacTimer, at: Time, gen: u32) {
            self.timers.push((timer, at, gen));
        }
        fn transmit(&mut self, frame: &Frame) {
            self.sent.push(*frame);
        }
        fn pull_next(&mut self) -> Option<Outgoing> {
            self.queue.pop_front()
        }
        fn deliver_up(&mut self, _frame: &Frame) {}
        fn packet_done(&mut self, out: &Outgoing, result: TxResult) {
            self.done.push((out.packet, result));
        }
        fn mark_ce(&mut self, out: &Outgoing) -> bool {
            let ect = self.ect.contains(&out.packet);
            if ect {
                self.marked.push(out.packet);
            }
            ect
        }
    }

    fn params() -> MacParams {
        MacParams::new(Timing::new(Standard::Dsss, 2.0, 1.0), FrameFormat::Ns2, 0, 7, 4, 10.0)
    }

    fn out(packet: u32) -> Outgoing {
        Outgoing { packet, ip_bytes: 1500, next_hop: 1 }
    }

    fn dcf(policy: LinkPolicy) -> Dcf {
        let mut d = Dcf::new(0, 31, RngStream::new(7, 0, StreamPurpose::MacBackoff));
        d.policy = policy;
        d
    }

    fn fu(avg_after: &[u32], red: Option<LinkRedParams>, pacing: Option<PacingTrigger>) -> LinkPolicy {
        let min_th = red.map_or(0.5, |r| r.min_th);
        let mut retry_avg = RetryAverage::new(0.125);
        for &r in avg_after {
            retry_avg.update(r);
        }
        LinkPolicy::Fu(FuLink {
            retry_avg,
            min_th,
            red: red.map(|r| LinkRed::new(r, RngStream::new(7, 0, StreamPurpose::LinkRed))),
            pacing: pacing.map(AdaptivePacing::new),
            counters: LinkCounters::default(),
        })
    }

    /// Pacing always on, with the given reading of its wait.
    fn paced(wait: PacingWait, extra: PacingExtra) -> LinkPolicy {
        let mut policy = fu(&[], None, Some(PacingTrigger::Always));
        if let LinkPolicy::Fu(f) = &mut policy {
            f.pacing = f.pacing.take().map(|ap| ap.with_reading(wait, extra));
        }
        policy
    }

    /// A frame between two other nodes starts arriving now and lasts `airtime`.
    fn overheard(d: &mut Dcf, env: &mut Env, airtime: Time, p: &MacParams) {
        let f = Frame {
            kind: FrameKind::Data,
            ta: 5,
            ra: 6,
            nav: 0,
            seq: 9,
            retry: false,
            bytes: 1534,
            airtime,
            packet: NO_PACKET,
        };
        d.on_rx_start(&f, 1e-6, true, p, env);
    }

    /// When the next RTS goes out after a successful exchange, if another
    /// frame occupies the medium for `busy` from the ACK's end and a packet is
    /// waiting. Returns (ACK end, RTS start, extra wait).
    fn next_rts_after_busy(wait: PacingWait, busy: Time, p: &MacParams) -> (Time, Time, Time) {
        let (mut d, mut env) = (dcf(paced(wait, PacingExtra::Exchange)), Env::default());
        exchange(&mut d, &mut env, p);
        let ack_end = env.now;
        let data = *env.sent.iter().find(|f| f.kind == FrameKind::Data).unwrap();
        let extra = crate::mac::adaptive_pacing::exchange_time(&data, p);
        if busy > 0 {
            overheard(&mut d, &mut env, busy, p);
        }
        d.send(out(2), p, &mut env);
        let mut order = Vec::new();
        // Run the node's timers in time order until it sends the RTS.
        while env.sent.len() < 3 {
            let due: Vec<(MacTimer, Time)> = [MacTimer::Backoff, MacTimer::Recv, MacTimer::Pace, MacTimer::Defer]
                .into_iter()
                .filter(|&t| d.timer_is_armed(t))
                .map(|t| (t, last(&env, t).0))
                .collect();
            let (t, _) = *due.iter().min_by_key(|x| x.1).expect("a timer is armed");
            order.push(t);
            fire(&mut d, &mut env, t, p);
        }
        assert_eq!(env.sent[2].kind, FrameKind::Rts);
        if wait == PacingWait::Timer {
            assert!(order.contains(&MacTimer::Pace));
        }
        (ack_end, env.now, extra)
    }

    #[test]
    fn timer_wait_elapses_under_a_busy_medium_and_frozen_backoff_does_not() {
        let p = params();
        // A frame two exchanges long occupies the medium from the ACK's end.
        let busy = 2 * crate::mac::adaptive_pacing::exchange_time(&test_frames::data(&p, 0, 1, 1500), &p);
        let (ack, t_timer, extra) = next_rts_after_busy(PacingWait::Timer, busy, &p);
        let (ack2, t_frozen, extra2) = next_rts_after_busy(PacingWait::FrozenBackoff, busy, &p);
        assert_eq!((ack, extra), (ack2, extra2));
        assert!(extra < busy);
        // Timer: the wait ended under the busy medium; after it only DIFS and
        // the drawn slots remain.
        let after_timer = t_timer - (ack + busy + p.timing.difs);
        assert_eq!(after_timer % p.timing.slot, 0);
        assert!(after_timer < 31 * p.timing.slot);
        // Frozen backoff: none of the wait elapsed while the medium was busy.
        assert_eq!(t_frozen - t_timer, extra);
    }

    #[test]
    fn with_an_idle_medium_both_waits_end_at_the_same_time() {
        let p = params();
        let (ack, t_timer, extra) = next_rts_after_busy(PacingWait::Timer, 0, &p);
        let (_, t_frozen, _) = next_rts_after_busy(PacingWait::FrozenBackoff, 0, &p);
        // The same wait and slots; the frozen counter also waits the DIFS that
        // follows the ACK (the medium was busy until then), while the timer's
        // backoff starts after more than a DIFS of idle medium.
        assert_eq!(t_frozen - t_timer, p.timing.difs);
        let slots = t_timer - (ack + extra);
        assert!(slots % p.timing.slot == 0 && slots < 31 * p.timing.slot);
    }

    #[test]
    fn timer_wait_holds_contention_but_not_answers() {
        let p = params();
        let (mut d, mut env) = (dcf(paced(PacingWait::Timer, PacingExtra::Exchange)), Env::default());
        exchange(&mut d, &mut env, &p);
        let (pace_at, _) = last(&env, MacTimer::Pace);
        assert!(!d.backoff_busy(), "no backoff counts during the wait");
        // A packet arrives with the medium idle: it waits for the timer.
        d.send(out(2), &p, &mut env);
        assert!(!d.timer_is_armed(MacTimer::Backoff) && !d.timer_is_armed(MacTimer::Defer));
        // An RTS from node 1 during the wait is answered SIFS after it ends.
        env.now += 100_000;
        let rts = test_frames::rts(&p, 1, 0, 2_000_000);
        d.on_rx_start(&rts, 1e-6, true, &p, &mut env);
        fire(&mut d, &mut env, MacTimer::Recv, &p);
        fire(&mut d, &mut env, MacTimer::Defer, &p);
        assert_eq!(env.sent.last().unwrap().kind, FrameKind::Cts);
        assert!(env.now < pace_at);
        // Our CTS is done before the wait ends; still no contention.
        fire(&mut d, &mut env, MacTimer::Send, &p);
        assert!(!d.backoff_busy());
        fire(&mut d, &mut env, MacTimer::Pace, &p);
        assert!(d.backoff_busy(), "the ordinary backoff starts when the wait ends");
    }

    #[test]
    fn a_timer_wait_ending_during_an_answered_exchange_leaves_it_intact() {
        // Node 0 paces (short wait: a 40 B packet), then answers node 1's RTS; the
        // wait ends while node 1's DATA is on the air. The DATA must still be
        // acknowledged, and the pending packet must go out afterwards.
        let p = params();
        let (mut d, mut env) = (dcf(paced(PacingWait::Timer, PacingExtra::Exchange)), Env::default());
        d.send(Outgoing { packet: 1, ip_bytes: 40, next_hop: 1 }, &p, &mut env);
        fire(&mut d, &mut env, MacTimer::Backoff, &p);
        answer(&mut d, &mut env, FrameKind::Cts, &p);
        fire(&mut d, &mut env, MacTimer::Defer, &p);
        answer(&mut d, &mut env, FrameKind::Ack, &p);
        let (pace_at, _) = last(&env, MacTimer::Pace);
        d.send(out(2), &p, &mut env);
        env.now += p.timing.difs;
        let nav = p.duration(3 * p.timing.sifs + p.cts_time + p.timing.data_airtime(1534) + p.ack_time);
        let rts = test_frames::rts(&p, 1, 0, nav);
        d.on_rx_start(&rts, 1e-6, true, &p, &mut env);
        fire(&mut d, &mut env, MacTimer::Recv, &p);
        fire(&mut d, &mut env, MacTimer::Defer, &p);
        assert_eq!(env.sent.last().unwrap().kind, FrameKind::Cts);
        env.now += p.cts_time + p.timing.sifs;
        let data = Frame { seq: 7, packet: 9, ..test_frames::data(&p, 1, 0, 1500) };
        d.on_rx_start(&data, 1e-6, true, &p, &mut env);
        assert!(pace_at < env.now + data.airtime, "the wait ends during the DATA");
        fire(&mut d, &mut env, MacTimer::Pace, &p);
        fire(&mut d, &mut env, MacTimer::Recv, &p);
        fire(&mut d, &mut env, MacTimer::Defer, &p);
        assert_eq!(env.sent.last().unwrap().kind, FrameKind::Ack, "the DATA is acknowledged");
        fire(&mut d, &mut env, MacTimer::Send, &p);
        fire(&mut d, &mut env, MacTimer::Backoff, &p);
        assert_eq!(env.sent.last().unwrap().kind, FrameKind::Rts, "then our pending packet goes out");
    }

    #[test]
    fn data_extra_is_the_data_frame_airtime() {
        let p = params();
        let (mut plain, mut e1) = (dcf(LinkPolicy::Standard), Env::default());
        let (mut paced_d, mut e2) = (dcf(paced(PacingWait::FrozenBackoff, PacingExtra::Data)), Env::default());
        let b_plain = exchange(&mut plain, &mut e1, &p).expect("a post-success backoff");
        let b_paced = exchange(&mut paced_d, &mut e2, &p).expect("a post-success backoff");
        let data = e2.sent.iter().find(|f| f.kind == FrameKind::Data).unwrap();
        assert_eq!(b_paced - b_plain, data.airtime);
    }

    /// The latest expiry set for `t`.
    fn last(env: &Env, t: MacTimer) -> (Time, u32) {
        env.timers.iter().rev().find(|x| x.0 == t).map(|x| (x.1, x.2)).expect("timer set")
    }

    fn fire(d: &mut Dcf, env: &mut Env, t: MacTimer, p: &MacParams) {
        let (at, gen) = last(env, t);
        env.now = at;
        d.on_timer(t, gen, p, env);
    }

    /// A CTS or ACK from node 1 starts arriving `SIFS` after our frame ended.
    fn answer(d: &mut Dcf, env: &mut Env, kind: FrameKind, p: &MacParams) {
        let ours = *env.sent.last().unwrap();
        env.now += ours.airtime + p.timing.sifs;
        let airtime = if kind == FrameKind::Cts { p.cts_time } else { p.ack_time };
        let f = Frame { kind, ta: 1, ra: 0, nav: 0, seq: 0, retry: false, bytes: 14, airtime, packet: NO_PACKET };
        d.on_rx_start(&f, 1e-6, true, p, env);
        fire(d, env, MacTimer::Recv, p);
    }

    /// Send packet 1 through RTS, CTS, DATA, ACK. Returns the post-success
    /// backoff's expiry measured from the ACK's end (None if no backoff was
    /// armed then: a timer wait holds contention instead).
    fn exchange(d: &mut Dcf, env: &mut Env, p: &MacParams) -> Option<Time> {
        d.send(out(1), p, env);
        fire(d, env, MacTimer::Backoff, p);
        assert_eq!(env.sent.last().unwrap().kind, FrameKind::Rts);
        answer(d, env, FrameKind::Cts, p);
        fire(d, env, MacTimer::Defer, p);
        assert_eq!(env.sent.last().unwrap().kind, FrameKind::Data);
        answer(d, env, FrameKind::Ack, p);
        assert_eq!(env.done.last().unwrap(), &(1, TxResult::Acked { retries: 0 }));
        last(env, MacTimer::Backoff).0.checked_sub(env.now)
    }

    #[test]
    fn pacing_adds_one_exchange_after_a_success() {
        let p = params();
        let (mut plain, mut e1) = (dcf(LinkPolicy::Standard), Env::default());
        let (mut paced, mut e2) = (dcf(fu(&[], None, Some(PacingTrigger::Always))), Env::default());
        let b_plain = exchange(&mut plain, &mut e1, &p).expect("a post-success backoff");
        let b_paced = exchange(&mut paced, &mut e2, &p).expect("a post-success backoff");
        let data = e2.sent.iter().find(|f| f.kind == FrameKind::Data).unwrap();
        // Same random slots (the same stream), plus the whole exchange.
        assert_eq!(b_paced - b_plain, crate::mac::adaptive_pacing::exchange_time(data, &p));
        assert!(b_paced - b_plain > data.airtime);
        let r = paced.policy.report(e2.now).unwrap();
        assert_eq!(r.pacing_backoffs, 1);
        assert!(plain.policy.report(e1.now).is_none());
    }

    #[test]
    fn pacing_adds_nothing_after_a_failure() {
        let p = params();
        let mut expiries = Vec::new();
        for policy in [LinkPolicy::Standard, fu(&[], None, Some(PacingTrigger::Always))] {
            let (mut d, mut env) = (dcf(policy), Env::default());
            d.send(out(1), &p, &mut env);
            fire(&mut d, &mut env, MacTimer::Backoff, &p);
            // No CTS: the timeout draws a new backoff for the retry.
            fire(&mut d, &mut env, MacTimer::Send, &p);
            assert_eq!(d.counters.cts_timeouts, 1);
            expiries.push(last(&env, MacTimer::Backoff).0 - env.now);
            if let Some(r) = d.policy.report(env.now) {
                assert_eq!(r.pacing_backoffs, 0);
            }
        }
        assert_eq!(expiries[0], expiries[1], "a failed attempt backs off as plain 802.11");
    }

    #[test]
    fn each_trigger_reading_decides_the_extra() {
        let p = params();
        let (mut plain, mut e0) = (dcf(LinkPolicy::Standard), Env::default());
        let base = exchange(&mut plain, &mut e0, &p).expect("a post-success backoff");
        // min_th = 0.5; the retry average is 0, or 1/8 of one packet's retries (8 -> 1.0, 4 -> 0.5).
        for (avg_after, trigger, paced) in [
            (&[][..], PacingTrigger::BelowMinTh, true),
            (&[8][..], PacingTrigger::BelowMinTh, false),
            (&[][..], PacingTrigger::AtOrAboveMinTh, false),
            (&[8][..], PacingTrigger::AtOrAboveMinTh, true),
            (&[4][..], PacingTrigger::AtOrAboveMinTh, true), // exactly min_th = 0.5
            (&[4][..], PacingTrigger::BelowMinTh, false),
            (&[8][..], PacingTrigger::Always, true),
        ] {
            let (mut d, mut env) = (dcf(fu(avg_after, None, Some(trigger))), Env::default());
            let b = exchange(&mut d, &mut env, &p).expect("a post-success backoff");
            assert_eq!(b > base, paced, "{trigger:?} at average {avg_after:?}");
        }
    }

    #[test]
    fn retry_average_counts_failed_attempts_of_each_packet() {
        let p = params();
        let (mut d, mut env) = (dcf(fu(&[], None, Some(PacingTrigger::Always))), Env::default());
        exchange(&mut d, &mut env, &p);
        let LinkPolicy::Fu(f) = &d.policy else { unreachable!() };
        assert_eq!(f.retry_avg.value(), 0.0, "first-time success");
        // Packet 2: the RTS fails three times, then the exchange succeeds.
        d.send(out(2), &p, &mut env);
        for _ in 0..3 {
            fire(&mut d, &mut env, MacTimer::Backoff, &p);
            fire(&mut d, &mut env, MacTimer::Send, &p);
        }
        fire(&mut d, &mut env, MacTimer::Backoff, &p);
        answer(&mut d, &mut env, FrameKind::Cts, &p);
        fire(&mut d, &mut env, MacTimer::Defer, &p);
        answer(&mut d, &mut env, FrameKind::Ack, &p);
        assert_eq!(env.done.last().unwrap(), &(2, TxResult::Acked { retries: 3 }));
        let LinkPolicy::Fu(f) = &d.policy else { unreachable!() };
        assert_eq!(f.retry_avg.value(), 3.0 / 8.0);
    }

    #[test]
    fn link_red_marks_ect_drops_the_rest_and_takes_the_next_packet() {
        let p = params();
        // p = max_p = 1 once the average is above max_th: every packet is picked.
        let red = LinkRedParams { min_th: 0.1, max_th: 0.5, max_p: 1.0, weight: 0.125, action: MarkAction::Mark };
        let (mut d, mut env) = (dcf(fu(&[8], Some(red), None)), Env::default());
        env.ect = vec![3];
        env.queue.extend([out(2), out(3)]);
        // Packet 1 is not ECT: dropped; 2 likewise; 3 is ECT: marked and sent.
        d.send(out(1), &p, &mut env);
        assert_eq!(env.done, vec![(1, TxResult::EarlyDrop), (2, TxResult::EarlyDrop)]);
        assert_eq!(env.marked, vec![3]);
        assert!(d.has_packet());
        let r = d.policy.report(env.now).unwrap();
        assert_eq!((r.lred_marks, r.lred_drops), (1, 2));
        // Nothing was transmitted for the dropped packets.
        assert!(env.sent.is_empty());
    }

    #[test]
    fn link_red_below_min_th_leaves_packets_alone() {
        let p = params();
        let red = LinkRedParams { min_th: 0.5, max_th: 1.5, max_p: 1.0, weight: 0.125, action: MarkAction::Drop };
        let (mut d, mut env) = (dcf(fu(&[], Some(red), None)), Env::default());
        exchange(&mut d, &mut env, &p);
        let r = d.policy.report(env.now).unwrap();
        assert_eq!((r.lred_marks, r.lred_drops), (0, 0));
        // With an average above max_th and action "drop", the next packet is
        // dropped and the MAC is free again (the queue is empty).
        let (mut d, mut env) = (dcf(fu(&[8, 8, 8], Some(red), None)), Env::default());
        env.ect = vec![1];
        d.send(out(1), &p, &mut env);
        assert_eq!(env.done, vec![(1, TxResult::EarlyDrop)]);
        assert!(env.marked.is_empty(), "action \"drop\" never marks");
        assert!(!d.has_packet());
    }
}
