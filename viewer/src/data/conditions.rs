//! How noisy the run shown was, said before any number ([`shared::conditions`]): the
//! banner beside the run picker, in the page the viewer draws and in the one the site
//! writes ([`crate::written`]), and the line exports carry.

use shared::conditions::{self, Level, Reason};
use shared::Evidence;

/// The banner: its level (and CSS class), a title and one line per reason.
#[derive(Debug, Clone, PartialEq)]
pub struct Banner {
    pub level: Level,
    pub title: String,
    pub reasons: Vec<String>,
    /// What the level means for reading the page, in one sentence.
    pub meaning: &'static str,
}

impl Banner {
    /// The CSS class of the banner (`conditions quiet`, …).
    pub fn class(&self) -> &'static str {
        match self.level {
            Level::Quiet => "conditions quiet",
            Level::Noisy => "conditions noisy",
            Level::Unreliable => "conditions unreliable",
            Level::Unrecorded => "conditions unrecorded",
        }
    }
}

/// The banner of `e`.
pub fn banner(e: &Evidence) -> Banner {
    let c = conditions::of_run(e);
    let steal = c
        .steal_percent
        .map_or("not recorded".to_string(), |s| format!("{s:.1}%"));
    // What made the level, in a word or two, before the steal figure: a run called
    // noisy beside "steal 0.0%" has to say why.
    let causes: Vec<&str> = c
        .reasons
        .iter()
        .filter_map(|r| match r {
            Reason::Steal { .. } | Reason::NoRecord => None,
            Reason::SetAside { .. } => Some("chunks measured again"),
            Reason::NoisyArms { .. } => Some("arms kept chunks over the steal threshold"),
            Reason::SpeedModes { .. } => Some("the CPU at two speeds"),
            Reason::Busy { .. } => Some("a busy host"),
            Reason::OtherWork { .. } => Some("other programs beside the run"),
        })
        .collect();
    let title = match causes.is_empty() {
        true => format!(
            "Run conditions: {} (steal {steal} on the busiest CPU)",
            c.level
        ),
        false => format!(
            "Run conditions: {} ({}; steal {steal} on the busiest CPU)",
            c.level,
            causes.join(", ")
        ),
    };
    let meaning = match c.level {
        Level::Quiet => "The host left this run alone: its numbers can be compared with other quiet runs.",
        Level::Noisy => "The host moved things during this run: read its numbers, but compare them only with runs of like conditions (rankings and changes say where they cannot).",
        Level::Unreliable => "The host moved this run's numbers as much as TLS does: no ranking or comparison with another run is made from it; measure again on a quieter machine.",
        Level::Unrecorded => "This file was written before the lab recorded the host's steal: nothing can be said of its conditions.",
    };
    Banner {
        level: c.level,
        title,
        reasons: c.reasons.iter().map(|r| r.to_string()).collect(),
        meaning,
    }
}

/// The conditions in a few words, for an exported chart's header: `conditions: noisy,
/// steal 3.1%`.
pub fn words(e: &Evidence) -> String {
    let c = conditions::of_run(e);
    match c.steal_percent {
        Some(s) => format!("conditions: {}, steal {s:.1}%", c.level),
        None => format!("conditions: {}", c.level),
    }
}

/// The banner in one line (exports, Markdown).
pub fn line(e: &Evidence) -> String {
    let b = banner(e);
    if b.reasons.is_empty() {
        b.title
    } else {
        format!("{}: {}", b.title, b.reasons.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::testdata::sample;

    #[test]
    fn the_banner_follows_the_shared_verdict() {
        let mut e = sample();
        e.environment.load_average.before = [0.0; 3];
        e.environment.steal_percent = [("cpu0".to_string(), 0.5)].into();
        let b = banner(&e);
        assert_eq!((b.level, b.class()), (Level::Quiet, "conditions quiet"));
        assert!(b.reasons.is_empty());
        e.environment.steal_percent = [("cpu0".to_string(), 16.0)].into();
        let b = banner(&e);
        assert_eq!(b.level, Level::Unreliable);
        assert_eq!(b.reasons.len(), 1);
        assert!(line(&e).contains(&b.reasons[0]));
        e.environment.steal_percent.clear();
        assert_eq!(banner(&e).level, Level::Unrecorded);
    }

    #[test]
    fn a_run_noisy_for_another_reason_than_steal_names_it_in_the_title() {
        let mut e = sample();
        e.environment.load_average.before = [0.0; 3];
        e.environment.steal_percent = [("cpu0".to_string(), 0.0)].into();
        assert_eq!(
            banner(&e).title,
            "Run conditions: quiet (steal 0.0% on the busiest CPU)"
        );
        // A load of 4 on the sample's CPUs: busy, whatever the steal.
        e.environment.load_average.before = [4.0; 3];
        let b = banner(&e);
        assert_ne!(b.level, Level::Quiet, "{b:?}");
        assert_eq!(
            b.title,
            format!(
                "Run conditions: {} (a busy host; steal 0.0% on the busiest CPU)",
                b.level
            )
        );
    }
}
