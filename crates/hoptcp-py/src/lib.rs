//! Python bindings (module `hoptcp._core`). Deliberately thin: strings and
//! numbers in, JSON out; all logic lives in hoptcp-core. Runs release the
//! GIL so a thread pool runs simulations in parallel.

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "The scenario is invalid; the message names the key, the value and what is allowed."
);

fn scenario_err(e: hoptcp_core::ScenarioError) -> PyErr {
    let err = ScenarioError::new_err(e.message.clone());
    Python::attach(|py| {
        let _ = err.value(py).setattr("key", e.key);
    });
    err
}

/// hoptcp-core version.
#[pyfunction]
fn version() -> &'static str {
    hoptcp_core::sim::report::VERSION
}

/// Canonical JSON of the fully resolved scenario (defaults filled,
/// overrides applied); raises ScenarioError.
#[pyfunction]
fn resolve(py: Python<'_>, scenario_toml: &str, overrides: Vec<(String, String)>) -> PyResult<String> {
    let text = scenario_toml.to_owned();
    py.detach(move || {
        hoptcp_core::scenario::load(&text, &overrides).map(|p| hoptcp_core::scenario::canonical_json(&p.scenario))
    })
    .map_err(scenario_err)
}

/// Run one simulation and return its JSON result.
#[pyfunction]
#[pyo3(signature = (scenario_toml, overrides, seed=None, pcap=None))]
fn run(
    py: Python<'_>,
    scenario_toml: &str,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
    pcap: Option<String>,
) -> PyResult<String> {
    let text = scenario_toml.to_owned();
    let opts = hoptcp_core::RunOptions { seed, pcap: pcap.map(Into::into) };
    let result = py.detach(move || hoptcp_core::run_scenario(&text, &overrides, &opts));
    match result {
        Ok(r) => Ok(serde_json::to_string(&r).expect("report serializes")),
        Err(hoptcp_core::RunError::Scenario(e)) => Err(scenario_err(e)),
        Err(hoptcp_core::RunError::Io(e)) => Err(PyOSError::new_err(format!("cannot write the trace: {e}"))),
    }
}

/// Evaluate an analytic model ("wstar", "single_hop", "bianchi",
/// "linkdrop") with JSON parameters; returns JSON.
#[pyfunction]
fn model(name: &str, params_json: &str) -> PyResult<String> {
    let params: serde_json::Value = serde_json::from_str(params_json)
        .map_err(|e| PyValueError::new_err(format!("model parameters are not valid JSON: {e}")))?;
    hoptcp_core::models::evaluate(name, &params)
        .map(|v| v.to_string())
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(model, m)?)?;
    Ok(())
}
