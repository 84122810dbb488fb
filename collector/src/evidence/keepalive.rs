//! Cost per request by strategy (request mode): a new connection per request (full,
//! resumed, 0-RTT) beside one kept-alive connection, per protocol × cert × group, at
//! each RTT. Written into `settings.extra.keepalive_findings` and printed in the summary.

use shared::{Arm, Mode, Resumption};

use crate::human::us;

/// One line per sound keep-alive arm, from this run's medians only.
pub fn findings(arms: &[Arm]) -> Vec<String> {
    let sound = |a: &&Arm| a.error.is_none() && a.latency_us.is_some() && a.ttfb;
    let mut out = Vec::new();
    for ka in arms
        .iter()
        .filter(sound)
        .filter(|a| a.mode == Mode::KeepAlive)
    {
        let Some(k) = &ka.keepalive else { continue };
        let sibling = |mode: Mode, resumption: Option<Resumption>, early: bool| {
            arms.iter().filter(sound).find(|a| {
                a.mode == mode
                    && a.resumption == resumption
                    && a.early_data.is_some() == early
                    && super::same_cell(a, ka)
            })
        };
        let new_conn: Vec<(&str, f64)> = [
            ("full", sibling(Mode::Full, None, false)),
            (
                "resumed (stateful)",
                sibling(Mode::Resumed, Some(Resumption::Stateful), false),
            ),
            (
                "resumed (ticket)",
                sibling(Mode::Resumed, Some(Resumption::Ticket), false),
            ),
            (
                "0-RTT",
                sibling(Mode::Resumed, Some(Resumption::Stateful), true),
            ),
        ]
        .into_iter()
        .filter_map(|(name, a)| Some((name, a?.latency_us?.p50)))
        .collect();
        let at = match ka.rtt_ms {
            Some(ms) => format!("at {ms} ms RTT"),
            None => "loopback".into(),
        };
        let mut line = format!(
            "{} {} {}, {at}: ",
            ka.protocol,
            ka.cert.map_or("-", |c| c.as_str()),
            ka.kx_group.map_or("-", |g| g.as_str()),
        );
        if !new_conn.is_empty() {
            let list: Vec<String> = new_conn
                .iter()
                .map(|(n, p50)| format!("{n} {}", us(*p50)))
                .collect();
            line += &format!("a new connection per request: {}; ", list.join(", "));
        }
        line += &format!(
            "keep-alive ({} requests per connection): {} per request after the first, {} per request with its handshake",
            k.requests_per_connection,
            us(k.per_request_p50_us),
            us(k.amortized_p50_us)
        );
        let best = new_conn.iter().min_by(|a, b| a.1.total_cmp(&b.1)).copied();
        if let Some((name, p50)) = best {
            let ratio = p50 / k.per_request_p50_us;
            line += &format!(
                "; a request on the open connection costs {}x less than the cheapest new connection ({name}, p50 / p50)",
                trim(ratio)
            );
        }
        out.push(line);
    }
    out
}

fn trim(v: f64) -> String {
    if v >= 10.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}
