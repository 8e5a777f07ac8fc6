//! Route errors: sending one to the neighbours (ns-2 sendError, broadcast
//! with TTL 1) and handling a received one — invalidate the routes through
//! its sender, drop what is queued for it, and tell our own precursors
//! (ns-2 recvError).

use super::{Aodv, AodvEnv, AodvMsg, AodvParams, Rerr, INFINITY};
use crate::wire::{NodeId, BROADCAST};

impl Aodv {
    /// Broadcast `e`, after a random jitter if `jitter`.
    pub(super) fn send_error(&mut self, e: Rerr, jitter: bool, p: &AodvParams, env: &mut impl AodvEnv) {
        let delay = if jitter { self.jitter(p) } else { 0 };
        if jitter {
            self.counters.rerr_forwarded += 1;
        } else {
            self.counters.rerr_sent += 1;
        }
        env.send_control(AodvMsg::Rerr(e), self.id, BROADCAST, BROADCAST, 1, delay);
    }

    /// Add an unreachable destination to `e`, sending `e` first if it is
    /// full (ns-2 sends one RERR of any length; see `wire/aodv.rs`).
    pub(super) fn push_rerr(
        &mut self,
        e: &mut Rerr,
        dst: NodeId,
        seqno: u32,
        jitter: bool,
        p: &AodvParams,
        env: &mut impl AodvEnv,
    ) {
        if e.is_full() {
            let full = std::mem::take(e);
            self.send_error(full, jitter, p, env);
        }
        e.push(dst, seqno);
    }

    /// A RERR arrived from neighbour `from`.
    pub(super) fn recv_error(&mut self, re: &Rerr, from: NodeId, p: &AodvParams, env: &mut impl AodvEnv) {
        self.counters.rerr_received += 1;
        let mut out = Rerr::default();
        for &(dst, seqno) in re.entries() {
            let Some(i) = self.table.lookup(dst) else { continue };
            let rt = &self.table[i];
            if rt.hops == INFINITY || rt.next_hop != from || rt.seqno > seqno {
                continue;
            }
            self.table[i].seqno = seqno;
            self.invalidate(i);
            env.flush_queue(from);
            if !self.table[i].precursors.is_empty() {
                self.table[i].precursors.clear();
                self.push_rerr(&mut out, dst, seqno, true, p, env);
            }
        }
        if !out.is_empty() {
            self.send_error(out, true, p, env);
        }
    }
}
