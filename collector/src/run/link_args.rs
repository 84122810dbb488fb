//! `--link` and `--loss`: the emulated link's settings and the loss grid, parsed when
//! the command line is, and combined with `--rtt` into the links a run measures.

use std::time::Duration;

use crate::netem::link::{percent, LinkSpec};

/// `--link "rtt=5.6ms,loss=3%,rate=1000mbit,limit=1000"`: the settings, and whether the
/// text named the RTT and the loss (which `--rtt` and `--loss` must then not repeat).
#[derive(Debug, Clone, PartialEq)]
pub struct LinkArg {
    pub text: String,
    pub spec: LinkSpec,
    names_rtt: bool,
    names_loss: bool,
}

impl LinkArg {
    pub fn parse(text: &str) -> Result<LinkArg, String> {
        let names = |key: &str| {
            text.split(',')
                .any(|p| p.split_once('=').is_some_and(|(k, _)| k.trim() == key))
        };
        Ok(LinkArg {
            text: text.to_string(),
            spec: LinkSpec::parse(text)?,
            names_rtt: names("rtt"),
            names_loss: names("loss"),
        })
    }
}

/// `--loss 0%,1%,3%` (or fractions, `0,0.01`): loss rates, each below 100%.
#[derive(Debug, Clone, PartialEq)]
pub struct LossList {
    pub text: String,
    pub losses: Vec<f64>,
}

impl LossList {
    pub fn parse(text: &str) -> Result<LossList, String> {
        let losses = text
            .split(',')
            .map(|v| percent(v.trim()))
            .collect::<Result<_, _>>()?;
        Ok(LossList {
            text: text.to_string(),
            losses,
        })
    }
}

/// The links of an emulated run, one arm set each, in the order they run (RTT by RTT,
/// each at every loss rate), and how the run names them.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkGrid {
    pub links: Vec<LinkSpec>,
    /// Arm ids carry the loss (`-loss3pct`): a loss grid was asked, or some loss.
    pub label_loss: bool,
    /// What was asked, for the evidence: `--link …`, `--loss …` as given.
    pub text: String,
    /// A 0% cell was added at each RTT, as the lossy cells' control (none was asked).
    pub control_added: bool,
}

impl LinkGrid {
    /// Every `rtts` × `loss` combination on `link`'s other settings; None when no flag
    /// asks for an emulated link. An error (a usage error: exit 2) when a flag repeats
    /// what `--link` says, or a loss grid meets a burst length it cannot have.
    pub fn of(
        rtts: Option<&[Duration]>,
        loss: Option<&LossList>,
        link: Option<&LinkArg>,
    ) -> Result<Option<LinkGrid>, String> {
        if rtts.is_none() && loss.is_none() && link.is_none() {
            return Ok(None);
        }
        if let Some(l) = link {
            if l.names_rtt && rtts.is_some() {
                return Err("the RTT is given twice: by --rtt and by rtt= in --link".into());
            }
            if l.names_loss && loss.is_some() {
                return Err("the loss is given twice: by --loss and by loss= in --link".into());
            }
        }
        let base = link.map_or(LinkSpec::delay(Duration::ZERO), |l| l.spec);
        let rtts = rtts.map_or(vec![base.rtt], <[Duration]>::to_vec);
        let mut losses = loss.map_or(vec![base.loss], |l| l.losses.clone());
        // Every lossy cell is compared with a cell of its RTT that loses nothing,
        // measured in the same rounds: there is always one.
        let control_added = losses.iter().any(|&l| l > 0.0) && !losses.contains(&0.0);
        if control_added {
            losses.insert(0, 0.0);
        }
        let mut links = Vec::new();
        for &rtt in &rtts {
            for &loss in &losses {
                let spec = LinkSpec { rtt, loss, ..base };
                spec.check()
                    .map_err(|e| format!("--loss with --link: {e}"))?;
                links.push(spec);
            }
        }
        let text = [
            link.map(|l| format!("--link {}", l.text)),
            loss.map(|l| format!("--loss {}", l.text)),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" ");
        Ok(Some(LinkGrid {
            label_loss: loss.is_some() || base.loss > 0.0,
            links,
            text,
            control_added,
        }))
    }

    /// The suffix of an arm's id on `link`: `-rtt20ms`, or `-loss3pct-rtt20ms` (the RTT
    /// last, so the same arm at every RTT of one loss reads as one line).
    pub fn suffix(&self, link: &LinkSpec) -> String {
        crate::measure::rtt::suffix(link, self.label_loss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn rtts_and_losses_make_every_combination_rtt_by_rtt() {
        let loss = LossList::parse("0%,1%,3%").unwrap();
        let link = LinkArg::parse("rate=100mbit,limit=50").unwrap();
        let g = LinkGrid::of(Some(&[ms(5), ms(50)]), Some(&loss), Some(&link))
            .unwrap()
            .unwrap();
        let cells = |g: &LinkGrid| -> Vec<(Duration, f64)> {
            g.links.iter().map(|l| (l.rtt, l.loss)).collect()
        };
        assert_eq!(
            cells(&g),
            [
                (ms(5), 0.0),
                (ms(5), 0.01),
                (ms(5), 0.03),
                (ms(50), 0.0),
                (ms(50), 0.01),
                (ms(50), 0.03)
            ]
        );
        assert!(g
            .links
            .iter()
            .all(|l| l.rate_bps == Some(100_000_000) && l.limit == 50));
        assert_eq!(g.suffix(&g.links[2]), "-loss3pct-rtt5ms");
        assert_eq!(g.text, "--link rate=100mbit,limit=50 --loss 0%,1%,3%");
        assert!(!g.control_added, "0% was asked");
        // Without 0% asked, each RTT gets a 0% cell first.
        let loss = LossList::parse("3%,10%").unwrap();
        let g = LinkGrid::of(Some(&[ms(5), ms(50)]), Some(&loss), None)
            .unwrap()
            .unwrap();
        assert_eq!(
            cells(&g),
            [
                (ms(5), 0.0),
                (ms(5), 0.03),
                (ms(5), 0.1),
                (ms(50), 0.0),
                (ms(50), 0.03),
                (ms(50), 0.1)
            ]
        );
        assert!(g.control_added);
    }

    #[test]
    fn rtt_alone_keeps_the_old_ids_and_link_alone_is_one_link() {
        let g = LinkGrid::of(Some(&[ms(20)]), None, None).unwrap().unwrap();
        assert_eq!(g.links, [LinkSpec::delay(ms(20))]);
        assert_eq!(g.suffix(&g.links[0]), "-rtt20ms");
        assert!(!g.control_added);
        let link = LinkArg::parse("rtt=10ms,loss=30%").unwrap();
        let g = LinkGrid::of(None, None, Some(&link)).unwrap().unwrap();
        // A lossy link gets its control: the same link losing nothing.
        assert_eq!(g.links.len(), 2);
        assert!(g.control_added);
        assert_eq!(g.suffix(&g.links[0]), "-loss0pct-rtt10ms");
        assert_eq!(g.suffix(&g.links[1]), "-loss30pct-rtt10ms");
        assert_eq!(LinkGrid::of(None, None, None), Ok(None));
    }

    #[test]
    fn a_setting_given_twice_or_an_impossible_burst_is_refused() {
        let link = LinkArg::parse("rtt=10ms").unwrap();
        let e = LinkGrid::of(Some(&[ms(20)]), None, Some(&link)).unwrap_err();
        assert!(e.contains("RTT is given twice"), "{e}");
        let link = LinkArg::parse("loss=1%").unwrap();
        let loss = LossList::parse("3%").unwrap();
        let e = LinkGrid::of(None, Some(&loss), Some(&link)).unwrap_err();
        assert!(e.contains("loss is given twice"), "{e}");
        let link = LinkArg::parse("burst=1").unwrap();
        let loss = LossList::parse("10%,60%").unwrap();
        let e = LinkGrid::of(None, Some(&loss), Some(&link)).unwrap_err();
        assert!(e.contains("cannot have a mean burst"), "{e}");
        assert!(LossList::parse("1%,x")
            .unwrap_err()
            .contains("not a loss rate"));
    }
}
