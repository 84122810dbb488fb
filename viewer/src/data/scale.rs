//! The reader's choice of value axis: a setting of the page (and of its links); what it
//! means on an axis is the charts' business ([`crate::charts::Axis`]).

/// Linear or logarithmic value axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scale {
    Log,
    /// The default: bar lengths are proportional to their values (from zero).
    #[default]
    Linear,
}
