//! HELLO-based link-break detection (RFC 3561 §6.9), as ns-2.35 runs it
//! when AODV_LINK_LAYER_DETECTION is undefined (aodv.cc sendHello,
//! recvHello, nb_insert, nb_delete, nb_purge): every node broadcasts a
//! HELLO every U(0.75, 1.25)·HELLO_INTERVAL; a neighbour is known from its
//! HELLOs and lost when none was heard for 1.5·ALLOWED_HELLO_LOSS
//! intervals, checked every interval. Losing one invalidates the routes
//! through it and sends a RERR, as a MAC-detected break does. Only used
//! with `link_detection = "hello"`.

use super::{Aodv, AodvEnv, AodvMsg, AodvParams, Rrep};
use crate::engine::Time;
use crate::wire::{NodeId, BROADCAST};

/// Known neighbours with the time each is lost unless heard again, newest
/// first (ns-2 inserts at the head of its list and walks from the head).
#[derive(Clone, Debug, Default)]
pub struct NeighborTable {
    nbs: Vec<(NodeId, Time)>,
}

impl NeighborTable {
    #[cfg(test)] // only the unit tests read it
    pub fn contains(&self, id: NodeId) -> bool {
        self.nbs.iter().any(|&(n, _)| n == id)
    }
}

/// How long a neighbour stays known after its last HELLO (ns-2: 1.5 ·
/// ALLOWED_HELLO_LOSS · HELLO_INTERVAL), in integer nanoseconds.
fn neighbor_lifetime(p: &AodvParams) -> Time {
    p.hello_interval * 3 * p.allowed_hello_loss as u64 / 2
}

impl Aodv {
    /// The HELLO timer fired: broadcast a HELLO now (no jitter, TTL 1) and
    /// return the delay to the next one, U(0.75, 1.25)·HELLO_INTERVAL.
    pub fn hello_timer(&mut self, p: &AodvParams, env: &mut impl AodvEnv) -> Time {
        let rp = Rrep {
            hop_count: 1,
            dst: self.id,
            dst_seqno: self.seqno,
            src: self.id,
            lifetime: (1 + p.allowed_hello_loss as u64) * p.hello_interval,
            timestamp: env.now(),
        };
        env.send_control(AodvMsg::Hello(rp), self.id, BROADCAST, BROADCAST, 1, 0);
        ((0.75 + 0.5 * self.rng.uniform()) * p.hello_interval as f64) as Time
    }

    /// A HELLO from neighbour `rp.dst`: a new neighbour changes our
    /// neighbour set (sequence number + 2); a known one lives longer.
    pub(super) fn recv_hello(&mut self, rp: &Rrep, p: &AodvParams, env: &mut impl AodvEnv) {
        let expire = env.now() + neighbor_lifetime(p);
        match self.neighbors.nbs.iter_mut().find(|(n, _)| *n == rp.dst) {
            Some(nb) => nb.1 = expire,
            None => {
                self.neighbors.nbs.insert(0, (rp.dst, expire));
                self.seqno += 2;
            }
        }
    }

    /// The neighbour timer (every HELLO_INTERVAL): each neighbour unheard
    /// for too long is deleted — sequence number + 2, and its routes are
    /// invalidated and reported (ns-2 nb_delete → handle_link_failure).
    /// Every loss counts as a route break.
    pub fn neighbor_purge(&mut self, p: &AodvParams, env: &mut impl AodvEnv) {
        let now = env.now();
        let lost: Vec<NodeId> = self.neighbors.nbs.iter().filter(|&&(_, e)| e <= now).map(|&(n, _)| n).collect();
        for id in lost {
            self.neighbors.nbs.retain(|&(n, _)| n != id);
            self.seqno += 2;
            self.counters.route_breaks += 1;
            self.handle_link_failure(id, p, env);
        }
    }
}
