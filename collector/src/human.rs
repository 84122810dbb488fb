//! Numbers for people, shared by everything that prints (the run's summary, the evidence's
//! findings, `compare`): below all of them, so none reaches into another to format.

/// A fraction as a per cent to a tenth: `3%`, `0.5%` (never `7.000000000000001%`).
pub fn pct(p: f64) -> String {
    format!("{}%", (p * 1000.0).round() / 10.0)
}

/// Microseconds for people: `812.4 µs`, `1.24 ms`.
pub fn us(v: f64) -> String {
    if v >= 1000.0 {
        format!("{:.2} ms", v / 1000.0)
    } else {
        format!("{v:.1} µs")
    }
}
