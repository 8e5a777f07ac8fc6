//! Simulation engine: integer time, the event queue and seeded random streams.
//!
//! The engine knows nothing about networking: the simulator in `sim` owns one
//! [`EventQueue`] of its own event type and is the only thing that dispatches.

pub mod queue;
pub mod rng;
pub mod slab;
pub mod time;
mod timer_heap;
mod timer_wheel;

pub use queue::EventQueue;
pub use rng::{RngStream, StreamPurpose};
pub use slab::Slab;
pub use time::{Time, NS_PER_MS, NS_PER_S, NS_PER_US};
