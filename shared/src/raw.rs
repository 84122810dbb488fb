//! One arm's raw samples on their own, as a site serves them beside a run's summary
//! (`results/raw/<run>/<arm index>.json.gz`, written by `cargo xtask site`): the CDF
//! fetches the arms it draws, not a whole evidence file. The samples are packed as in the
//! evidence ([`crate::packed`]); the arm's id says which arm of the summary they belong to.

use serde::{Deserialize, Serialize};

use crate::schema::Arm;

/// `{"arm": "<id>", "samples_us": "<packed>"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArmSamples {
    pub arm: String,
    #[serde(with = "crate::packed::samples")]
    pub samples_us: Vec<f64>,
}

impl ArmSamples {
    /// `arm`'s samples, to be written beside its run's summary.
    pub fn of(arm: &Arm) -> ArmSamples {
        ArmSamples {
            arm: arm.id.clone(),
            samples_us: arm.samples_us.clone(),
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("samples serialize")
    }

    /// The samples `text` holds for `arm` (an arm of a run's summary): refused, with the
    /// reason, when the text does not read, names another arm, holds another number of
    /// samples than the arm's successes, or a sample that is not a finite, non-negative
    /// number (the rules a whole file's samples obey).
    pub fn read(text: &str, arm: &Arm) -> Result<Vec<f64>, String> {
        let s: ArmSamples =
            // Through the evidence's own reader: its code is already in the page's wasm.
            crate::objects::from_str(text).map_err(|e| format!("not an arm's samples: {e}"))?;
        if s.arm != arm.id {
            // (The file's own id is not echoed: it is unchecked text of any length.)
            return Err(format!("the samples are of another arm than `{}`", arm.id));
        }
        if s.samples_us.len() as u64 != arm.succeeded {
            return Err(format!(
                "{} samples but {} succeeded connections",
                s.samples_us.len(),
                arm.succeeded
            ));
        }
        if let Some(j) = s
            .samples_us
            .iter()
            .position(|x| !(x.is_finite() && *x >= 0.0))
        {
            return Err(format!(
                "samples_us[{j}]: a sample must be a finite, non-negative number"
            ));
        }
        Ok(s.samples_us)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;

    #[test]
    fn an_arms_samples_come_back_exactly_and_only_for_that_arm() {
        let ev = sample::evidence();
        let arm = &ev.arms[1];
        assert!(arm.succeeded > 0);
        let text = ArmSamples::of(arm).to_json();
        // Packed, as in the evidence: a string, not an array.
        assert!(text.contains("\"samples_us\":\""), "{text}");
        assert_eq!(ArmSamples::read(&text, arm).unwrap(), arm.samples_us);
        let other = &ev.arms[0];
        assert_ne!(other.id, arm.id);
        let err = ArmSamples::read(&text, other).unwrap_err();
        assert_eq!(
            err,
            format!("the samples are of another arm than `{}`", other.id)
        );
    }

    #[test]
    fn a_wrong_count_a_bad_sample_or_foreign_json_is_refused_with_the_reason() {
        let ev = sample::evidence();
        let arm = &ev.arms[1];
        let short = ArmSamples {
            arm: arm.id.clone(),
            samples_us: arm.samples_us[1..].to_vec(),
        };
        assert_eq!(
            ArmSamples::read(&short.to_json(), arm).unwrap_err(),
            format!(
                "{} samples but {} succeeded connections",
                arm.succeeded - 1,
                arm.succeeded
            )
        );
        let mut bad = arm.samples_us.clone();
        bad[2] = -1.0;
        let text = format!(
            "{{\"arm\":{:?},\"samples_us\":{}}}",
            arm.id,
            serde_json::to_string(&bad).unwrap()
        );
        assert_eq!(
            ArmSamples::read(&text, arm).unwrap_err(),
            "samples_us[2]: a sample must be a finite, non-negative number"
        );
        let err = ArmSamples::read("{\"runs\":[]}", arm).unwrap_err();
        assert!(err.starts_with("not an arm's samples:"), "{err}");
    }
}
