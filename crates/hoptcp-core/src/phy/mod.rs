//! Physical layer: propagation (two-ray ground), the precomputed channel
//! (who hears whom, at what power and delay) and the per-node reception state
//! machine (lock-on, capture, collision) of ns-2's threshold model.

pub mod channel;
pub mod propagation;
pub mod radio;

pub use channel::{Channel, Position};
pub use propagation::TwoRayGround;
