//! The loss view: handshake (or time-to-first-byte) p50 and p95 against the emulated
//! link's loss rate, a panel per RTT, shown only when the run has arms on a lossy link
//! (`collector run --rtt … --loss …`). A plain function that adds its chart to
//! [`super::views::run_views`]' one `<Chart>` loop, as every view there does: a component
//! of its own would compile another copy of yew's lifecycle code and chart markup.

use shared::Evidence;

use crate::charts::spec::ChartSpec;
use crate::data::filter::ArmFilter;
use crate::data::loss::loss_panels;

/// One chart of the run's views: (id, heading, what it shows, data).
pub type ViewChart = (&'static str, &'static str, &'static str, ChartSpec);

/// The loss chart, when the run has loss cells that pass `filter`.
pub fn loss_chart(ev: &Evidence, filter: &ArmFilter) -> Option<ViewChart> {
    let panels = loss_panels(ev, filter);
    if panels.is_empty() {
        return None;
    }
    // Over an emulated link the window ends at the first response byte unless the run
    // asked for handshakes only: the heading says which.
    let ttfb = ev.arms.iter().any(|a| a.rtt_ms.is_some() && a.ttfb);
    let title = if ttfb {
        "Time to first byte against loss, a panel per RTT"
    } else {
        "Handshake time against loss, a panel per RTT"
    };
    Some((
        "loss",
        title,
        "p50 (solid) and p95 (dashed) per arm kind (group or certificate) against the emulated link's loss rate, one panel per RTT, on one log time axis",
        ChartSpec::Loss(panels),
    ))
}
