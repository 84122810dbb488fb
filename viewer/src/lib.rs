//! # Handshake Lab viewer
//!
//! A Yew page that loads evidence files (from `results/index.json`, local files or
//! `?run=<url>`) and shows them side by side: run cards, percentile, resume-speedup,
//! CDF and run-comparison charts, and a sortable table with CSV download.
//!
//! - [`data`]: plain functions (load, validate, derive, filter, CSV, format); they run
//!   natively under `cargo test -p viewer`.
//! - [`charts`]: plotters drawing, on a `<canvas>` in the page (any backend in tests).
//! - `components`: Yew function components that arrange the above (wasm only).
//! - [`native`]: the page's whole data path without a browser: load, validate, derive
//!   every table and chart and draw them on a recorder (for the fuzzer and the
//!   hostile-file tests; native builds only).
//! - [`written`]: the landing run's cards and charts as `cargo xtask site` writes them
//!   into the page (native builds only).

pub mod data;

pub mod charts;
#[cfg(target_arch = "wasm32")]
mod components;
#[cfg(not(target_arch = "wasm32"))]
pub mod native;
#[cfg(not(target_arch = "wasm32"))]
pub mod written;

/// Entry point called by the JS glue when the module is loaded.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen(start)]
pub fn start() {
    // Panics abort at once (see xtask/src/wasm.rs): index.html reports the trap.
    components::mount();
}
