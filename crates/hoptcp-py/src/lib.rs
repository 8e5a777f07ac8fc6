//! Python bindings (module `hoptcp._core`). Kept deliberately thin: strings
//! and numbers in, JSON out; all logic lives in hoptcp-core.
