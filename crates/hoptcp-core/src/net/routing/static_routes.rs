//! Static routing: every flow follows the path planned when the scenario
//! was built (`scenario::build`: shortest hop path, ties to the lowest node
//! id, or the flow's explicit `route`); packets going back to the flow's
//! source (TCP ACKs) take it in reverse. A packet's `hop` field is its
//! index on the path, so the next hop is one lookup.

use crate::wire::NodeId;

#[derive(Clone, Debug, Default)]
pub struct StaticRoutes {
    /// Per flow: node ids from the flow's source to its destination.
    paths: Vec<Vec<NodeId>>,
}

impl StaticRoutes {
    pub fn new(paths: Vec<Vec<NodeId>>) -> Self {
        StaticRoutes { paths }
    }

    /// The `i`-th node of `flow`'s path, counted from the sender's end
    /// (from the destination when `reverse`).
    #[inline]
    pub fn node(&self, flow: u32, reverse: bool, i: usize) -> NodeId {
        let p = &self.paths[flow as usize];
        if reverse {
            p[p.len() - 1 - i]
        } else {
            p[i]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forward_and_reverse_walks() {
        let r = StaticRoutes::new(vec![vec![0, 1, 2, 3]]);
        assert_eq!(r.node(0, false, 1), 1);
        assert_eq!(r.node(0, true, 0), 3);
        assert_eq!(r.node(0, true, 1), 2);
    }
}
