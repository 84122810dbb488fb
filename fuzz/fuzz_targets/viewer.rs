//! The viewer's load-and-derive path, natively (`viewer::native`): a file is loaded and
//! validated as the page loads it, then every table, card, chart series and CSV the page
//! would derive is derived and every chart drawn on a recorder; twice loaded, as two runs,
//! so the comparison across runs and its bootstrap run too. Never a panic; a file either
//! fails with a reason naming it, or renders.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let page = viewer::native::load_and_derive(&[("a.json", &text), ("b.json", &text)]);
    assert_eq!(page.runs + page.failures.len(), 2);
    for f in &page.failures {
        assert!(
            f.starts_with("a.json: ") || f.starts_with("b.json: "),
            "{f}"
        );
    }
});
