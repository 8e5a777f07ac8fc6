//! Route replies: sending one back along the reverse route (ns-2
//! sendReply) and handling a received one — install the forward route,
//! send what waited for it, pass the reply on towards the originator (ns-2
//! recvReply).

use super::{Aodv, AodvEnv, AodvMsg, AodvParams, Rrep, INFINITY};
use crate::engine::Time;
use crate::net::DropCause;
use crate::wire::NodeId;

impl Aodv {
    /// Reply to `ip_dst` (the RREQ's originator) through our route to it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn send_reply(
        &mut self,
        ip_dst: NodeId,
        hop_count: u8,
        dst: NodeId,
        dst_seqno: u32,
        lifetime: Time,
        timestamp: Time,
        p: &AodvParams,
        env: &mut impl AodvEnv,
    ) {
        let Some(rt) = self.table.get(ip_dst) else { return };
        let rp = Rrep { hop_count, dst, dst_seqno, src: self.id, lifetime, timestamp };
        self.counters.rrep_sent += 1;
        env.send_control(AodvMsg::Rrep(rp), self.id, ip_dst, rt.next_hop, p.network_diameter, 0);
    }

    /// A RREP arrived; `ip_src` is its originator, `ip_dst` the RREQ's.
    pub(super) fn recv_reply(
        &mut self,
        mut rp: Rrep,
        ip_src: NodeId,
        ip_dst: NodeId,
        ttl: u8,
        p: &AodvParams,
        env: &mut impl AodvEnv,
    ) {
        let now = env.now();
        self.counters.rrep_received += 1;
        let i = self.entry(rp.dst, p);
        let rt = &self.table[i];
        let fresher = rt.seqno < rp.dst_seqno || (rt.seqno == rp.dst_seqno && rt.hops > rp.hop_count as u16);
        if fresher {
            self.install(i, rp.dst_seqno, rp.hop_count as u16, rp.src, now + rp.lifetime);
            let rt = &mut self.table[i];
            rt.req_cnt = 0;
            rt.req_timeout = 0;
            rt.req_last_ttl = rp.hop_count as u16;
            if ip_dst == self.id && rp.hop_count > 0 {
                let h = rt.hist_indx as usize;
                rt.disc_latency[h] = now.saturating_sub(rp.timestamp) / rp.hop_count as u64;
                rt.hist_indx = ((h + 1) % rt.disc_latency.len()) as u8;
            }
            let mut delay = 0;
            self.flush_buffer(i, &mut delay, p, env);
        }
        if ip_dst == self.id || !fresher {
            return;
        }
        // Pass it on towards the originator.
        match self.table.lookup(ip_dst).filter(|&i0| self.table[i0].hops != INFINITY) {
            Some(i0) => {
                rp.hop_count = rp.hop_count.wrapping_add(1);
                rp.src = self.id;
                let next = self.table[i0].next_hop;
                if ttl == 0 {
                    env.drop_control(DropCause::Ttl);
                } else {
                    self.table[i0].expire = now + p.active_route_timeout;
                    self.counters.rrep_forwarded += 1;
                    env.send_control(AodvMsg::Rrep(rp), ip_src, ip_dst, next, ttl, 0);
                }
                self.table[i].add_precursor(next);
            }
            None => env.drop_control(DropCause::NoRoute),
        }
    }
}
