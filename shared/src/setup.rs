//! What kind of run a file holds ([`RunKind`]) and its setup fingerprint ([`Setup`]): the
//! settings that move numbers, so two runs are compared only where they were measured
//! alike.
//!
//! The collector writes both into `run.kind` and `run.setup`; files written before they
//! existed get them derived from what they contain ([`Evidence::kind`],
//! [`Evidence::setup`]), by the same functions the collector uses, so old and new files
//! agree.

use std::collections::BTreeMap;

use crate::schema::{CertKind, Evidence, KxGroup, RunKind, Stack};

/// The setup fingerprint: setting name → value, for every setting of [`SETTINGS`] the
/// run has. Two runs of equal fingerprints (up to [`Affects::Nothing`] settings) were
/// measured alike.
pub type Setup = BTreeMap<String, String>;

/// What a difference in one setting makes incomparable between two runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Affects {
    /// Every arm (the host, the plan, the samples…): no arm of the two runs gets a verdict.
    Every,
    /// Only arms with a peer tool on one end (its version changed).
    PeerArms,
    /// No arm: shown as a difference, verdicts kept. The code under test (the commit) is
    /// what a comparison of two runs is for.
    Nothing,
}

/// One setting of the fingerprint.
pub struct Setting {
    /// Key in [`Setup`] and in `run.setup`; never renamed (files carry it).
    pub name: &'static str,
    /// What the page calls it.
    pub label: &'static str,
    pub affects: Affects,
    /// The value in `ev`, or `None` when the run has no such setting.
    pub read: fn(&Evidence) -> Option<String>,
}

fn extra(ev: &Evidence, key: &str) -> Option<String> {
    ev.run.settings.extra.get(key).cloned()
}

/// The settings that move numbers, in the order a difference is listed.
///
/// **To add a setting, add one line here** (name, label, what a difference affects, how
/// to read it from the evidence). Files written before it existed have no value for it
/// (`None`), so a run that has it differs from one that does not, which is honest: the
/// older run did not record it. E.g. the CPU placement of client and server threads
/// (`split`, `same`, `free`) is the `placement` line below.
pub const SETTINGS: &[Setting] = &[
    Setting {
        name: "kind",
        label: "kind of run",
        affects: Affects::Every,
        read: |ev| Some(ev.kind().as_str().to_string()),
    },
    Setting {
        name: "plan",
        label: "arms measured",
        affects: Affects::Every,
        read: |ev| Some(plan(ev)),
    },
    Setting {
        name: "samples",
        label: "samples per arm, warm-up, rounds",
        affects: Affects::Every,
        read: |ev| {
            let s = &ev.run.settings;
            Some(format!(
                "{} samples, {} warm-up, {} rounds",
                s.samples, s.warmup, s.rounds
            ))
        },
    },
    Setting {
        name: "link",
        label: "network path",
        affects: Affects::Every,
        read: |ev| Some(link(ev)),
    },
    Setting {
        name: "chain_depth",
        label: "intermediate CAs per chain",
        affects: Affects::Every,
        // Files from before `--chain-depth` had none: the CA signed the leaf (depth 0).
        read: |ev| Some(extra(ev, "chain_depth").unwrap_or_else(|| "0".into())),
    },
    Setting {
        name: "pacing",
        label: "pause between connections",
        affects: Affects::Every,
        read: |ev| Some(format!("{} µs", ev.run.settings.gap_between_connections_us)),
    },
    Setting {
        name: "placement",
        label: "CPU placement",
        affects: Affects::Every,
        read: |ev| extra(ev, "cpu_placement"),
    },
    Setting {
        name: "host",
        label: "host",
        affects: Affects::Every,
        read: |ev| Some(ev.environment.hostname.clone()),
    },
    Setting {
        name: "cpu",
        label: "CPU",
        affects: Affects::Every,
        read: |ev| {
            let e = &ev.environment;
            Some(format!("{} × {}", e.cpu_model, e.logical_cpus))
        },
    },
    Setting {
        name: "kernel",
        label: "kernel",
        affects: Affects::Every,
        read: |ev| Some(ev.environment.kernel.clone()),
    },
    Setting {
        name: "library",
        label: "TLS library",
        affects: Affects::Every,
        read: |ev| {
            let e = &ev.environment;
            Some(format!(
                "{} {} / {} {}",
                e.tls_library.name,
                e.tls_library.version,
                e.crypto_provider.name,
                e.crypto_provider.version
            ))
        },
    },
    Setting {
        name: "build",
        label: "build profile",
        affects: Affects::Every,
        read: |ev| extra(ev, "build_profile"),
    },
    Setting {
        name: "phases",
        label: "phase recording",
        affects: Affects::Every,
        read: |ev| {
            let p = extra(ev, "phase_recording")?;
            Some(if p.starts_with("on") { "on" } else { "off" }.into())
        },
    },
    Setting {
        name: "peers",
        label: "peer tools",
        affects: Affects::PeerArms,
        read: |ev| {
            let p = &ev.environment.peers;
            let list: Vec<String> = p
                .iter()
                .map(|p| format!("{} {}", p.name, p.version))
                .collect();
            (!list.is_empty()).then(|| list.join(", "))
        },
    },
    Setting {
        name: "commit",
        label: "collector commit",
        affects: Affects::Nothing,
        read: |ev| ev.run.tool.git_commit.clone(),
    },
];

/// `121 arms, #1a2b3c4d`: the number of arms and a hash of their sorted ids (FNV-1a, so
/// it is the same on every platform and in every build).
fn plan(ev: &Evidence) -> String {
    let mut ids: Vec<&str> = ev.arms.iter().map(|a| a.id.as_str()).collect();
    crate::order::sort_by(&mut ids, &|a, b| a.cmp(b));
    let mut h: u32 = 0x811c_9dc5;
    for b in ids.iter().flat_map(|id| id.bytes().chain([0])) {
        h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
    }
    format!("{} arms, #{h:08x}", ids.len())
}

/// Where the connections went: loopback, an emulated RTT, a second host, a probed server.
fn link(ev: &Evidence) -> String {
    if let Some(t) = extra(ev, "probe_target") {
        return format!("probe of {t}");
    }
    if let Some(rtt) = extra(ev, "rtt") {
        let list = rtt.split(" (").next().unwrap_or_default().to_string();
        // `--link` / `--loss` as given: loss, rate, jitter or MTU change the link too.
        return match extra(ev, "link") {
            Some(link) => format!(
                "emulated RTT {list}, {}",
                link.split(" (").next().unwrap_or_default()
            ),
            None => format!("emulated RTT {list}"),
        };
    }
    if let Some(server) = &ev.environment.server_host {
        return format!("two hosts: server {}", server.hostname);
    }
    "loopback".into()
}

/// `--flag` or `--flag=…` on the command line.
fn has_flag(ev: &Evidence, flag: &str) -> bool {
    ev.run.command_line.iter().any(|a| {
        a.strip_prefix(flag)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('='))
    })
}

/// Flags of `collector run` that change which arms run (the plan), so the run is not of
/// the default kind.
const PLAN_FLAGS: [&str; 12] = [
    "--arms",
    "--no-peers",
    "--certs",
    "--groups",
    "--matrix",
    "--concurrency",
    "--request",
    "--no-floor",
    "--no-phases",
    "--break-resumption",
    "--refuse-early-data",
    "--inject-capacity-drops",
];

impl RunKind {
    /// The kind of run `ev` is, from what it contains: a probe's findings, a second
    /// host, an emulated RTT, a plan other than the default (by its settings or the flags
    /// on its command line), `--quick`.
    pub fn of(ev: &Evidence) -> RunKind {
        let s = &ev.run.settings;
        let subcommand = ev.run.command_line.get(1).map(String::as_str);
        if subcommand == Some("probe")
            || s.extra.contains_key("probe_findings")
            || ev.arms.iter().any(|a| a.server_stack == Stack::Remote)
        {
            return RunKind::Probe;
        }
        if ev.environment.server_host.is_some() || s.extra.contains_key("target") {
            return RunKind::TwoHosts;
        }
        if s.extra.contains_key("rtt") || ev.arms.iter().any(|a| a.rtt_ms.is_some()) {
            return RunKind::Rtt;
        }
        let default_certs = [CertKind::Rsa2048, CertKind::EcdsaP256];
        let default_groups = [KxGroup::X25519, KxGroup::X25519Mlkem768];
        if s.arms_filter.is_some()
            || s.certs != default_certs
            || s.kx_groups != default_groups
            || s.extra.get("matrix").is_some_and(|m| m == "true")
            || s.extra.contains_key("capacity")
            || PLAN_FLAGS.iter().any(|f| has_flag(ev, f))
        {
            return RunKind::Subset;
        }
        if has_flag(ev, "--quick") {
            return RunKind::Quick;
        }
        RunKind::Default
    }

    /// What a reader calls it.
    pub fn words(self) -> &'static str {
        match self {
            RunKind::Default => "default run",
            RunKind::Quick => "quick run",
            RunKind::Subset => "custom plan",
            RunKind::Rtt => "emulated RTT",
            RunKind::TwoHosts => "two hosts",
            RunKind::Probe => "probe of a server",
        }
    }
}

impl Evidence {
    /// The kind of run: as the collector wrote it, else derived ([`RunKind::of`]).
    pub fn kind(&self) -> RunKind {
        self.run.kind.unwrap_or_else(|| RunKind::of(self))
    }

    /// The setup fingerprint: as the collector wrote it, else derived ([`setup_of`]).
    pub fn setup(&self) -> Setup {
        self.run.setup.clone().unwrap_or_else(|| setup_of(self))
    }
}

/// The fingerprint of `ev` computed from its settings and environment (what the
/// collector writes into `run.setup`).
pub fn setup_of(ev: &Evidence) -> Setup {
    // Inserted one by one, not collected: `collect` into a map sorts the pairs first,
    // which compiled a second stable sort into the viewer's wasm (1.5 KB gzipped).
    let mut setup = Setup::new();
    for s in SETTINGS {
        if let Some(value) = (s.read)(ev) {
            setup.insert(s.name.to_string(), value);
        }
    }
    setup
}

/// One setting whose value differs between two runs.
#[derive(Debug, Clone, PartialEq)]
pub struct SetupDifference {
    pub name: String,
    pub label: &'static str,
    pub affects: Affects,
    /// The values in the first and the second run (`None`: not recorded there).
    pub values: [Option<String>; 2],
}

/// The settings that differ between `a` and `b`, in [`SETTINGS`] order, then settings
/// this build does not know (they affect every arm: nothing says otherwise).
pub fn differences(a: &Setup, b: &Setup) -> Vec<SetupDifference> {
    let known = SETTINGS.iter().map(|s| (s.name, s.label, s.affects));
    let mut names: Vec<(&str, &'static str, Affects)> = known.collect();
    for name in a.keys().chain(b.keys()) {
        if !names.iter().any(|n| n.0 == name) {
            names.push((name, "other setting", Affects::Every));
        }
    }
    names
        .into_iter()
        .filter_map(|(name, label, affects)| {
            let values = [a.get(name).cloned(), b.get(name).cloned()];
            (values[0] != values[1]).then(|| SetupDifference {
                name: name.to_string(),
                label,
                affects,
                values,
            })
        })
        .collect()
}

/// Whether an arm whose stack under test is `stack` (`Arm::stack`: for a peer arm, the
/// peer's side) can be compared across two runs that differ in `differences`: none of
/// them affects it.
pub fn comparable(differences: &[SetupDifference], stack: Stack) -> bool {
    let peer = !matches!(stack, Stack::Rustls | Stack::KernelTcp);
    differences.iter().all(|d| match d.affects {
        Affects::Every => false,
        Affects::PeerArms => !peer,
        Affects::Nothing => true,
    })
}

/// Two runs of the same setup: they differ at most in settings that affect no arm.
pub fn comparable_setups(differences: &[SetupDifference]) -> bool {
    differences.iter().all(|d| d.affects == Affects::Nothing)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;

    fn default_run() -> Evidence {
        let mut ev = sample::evidence();
        ev.run.settings.certs = vec![CertKind::Rsa2048, CertKind::EcdsaP256];
        ev.run.settings.kx_groups = vec![KxGroup::X25519, KxGroup::X25519Mlkem768];
        ev
    }

    #[test]
    fn kinds_are_derived_from_what_a_file_contains() {
        assert_eq!(RunKind::of(&default_run()), RunKind::Default);
        let with = |f: &dyn Fn(&mut Evidence)| {
            let mut ev = default_run();
            f(&mut ev);
            RunKind::of(&ev)
        };
        assert_eq!(
            with(&|e| e.run.command_line.push("--quick".into())),
            RunKind::Quick
        );
        assert_eq!(
            with(&|e| e.run.command_line.push("--no-peers".into())),
            RunKind::Subset
        );
        assert_eq!(
            with(&|e| e.run.command_line.push("--groups=x25519".into())),
            RunKind::Subset
        );
        // A flag that merely starts like a plan flag is not one.
        assert_eq!(
            with(&|e| e.run.command_line.push("--armsx".into())),
            RunKind::Default
        );
        assert_eq!(
            with(&|e| e.run.settings.kx_groups = vec![KxGroup::X25519]),
            RunKind::Subset
        );
        assert_eq!(
            with(&|e| e.run.settings.arms_filter = Some("tcp".into())),
            RunKind::Subset
        );
        assert_eq!(
            with(&|e| {
                e.run.settings.extra.insert("rtt".into(), "0,10ms".into());
            }),
            RunKind::Rtt
        );
        assert_eq!(
            with(&|e| e.environment.server_host = Some(Box::new(e.environment.clone()))),
            RunKind::TwoHosts
        );
        assert_eq!(
            with(&|e| {
                e.run
                    .settings
                    .extra
                    .insert("probe_findings".into(), "x".into());
            }),
            RunKind::Probe
        );
        // `of` derives; `Evidence::kind` prefers what the collector wrote.
        assert_eq!(with(&|e| e.run.kind = Some(RunKind::Rtt)), RunKind::Default);
        let mut ev = default_run();
        ev.run.kind = Some(RunKind::Rtt);
        assert_eq!(ev.kind(), RunKind::Rtt);
    }

    #[test]
    fn the_fingerprint_names_what_differs_and_what_it_affects() {
        let a = default_run();
        let mut b = default_run();
        assert!(differences(&a.setup(), &b.setup()).is_empty());
        b.run.tool.git_commit = Some("abc".into());
        let d = differences(&a.setup(), &b.setup());
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].name, "commit");
        assert!(comparable(&d, Stack::Rustls), "a commit keeps verdicts");
        assert!(comparable_setups(&d));
        b.environment.peers.push(crate::schema::Library {
            name: "openssl".into(),
            version: "3".into(),
        });
        let d = differences(&a.setup(), &b.setup());
        assert!(comparable(&d, Stack::Rustls));
        assert!(!comparable(&d, Stack::Nginx));
        assert!(!comparable_setups(&d));
        b.run.settings.samples = 5;
        b.environment.hostname = "other".into();
        let d = differences(&a.setup(), &b.setup());
        let names: Vec<&str> = d.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["samples", "host", "peers", "commit"]);
        assert_eq!(
            d[1].values,
            [Some("sample-host".into()), Some("other".into())]
        );
        assert!(!comparable(&d, Stack::KernelTcp));
        // A stored fingerprint is read as written; a setting this build does not know
        // differs and affects every arm.
        b.run.setup = Some(Setup::from([("novel".to_string(), "1".to_string())]));
        let d = differences(&a.setup(), &b.setup());
        assert!(d
            .iter()
            .any(|d| d.name == "novel" && d.affects == Affects::Every));
    }

    #[test]
    fn the_plan_is_the_set_of_arms_not_their_order() {
        let a = default_run();
        let mut b = default_run();
        b.arms.reverse();
        assert_eq!(plan(&a), plan(&b));
        assert!(plan(&a).starts_with(&format!("{} arms, #", a.arms.len())));
        b.arms.pop();
        assert_ne!(plan(&a), plan(&b));
    }

    #[test]
    fn an_emulated_link_names_its_rtts_and_what_else_was_asked() {
        let mut ev = default_run();
        assert_eq!(link(&ev), "loopback");
        let extra = &mut ev.run.settings.extra;
        extra.insert(
            "rtt".into(),
            "0,10ms (one after the other); method: x".into(),
        );
        assert_eq!(link(&ev), "emulated RTT 0,10ms");
        ev.run.settings.extra.insert(
            "link".into(),
            "--link rate=10mbit --loss 0%,3% (4 links: every RTT at every loss rate)".into(),
        );
        assert_eq!(
            link(&ev),
            "emulated RTT 0,10ms, --link rate=10mbit --loss 0%,3%"
        );
    }

    #[test]
    fn a_file_from_before_chains_reads_as_depth_0_and_a_chained_run_differs() {
        let mut ev = crate::sample::evidence();
        ev.run.settings.extra.remove("chain_depth");
        assert_eq!(setup_of(&ev)["chain_depth"], "0");
        let before = setup_of(&ev);
        ev.run
            .settings
            .extra
            .insert("chain_depth".into(), "0".into());
        assert_eq!(setup_of(&ev), before, "depth 0 is what older runs did");
        ev.run
            .settings
            .extra
            .insert("chain_depth".into(), "2".into());
        assert_eq!(setup_of(&ev)["chain_depth"], "2");
    }
}
