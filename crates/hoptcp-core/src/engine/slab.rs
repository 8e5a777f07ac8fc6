//! A free-list arena (packets and transmissions live in one, passed by index).

/// A free-list arena: O(1) insert and remove, indices stay valid until removed.
#[derive(Clone, Debug)]
pub struct Slab<T> {
    items: Vec<T>,
    free: Vec<u32>,
}

impl<T: Copy> Default for Slab<T> {
    fn default() -> Self {
        Slab { items: Vec::new(), free: Vec::new() }
    }
}

impl<T: Copy> Slab<T> {
    pub fn insert(&mut self, v: T) -> u32 {
        if let Some(i) = self.free.pop() {
            self.items[i as usize] = v;
            i
        } else {
            self.items.push(v);
            (self.items.len() - 1) as u32
        }
    }

    /// Free slot `i`; the caller guarantees it is live.
    #[inline]
    pub fn remove(&mut self, i: u32) -> T {
        self.free.push(i);
        self.items[i as usize]
    }

    #[inline]
    pub fn get(&self, i: u32) -> &T {
        &self.items[i as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, i: u32) -> &mut T {
        &mut self.items[i as usize]
    }

    #[cfg(test)] // only the unit tests read it
    pub fn live(&self) -> usize {
        self.items.len() - self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slab_reuses_freed_slots() {
        let mut s = Slab::default();
        let a = s.insert(1u8);
        let b = s.insert(2u8);
        assert_eq!(s.remove(a), 1);
        let c = s.insert(3u8);
        assert_eq!(c, a);
        assert_eq!(*s.get(b), 2);
        assert_eq!(s.live(), 2);
    }
}
