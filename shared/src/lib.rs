//! # Handshake Lab evidence
//!
//! The one definition of the evidence a collector run writes and the viewer reads:
//! serde types ([`schema`]), the schema version, and validation ([`Evidence::from_json`]).
//! A JSON Schema of the same types is available through [`json_schema`].

mod arm_conditions;
pub mod cluster;
pub mod conditions;
mod history;
mod ids;
mod index;
pub mod instructions;
pub mod json;
pub mod link;
pub mod link_check;
pub mod loss;
pub mod noise;
pub mod objects;
pub mod open_loop;
pub mod order;
pub mod packed;
pub mod placement;
pub mod probe;
mod raw;
pub mod schema;
pub mod search;
pub mod setup;
mod summary;
mod validate;
pub mod verdict;
pub mod wire;

#[cfg(feature = "testing")]
pub mod doc_commands;
#[cfg(feature = "sample")]
pub mod sample;
#[cfg(feature = "testing")]
pub mod testing;

pub use conditions::{ArmConditions, Conditions, Level};
pub use history::{ArmKey, BriefArm, History, HistoryBuilder, RunBrief};
pub use ids::{ArmsById, FirstIndex};
pub use index::{IndexEntry, ResultsIndex};
pub use instructions::{
    BuildProfile, CountOutcome, CountScope, Counted, CountingPhase, EndCount, InstructionCounting,
    Instructions, ResumeRatio,
};
pub use link::{Link, LinkCounts, TcpCounters};
pub use loss::{LossEffect, PairedRatio, Population, Populations};
pub use noise::{ArmChunks, Chunk, ChunkOutcome, NoiseSettings, SpeedProbe};
pub use open_loop::{Lateness, OpenLoop};
pub use placement::{ArmPlacement, RunPlacement, Tracing};
pub use probe::{Capability, CertVerification, CertificateTrust, ServerProbe};
pub use raw::ArmSamples;
pub use schema::*;
pub use setup::{Affects, Setup, SetupDifference};
pub use validate::{
    ArmKind, EvidenceError, Violation, MAX_HOST_NAME, MAX_ID, MAX_RATE_PER_S, MAX_RATIO,
    MAX_RTT_MS, MAX_SECONDS, MAX_TIME, MAX_US, MAX_VERSION,
};
pub use verdict::{is_regression, Verdict};
pub use wire::{FlightSizes, Wire};

/// The JSON Schema (draft 2020-12) of [`Evidence`], generated from the types.
pub fn json_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(Evidence)).expect("a schema is JSON")
}
