//! Fu et al.'s (2003) link-drop model: why 802.11 contention drops behave
//! like RED as the number of backlogged nodes grows (tech report §4.4 and
//! appendix 9.1; INFOCOM §5.3, eqs. 1–4).
//!
//! **Retry chain.** A sender of flow f initiates RTS; each initiation fails
//! (the receiver is hidden) with probability H_f, independently. States
//! 0..=r count the failed initiations of the packet in service; from state
//! i < r the chain goes to i + 1 with probability H_f and back to 0 with
//! 1 − H_f; state r (the drop) returns to 0. The stationary law is
//! p_i = p_0·H_f^i with p_0 = (1 − H_f)/(1 − H_f^(r+1)) = 1/Σ_{j=0..r} H_f^j, so
//!
//! ```text
//! p_r = (1 − H_f)·H_f^r / (1 − H_f^(r+1))
//! ```
//!
//! is the fraction of initiations that end in a drop. An initiation takes
//! 1/CS_f slots on average, so the per-slot loss of flow f is
//! L_f = p_r·CS_f.
//!
//! **Load.** With m backlogged nodes, C* the carrier-sensing capacity (most
//! concurrent RTS initiations) and B* the forwarding capacity (most
//! concurrent successful DATA), c(m) nodes initiate at once and b(m) of them
//! succeed; CS_f = c/m, B_f = b/m, H_f = 1 − b/c, and the aggregate loss among
//! the c initiating nodes is L(m) = 1 − (1 − L_f)^c(m). As printed,
//! c(m) = ⌊m/⌈m/C*⌉⌋ and b(m) = ⌊c/⌈c/B*⌉⌋ ([`LoadModel::Printed`]); the
//! papers' proofs of the three properties use c ≈ min(m, C*) and
//! b ≈ min(c, B*) ([`LoadModel::Smooth`]). See `docs/models.md` for how the
//! two differ.

use super::ModelError;

#[cfg(test)] // only the unit tests read it
/// Stationary probabilities p_0..=p_r of the retry chain for hidden
/// probability `hidden` (H_f) and retry limit `r`.
pub fn state_probabilities(hidden: f64, r: u32) -> Vec<f64> {
    let powers: Vec<f64> = (0..=r).map(|i| hidden.powi(i as i32)).collect();
    let sum: f64 = powers.iter().sum();
    powers.into_iter().map(|x| x / sum).collect()
}

/// p_r = (1 − H)·H^r / (1 − H^(r+1)): the drop state's probability (1/(r+1)
/// at H = 1, 0 at H = 0 for r ≥ 1).
pub fn drop_state_probability(hidden: f64, r: u32) -> f64 {
    let sum: f64 = (0..=r).map(|i| hidden.powi(i as i32)).sum();
    hidden.powi(r as i32) / sum
}

/// How c(m) and b(m) are computed from m.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LoadModel {
    /// As printed in both papers: c = ⌊m/⌈m/C*⌉⌋, b = ⌊c/⌈c/B*⌉⌋ (a sawtooth).
    Printed,
    /// As used in the papers' proofs: c = min(m, C*), b = min(c, B*).
    Smooth,
}

/// Parameters of the load model.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LinkDropParams {
    /// B*: most concurrent successful DATA transmissions in the network.
    pub b_star: f64,
    /// C*: most concurrent RTS initiations (carrier-sensing capacity), ≥ B*.
    pub c_star: f64,
    /// r: failed RTS initiations before a drop (802.11: 7).
    pub retry_limit: u32,
    pub load: LoadModel,
}

impl LinkDropParams {
    #[cfg(test)] // only the unit tests read it
    /// B*, C*, r = 7, the printed load formulas.
    pub fn new(b_star: f64, c_star: f64) -> Self {
        LinkDropParams { b_star, c_star, retry_limit: 7, load: LoadModel::Printed }
    }

    pub fn validate(&self) -> Result<(), ModelError> {
        if !(self.b_star >= 1.0 && self.c_star >= self.b_star && self.c_star.is_finite()) {
            return Err(ModelError::InvalidParameter(format!(
                "need 1 <= B* <= C* (got B* = {}, C* = {})",
                self.b_star, self.c_star
            )));
        }
        if self.retry_limit == 0 {
            return Err(ModelError::InvalidParameter("retry_limit must be >= 1".into()));
        }
        Ok(())
    }

    /// (c(m), b(m)): concurrent initiators and concurrent successes.
    pub fn concurrency(&self, m: f64) -> (f64, f64) {
        if m <= 0.0 {
            return (0.0, 0.0);
        }
        match self.load {
            LoadModel::Printed => {
                let c = (m / (m / self.c_star).ceil()).floor();
                let b = if c > 0.0 { (c / (c / self.b_star).ceil()).floor() } else { 0.0 };
                (c, b)
            }
            LoadModel::Smooth => {
                let c = m.min(self.c_star);
                (c, c.min(self.b_star))
            }
        }
    }
}

/// The model evaluated at one load m.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct LinkDropPoint {
    /// m: backlogged nodes.
    pub m: f64,
    /// c(m): nodes initiating RTS concurrently.
    pub c: f64,
    /// b(m): nodes transmitting DATA successfully concurrently.
    pub b: f64,
    /// CS_f = c/m: per-slot probability that a flow initiates.
    pub cs: f64,
    /// B_f = b/m: per-slot probability of a successful DATA transfer.
    pub bf: f64,
    /// H_f = 1 − b/c: hidden (failure) probability of an initiation.
    pub hidden: f64,
    /// p_r: fraction of initiations ending in a drop.
    pub p_r: f64,
    /// L_f = p_r·CS_f: per-slot drop probability of one flow (eq. 3).
    pub per_flow_loss: f64,
    /// L = 1 − (1 − L_f)^c: per-slot probability of at least one drop (eq. 4).
    pub aggregate_loss: f64,
}

impl LinkDropPoint {
    /// The model from (measured or computed) m, c and b; zero loss when
    /// nothing initiates.
    pub fn from_counts(m: f64, c: f64, b: f64, r: u32) -> Self {
        if m <= 0.0 || c <= 0.0 {
            return LinkDropPoint {
                m,
                c: c.max(0.0),
                b: b.max(0.0),
                cs: 0.0,
                bf: 0.0,
                hidden: 0.0,
                p_r: 0.0,
                per_flow_loss: 0.0,
                aggregate_loss: 0.0,
            };
        }
        let b = b.clamp(0.0, c);
        let hidden = 1.0 - b / c;
        let p_r = drop_state_probability(hidden, r);
        let cs = c / m;
        let lf = p_r * cs;
        LinkDropPoint {
            m,
            c,
            b,
            cs,
            bf: b / m,
            hidden,
            p_r,
            per_flow_loss: lf,
            aggregate_loss: 1.0 - (1.0 - lf).powf(c),
        }
    }
}

/// The model at load `m` (backlogged nodes, may be fractional).
pub fn link_drop_at(m: f64, params: &LinkDropParams) -> Result<LinkDropPoint, ModelError> {
    params.validate()?;
    let (c, b) = params.concurrency(m);
    Ok(LinkDropPoint::from_counts(m, c, b, params.retry_limit))
}

/// The loss/load curve for m = 1..=max_m.
pub fn link_drop_curve(params: &LinkDropParams, max_m: u32) -> Result<Vec<LinkDropPoint>, ModelError> {
    params.validate()?;
    (1..=max_m).map(|m| link_drop_at(m as f64, params)).collect()
}

/// Prediction from measured backlog (the method of the tech report's Fig. 7).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct BacklogPrediction {
    /// |V|: nodes measured.
    pub nodes: usize,
    /// ρ̄: mean fraction of time a node has a packet to send.
    pub mean_backlog: f64,
    /// The model at m = |V|·ρ̄ = Σ ρ_i.
    pub point: LinkDropPoint,
}

/// From each node's measured backlog probability ρ_i (fraction of time its
/// MAC has a packet), m = Σ ρ_i backlogged nodes and the predicted drop
/// probabilities at that load.
pub fn predict_from_backlog(backlog: &[f64], params: &LinkDropParams) -> Result<BacklogPrediction, ModelError> {
    if backlog.is_empty() {
        return Err(ModelError::InvalidParameter("no backlog measurements".into()));
    }
    if let Some(bad) = backlog.iter().find(|x| !(0.0..=1.0).contains(*x)) {
        return Err(ModelError::InvalidParameter(format!("backlog probabilities must be in [0, 1] (got {bad})")));
    }
    let m: f64 = backlog.iter().sum();
    Ok(BacklogPrediction {
        nodes: backlog.len(),
        mean_backlog: m / backlog.len() as f64,
        point: link_drop_at(m, params)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_probabilities() {
        let p = state_probabilities(0.5, 7);
        assert_eq!(p.len(), 8);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        for i in 1..p.len() {
            assert!((p[i] - 0.5 * p[i - 1]).abs() < 1e-15);
        }
        // p_7 = 0.5 · 0.5^7 / (1 − 0.5^8) = 1/255.
        assert!((drop_state_probability(0.5, 7) - 1.0 / 255.0).abs() < 1e-15);
        assert!((p[7] - 1.0 / 255.0).abs() < 1e-15);
        // Closed form vs the stable sum.
        for &h in &[0.1f64, 0.3, 2.0 / 3.0, 0.9, 0.999] {
            let closed = (1.0 - h) * h.powi(7) / (1.0 - h.powi(8));
            assert!((drop_state_probability(h, 7) - closed).abs() < 1e-12);
        }
        assert_eq!(drop_state_probability(0.0, 7), 0.0);
        assert!((drop_state_probability(1.0, 7) - 0.125).abs() < 1e-15);
    }

    #[test]
    fn known_points() {
        // B* = 4, C* = 12, m = 10 (printed): c = 10, b = ⌊10/3⌋ = 3, H = 0.7.
        let pt = link_drop_at(10.0, &LinkDropParams::new(4.0, 12.0)).unwrap();
        assert_eq!((pt.c, pt.b), (10.0, 3.0));
        assert!((pt.hidden - 0.7).abs() < 1e-15);
        let pr = 0.3 * 0.7f64.powi(7) / (1.0 - 0.7f64.powi(8));
        assert!((pt.p_r - pr).abs() < 1e-15);
        assert!((pt.per_flow_loss - pr).abs() < 1e-15); // CS_f = 1
        assert!((pt.aggregate_loss - (1.0 - (1.0 - pr).powi(10))).abs() < 1e-14);
        assert!((pt.p_r - 0.026_22).abs() < 1e-5);
        assert!((pt.aggregate_loss - 0.233_31).abs() < 1e-5);
        // Eq. (3) written with b and c only gives the same number.
        let (b, c, m) = (3.0f64, 10.0f64, 10.0f64);
        let eq3 = (b / m) / (1.0 - (1.0 - b / c).powi(8)) * (1.0 - b / c).powi(7);
        assert!((pt.per_flow_loss - eq3).abs() < 1e-15);
    }

    /// The three properties, under the approximations the papers' proofs use.
    #[test]
    fn three_properties_smooth() {
        let params = LinkDropParams { load: LoadModel::Smooth, ..LinkDropParams::new(4.0, 12.0) };
        let curve = link_drop_curve(&params, 40).unwrap();
        let at = |m: usize| curve[m - 1];
        // 1. No drops while m <= B*.
        for m in 1..=4 {
            assert_eq!(at(m).aggregate_loss, 0.0);
            assert_eq!(at(m).per_flow_loss, 0.0);
        }
        // 2. Strictly increasing between B* and C*.
        for m in 5..=12 {
            assert!(at(m).hidden > at(m - 1).hidden);
            assert!(at(m).p_r > at(m - 1).p_r);
            assert!(at(m).per_flow_loss > at(m - 1).per_flow_loss);
            assert!(at(m).aggregate_loss > at(m - 1).aggregate_loss);
        }
        // 3. Flat above C*: H_f and the per-initiation drop p_r stay at their
        //    C* values; the per-slot L_f = p_r·C*/m decays only through CS_f.
        for m in 13..=40 {
            assert_eq!(at(m).hidden, at(12).hidden);
            assert_eq!(at(m).p_r, at(12).p_r);
            assert!((at(m).per_flow_loss - at(12).p_r * 12.0 / m as f64).abs() < 1e-15);
        }
        // Saturation value: H = 2/3, p_r = 0.02030, L(C*) = 0.21817; at m = 10
        // H = 0.6, p_r = 0.01139, L = 0.10822; at m = 24, L = 0.11523.
        assert!((at(12).p_r - 0.020_30).abs() < 1e-5);
        assert!((at(12).aggregate_loss - 0.218_17).abs() < 1e-5);
        assert!((at(10).p_r - 0.011_39).abs() < 1e-5);
        assert!((at(10).aggregate_loss - 0.108_22).abs() < 1e-5);
        assert!((at(24).aggregate_loss - 0.115_23).abs() < 1e-5);
    }

    /// The formulas as printed: exact zero below B*, c(m) = m up to C*, the
    /// same saturation value whenever m is a multiple of C* — but a sawtooth
    /// in between.
    #[test]
    fn three_properties_printed() {
        let params = LinkDropParams::new(3.0, 9.0);
        let curve = link_drop_curve(&params, 45).unwrap();
        let at = |m: usize| curve[m - 1];
        for m in 1..=3 {
            assert_eq!(at(m).aggregate_loss, 0.0);
        }
        for m in 4..=9 {
            assert_eq!(at(m).c, m as f64);
            assert!(at(m).b <= 3.0 && at(m).per_flow_loss > 0.0);
        }
        assert!(at(9).p_r > at(4).p_r);
        for k in 1..=5 {
            assert_eq!(at(9 * k).c, 9.0);
            assert_eq!(at(9 * k).p_r, at(9).p_r);
        }
        // Not monotone: b(8) = 2 but b(9) = 3, so L_f(8) > L_f(9); and c jumps
        // from C* to ⌊(C*+1)/2⌋ at m = C* + 1.
        assert!(at(8).per_flow_loss > at(9).per_flow_loss);
        assert_eq!(at(10).c, 5.0);
    }

    #[test]
    fn backlog_prediction() {
        // 8 nodes of a 7-hop chain, mean backlog 0.75 → m = 6.
        let rho = [0.9, 0.9, 0.8, 0.8, 0.7, 0.7, 0.6, 0.6];
        let params = LinkDropParams::new(2.0, 3.0);
        let pr = predict_from_backlog(&rho, &params).unwrap();
        assert_eq!(pr.nodes, 8);
        assert!((pr.mean_backlog - 0.75).abs() < 1e-15);
        assert!((pr.point.m - 6.0).abs() < 1e-12);
        let direct = link_drop_at(6.0, &params).unwrap();
        assert_eq!(pr.point.c, direct.c);
        assert!((pr.point.aggregate_loss - direct.aggregate_loss).abs() < 1e-15);
        // Light load: m = 0.4 → nothing initiates concurrently, no loss.
        let pr = predict_from_backlog(&[0.1, 0.1, 0.2], &params).unwrap();
        assert_eq!(pr.point.aggregate_loss, 0.0);
        assert!(predict_from_backlog(&[], &params).is_err());
        assert!(predict_from_backlog(&[1.5], &params).is_err());
        assert!(link_drop_at(3.0, &LinkDropParams::new(4.0, 3.0)).is_err());
    }
}
