//! Developer entry point: `cargo run --release --example run -- FILE.toml [key=value ...]`
//! prints the JSON result (users run `hoptcp run`).
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: run SCENARIO.toml [key=value ...]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let overrides: Vec<(String, String)> =
        args[1..].iter().filter_map(|a| a.split_once('=').map(|(k, v)| (k.to_string(), v.to_string()))).collect();
    let opts = hoptcp_core::RunOptions { seed: None, pcap: std::env::var_os("PCAP").map(Into::into), pcap_node: None };
    match hoptcp_core::run_scenario(&text, &overrides, &opts) {
        Ok(r) => println!("{}", serde_json::to_string_pretty(&r).unwrap()),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2)
        }
    }
}
