//! The static channel: for every node, the list of nodes that sense its
//! transmissions (received power at or above the carrier-sense threshold),
//! with the received power, the propagation delay and whether the frame can be
//! decoded (power at or above the receive threshold).
//!
//! Built once per run with a uniform spatial grid whose cell is the
//! carrier-sense range, so only the 3×3 surrounding cells are searched:
//! 10,000 nodes take milliseconds.

use super::propagation::{TwoRayGround, SPEED_OF_LIGHT};
use crate::engine::Time;

#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Position {
    pub x: f64,
    pub y: f64,
}

impl Position {
    pub fn dist(&self, o: &Position) -> f64 {
        ((self.x - o.x).powi(2) + (self.y - o.y).powi(2)).sqrt()
    }
}

/// A hearer found while building (its delay decides its group).
#[derive(Clone, Copy, Debug)]
struct Neighbor {
    node: u32,
    /// Received power (W).
    power: f64,
    /// Propagation delay, rounded to the nanosecond.
    delay: Time,
    /// Power >= receive threshold: the frame can be decoded.
    decodable: bool,
}

/// One node that senses a sender's frames, as the air needs it (the delay is
/// its arrival group's).
#[derive(Clone, Copy, Debug)]
pub struct Hearer {
    /// Received power (W).
    pub power: f64,
    pub node: u32,
    /// Power >= receive threshold: the frame can be decoded.
    pub decodable: bool,
}

/// Hearers of one sender at the same propagation delay: entries
/// `hearers[start..end]` of the channel.
#[derive(Clone, Copy, Debug)]
pub struct ArrivalGroup {
    pub delay: Time,
    pub start: u32,
    pub end: u32,
}

/// The hearers of every sender in flat arrays, one contiguous run per sender
/// (a frame on the air walks one run front to back, so the hot path reads
/// memory in order and follows no per-sender pointer).
#[derive(Clone, Debug)]
pub struct Channel {
    pub positions: Vec<Position>,
    /// Every sender's hearers sorted by (delay, node): sender n's are
    /// `hearers[hearer_start[n]..hearer_start[n + 1]]`.
    hearers: Vec<Hearer>,
    hearer_start: Vec<u32>,
    /// The same runs as indices into `hearers`, sorted by node id (link
    /// queries and AODV walk neighbours in id order).
    by_id: Vec<u32>,
    /// Every sender's hearers grouped by propagation delay (ascending), each
    /// group in node-id order: sender n's are
    /// `groups[group_start[n]..group_start[n + 1]]`. A transmission reaches a
    /// whole group at once, so the simulator delivers it in one step.
    groups: Vec<ArrivalGroup>,
    group_start: Vec<u32>,
}

impl Channel {
    /// Build the channel. Thresholds are the model's received power at
    /// `tx_range_m` and `cs_range_m`, as in ns-2 (RXThresh_, CSThresh_).
    pub fn build(positions: Vec<Position>, model: TwoRayGround, tx_range_m: f64, cs_range_m: f64) -> Self {
        let rx_thresh_w = model.rx_power(tx_range_m);
        let cs_thresh_w = model.rx_power(cs_range_m);
        let n = positions.len();
        let mut ch = Channel {
            positions: Vec::new(),
            hearers: Vec::new(),
            hearer_start: Vec::with_capacity(n + 1),
            by_id: Vec::new(),
            groups: Vec::new(),
            group_start: Vec::with_capacity(n + 1),
        };
        ch.hearer_start.push(0);
        ch.group_start.push(0);
        if n > 0 {
            // Spatial hash: cell side = carrier-sense range (+ margin for rounding).
            let cell = cs_range_m.max(1.0) * 1.000_001;
            let minx = positions.iter().map(|p| p.x).fold(f64::INFINITY, f64::min);
            let miny = positions.iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
            let key = |p: &Position| -> (i64, i64) {
                (((p.x - minx) / cell).floor() as i64, ((p.y - miny) / cell).floor() as i64)
            };
            let mut cells: std::collections::BTreeMap<(i64, i64), Vec<u32>> = Default::default();
            for (i, p) in positions.iter().enumerate() {
                cells.entry(key(p)).or_default().push(i as u32);
            }
            let mut list: Vec<Neighbor> = Vec::new();
            let mut idx: Vec<u32> = Vec::new();
            for (i, p) in positions.iter().enumerate() {
                let (cx, cy) = key(p);
                list.clear();
                for dx in -1..=1 {
                    for dy in -1..=1 {
                        if let Some(members) = cells.get(&(cx + dx, cy + dy)) {
                            for &j in members {
                                if j as usize == i {
                                    continue;
                                }
                                let d = p.dist(&positions[j as usize]);
                                let power = model.rx_power(d);
                                if power >= cs_thresh_w {
                                    list.push(Neighbor {
                                        node: j,
                                        power,
                                        delay: (d / SPEED_OF_LIGHT * 1e9).round() as Time,
                                        decodable: power >= rx_thresh_w,
                                    });
                                }
                            }
                        }
                    }
                }
                ch.push_sender(&mut list, &mut idx);
            }
        }
        ch.positions = positions;
        ch.hearers.shrink_to_fit();
        ch.by_id.shrink_to_fit();
        ch.groups.shrink_to_fit();
        ch
    }

    /// Append the next sender's hearers (in any order; reordered here).
    fn push_sender(&mut self, list: &mut [Neighbor], idx: &mut Vec<u32>) {
        list.sort_by_key(|nb| (nb.delay, nb.node));
        let base = self.hearers.len() as u32;
        let first_group = self.groups.len();
        for nb in list.iter() {
            let at = self.hearers.len() as u32;
            match self.groups[first_group..].last_mut() {
                Some(g) if g.delay == nb.delay => g.end = at + 1,
                _ => self.groups.push(ArrivalGroup { delay: nb.delay, start: at, end: at + 1 }),
            }
            self.hearers.push(Hearer { power: nb.power, node: nb.node, decodable: nb.decodable });
        }
        idx.clear();
        idx.extend(base..self.hearers.len() as u32);
        idx.sort_by_key(|&k| self.hearers[k as usize].node);
        self.by_id.extend_from_slice(idx);
        self.hearer_start.push(self.hearers.len() as u32);
        self.group_start.push(self.groups.len() as u32);
    }

    /// Sender `n`'s arrival groups, by ascending delay.
    #[inline]
    pub fn groups(&self, n: u32) -> &[ArrivalGroup] {
        let n = n as usize;
        &self.groups[self.group_start[n] as usize..self.group_start[n + 1] as usize]
    }

    /// The hearers of arrival group `g`, in node-id order.
    #[inline]
    #[cfg(test)] // the hot path indexes hearers one by one
    pub fn group_hearers(&self, g: &ArrivalGroup) -> &[Hearer] {
        &self.hearers[g.start as usize..g.end as usize]
    }

    /// Hearer `m` (an index in an arrival group's `start..end`).
    #[inline]
    pub fn hearer(&self, m: u32) -> Hearer {
        self.hearers[m as usize]
    }

    /// Sender `n`'s hearers by node id.
    fn sensed_by(&self, n: u32) -> impl Iterator<Item = &Hearer> + '_ {
        let n = n as usize;
        self.by_id[self.hearer_start[n] as usize..self.hearer_start[n + 1] as usize]
            .iter()
            .map(|&k| &self.hearers[k as usize])
    }

    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Nodes that can decode `n`'s frames (its link-layer neighbours).
    pub fn links_of(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        self.sensed_by(n).filter(|h| h.decodable).map(|h| h.node)
    }

    /// Can `b` decode frames sent by `a`?
    pub fn is_link(&self, a: u32, b: u32) -> bool {
        let a = a as usize;
        let ids = &self.by_id[self.hearer_start[a] as usize..self.hearer_start[a + 1] as usize];
        match ids.binary_search_by_key(&b, |&k| self.hearers[k as usize].node) {
            Ok(i) => self.hearers[ids[i] as usize].decodable,
            Err(_) => false,
        }
    }

    /// Connected components of the link graph: a component id per node.
    pub fn components(&self) -> Vec<u32> {
        let n = self.len();
        let mut comp = vec![u32::MAX; n];
        let mut next = 0;
        let mut stack = Vec::new();
        for s in 0..n {
            if comp[s] != u32::MAX {
                continue;
            }
            comp[s] = next;
            stack.push(s as u32);
            while let Some(u) = stack.pop() {
                for v in self.links_of(u) {
                    if comp[v as usize] == u32::MAX {
                        comp[v as usize] = next;
                        stack.push(v);
                    }
                }
            }
            next += 1;
        }
        comp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(n: usize, spacing: f64) -> Vec<Position> {
        (0..n).map(|i| Position { x: i as f64 * spacing, y: 0.0 }).collect()
    }

    #[test]
    fn chain_200m_hears_two_hops_decodes_one() {
        let ch = Channel::build(line(8, 200.0), TwoRayGround::default(), 250.0, 550.0);
        let nb: Vec<u32> = ch.sensed_by(3).map(|n| n.node).collect();
        assert_eq!(nb, vec![1, 2, 4, 5]);
        let links: Vec<u32> = ch.links_of(3).collect();
        assert_eq!(links, vec![2, 4]);
        assert!(ch.is_link(0, 1) && !ch.is_link(0, 2));
        assert_eq!(ch.groups(0)[0].delay, 667); // 200 m / c
                                                // Node 3's hearers at 200 m (2, 4) then 400 m (1, 5).
        let g: Vec<(u64, Vec<u32>)> =
            ch.groups(3).iter().map(|g| (g.delay, ch.group_hearers(g).iter().map(|h| h.node).collect())).collect();
        assert_eq!(g, vec![(667, vec![2, 4]), (1333, vec![1, 5])]);
    }

    #[test]
    fn grid_matches_brute_force() {
        let mut pos = Vec::new();
        for i in 0..20 {
            for j in 0..20 {
                pos.push(Position { x: i as f64 * 130.0 + (j % 3) as f64, y: j as f64 * 170.0 });
            }
        }
        let m = TwoRayGround::default();
        let ch = Channel::build(pos.clone(), m, 250.0, 550.0);
        let cs = m.rx_power(550.0);
        for a in 0..pos.len() {
            let brute: Vec<u32> = (0..pos.len())
                .filter(|&b| b != a && m.rx_power(pos[a].dist(&pos[b])) >= cs)
                .map(|b| b as u32)
                .collect();
            let got: Vec<u32> = ch.sensed_by(a as u32).map(|n| n.node).collect();
            assert_eq!(got, brute);
            // The arrival groups hold the same hearers, by (delay, node).
            let mut by_arrival: Vec<(u64, u32)> = Vec::new();
            for g in ch.groups(a as u32) {
                by_arrival.extend(ch.group_hearers(g).iter().map(|h| (g.delay, h.node)));
            }
            let mut want: Vec<(u64, u32)> = brute
                .iter()
                .map(|&b| ((pos[a].dist(&pos[b as usize]) / SPEED_OF_LIGHT * 1e9).round() as u64, b))
                .collect();
            want.sort();
            assert_eq!(by_arrival, want);
        }
    }

    #[test]
    fn components_split_far_groups() {
        let mut pos = line(3, 200.0);
        pos.push(Position { x: 5000.0, y: 0.0 });
        let ch = Channel::build(pos, TwoRayGround::default(), 250.0, 550.0);
        let c = ch.components();
        assert_eq!(c[0], c[2]);
        assert_ne!(c[0], c[3]);
    }
}
