//! Topology generators: node positions for every `topology.kind`. Node ids
//! are the indices of the returned vector. Values are validated beforehand
//! (`scenario::validate`), so generators can assume sane inputs.

use crate::engine::{RngStream, StreamPurpose};
use crate::phy::Position;

/// Distance between neighbouring nodes when a scenario gives none (m).
pub const DEFAULT_SPACING_M: f64 = 200.0;

/// A network's shape with every number given: what the generators need,
/// in plain values (the scenario converts its `[topology]` table to this).
#[derive(Clone, Debug, PartialEq)]
pub enum Layout {
    Chain {
        hops: u32,
        spacing_m: f64,
    },
    Grid {
        rows: u32,
        cols: u32,
        spacing_m: f64,
    },
    Cross {
        hops: u32,
        spacing_m: f64,
    },
    /// `gateway`: one more node (the last id) level with the chains' last
    /// nodes, midway between the outer chains.
    ParallelChains {
        chains: u32,
        hops: u32,
        spacing_m: f64,
        gap_m: f64,
        gateway: bool,
    },
    Star {
        leaves: u32,
        radius_m: f64,
    },
    Random {
        nodes: u32,
        width_m: f64,
        height_m: f64,
        seed: u64,
    },
    Explicit(Vec<Position>),
}

impl Layout {
    /// How many nodes [`positions`] places, without placing them.
    pub fn node_count(&self) -> usize {
        match *self {
            Layout::Chain { hops, .. } => hops as usize + 1,
            Layout::Grid { rows, cols, .. } => rows as usize * cols as usize,
            Layout::Cross { hops, .. } => 2 * hops as usize + 1,
            Layout::ParallelChains { chains, hops, gateway, .. } => {
                chains as usize * (hops as usize + 1) + usize::from(gateway)
            }
            Layout::Star { leaves, .. } => leaves as usize + 1,
            Layout::Random { nodes, .. } => nodes as usize,
            Layout::Explicit(ref p) => p.len(),
        }
    }
}

/// Positions of all nodes of a layout.
pub fn positions(layout: &Layout) -> Vec<Position> {
    match *layout {
        Layout::Chain { hops, spacing_m } => chain(hops, spacing_m, 0.0),
        Layout::Grid { rows, cols, spacing_m } => grid(rows, cols, spacing_m),
        Layout::Cross { hops, spacing_m } => cross(hops, spacing_m),
        Layout::ParallelChains { chains, hops, spacing_m, gap_m, gateway } => {
            let mut v: Vec<Position> = (0..chains).flat_map(|k| chain(hops, spacing_m, k as f64 * gap_m)).collect();
            if gateway {
                v.push(Position { x: hops as f64 * spacing_m, y: (chains - 1) as f64 * gap_m / 2.0 });
            }
            v
        }
        Layout::Star { leaves, radius_m } => star(leaves, radius_m),
        Layout::Random { nodes, width_m, height_m, seed } => random(nodes, width_m, height_m, seed),
        Layout::Explicit(ref p) => p.clone(),
    }
}

/// `hops + 1` nodes on a horizontal line.
pub fn chain(hops: u32, spacing: f64, y: f64) -> Vec<Position> {
    (0..=hops).map(|i| Position { x: i as f64 * spacing, y }).collect()
}

/// `rows × cols` nodes; node `r * cols + c` at column c, row r.
pub fn grid(rows: u32, cols: u32, spacing: f64) -> Vec<Position> {
    let mut v = Vec::with_capacity((rows * cols) as usize);
    for r in 0..rows {
        for c in 0..cols {
            v.push(Position { x: c as f64 * spacing, y: r as f64 * spacing });
        }
    }
    v
}

/// Two `hops`-hop chains crossing at their middle node (hops even):
/// nodes 0..=hops form the horizontal chain; the vertical chain's nodes
/// follow top to bottom, sharing the horizontal chain's middle node
/// `hops/2`. For hops = 6 this is Fu et al.'s 13-node cross (flows 0→6
/// and 7→12 through node 3).
pub fn cross(hops: u32, spacing: f64) -> Vec<Position> {
    let mid = hops / 2;
    let mut v = chain(hops, spacing, 0.0);
    let cx = mid as f64 * spacing;
    for j in 0..=hops {
        if j != mid {
            v.push(Position { x: cx, y: (j as f64 - mid as f64) * spacing });
        }
    }
    v
}

/// Hub (node 0) at the origin, leaves evenly on a circle.
pub fn star(leaves: u32, radius: f64) -> Vec<Position> {
    let mut v = vec![Position { x: 0.0, y: 0.0 }];
    for i in 0..leaves {
        let a = 2.0 * std::f64::consts::PI * i as f64 / leaves as f64;
        v.push(Position { x: radius * a.cos(), y: radius * a.sin() });
    }
    v
}

/// `n` nodes uniform in a `w × h` rectangle (seeded).
pub fn random(n: u32, w: f64, h: f64, seed: u64) -> Vec<Position> {
    let mut rng = RngStream::new(seed, 0, StreamPurpose::Topology);
    (0..n).map(|_| Position { x: rng.uniform_in(0.0, w), y: rng.uniform_in(0.0, h) }).collect()
}

/// Shortest-hop path from `src` to `dst` over `links` (breadth-first;
/// neighbours visited in increasing id order, so ties break the same way
/// every run). `None` when unreachable.
pub fn shortest_path(n: usize, links: impl Fn(u32) -> Vec<u32>, src: u32, dst: u32) -> Option<Vec<u32>> {
    let (dist, parent) = bfs_within(n, links, src, u32::MAX);
    (dist[dst as usize] != u32::MAX).then(|| path_from_parents(&parent, src, dst))
}

/// Hop distances from `src` by breadth-first search, stopping at `max_hops`
/// (nodes farther away, or unreachable, get `u32::MAX`), with BFS parents to
/// rebuild paths; neighbours in increasing id order as in [`shortest_path`].
pub fn bfs_within(n: usize, links: impl Fn(u32) -> Vec<u32>, src: u32, max_hops: u32) -> (Vec<u32>, Vec<u32>) {
    let mut dist = vec![u32::MAX; n];
    let mut parent = vec![u32::MAX; n];
    let mut q = std::collections::VecDeque::new();
    dist[src as usize] = 0;
    q.push_back(src);
    while let Some(u) = q.pop_front() {
        let d = dist[u as usize];
        if d == max_hops {
            continue;
        }
        for v in links(u) {
            if dist[v as usize] == u32::MAX {
                dist[v as usize] = d + 1;
                parent[v as usize] = u;
                q.push_back(v);
            }
        }
    }
    (dist, parent)
}

/// The path from the BFS root to `dst` given BFS parents.
pub fn path_from_parents(parent: &[u32], src: u32, dst: u32) -> Vec<u32> {
    let mut path = vec![dst];
    let mut x = dst;
    while x != src {
        x = parent[x as usize];
        path.push(x);
    }
    path.reverse();
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cross_shares_the_middle_node() {
        let p = cross(6, 200.0);
        assert_eq!(p.len(), 13);
        // Vertical chain 7,8,9,[3],10,11,12 passes through node 3 at x=600.
        assert_eq!(p[3], Position { x: 600.0, y: 0.0 });
        assert_eq!(p[9], Position { x: 600.0, y: -200.0 });
        assert_eq!(p[10], Position { x: 600.0, y: 200.0 });
        assert_eq!(p[7], Position { x: 600.0, y: -600.0 });
        assert_eq!(p[12], Position { x: 600.0, y: 600.0 });
    }

    #[test]
    fn node_count_matches_the_placed_nodes() {
        let layouts = [
            Layout::Chain { hops: 7, spacing_m: 200.0 },
            Layout::Grid { rows: 3, cols: 4, spacing_m: 100.0 },
            Layout::Cross { hops: 6, spacing_m: 200.0 },
            Layout::ParallelChains { chains: 3, hops: 5, spacing_m: 200.0, gap_m: 300.0, gateway: true },
            Layout::ParallelChains { chains: 2, hops: 4, spacing_m: 200.0, gap_m: 200.0, gateway: false },
            Layout::Star { leaves: 5, radius_m: 100.0 },
            Layout::Random { nodes: 9, width_m: 10.0, height_m: 10.0, seed: 1 },
            Layout::Explicit(vec![Position { x: 0.0, y: 0.0 }, Position { x: 1.0, y: 0.0 }]),
        ];
        for l in &layouts {
            assert_eq!(l.node_count(), positions(l).len(), "{l:?}");
        }
        // The gateway sits level with the last nodes, midway between the outer chains.
        let p = positions(&layouts[3]);
        assert_eq!(p[18], Position { x: 1000.0, y: 300.0 });
    }

    #[test]
    fn grid_numbering_is_row_major() {
        let p = grid(3, 4, 100.0);
        assert_eq!(p.len(), 12);
        assert_eq!(p[5], Position { x: 100.0, y: 100.0 });
    }

    #[test]
    fn random_is_seeded() {
        assert_eq!(random(10, 100.0, 50.0, 3), random(10, 100.0, 50.0, 3));
        assert_ne!(random(10, 100.0, 50.0, 3), random(10, 100.0, 50.0, 4));
        assert!(random(100, 100.0, 50.0, 3).iter().all(|p| (0.0..100.0).contains(&p.x) && (0.0..50.0).contains(&p.y)));
    }

    #[test]
    fn bounded_bfs_stops_at_max_hops() {
        let line =
            |u: u32| -> Vec<u32> { [u.checked_sub(1), (u < 9).then_some(u + 1)].into_iter().flatten().collect() };
        let (d, par) = bfs_within(10, line, 2, 3);
        assert_eq!(&d[..6], &[2, 1, 0, 1, 2, 3]);
        assert_eq!(d[6], u32::MAX);
        assert_eq!(path_from_parents(&par, 2, 5), vec![2, 3, 4, 5]);
        assert_eq!(shortest_path(10, line, 2, 5), Some(vec![2, 3, 4, 5]));
    }

    #[test]
    fn bfs_finds_shortest_with_stable_ties() {
        // Square 0-1-3, 0-2-3: tie broken towards the lower id.
        let adj = |u: u32| -> Vec<u32> {
            match u {
                0 => vec![1, 2],
                1 => vec![0, 3],
                2 => vec![0, 3],
                _ => vec![1, 2],
            }
        };
        assert_eq!(shortest_path(4, adj, 0, 3), Some(vec![0, 1, 3]));
        assert_eq!(shortest_path(4, |_| vec![], 0, 3), None);
    }
}
