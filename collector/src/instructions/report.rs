//! The counting phase's block in the run's summary: instructions per handshake per arm
//! and end, the resume ratios in instructions, and how long the phase took.

use std::fmt::Write;

use shared::{Arm, CountOutcome, CountScope, Evidence, InstructionCounting, Mode, ResumeRatio};

/// `1234567` as `1,234,567`.
pub fn thousands(v: f64) -> String {
    let digits = format!("{:.0}", v.max(0.0));
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The block (empty where the run has no counting phase).
pub fn summary(e: &Evidence) -> String {
    let mut out = String::new();
    let phase = match &e.run.settings.instructions {
        None | Some(InstructionCounting::Off) => return out,
        Some(InstructionCounting::Skipped { reason }) => {
            let _ = writeln!(out, "\nInstructions per handshake: not counted ({reason}).");
            return out;
        }
        Some(InstructionCounting::On(p)) => p,
    };
    if phase.arms == 0 {
        let _ = writeln!(
            out,
            "\nInstructions per handshake, user space, peer servers only ({}; {} counted after {} warm-up per arm):",
            phase.tool, phase.handshakes_per_arm, phase.warmup_per_arm,
        );
    } else {
        let _ = writeln!(
            out,
            "\nInstructions per handshake, user space, each end in its own process ({}, {} build; {} counted after {} warm-up per arm and end; counting took {:.1} s):",
            phase.tool,
            phase.build_profile.as_str(),
            phase.handshakes_per_arm,
            phase.warmup_per_arm,
            phase.wall_s
        );
    }
    let counted: Vec<&Arm> = e.arms.iter().filter(|a| a.instructions.is_some()).collect();
    if counted
        .iter()
        .any(|a| a.instructions.as_ref().map(|i| i.scope) == Some(CountScope::WholeProcess))
    {
        let _ = writeln!(
            out,
            "  (peer servers, client `-`: the server's whole process over the handshakes and their requests, less its idle rate; not comparable with a rustls end's window)"
        );
    }
    let w = counted.iter().map(|a| a.id.len()).max().unwrap_or(3).max(3);
    let _ = writeln!(
        out,
        "  {:w$}  {:>13}  {:>13}  {:>13}",
        "arm", "client", "server", "both"
    );
    for a in &counted {
        let Some(ins) = &a.instructions else { continue };
        match &ins.outcome {
            CountOutcome::Counted(c) => {
                let client = c.client.map_or("-".into(), |e| thousands(e.per_handshake));
                let both = c.both_per_handshake().map_or("-".into(), thousands);
                let _ = writeln!(
                    out,
                    "  {:w$}  {client:>13}  {:>13}  {both:>13}",
                    a.id,
                    thousands(c.server.per_handshake)
                );
            }
            CountOutcome::Failed { error } => {
                let _ = writeln!(out, "  {:w$}  not counted: {error}", a.id);
            }
        }
    }
    let ratios = resume_ratios(&counted);
    if !ratios.is_empty() {
        let _ = writeln!(
            out,
            "\nResume ratio in instructions, full / resumed (client, server, both ends):"
        );
        for (id, r) in ratios {
            let x = |v: Option<f64>| v.map_or("-".into(), |v| format!("{v:.2}x"));
            let _ = writeln!(
                out,
                "  {id:w$}  {:>8}  {:>8}  {:>8}",
                x(r.client),
                x(Some(r.server)),
                x(r.both)
            );
        }
    }
    out
}

/// Each counted resumed arm with the ratio against the full arm of its cell.
fn resume_ratios<'a>(counted: &[&'a Arm]) -> Vec<(&'a str, ResumeRatio)> {
    counted
        .iter()
        .filter(|a| a.mode == Mode::Resumed)
        .filter_map(|r| {
            let full = counted
                .iter()
                .find(|f| f.mode == Mode::Full && crate::evidence::same_cell(f, r))?;
            let ratio = ResumeRatio::of(full.instructions.as_ref()?, r.instructions.as_ref()?)?;
            Some((r.id.as_str(), ratio))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::thousands;

    #[test]
    fn counts_are_grouped_in_thousands() {
        assert_eq!(thousands(0.0), "0");
        assert_eq!(thousands(999.4), "999");
        assert_eq!(thousands(1000.0), "1,000");
        assert_eq!(thousands(1234567.0), "1,234,567");
    }
}
