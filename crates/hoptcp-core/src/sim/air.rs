//! Frames on the air. One queue entry stands for each frame: its key is that
//! of the frame's next step, which is either the arrival of its first bit at
//! the next group of hearers (all at one distance) or the end of the frame at
//! a group that locked on it. Arrival groups take sequence numbers reserved
//! when the frame is sent, ends the number they would have been scheduled
//! with, so steps run in exactly the order one event per step would run,
//! while the queue holds one entry per frame instead of one per group.

use super::{Ev, Simulation};
use crate::engine::Time;
use crate::mac::MacTimer;
use crate::wire::Frame;

/// A frame on the air, shared by all its hearers until each has seen it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Transmission {
    pub frame: Frame,
    pub tx_node: u32,
    /// When the first bit left the sender.
    pub sent: Time,
    /// Sequence number of arrival group 0 (group g has `first_seq + g`).
    pub first_seq: u64,
    /// Next arrival group to reach.
    pub next_group: u32,
    /// Ends of groups already reached that have run (index into the
    /// frame's list of pending ends).
    pub ends_done: u32,
}

/// Per transmission slot: (group, sequence number) of the frame's end at
/// each group that locked on it, in group order (reused across frames).
#[derive(Default)]
pub(crate) struct PendingEnds(Vec<Vec<(u32, u64)>>);

impl PendingEnds {
    #[inline]
    fn get(&self, tx: u32, i: u32) -> Option<(u32, u64)> {
        self.0.get(tx as usize).and_then(|v| v.get(i as usize)).copied()
    }

    #[inline]
    fn push(&mut self, tx: u32, end: (u32, u64)) {
        let i = tx as usize;
        if i >= self.0.len() {
            self.0.resize_with(i + 1, Vec::new);
        }
        self.0[i].push(end);
    }

    fn clear(&mut self, tx: u32) {
        if let Some(v) = self.0.get_mut(tx as usize) {
            v.clear();
        }
    }
}

/// `Ev::Air`'s step: arrival at group g is g, the end at group g is g | END.
pub(crate) const END: u32 = 1 << 31;

impl Simulation {
    /// Run frame `tx`'s step due now, and its next ones while each would be
    /// the next event anyway; queue the first that is not.
    pub(super) fn air_step(&mut self, now: Time, tx: u32, step: u32) {
        let (mut now, mut step) = (now, step);
        loop {
            match self.air_one(now, tx, step) {
                Some((at, seq, next)) => {
                    if at <= self.end && self.w.q.take_if_next(at, seq) {
                        (now, step) = (at, next);
                    } else {
                        self.w.q.schedule_seq(at, seq, Ev::Air { tx, step: next });
                        return;
                    }
                }
                None => {
                    self.air_ends.clear(tx);
                    self.w.txs.remove(tx);
                    return;
                }
            }
        }
    }

    /// Run frame `tx`'s step due now; return its next step and that step's
    /// (time, sequence number), if one is left.
    fn air_one(&mut self, now: Time, tx: u32, step: u32) -> Option<(Time, u64, u32)> {
        let t = self.w.txs.get_mut(tx);
        if step & END == 0 {
            t.next_group += 1;
            if self.arrive(now, tx, step) {
                let seq = self.w.q.reserve(1);
                self.air_ends.push(tx, (step, seq));
            }
        } else {
            t.ends_done += 1;
            let sender = t.tx_node;
            self.end_at(now, sender, step & !END);
        }
        // The earlier of the next arrival and the next end.
        let t = self.w.txs.get(tx);
        let groups = self.w.channel.groups(t.tx_node);
        let arrive = groups
            .get(t.next_group as usize)
            .map(|g| (t.sent + g.delay, t.first_seq + t.next_group as u64, t.next_group));
        let end = self
            .air_ends
            .get(tx, t.ends_done)
            .map(|(g, seq)| (t.sent + groups[g as usize].delay + t.frame.airtime, seq, g | END));
        match (arrive, end) {
            (Some(a), Some(e)) => Some(if (a.0, a.1) < (e.0, e.1) { a } else { e }),
            (a, e) => a.or(e),
        }
    }

    /// The first bit reaches every hearer in group `g`, in node-id order;
    /// true if any locked on it (a reception timer started: they all expire
    /// when the frame ends there, one step for the group).
    fn arrive(&mut self, now: Time, tx: u32, g: u32) -> bool {
        let (frame, sender) = {
            let t = self.w.txs.get(tx);
            (t.frame, t.tx_node)
        };
        let group = self.w.channel.groups(sender)[g as usize];
        let mut locked = false;
        for m in group.start..group.end {
            let h = self.w.channel.hearer(m);
            self.with_node_ctx(now, h.node, Some(&mut locked), |mac, p, ctx| {
                mac.on_rx_start(&frame, h.power, h.decodable, p, ctx)
            });
        }
        locked
    }
    /// The frame ends at group `g` of `sender`'s hearers: the reception timers
    /// of those still locked on it expire.
    fn end_at(&mut self, now: Time, sender: u32, g: u32) {
        let group = self.w.channel.groups(sender)[g as usize];
        for m in group.start..group.end {
            let node = self.w.channel.hearer(m).node;
            let (at, gen) = self.nodes.recv_due(node);
            if at == now {
                self.with_node(now, node, |mac, p, ctx| mac.on_timer(MacTimer::Recv, gen, p, ctx));
            }
        }
    }
}
