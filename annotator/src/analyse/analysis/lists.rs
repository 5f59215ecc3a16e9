//! The JSON's instance and edge lists at real sizes. A whole run of a C++ library's suite
//! has 17 M instances, and listing each one made `revy analyze --format json` 9 GB. Past
//! `detail_cap` rows the JSON lists the most active instances (by active time) and edges
//! (by aggregate time), and every instance another part of the JSON names, so each id in it
//! still resolves; `lists` says what was left out. Every statistic and the text cover all
//! rows; `revy export --parquet` writes every row.

use std::cmp::Ordering;

use serde::Serialize;

use super::{Analysis, TopRows};

/// What the JSON's `instances` and `edges` hold.
#[derive(Debug, Clone, Serialize)]
pub struct Lists {
    /// `detail_cap`: past this many rows a list keeps the most active ones.
    pub cap: usize,
    pub instances: Listed,
    pub edges: Listed,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Listed {
    pub total: u64,
    pub listed: u64,
    /// Every row is listed (instances then are indexed by id).
    pub complete: bool,
}

impl Listed {
    fn of(total: usize, listed: usize) -> Listed {
        Listed {
            total: total as u64,
            listed: listed as u64,
            complete: listed == total,
        }
    }
}

impl Lists {
    /// Both lists whole.
    pub(super) fn whole(cap: usize, instances: usize, edges: usize) -> Lists {
        Lists {
            cap,
            instances: Listed::of(instances, instances),
            edges: Listed::of(edges, edges),
        }
    }
}

/// More active first, then by id: the same rows in every run. Candidates are kept as
/// (active time, id), 16 bytes each: the heap holds `detail_cap` of them.
fn instance_first(x: &(u64, u32), y: &(u64, u32)) -> Ordering {
    (y.0.cmp(&x.0)).then(x.1.cmp(&y.1))
}

impl Analysis {
    /// Cuts the JSON's instance and edge lists to `options.detail_cap` rows (plus the
    /// instances the rest of the JSON names) when they are longer; what `revy analyze
    /// --format json` writes. The statistics and the text are not affected.
    pub fn cut_lists(&mut self) {
        let cap = self.options.detail_cap;
        if self.edges.len() > cap {
            self.edges.list_heaviest(cap);
        }
        if self.instances.len() > cap {
            let mut top = TopRows::new(cap, instance_first);
            for r in self.instances.rows() {
                top.offer(&(r.active_time, r.id));
            }
            let mut ids: Vec<u32> = top.into_sorted().iter().map(|r| r.1).collect();
            self.named_instances(&mut ids);
            self.instances.list_only(ids);
        }
        self.lists = Lists {
            cap,
            instances: Listed::of(self.instances.len(), self.instances.listed()),
            edges: Listed::of(self.edges.len(), self.edges.listed()),
        };
    }

    /// Every instance the JSON names outside its instance list: threads' roots, listed
    /// edges' and messages' ends, hints' subjects.
    fn named_instances(&self, ids: &mut Vec<u32>) {
        ids.extend(self.threads.iter().map(|t| t.root));
        self.edges
            .for_each_listed(|e| ids.extend([e.sender, e.receiver]));
        for m in &self.messages.list {
            ids.extend([m.sender, m.receiver]);
            ids.extend(m.heaviest_callee.as_ref().map(|c| c.receiver));
        }
        ids.extend(self.hints.iter().filter_map(|h| h.instance));
    }
}
