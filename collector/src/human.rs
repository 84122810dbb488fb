//! Numbers for people, shared by everything that prints (the run's summary, the evidence's
//! findings, `compare`): below all of them, so none reaches into another to format.

/// Microseconds for people: `812.4 µs`, `1.24 ms`.
pub fn us(v: f64) -> String {
    if v >= 1000.0 {
        format!("{:.2} ms", v / 1000.0)
    } else {
        format!("{v:.1} µs")
    }
}
