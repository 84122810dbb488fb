//! `Evidence::from_json` on any text: never a panic; evidence it accepts has no
//! violations, and written back as the collector writes it, reads back as valid.
#![no_main]

use libfuzzer_sys::fuzz_target;
use shared::Evidence;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(evidence) = Evidence::from_json(text) else {
        return;
    };
    assert!(evidence.violations().is_empty());
    let again = evidence.to_json();
    if let Err(e) = Evidence::from_json(&again) {
        panic!("valid evidence, written back, no longer reads: {e}");
    }
});
