//! What an emulated link is asked to do, as a value: `--link "rtt=5.6ms,loss=3%,…"`
//! parsed once, the same in both directions. The model that applies it is
//! [`super::model`]; this file only reads, checks and names the settings.

use std::fmt;
use std::time::Duration;

/// One direction's link (both directions get the same settings, each its own RNG).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkSpec {
    /// Round-trip time: each direction delays a packet by half of it.
    pub rtt: Duration,
    /// Probability that a packet is lost (0..1): independent per packet, or the
    /// long-run loss rate of the Gilbert–Elliott chain when `burst` is set.
    pub loss: f64,
    /// Mean length, in packets, of a run of consecutive losses (Gilbert–Elliott, ≥ 1);
    /// None: losses are independent.
    pub burst: Option<f64>,
    /// Each packet's one-way delay is RTT/2 plus a uniform draw in ±`jitter` (never
    /// below zero); a packet never leaves before the one ahead of it (no reordering).
    pub jitter: Duration,
    /// Serialization rate in bits per second (None: no rate limit and no queue).
    pub rate_bps: Option<u64>,
    /// Packets waiting for or in serialization at most; one more is dropped (tail drop).
    pub limit: u32,
    /// Largest IP packet the link carries; the devices get this MTU, and a larger
    /// packet is dropped (counted apart).
    pub mtu: u32,
}

impl LinkSpec {
    /// A plain delay line: the link of `--rtt` alone.
    pub fn delay(rtt: Duration) -> LinkSpec {
        LinkSpec {
            rtt,
            loss: 0.0,
            burst: None,
            jitter: Duration::ZERO,
            rate_bps: None,
            limit: DEFAULT_LIMIT,
            mtu: DEFAULT_MTU,
        }
    }

    /// Nothing but delay asked (the ids and the method of `--rtt` runs stay as they were).
    pub fn is_plain_delay(&self) -> bool {
        *self == LinkSpec::delay(self.rtt)
    }

    /// `--link "rtt=5.6ms,loss=3%,rate=1000mbit,limit=1000,jitter=1ms,burst=2,mtu=1500"`.
    /// Every key is optional and given at most once; the error names the part at fault.
    pub fn parse(text: &str) -> Result<LinkSpec, String> {
        let mut spec = LinkSpec::delay(Duration::ZERO);
        let mut seen: Vec<&str> = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| format!("`{part}` is not key=value (e.g. `rtt=20ms,loss=1%`)"))?;
            let (key, value) = (key.trim(), value.trim());
            if seen.contains(&key) {
                return Err(format!("`{key}` is given twice"));
            }
            match key {
                "rtt" => spec.rtt = millis(value, 10_000.0)?,
                "jitter" => spec.jitter = millis(value, 10_000.0)?,
                "loss" => spec.loss = percent(value)?,
                "burst" => spec.burst = Some(burst(value)?),
                "rate" => spec.rate_bps = Some(rate(value)?),
                "limit" => spec.limit = integer(value, "limit", 1, 1_000_000)?,
                "mtu" => spec.mtu = integer(value, "mtu", 576, 65_535)?,
                _ => {
                    return Err(format!(
                        "unknown link setting `{key}` (known: rtt, loss, burst, jitter, rate, limit, mtu)"
                    ))
                }
            }
            seen.push(key);
        }
        spec.check()?;
        Ok(spec)
    }

    /// Settings that parse one by one but not together.
    pub fn check(&self) -> Result<(), String> {
        if let Some(b) = self.burst {
            if self.loss >= 1.0 {
                return Err("burst needs a loss below 100%".into());
            }
            // Entering the bad state has probability q = p / (b (1 - p)) (see the model).
            if self.loss / (b * (1.0 - self.loss)) > 1.0 {
                return Err(format!(
                    "loss {}% cannot have a mean burst of only {b} packets (the good state would have to lose more than every packet)",
                    self.loss * 100.0
                ));
            }
        }
        if self.limit != DEFAULT_LIMIT && self.rate_bps.is_none() {
            return Err("limit is the rate queue's: give rate too".into());
        }
        Ok(())
    }

    /// The id suffix of the settings beyond RTT that a grid varies: `loss3pct`.
    pub fn loss_label(&self) -> String {
        format!("loss{}pct", trim(self.loss * 100.0))
    }
}

/// Default queue limit in packets (the same as Linux netem's).
pub const DEFAULT_LIMIT: u32 = 1000;
/// Default MTU: Ethernet's, the TUN device's own default.
pub const DEFAULT_MTU: u32 = 1500;

impl fmt::Display for LinkSpec {
    /// The canonical `--link` text: parsing it gives the same value back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rtt={}ms", trim(self.rtt.as_secs_f64() * 1000.0))?;
        write!(f, ",loss={}%", trim(self.loss * 100.0))?;
        if let Some(b) = self.burst {
            write!(f, ",burst={}", trim(b))?;
        }
        if !self.jitter.is_zero() {
            write!(f, ",jitter={}ms", trim(self.jitter.as_secs_f64() * 1000.0))?;
        }
        if let Some(r) = self.rate_bps {
            write!(f, ",rate={r}bit,limit={}", self.limit)?;
        }
        write!(f, ",mtu={}", self.mtu)
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.6}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `20ms`, `20`, `0.5ms`, `1s`.
fn millis(v: &str, max_ms: f64) -> Result<Duration, String> {
    let (number, scale) = if let Some(n) = v.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = v.strip_suffix("us") {
        (n, 0.001)
    } else if let Some(n) = v.strip_suffix('s') {
        (n, 1000.0)
    } else {
        (v, 1.0)
    };
    let ms = number
        .trim()
        .parse::<f64>()
        .map_err(|_| format!("`{v}` is not a time (e.g. `20ms`)"))?
        * scale;
    if !(0.0..=max_ms).contains(&ms) {
        return Err(format!("{v} is outside 0..={max_ms} ms"));
    }
    Ok(Duration::from_secs_f64(ms / 1000.0))
}

/// `3%` or `0.03` → 0.03. 100% is refused: nothing would ever arrive.
pub fn percent(v: &str) -> Result<f64, String> {
    let p = match v.strip_suffix('%') {
        Some(n) => n.trim().parse::<f64>().map(|x| x / 100.0),
        None => v.parse::<f64>(),
    }
    .map_err(|_| format!("`{v}` is not a loss rate (e.g. `3%` or `0.03`)"))?;
    if !(0.0..1.0).contains(&p) {
        return Err(format!("loss `{v}` is outside 0% ..< 100%"));
    }
    Ok(p)
}

fn burst(v: &str) -> Result<f64, String> {
    let b: f64 = v
        .parse()
        .map_err(|_| format!("burst `{v}` is not a mean burst length in packets (e.g. `3`)"))?;
    if !(1.0..=10_000.0).contains(&b) {
        return Err(format!("burst `{v}` is outside 1..=10000 packets"));
    }
    Ok(b)
}

/// `1000mbit`, `1gbit`, `512kbit`, `100000bit` → bits per second.
fn rate(v: &str) -> Result<u64, String> {
    let lower = v.to_ascii_lowercase();
    let (number, scale) = [("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3), ("bit", 1.0)]
        .into_iter()
        .find_map(|(unit, scale)| lower.strip_suffix(unit).map(|n| (n.to_string(), scale)))
        .ok_or_else(|| format!("rate `{v}` needs a unit: bit, kbit, mbit or gbit"))?;
    let bps = number
        .trim()
        .parse::<f64>()
        .map_err(|_| format!("rate `{v}` is not a number with a unit (e.g. `1000mbit`)"))?
        * scale;
    if !(8_000.0..=100e9).contains(&bps) {
        return Err(format!("rate `{v}` is outside 8kbit..=100gbit"));
    }
    Ok(bps.round() as u64)
}

fn integer(v: &str, what: &str, min: u32, max: u32) -> Result<u32, String> {
    let n: u32 = v
        .parse()
        .map_err(|_| format!("{what} `{v}` is not a whole number"))?;
    if !(min..=max).contains(&n) {
        return Err(format!("{what} {n} is outside {min}..={max}"));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_parses_with_its_unit() {
        let s = LinkSpec::parse(
            "rtt=5.6ms, loss=3%, rate=1000mbit, limit=500, jitter=0.5ms, burst=2, mtu=1280",
        )
        .unwrap();
        assert_eq!(s.rtt, Duration::from_micros(5600));
        assert!((s.loss - 0.03).abs() < 1e-12);
        assert_eq!(s.rate_bps, Some(1_000_000_000));
        assert_eq!(s.limit, 500);
        assert_eq!(s.jitter, Duration::from_micros(500));
        assert_eq!(s.burst, Some(2.0));
        assert_eq!(s.mtu, 1280);
        assert_eq!(LinkSpec::parse("loss=0.1").unwrap().loss, 0.1);
        assert_eq!(
            LinkSpec::parse("rate=512kbit").unwrap().rate_bps,
            Some(512_000)
        );
        assert_eq!(
            LinkSpec::parse("rtt=1s").unwrap().rtt,
            Duration::from_secs(1)
        );
    }

    #[test]
    fn defaults_are_a_plain_delay_line() {
        let s = LinkSpec::parse("rtt=20ms").unwrap();
        assert!(s.is_plain_delay());
        assert_eq!((s.limit, s.mtu), (1000, 1500));
        assert!(!LinkSpec::parse("rtt=20ms,loss=1%")
            .unwrap()
            .is_plain_delay());
    }

    #[test]
    fn the_text_form_parses_back_to_the_same_link() {
        for t in [
            "rtt=5.6ms,loss=3%,rate=1000mbit,limit=1000",
            "rtt=0,loss=0%",
            "rtt=31.2ms,loss=20%,burst=3,jitter=2ms,mtu=1280",
        ] {
            let s = LinkSpec::parse(t).unwrap();
            assert_eq!(LinkSpec::parse(&s.to_string()).unwrap(), s, "{t} → {s}");
        }
        assert_eq!(
            LinkSpec::parse("loss=3%,rtt=5.6ms").unwrap().to_string(),
            "rtt=5.6ms,loss=3%,mtu=1500"
        );
    }

    #[test]
    fn bad_input_is_refused_naming_the_part() {
        for (text, says) in [
            ("rtt", "not key=value"),
            ("rtt=fast", "not a time"),
            ("loss=3", "outside 0%"),
            ("loss=100%", "outside"),
            ("loss=-1%", "outside"),
            ("loss=3%,loss=4%", "given twice"),
            ("rate=1000", "needs a unit"),
            ("rate=xmbit", "not a number"),
            ("rate=1bit", "outside"),
            ("mtu=100", "outside 576"),
            ("limit=0,rate=1mbit", "outside 1"),
            ("limit=10", "give rate too"),
            ("burst=0.5,loss=1%", "outside 1"),
            ("burst=1,loss=60%", "cannot have a mean burst"),
            ("colour=blue", "unknown link setting `colour`"),
            ("rtt=20001ms", "outside"),
        ] {
            let e = LinkSpec::parse(text).unwrap_err();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn loss_labels_are_readable() {
        assert_eq!(LinkSpec::parse("loss=3%").unwrap().loss_label(), "loss3pct");
        assert_eq!(
            LinkSpec::parse("loss=0.5%").unwrap().loss_label(),
            "loss0.5pct"
        );
        assert_eq!(LinkSpec::delay(Duration::ZERO).loss_label(), "loss0pct");
    }
}
