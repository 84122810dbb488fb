//! Numbers for people: latencies in µs/ms/s, ratios, intervals.

/// What an `openssl s_time` rate per CPU second is per, in words wherever it is shown:
/// the collector reads the s_time process's own user time (wait4), nothing else.
pub const PER_USER_CPU_S: &str = "per user-CPU second of the s_time client process";

/// A latency given in microseconds, with a unit a person reads at a glance:
/// `812 µs`, `42.5 µs`, `1.23 ms`, `2.50 s`.
pub fn fmt_us(us: f64) -> String {
    if !us.is_finite() {
        return "–".into();
    }
    let a = us.abs();
    if a >= 1_000_000.0 {
        format!("{:.2} s", us / 1_000_000.0)
    } else if a >= 100_000.0 {
        format!("{:.0} ms", us / 1000.0)
    } else if a >= 10_000.0 {
        format!("{:.1} ms", us / 1000.0)
    } else if a >= 1000.0 {
        format!("{:.2} ms", us / 1000.0)
    } else if a >= 100.0 {
        format!("{us:.0} µs")
    } else if a >= 10.0 {
        format!("{us:.1} µs")
    } else {
        format!("{us:.2} µs")
    }
}

/// How many characters of a text from a file are shown in one place (host names, run
/// ids, settings): a 2 MB host name must not be repeated into the page.
pub const SHOWN_CHARS: usize = 120;

/// The first `max` characters of `s` when it is longer, else `None` (shown whole).
pub fn cut(s: &str, max: usize) -> Option<&str> {
    s.char_indices().nth(max).map(|(i, _)| &s[..i])
}

/// `s` cut to [`SHOWN_CHARS`] with `…` when it is longer.
pub fn short(s: &str) -> String {
    match cut(s, SHOWN_CHARS) {
        Some(head) => format!("{head}…"),
        None => s.to_string(),
    }
}

/// An optional latency; `–` when absent.
pub fn fmt_opt_us(us: Option<f64>) -> String {
    us.map(fmt_us).unwrap_or_else(|| "–".into())
}

/// A 95% interval of latencies: `[390 µs – 450 µs]`; `n/a` when there is none.
pub fn fmt_ci_us(ci: Option<[f64; 2]>) -> String {
    match ci {
        Some([lo, hi]) => format!("[{} – {}]", fmt_us(lo), fmt_us(hi)),
        None => "n/a".into(),
    }
}

/// A ratio such as a speedup: `2.05×`.
pub fn fmt_ratio(r: f64) -> String {
    if r.is_finite() {
        format!("{r:.2}×")
    } else {
        "–".into()
    }
}

/// A ratio whose interval may be missing: `2.05×`, or `2.05× (CI n/a)`.
pub fn fmt_ratio_ci(r: f64, ci: Option<[f64; 2]>) -> String {
    match ci {
        Some(_) => fmt_ratio(r),
        None => format!("{} (CI n/a)", fmt_ratio(r)),
    }
}

/// A 95% interval of ratios: `[1.50× – 2.50×]`.
pub fn fmt_ci_ratio(ci: [f64; 2]) -> String {
    format!("[{} – {}]", fmt_ratio(ci[0]), fmt_ratio(ci[1]))
}

/// A share such as an efficiency (floor / p50): `71.2%`.
pub fn fmt_share(share: f64) -> String {
    if share.is_finite() {
        format!("{:.1}%", share * 100.0)
    } else {
        "–".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latencies_get_readable_units() {
        assert_eq!(fmt_us(3.456), "3.46 µs");
        assert_eq!(fmt_us(42.46), "42.5 µs");
        assert_eq!(fmt_us(812.4), "812 µs");
        assert_eq!(fmt_us(1234.0), "1.23 ms");
        assert_eq!(fmt_us(12_345.0), "12.3 ms");
        assert_eq!(fmt_us(123_456.0), "123 ms");
        assert_eq!(fmt_us(2_500_000.0), "2.50 s");
        assert_eq!(fmt_us(f64::NAN), "–");
        assert_eq!(fmt_opt_us(None), "–");
    }

    #[test]
    fn intervals_and_ratios() {
        assert_eq!(fmt_ci_us(Some([390.0, 1450.0])), "[390 µs – 1.45 ms]");
        assert_eq!(fmt_ci_us(None), "n/a");
        assert_eq!(fmt_ratio_ci(2.0, Some([1.5, 2.5])), "2.00×");
        assert_eq!(fmt_ratio_ci(2.0, None), "2.00× (CI n/a)");
        assert_eq!(fmt_ratio(2.049), "2.05×");
        assert_eq!(fmt_ci_ratio([1.5, 2.5]), "[1.50× – 2.50×]");
        assert_eq!(fmt_share(0.7116), "71.2%");
        assert_eq!(fmt_share(0.0), "0.0%");
        assert_eq!(fmt_share(f64::NAN), "–");
    }

    #[test]
    fn long_texts_are_cut_on_a_character_boundary() {
        assert_eq!(cut("abc", 3), None);
        assert_eq!(cut("abcd", 3), Some("abc"));
        assert_eq!(cut("µµµµ", 2), Some("µµ"));
        let host = "h".repeat(2_000_000);
        let shown = short(&host);
        assert_eq!(shown.chars().count(), 121);
        assert!(shown.ends_with("h…"));
        assert_eq!(short("sample-host"), "sample-host");
    }
}
