//! The answer first: a run's findings as plain sentences, each with its numbers and
//! intervals taken from the evidence, and the chart behind it.
//!
//! A sentence is written only when the evidence supports it: an arm with an error, a
//! skip or no latencies gives no number; a missing comparison drops its clause. Every
//! arm the tool caught misbehaving (an error, a known pitfall, failed connections) gets
//! a sentence of its own, always.

use shared::{
    Arm, Comparison, ComparisonKind, Evidence, KxGroup, Mode, Protocol, RateBasis, Stack,
};

use super::format::{cut, fmt_ci_ratio, fmt_ci_us, fmt_ratio, fmt_us, short};
use super::stacks::stack_pair;

/// What a finding is about; it names the chart behind it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Topic {
    FullCost,
    Resumption,
    PostQuantum,
    Phases,
    ZeroRtt,
    /// Which strategy wins per request (keep-alive or a new connection), per RTT.
    KeepAlive,
    /// An emulated link's achieved loss, and the connections TCP retransmitted on.
    Link,
    /// A server flight larger than TCP's initial window (a round trip more).
    Flights,
    /// What loss does to the tail, per curve and RTT (the loss view).
    Loss,
    /// What a probed server offers (`collector probe`).
    Capability,
    Pitfall,
}

impl Topic {
    /// Where the chart or table behind a finding is (`#id`; `key` is the run's page key)
    /// and the link's name, which says what it leads to: the headline's charts for the
    /// headline findings, the stacks charts for other stacks', the cert × group table
    /// for the hybrid.
    pub fn target(self, headline: bool, key: u32) -> (String, &'static str) {
        match (self, headline) {
            (Topic::FullCost, true) => ("#chart-head-percentiles".into(), "percentile chart"),
            (Topic::FullCost, false) => (format!("#chart-stacks-{key}"), "stacks chart"),
            (Topic::Resumption, true) => ("#chart-head-speedups".into(), "speedup chart"),
            (Topic::Resumption, false) => (
                format!("#chart-stack-speedups-{key}"),
                "stacks' speedup chart",
            ),
            (Topic::PostQuantum, _) => (format!("#grid-{key}"), "cert × group table"),
            (Topic::Phases, _) => (format!("#chart-phases-{key}"), "phase chart"),
            (Topic::Flights, _) => (format!("#chart-flights-{key}"), "first-flight chart"),
            (Topic::Loss, _) => (format!("#chart-loss-{key}"), "loss chart"),
            (Topic::ZeroRtt | Topic::KeepAlive | Topic::Link, _) => {
                (format!("#chart-ttfb-{key}"), "time-to-first-byte chart")
            }
            (Topic::Capability | Topic::Pitfall, _) => ("#table-section".into(), "arm table"),
        }
    }
}

/// One number a finding states, as data (the findings' CSV and Markdown).
#[derive(Debug, Clone, PartialEq)]
pub struct Datum {
    pub arm: String,
    /// What the number is, e.g. `p50`, `resume speedup (full / resumed p50)`.
    pub metric: &'static str,
    pub value: f64,
    /// Its 95% interval, when the evidence has one.
    pub ci: Option<[f64; 2]>,
    /// `µs`, `×` or `connections`.
    pub unit: &'static str,
}

fn datum(
    arm: &Arm,
    metric: &'static str,
    value: f64,
    ci: Option<[f64; 2]>,
    unit: &'static str,
) -> Datum {
    Datum {
        arm: arm.id.clone(),
        metric,
        value,
        ci,
        unit,
    }
}

impl Topic {
    /// What the finding is about, in a word or two (the data's `kind` column).
    pub fn kind(self) -> &'static str {
        match self {
            Topic::FullCost => "full handshake",
            Topic::Resumption => "resumption",
            Topic::PostQuantum => "post-quantum hybrid",
            Topic::Phases => "phases",
            Topic::ZeroRtt => "0-RTT",
            Topic::KeepAlive => "keep-alive",
            Topic::Link => "emulated link",
            Topic::Flights => "first flight",
            Topic::Loss => "loss",
            Topic::Capability => "server capability",
            Topic::Pitfall => "caught by the tool",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub topic: Topic,
    /// About rustls on both ends with a classical group (the lab's own subject), the
    /// hybrid's price, 0-RTT or a pitfall: shown first. The rest (peer stacks, the
    /// hybrid's own details) is shown on demand.
    pub headline: bool,
    pub text: String,
    /// The numbers the sentence states, one per clause (none for a capability line).
    pub data: Vec<Datum>,
}

/// An arm whose latencies are results: measured on plain loopback, one connection at a
/// time, sound, with latencies, and not a control arm.
fn sound(a: &Arm) -> bool {
    a.error.is_none()
        && a.skipped.is_none()
        && a.latency_us.is_some()
        && a.rtt_ms.is_none()
        && a.capacity.is_none()
        && a.control_of.is_none()
}

/// `rustls · rsa2048 · x25519`: who and with what, as the charts name it.
fn what(a: &Arm) -> String {
    let mut s = stack_pair(a);
    for part in [a.cert.map(|c| c.as_str()), a.kx_group.map(|g| g.as_str())] {
        s.push_str(" · ");
        s.push_str(part.unwrap_or("–"));
    }
    s
}

/// Rustls on both ends with a classical group.
fn headline(a: &Arm) -> bool {
    a.client_stack == Stack::Rustls
        && a.server_stack == Stack::Rustls
        && a.kx_group != Some(KxGroup::X25519Mlkem768)
}

/// One sentence's clauses: (group key, headline, clause, its numbers).
type Clauses = Vec<(String, bool, String, Vec<Datum>)>;

/// `(key, index)` pairs sorted by key, then index: the one sort of this module (each
/// sort instantiation costs the wasm kilobytes), so lookups are binary searches and
/// grouping is linear after it, however many arms a file has.
fn keyed<'a>(keys: impl Iterator<Item = &'a str>) -> Vec<(&'a str, usize)> {
    let mut v: Vec<(&str, usize)> = keys.zip(0..).collect();
    shared::order::sort_by(&mut v, &|a, b| a.cmp(b));
    v
}

/// The index of `key` in a [`keyed`] vector (its first entry).
fn lookup(sorted: &[(&str, usize)], key: &str) -> Option<usize> {
    let i = sorted.partition_point(|e| e.0 < key);
    sorted.get(i).filter(|e| e.0 == key).map(|e| e.1)
}

/// Clauses gathered under their key, groups in the order first seen.
fn grouped(items: Clauses) -> Vec<(String, bool, Vec<String>, Vec<Datum>)> {
    let sorted = keyed(items.iter().map(|i| i.0.as_str()));
    // Each group's members, kept at its first member's index.
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); items.len()];
    let mut lead = 0;
    for (n, e) in sorted.iter().enumerate() {
        if n == 0 || sorted[n - 1].0 != e.0 {
            lead = e.1;
        }
        members[lead].push(e.1);
    }
    let mut out = Vec::new();
    for (i, m) in members.iter().enumerate().filter(|m| !m.1.is_empty()) {
        let clauses = m.iter().map(|&j| items[j].2.clone()).collect();
        let data = m.iter().flat_map(|&j| items[j].3.clone()).collect();
        out.push((items[i].0.clone(), items[i].1, clauses, data));
    }
    out
}

/// ` [a – b]`, or ` (no CI)`.
fn ci_us(ci: Option<[f64; 2]>) -> String {
    match ci {
        Some(_) => format!(" {}", fmt_ci_us(ci)),
        None => " (no CI)".into(),
    }
}

fn ratio(c: &Comparison) -> String {
    match c.ci95 {
        Some(ci) => format!("{} {}", fmt_ratio(c.p50_ratio), fmt_ci_ratio(ci)),
        None => format!("{} (no CI)", fmt_ratio(c.p50_ratio)),
    }
}

/// `TLS 1.3`, as people write it.
fn proto(p: Protocol) -> &'static str {
    match p {
        Protocol::Tls13 => "TLS 1.3",
        Protocol::Tls12 => "TLS 1.2",
        Protocol::Tcp => "TCP",
    }
}

fn p50(a: &Arm) -> f64 {
    a.latency_us.map_or(f64::NAN, |l| l.p50)
}

/// Comparisons of one kind, by candidate id.
struct ByCandidate<'a> {
    of: Vec<&'a Comparison>,
    sorted: Vec<(&'a str, usize)>,
}

fn by_candidate(ev: &Evidence, kind: ComparisonKind) -> ByCandidate<'_> {
    let of: Vec<&Comparison> = ev.comparisons.iter().filter(|c| c.kind == kind).collect();
    let sorted = keyed(of.iter().map(|c| c.candidate.as_str()));
    ByCandidate { of, sorted }
}

fn find<'a>(by: &ByCandidate<'a>, candidate: &str) -> Option<&'a Comparison> {
    lookup(&by.sorted, candidate).map(|i| by.of[i])
}

/// An arm by id.
fn arm<'a>(ev: &'a Evidence, sorted: &[(&str, usize)], id: &str) -> Option<&'a Arm> {
    lookup(sorted, id).map(|i| &ev.arms[i])
}

/// The findings' data columns (CSV and Markdown): numbers in `value`, `ci_low`,
/// `ci_high` ([`DATA_NUMBERS`]), text elsewhere.
pub const DATA_COLUMNS: [&str; 8] = [
    "kind", "arm", "metric", "value", "ci_low", "ci_high", "unit", "sentence",
];

/// The columns of [`DATA_COLUMNS`] that hold numbers this code wrote.
pub const DATA_NUMBERS: std::ops::Range<usize> = 3..6;

/// One row per number a finding states (a finding with none: one row with its sentence
/// only), in reading order.
pub fn data_rows(list: &[Finding]) -> Vec<[String; 8]> {
    let mut rows = Vec::new();
    for f in list {
        let kind = f.topic.kind().to_string();
        if f.data.is_empty() {
            let e = String::new;
            rows.push([kind.clone(), e(), e(), e(), e(), e(), e(), f.text.clone()]);
        }
        for d in &f.data {
            let ci = |i: usize| d.ci.map(|c| c[i].to_string()).unwrap_or_default();
            rows.push([
                kind.clone(),
                d.arm.clone(),
                d.metric.to_string(),
                d.value.to_string(),
                ci(0),
                ci(1),
                d.unit.to_string(),
                f.text.clone(),
            ]);
        }
    }
    rows
}

/// Every finding the evidence supports, in reading order.
pub fn findings(ev: &Evidence) -> Vec<Finding> {
    let mut out = Vec::new();
    let arms = keyed(ev.arms.iter().map(|a| a.id.as_str()));
    full_cost(ev, &mut out);
    resumption(ev, &arms, &mut out);
    lab_questions(ev, &mut out);
    post_quantum(ev, &mut out);
    phases(ev, &mut out);
    zero_rtt(ev, &arms, &mut out);
    for (text, a, rtts) in super::flights::crossings(ev) {
        let data = vec![datum(
            a,
            "time to first byte in round trips",
            rtts,
            None,
            "RTT",
        )];
        push(&mut out, Topic::Flights, headline(a), text, data);
    }
    written_by_the_collector(ev, &mut out);
    pitfalls(ev, &mut out);
    out
}

fn push(out: &mut Vec<Finding>, topic: Topic, headline: bool, text: String, data: Vec<Datum>) {
    out.push(Finding {
        topic,
        headline,
        text,
        data,
    });
}

/// Full handshakes per stack and group (not the PQ hybrid: that has its own sentence),
/// each with its multiple of a TCP connect where the evidence has that ratio.
fn full_cost(ev: &Evidence, out: &mut Vec<Finding>) {
    let over_tcp = by_candidate(ev, ComparisonKind::TlsOverTcp);
    let mut items = Clauses::new();
    for a in ev.arms.iter().filter(|a| {
        a.mode == Mode::Full && !a.ttfb && sound(a) && a.kx_group != Some(KxGroup::X25519Mlkem768)
    }) {
        let mut c = format!(
            "{} with {} {}{}",
            proto(a.protocol),
            a.cert.map_or("the server's certificate", |c| c.as_str()),
            fmt_us(p50(a)),
            ci_us(a.p50_ci95_us)
        );
        let mut data = vec![datum(a, "p50", p50(a), a.p50_ci95_us, "µs")];
        if let Some(r) = find(&over_tcp, &a.id) {
            c.push_str(&format!(", {} a TCP connect", ratio(r)));
            data.push(datum(a, "p50 / TCP connect p50", r.p50_ratio, r.ci95, "×"));
        }
        let key = format!(
            "{} · {}",
            stack_pair(a),
            a.kx_group.map_or("–", |g| g.as_str())
        );
        items.push((key, headline(a), c, data));
    }
    for (key, h, clauses, data) in grouped(items) {
        let text = format!(
            "A full handshake ({key}) takes at the median: {}.",
            clauses.join("; ")
        );
        push(out, Topic::FullCost, h, text, data);
    }
}

/// What resumption saves: each sound resume speedup, per stack, cert and group, by
/// version and kind; and the rate ratios of rate-only tools (per real second), per stack.
fn resumption(ev: &Evidence, arms: &[(&str, usize)], out: &mut Vec<Finding>) {
    let (mut latency, mut rate) = (Clauses::new(), Clauses::new());
    for c in &ev.comparisons {
        let (Some(full), Some(res)) = (arm(ev, arms, &c.baseline), arm(ev, arms, &c.candidate))
        else {
            continue;
        };
        if res.known_pitfall.is_some() || full.error.is_some() || res.error.is_some() {
            continue;
        }
        let kind = res.resumption.map_or("–", |r| r.as_str());
        match c.kind {
            ComparisonKind::ResumeSpeedup if sound(full) && sound(res) => latency.push((
                what(res),
                headline(res),
                format!(
                    "{} by {kind} {} ({} against {})",
                    proto(res.protocol),
                    ratio(c),
                    fmt_us(p50(res)),
                    fmt_us(p50(full)),
                ),
                vec![datum(
                    res,
                    "resume speedup (full / resumed p50)",
                    c.p50_ratio,
                    c.ci95,
                    "×",
                )],
            )),
            ComparisonKind::ResumeRateSpeedup if c.basis == Some(RateBasis::PerRealS) => {
                rate.push((
                    stack_pair(res),
                    false,
                    format!(
                        "{} ({} {})",
                        ratio(c),
                        proto(res.protocol),
                        res.cert.map_or("–", |c| c.as_str())
                    ),
                    vec![datum(
                        res,
                        "connections per real second, resumed / new",
                        c.p50_ratio,
                        c.ci95,
                        "×",
                    )],
                ))
            }
            _ => {}
        }
    }
    for (key, h, clauses, data) in grouped(latency) {
        let text = format!(
            "Resuming ({key}) is faster than a full handshake: {}.",
            clauses.join("; ")
        );
        push(out, Topic::Resumption, h, text, data);
    }
    for (key, h, clauses, data) in grouped(rate) {
        let text = format!(
            "{key}: resuming makes {} as many connections per real second as connecting anew.",
            clauses.join(", ")
        );
        push(out, Topic::Resumption, h, text, data);
    }
}

/// The hybrid's cost: each sound full X25519MLKEM768 arm against the same stack,
/// protocol and cert with X25519.
fn post_quantum(ev: &Evidence, out: &mut Vec<Finding>) {
    let full = |a: &&Arm| a.mode == Mode::Full && !a.ttfb && sound(a);
    for pq in ev
        .arms
        .iter()
        .filter(full)
        .filter(|a| a.kx_group == Some(KxGroup::X25519Mlkem768))
    {
        let Some(x) = ev.arms.iter().filter(full).find(|a| {
            a.kx_group == Some(KxGroup::X25519)
                && a.protocol == pq.protocol
                && a.cert == pq.cert
                && a.client_stack == pq.client_stack
                && a.server_stack == pq.server_stack
        }) else {
            continue;
        };
        let more = (p50(pq) / p50(x) - 1.0) * 100.0;
        push(
            out,
            Topic::PostQuantum,
            true,
            format!(
                "The post-quantum hybrid X25519MLKEM768 makes a full {} handshake ({}) {:.0}% {}: {}{} against {}{} with X25519.",
                proto(pq.protocol),
                what(pq),
                more.abs(),
                if more < 0.0 { "cheaper" } else { "dearer" },
                fmt_us(p50(pq)),
                ci_us(pq.p50_ci95_us),
                fmt_us(p50(x)),
                ci_us(x.p50_ci95_us),
            ),
            vec![
                datum(pq, "p50", p50(pq), pq.p50_ci95_us, "µs"),
                datum(x, "p50", p50(x), x.p50_ci95_us, "µs"),
                datum(pq, "p50 X25519MLKEM768 / X25519", p50(pq) / p50(x), None, "×"),
            ],
        );
    }
}

/// Where the time of each sound full handshake goes, from its phase decomposition.
fn phases(ev: &Evidence, out: &mut Vec<Finding>) {
    for a in ev.arms.iter().filter(|a| a.mode == Mode::Full && sound(a)) {
        let Some(d) = a.phases.as_ref().and_then(|p| p.decomposition.as_ref()) else {
            continue;
        };
        let mut s = format!(
            "Where a full {} handshake's {} goes ({}; the median of its traced connections, which stamp every moment: {} the headline's {}, of the untraced ones): server work {} {}, client work {} {}, connect {}, {} waiting over {} hops; the model predicts {} ({:.2} of the traced median).",
            proto(a.protocol),
            fmt_us(d.measured_p50_us),
            what(a),
            apart(d.measured_p50_us, p50(a)),
            fmt_us(p50(a)),
            fmt_us(d.server_cpu_us),
            public_key(d.server_cpu_us, d.server_floor_us),
            fmt_us(d.client_cpu_us),
            public_key(d.client_cpu_us, d.client_floor_us),
            fmt_us(d.tcp_connect_us),
            fmt_us(d.waiting_us),
            d.hops,
            fmt_us(d.predicted_us),
            d.prediction_ratio,
        );
        if d.miss.is_some() {
            s.push_str(&format!(
                " The model misses by {:.0}%: part of the time is not explained.",
                ((d.prediction_ratio - 1.0) * 100.0).abs()
            ));
        }
        let data = vec![
            datum(a, "traced median", d.measured_p50_us, None, "µs"),
            datum(a, "predicted p50", d.predicted_us, None, "µs"),
        ];
        push(out, Topic::Phases, headline(a), s, data);
    }
}

/// `3% above`, `2% below`, `the same as`: the traced median beside the headline's.
fn apart(traced: f64, headline: f64) -> String {
    let pct = (traced / headline - 1.0) * 100.0;
    match pct.round() {
        p if p > 0.0 => format!("{p:.0}% above"),
        p if p < 0.0 => format!("{:.0}% below", -p),
        _ => "the same as".into(),
    }
}

/// A side's public-key operations beside its work. They are timed apart (the crypto
/// floor), so they can come out above the work the phases measured: then they are said
/// beside it, never as a part larger than its whole.
fn public_key(work: f64, floor: f64) -> String {
    if floor <= work {
        format!("({} of it public-key operations)", fmt_us(floor))
    } else {
        format!(
            "(its public-key operations, timed apart, take {}: more than the work measured here)",
            fmt_us(floor)
        )
    }
}

/// How much sooner 0-RTT answers, with how many connections really sent early data.
fn zero_rtt(ev: &Evidence, arms: &[(&str, usize)], out: &mut Vec<Finding>) {
    for c in by_candidate(ev, ComparisonKind::ZeroRttSpeedup).of {
        let (Some(full), Some(z)) = (arm(ev, arms, &c.baseline), arm(ev, arms, &c.candidate))
        else {
            continue;
        };
        let (Some(ed), true) = (z.early_data, full.error.is_none() && z.error.is_none()) else {
            continue;
        };
        let at = z
            .rtt_ms
            .map_or(String::from("on loopback"), |r| format!("at {r} ms RTT"));
        push(
            out,
            Topic::ZeroRtt,
            true,
            format!(
                "0-RTT ({}) answers {} sooner than a full handshake {at}: first byte after {} against {}; the server accepted early data on {} of {} connections.",
                what(z),
                ratio(c),
                fmt_us(p50(z)),
                fmt_us(p50(full)),
                ed.accepted,
                ed.offered,
            ),
            vec![datum(z, "0-RTT speedup (full / 0-RTT time to first byte)", c.p50_ratio, c.ci95, "×")],
        );
    }
}

/// Lines the collector wrote from the same run's numbers into `settings.extra`, joined by
/// ` · `: the keep-alive comparison per RTT, the emulated link's asked and achieved loss
/// and the connections that waited for a TCP retransmission, what loss did to each arm
/// kind's tail at each RTT (the loss chart's sentences), and a probe's findings (its certificate's
/// trust, its capabilities, and whether the timed connections verified the
/// certificate). Each is cut to 600 characters (it comes from a file).
fn written_by_the_collector(ev: &Evidence, out: &mut Vec<Finding>) {
    for (key, topic, head) in [
        ("probe_findings", Topic::Capability, "The server offers "),
        ("keepalive_findings", Topic::KeepAlive, "Per request, "),
        ("link_findings", Topic::Link, "On the emulated link, "),
        ("loss_findings", Topic::Loss, ""),
        (
            "loss_populations",
            Topic::Loss,
            "Split by what the link dropped: ",
        ),
    ] {
        let Some(lines) = ev.run.settings.extra.get(key) else {
            continue;
        };
        for line in lines.split(" · ").filter(|l| !l.trim().is_empty()) {
            let line = cut(line, 600).map_or(line.to_string(), |h| format!("{h}…"));
            // Trust and verification are not something the server offers.
            let text = match line.strip_prefix("trust: ") {
                Some(rest) => format!("Certificate trust: {rest}."),
                None => match line.strip_prefix("verification: ") {
                    Some(rest) => format!("Certificate verification: {rest}."),
                    None => format!("{head}{line}."),
                },
            };
            push(out, topic, true, text, Vec::new());
        }
    }
}

/// How many of `a`'s connections resumed, by the client's count: a rate tool's slices
/// (`s_time` reports its own), else the arm's; and of how many.
fn resumed_of(a: &Arm) -> (u64, u64) {
    match &a.rate {
        Some(r) if !r.slices.is_empty() => r.slices.iter().fold((0u64, 0u64), |t, s| {
            (
                t.0.saturating_add(s.resumed),
                t.1.saturating_add(s.connections),
            )
        }),
        _ => (a.resumed.client, a.succeeded),
    }
}

/// The questions the lab grew from (a write-up of Python's `ssl` and `openssl s_time` on
/// a shared box, where Python's `session_reused` stayed false): did each resume? Per
/// resumed arm of each, yes only when every connection resumed and the arm holds no
/// error, with its counts.
fn lab_questions(ev: &Evidence, out: &mut Vec<Finding>) {
    for (client, question) in [
        (
            Stack::PythonSsl,
            "Did Python's ssl module resume its sessions?",
        ),
        (Stack::OpensslSTime, "Did openssl s_time -reuse resume?"),
    ] {
        let arms: Vec<&Arm> = ev
            .arms
            .iter()
            .filter(|a| a.client_stack == client && a.mode == Mode::Resumed)
            .filter(|a| a.skipped.is_none())
            .collect();
        if arms.is_empty() {
            continue;
        }
        let n = arms.len();
        let (mut yes, mut no, mut pitfalls, mut data) =
            (Vec::new(), Vec::new(), Vec::<String>::new(), Vec::new());
        for a in arms {
            let (resumed, of) = resumed_of(a);
            // Python runs both ends: its server counts too, and must agree.
            let python_server = a.server_stack == Stack::PythonSsl;
            let resumed_all = a.error.is_none()
                && of > 0
                && resumed == of
                && (!python_server || a.resumed.server == of);
            let server = match python_server {
                true => format!(", {} by the server's count", a.resumed.server),
                false => String::new(),
            };
            let clause = format!(
                "{} {} ({resumed} of {of} connections resumed{server})",
                a.id,
                proto(a.protocol)
            );
            match resumed_all {
                true => yes.push(clause),
                false => {
                    no.push(clause);
                    // What the pitfall is, once: its first sentence.
                    if let Some(p) = &a.known_pitfall {
                        let head = p.split(". ").next().unwrap_or(p).trim_end_matches('.');
                        if !pitfalls.iter().any(|q| q == head) {
                            pitfalls.push(head.to_string());
                        }
                    }
                }
            }
            data.push(datum(
                a,
                "connections resumed",
                resumed as f64,
                None,
                "connections",
            ));
        }
        let pitfall = match pitfalls.is_empty() {
            true => String::new(),
            false => format!(" — a known pitfall: {}", pitfalls.join("; ")),
        };
        let arms_word = if n == 1 { "arm" } else { "arms" };
        let mut text = match (yes.len(), no.len()) {
            (0, _) => format!("{question} No: {}{pitfall}", no.join("; ")),
            (y, _) => format!(
                "{question} Yes, every connection, in {y} of its {n} resumed {arms_word}: {}",
                yes.join("; ")
            ),
        };
        if !yes.is_empty() && !no.is_empty() {
            text.push_str(&format!(
                ". Not in {}: {}{pitfall}",
                no.len(),
                no.join("; ")
            ));
        }
        text.push('.');
        push(out, Topic::Resumption, true, text, data);
    }
}

/// Every arm the tool caught: an error (a known pitfall or not), or failed connections.
fn pitfalls(ev: &Evidence, out: &mut Vec<Finding>) {
    for a in &ev.arms {
        if let Some(err) = &a.error {
            let mut data = Vec::new();
            let mut s = match &a.known_pitfall {
                Some(p) => format!("{} did not resume, a known pitfall ({})", a.id, short(p)),
                None => format!("{}: {}", a.id, short(err)),
            };
            if a.mode == Mode::Resumed && a.protocol != Protocol::Tcp {
                let (resumed, of) = resumed_of(a);
                s.push_str(&format!(": {resumed} of {of} connections resumed"));
                data.push(datum(
                    a,
                    "connections resumed",
                    resumed as f64,
                    None,
                    "connections",
                ));
            }
            s.push('.');
            push(out, Topic::Pitfall, true, s, data);
        } else if a.failed > 0 {
            let first = a.first_failure.as_deref().map(short).unwrap_or_default();
            push(
                out,
                Topic::Pitfall,
                true,
                format!(
                    "{}: {} of {} timed connections failed (first: {first}).",
                    a.id, a.failed, a.attempted
                ),
                vec![datum(
                    a,
                    "failed connections",
                    a.failed as f64,
                    None,
                    "connections",
                )],
            );
        }
    }
}

#[cfg(test)]
#[path = "findings_tests.rs"]
mod tests;
