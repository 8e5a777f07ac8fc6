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
    hoptcp_core::VERSION
}

/// How this extension was compiled: "profile-guided" when hoptcp's build backend
/// (build_backend/hoptcp_pgo.py) optimised it with a training run's profile,
/// else "plain".
#[pyfunction]
fn build() -> &'static str {
    match option_env!("HOPTCP_PGO_BUILD") {
        Some("1") => "profile-guided",
        _ => "plain",
    }
}

/// Canonical JSON of the fully resolved scenario (defaults filled,
/// overrides applied); raises ScenarioError.
#[pyfunction]
fn resolve(py: Python<'_>, scenario_toml: &str, overrides: Vec<(String, String)>) -> PyResult<String> {
    let text = scenario_toml.to_owned();
    py.detach(move || hoptcp_core::load_scenario(&text, &overrides).map(|s| s.canonical_json())).map_err(scenario_err)
}

/// The resolved scenario as TOML: every value resolution fills written out
/// (what `hoptcp scenario show` prints; it loads back to the same scenario).
#[pyfunction]
fn resolve_toml(py: Python<'_>, scenario_toml: &str, overrides: Vec<(String, String)>) -> PyResult<String> {
    let text = scenario_toml.to_owned();
    let sc = py.detach(move || hoptcp_core::load_scenario(&text, &overrides)).map_err(scenario_err)?;
    sc.resolved_toml().map_err(|e| PyValueError::new_err(format!("the resolved scenario has no TOML form: {e}")))
}

/// Every scenario key as declared in the core (on its field, `scenario/schema.rs`), and the
/// tables they sit in, as JSON: `{"tables": [[name, doc], ...], "keys": [...]}`.
#[pyfunction]
fn scenario_keys() -> String {
    use hoptcp_core::keys;
    serde_json::json!({ "tables": keys::TABLES, "keys": keys::declarations() }).to_string()
}

/// The scenario file's JSON Schema (draft-07), from the same declarations.
#[pyfunction]
fn scenario_schema() -> String {
    serde_json::to_string_pretty(&hoptcp_core::keys::json_schema()).expect("json")
}

/// The network a run would build, as JSON: resolved scenario, node
/// positions, links, and every flow with its route (see `Plan::to_json`).
#[pyfunction]
#[pyo3(signature = (scenario_toml, overrides, seed=None))]
fn plan(py: Python<'_>, scenario_toml: &str, overrides: Vec<(String, String)>, seed: Option<u64>) -> PyResult<String> {
    let text = scenario_toml.to_owned();
    let mut overrides = overrides;
    if let Some(s) = seed {
        overrides.push(("seed".into(), s.to_string()));
    }
    py.detach(move || hoptcp_core::load_scenario(&text, &overrides).map(|s| s.plan_json())).map_err(scenario_err)
}

/// Run one simulation and return its JSON result. `progress`, if given, is
/// called with the fraction of simulated time done, at most every
/// `progress_every_s` seconds (0: at every check, each 65,536 events); Ctrl-C
/// (or an exception from `progress`) stops the run. `pcap_node`: the trace
/// holds that node's frames alone.
#[pyfunction]
#[pyo3(signature = (scenario_toml, overrides, seed=None, pcap=None, progress=None, progress_every_s=0.25, pcap_node=None))]
#[allow(clippy::too_many_arguments)] // the Python signature, keyword arguments with defaults
fn run(
    py: Python<'_>,
    scenario_toml: &str,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
    pcap: Option<String>,
    progress: Option<Py<PyAny>>,
    progress_every_s: f64,
    pcap_node: Option<u32>,
) -> PyResult<String> {
    let text = scenario_toml.to_owned();
    let trace = pcap.clone().unwrap_or_default();
    let opts = hoptcp_core::RunOptions { seed, pcap: pcap.map(Into::into), pcap_node };
    let every_s = if progress_every_s.is_finite() { progress_every_s.clamp(0.0, 3600.0) } else { 0.25 };
    let every = std::time::Duration::from_secs_f64(every_s);
    let mut interrupted: Option<PyErr> = None;
    let mut last = std::time::Instant::now();
    let result = py.detach(|| {
        hoptcp_core::run_scenario_observed(&text, &overrides, &opts, |fraction| {
            if last.elapsed() < every {
                return true;
            }
            last = std::time::Instant::now();
            // Briefly take the GIL: deliver pending signals, report progress.
            Python::attach(|py| {
                let r = py.check_signals().and_then(|_| match &progress {
                    Some(cb) => cb.call1(py, (fraction,)).map(|_| ()),
                    None => Ok(()),
                });
                match r {
                    Ok(()) => true,
                    Err(e) => {
                        interrupted = Some(e);
                        false
                    }
                }
            })
        })
    });
    match result {
        Ok(r) => Ok(serde_json::to_string(&r).expect("report serializes")),
        Err(hoptcp_core::RunError::Scenario(e)) => Err(scenario_err(e)),
        Err(hoptcp_core::RunError::Io(e)) => {
            Err(PyOSError::new_err(format!("writing the packet trace {trace} failed: {e}")))
        }
        Err(hoptcp_core::RunError::Stopped) => {
            Err(interrupted.unwrap_or_else(|| pyo3::exceptions::PyKeyboardInterrupt::new_err("run stopped")))
        }
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
    m.add_function(wrap_pyfunction!(build, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(plan, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_toml, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_keys, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema, m)?)?;
    m.add_function(wrap_pyfunction!(model, m)?)?;
    Ok(())
}
