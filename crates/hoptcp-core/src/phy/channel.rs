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

#[derive(Clone, Copy, Debug)]
pub struct Neighbor {
    pub node: u32,
    /// Received power (W).
    pub power: f64,
    /// Propagation delay, rounded to the nanosecond.
    pub delay: Time,
    /// Power >= receive threshold: the frame can be decoded.
    pub decodable: bool,
}

/// Hearers of one sender at the same propagation delay: entries
/// `arrival_order[start..end]` of that sender, which index its `sensed_by`.
#[derive(Clone, Copy, Debug)]
pub struct ArrivalGroup {
    pub delay: Time,
    pub start: u32,
    pub end: u32,
}

#[derive(Clone, Debug)]
pub struct Channel {
    pub positions: Vec<Position>,
    /// `sensed_by[n]`: nodes that sense n's transmissions, sorted by node id.
    pub sensed_by: Vec<Vec<Neighbor>>,
    /// `arrivals[n]`: n's hearers grouped by propagation delay (ascending),
    /// each group in node-id order. A transmission reaches a whole group at
    /// once, so the simulator delivers it with one event per group.
    pub arrivals: Vec<Vec<ArrivalGroup>>,
    /// `arrival_order[n]`: indices into `sensed_by[n]` sorted by (delay, node).
    pub arrival_order: Vec<Vec<u32>>,
}

impl Channel {
    /// Build the channel. Thresholds are the model's received power at
    /// `tx_range_m` and `cs_range_m`, as in ns-2 (RXThresh_, CSThresh_).
    pub fn build(positions: Vec<Position>, model: TwoRayGround, tx_range_m: f64, cs_range_m: f64) -> Self {
        let rx_thresh_w = model.rx_power(tx_range_m);
        let cs_thresh_w = model.rx_power(cs_range_m);
        let n = positions.len();
        let mut sensed_by = vec![Vec::new(); n];
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
            for (i, p) in positions.iter().enumerate() {
                let (cx, cy) = key(p);
                let list = &mut sensed_by[i];
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
                list.sort_by_key(|nb| nb.node);
            }
        }
        let mut arrivals = Vec::with_capacity(n);
        let mut arrival_order = Vec::with_capacity(n);
        for list in &sensed_by {
            let mut idx: Vec<u32> = (0..list.len() as u32).collect();
            idx.sort_by_key(|&k| (list[k as usize].delay, list[k as usize].node));
            let mut groups: Vec<ArrivalGroup> = Vec::new();
            for (pos, &k) in idx.iter().enumerate() {
                let d = list[k as usize].delay;
                match groups.last_mut() {
                    Some(g) if g.delay == d => g.end = pos as u32 + 1,
                    _ => groups.push(ArrivalGroup { delay: d, start: pos as u32, end: pos as u32 + 1 }),
                }
            }
            groups.shrink_to_fit();
            arrivals.push(groups);
            arrival_order.push(idx);
        }
        Channel { positions, sensed_by, arrivals, arrival_order }
    }

    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Nodes that can decode `n`'s frames (its link-layer neighbours).
    pub fn links_of(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        self.sensed_by[n as usize].iter().filter(|nb| nb.decodable).map(|nb| nb.node)
    }

    /// Can `b` decode frames sent by `a`?
    pub fn is_link(&self, a: u32, b: u32) -> bool {
        let list = &self.sensed_by[a as usize];
        match list.binary_search_by_key(&b, |nb| nb.node) {
            Ok(k) => list[k].decodable,
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
        let nb: Vec<u32> = ch.sensed_by[3].iter().map(|n| n.node).collect();
        assert_eq!(nb, vec![1, 2, 4, 5]);
        let links: Vec<u32> = ch.links_of(3).collect();
        assert_eq!(links, vec![2, 4]);
        assert!(ch.is_link(0, 1) && !ch.is_link(0, 2));
        assert_eq!(ch.sensed_by[0][0].delay, 667); // 200 m / c
                                                   // Node 3's hearers at 200 m (2, 4) then 400 m (1, 5).
        let g: Vec<(u64, Vec<u32>)> = ch.arrivals[3]
            .iter()
            .map(|g| {
                let members = &ch.arrival_order[3][g.start as usize..g.end as usize];
                (g.delay, members.iter().map(|&k| ch.sensed_by[3][k as usize].node).collect())
            })
            .collect();
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
            let got: Vec<u32> = ch.sensed_by[a].iter().map(|n| n.node).collect();
            assert_eq!(got, brute);
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
