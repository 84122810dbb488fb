//! The hypervisor's share of the machine: `steal` in `/proc/stat`, the time a virtual
//! CPU wanted to run and the host ran something else. On an overcommitted host it is
//! what moves a run's numbers most from one run to the next (a waiting thread's vCPU must
//! be scheduled again by the host before the thread can wake), so the evidence records it
//! per round of every arm and per CPU for the run.

use std::collections::BTreeMap;

/// Ticks of one CPU line of `/proc/stat`: (steal, all states).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ticks {
    pub steal: u64,
    pub total: u64,
}

/// Every `cpu…` line of `/proc/stat` (`cpu` is the whole machine), or an empty map where
/// it cannot be read.
pub fn read() -> BTreeMap<String, Ticks> {
    parse(&std::fs::read_to_string("/proc/stat").unwrap_or_default())
}

/// The machine's line alone (`cpu`).
pub fn machine() -> Option<Ticks> {
    read().remove("cpu")
}

/// Parses `/proc/stat`: user nice system idle iowait irq softirq steal [guest guest_nice]
/// (guest time is already counted in user, so it is not added again).
pub fn parse(text: &str) -> BTreeMap<String, Ticks> {
    text.lines()
        .filter(|l| l.starts_with("cpu"))
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let name = it.next()?.to_string();
            let v: Vec<u64> = it.take(8).map(|x| x.parse().ok()).collect::<Option<_>>()?;
            (v.len() == 8).then(|| {
                (
                    name,
                    Ticks {
                        steal: v[7],
                        total: v.iter().sum(),
                    },
                )
            })
        })
        .collect()
}

/// Steal as a share of all time between two readings, in per cent (one decimal); None
/// when no time passed (the ticks are 1/100 s: a window shorter than a tick may show none).
pub fn percent(before: Ticks, after: Ticks) -> Option<f64> {
    let total = after.total.checked_sub(before.total)?;
    let steal = after.steal.checked_sub(before.steal)?;
    (total > 0).then(|| (steal as f64 * 1000.0 / total as f64).round() / 10.0)
}

/// Per CPU (`cpu0`, …), steal between two readings, in per cent.
pub fn per_cpu(
    before: &BTreeMap<String, Ticks>,
    after: &BTreeMap<String, Ticks>,
) -> BTreeMap<String, f64> {
    after
        .iter()
        .filter(|(name, _)| name.as_str() != "cpu")
        .filter_map(|(name, a)| Some((name.clone(), percent(*before.get(name)?, *a)?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT: &str = "cpu  100 0 50 800 0 0 0 50 7 0\ncpu0 60 0 20 400 0 0 0 20 7 0\ncpu1 40 0 30 400 0 0 0 30 0 0\nintr 1 2 3\n";

    #[test]
    fn reads_steal_and_the_sum_of_the_eight_states() {
        let t = parse(STAT);
        assert_eq!(t.len(), 3);
        assert_eq!(
            t["cpu"],
            Ticks {
                steal: 50,
                total: 1000
            }
        );
        assert_eq!(
            t["cpu0"],
            Ticks {
                steal: 20,
                total: 500
            }
        );
        assert_eq!(
            t["cpu1"],
            Ticks {
                steal: 30,
                total: 500
            }
        );
    }

    #[test]
    fn steal_share_between_two_readings() {
        let a = Ticks {
            steal: 10,
            total: 100,
        };
        let b = Ticks {
            steal: 25,
            total: 300,
        };
        // 15 of 200 ticks.
        assert_eq!(percent(a, b), Some(7.5));
        assert_eq!(percent(a, a), None);
        assert_eq!(percent(b, a), None);
        let before = parse(STAT);
        let after = parse("cpu0 60 0 20 480 0 0 0 40 7 0\ncpu1 40 0 30 500 0 0 0 30 0 0\n");
        // cpu0: 20 steal of 100; cpu1: 0 of 100.
        assert_eq!(
            per_cpu(&before, &after).into_iter().collect::<Vec<_>>(),
            [("cpu0".to_string(), 20.0), ("cpu1".to_string(), 0.0)]
        );
    }

    #[test]
    fn this_machine_has_a_reading() {
        let t = machine().expect("/proc/stat has a cpu line");
        assert!(t.total > 0 && t.steal <= t.total);
    }
}
