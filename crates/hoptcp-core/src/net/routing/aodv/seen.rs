//! Duplicate RREQ suppression: the (originator, broadcast id) pairs a node
//! has processed (ns-2's broadcast id cache). An entry expires
//! BCAST_ID_SAVE after it was made, but ns-2 only removes expired entries
//! when its BroadcastTimer fires, every BCAST_ID_SAVE from time 0; an entry
//! therefore suppresses duplicates until the first purge at or after its
//! expiry. That purge time is computed when the entry is made, so no timer
//! event is needed.

use crate::engine::Time;
use crate::wire::NodeId;

#[derive(Clone, Debug, Default)]
pub struct BroadcastIdCache {
    /// (originator, broadcast id, time the entry is purged).
    entries: Vec<(NodeId, u32, Time)>,
}

impl BroadcastIdCache {
    pub fn contains(&self, src: NodeId, id: u32, now: Time) -> bool {
        self.entries.iter().any(|&(s, b, gone)| s == src && b == id && gone > now)
    }

    /// Remember (src, id) at `now` for `save` (purged every `save` from 0).
    pub fn insert(&mut self, src: NodeId, id: u32, now: Time, save: Time) {
        self.entries.retain(|&(_, _, gone)| gone > now);
        let expire = now + save;
        let gone = if save == 0 { expire } else { expire.div_ceil(save) * save };
        self.entries.push((src, id, gone));
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::NS_PER_S;

    #[test]
    fn entry_lives_until_the_purge_after_its_expiry() {
        let s = 6 * NS_PER_S;
        let mut c = BroadcastIdCache::default();
        c.insert(3, 1, NS_PER_S, s); // expires at 7 s, purged at 12 s
        assert!(c.contains(3, 1, 11 * NS_PER_S));
        assert!(!c.contains(3, 1, 12 * NS_PER_S));
        assert!(!c.contains(3, 2, NS_PER_S));
        assert!(!c.contains(4, 1, NS_PER_S));
        c.insert(3, 2, 13 * NS_PER_S, s);
        assert_eq!(c.len(), 1, "stale entries are dropped on insert");
    }

    #[test]
    fn expiry_on_a_purge_tick_is_purged_then() {
        let s = 6 * NS_PER_S;
        let mut c = BroadcastIdCache::default();
        c.insert(1, 1, 6 * NS_PER_S, s); // expires at 12 s, the purge at 12 s removes it
        assert!(c.contains(1, 1, 12 * NS_PER_S - 1));
        assert!(!c.contains(1, 1, 12 * NS_PER_S));
    }
}
