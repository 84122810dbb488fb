//! The loss view: handshake (or time-to-first-byte) p50 and p95 against the emulated
//! link's loss rate, a panel per RTT, shown only when the run has arms on a lossy link
//! (`collector run --rtt … --loss …`). A plain function that adds its chart to
//! [`super::views::run_views`]' one `<Chart>` loop, as every view there does: a component
//! of its own would compile another copy of yew's lifecycle code and chart markup.

use shared::Evidence;

use crate::charts::spec::ChartSpec;
use crate::data::filter::ArmFilter;
use crate::data::loss::{loss_panels, panels as panels_of, LossView};

/// One chart of the run's views: (id, heading, what it shows, data).
pub type ViewChart = (&'static str, &'static str, &'static str, ChartSpec);

/// The loss charts, when the run has loss cells that pass `filter`: the cells'
/// percentiles, then (when the collector split them) their two populations' medians.
pub fn loss_charts(ev: &Evidence, filter: &ArmFilter) -> Vec<ViewChart> {
    let panels = loss_panels(ev, filter);
    if panels.is_empty() {
        return Vec::new();
    }
    // Over an emulated link the window ends at the first response byte unless the run
    // asked for handshakes only: the heading says which.
    let ttfb = ev.arms.iter().any(|a| a.rtt_ms.is_some() && a.ttfb);
    let title = if ttfb {
        "Time to first byte against loss, a panel per RTT"
    } else {
        "Handshake time against loss, a panel per RTT"
    };
    let mut charts = vec![(
        "loss",
        title,
        "p50 (solid) and p95 (dashed) per arm kind (group or certificate) against the emulated link's loss rate, one panel per RTT, on one log time axis",
        ChartSpec::Loss(panels, LossView::Percentiles),
    )];
    let split = panels_of(ev, filter, LossView::Populations);
    if !split.is_empty() {
        charts.push((
            "loss-populations",
            "Connections that lost nothing, and the others: a lossy cell's p50 is a mix of the two, and lands wherever their shares put it — often at a time few connections took",
            "per arm kind and loss rate, the median of the connections of which the link dropped nothing (solid) and of those it dropped something from (dashed). A lossy cell mixes the two, and its p50 lands wherever the mix puts it — at a few per cent loss, often a time almost no connection took; each population's share and its ratio to the 0% control (measured in the same rounds) are in the findings",
            ChartSpec::Loss(split, LossView::Populations),
        ));
    }
    charts
}
