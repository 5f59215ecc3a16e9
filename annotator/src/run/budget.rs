//! The runtimes' budget counters left in the trace folder (annotator/trace/FORMAT.md, "The run's
//! budget"): an annotated program run outside `revy run` shares `max_size` with the other
//! processes of its shell command line through `.revy-run-<pgid>-<leader start>.budget`,
//! which no process can know to be the last user of. Revy removes those whose process group
//! is gone (or whose group id now belongs to a later group), so they do not pile up, one per
//! command line, and a reused group id does not inherit a spent budget.

use std::collections::HashMap;
use std::path::Path;

/// The (process group, leader start time) a counter's file name gives, if it is one.
fn key(name: &str) -> Option<(u64, u64)> {
    let rest = name.strip_prefix(".revy-run-")?.strip_suffix(".budget")?;
    let (pgid, start) = rest.split_once('-')?;
    Some((pgid.parse().ok()?, start.parse().ok()?))
}

/// `/proc/PID/stat`'s process group (field 5) and start time (field 22); the command name
/// before them, in parentheses, may hold spaces and parentheses.
fn stat_fields(stat: &str) -> Option<(u64, u64)> {
    let after = &stat[stat.rfind(')')? + 1..];
    let f: Vec<&str> = after.split_whitespace().collect();
    // After the name: state (3), ppid (4), pgrp (5), ... starttime (22).
    Some((f.get(2)?.parse().ok()?, f.get(19)?.parse().ok()?))
}

/// Every live process group, with its leader's start time when the leader is alive.
fn live_groups() -> Option<HashMap<u64, Option<u64>>> {
    let mut groups = HashMap::new();
    let mut starts = HashMap::new();
    for e in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u64>().ok()) else {
            continue;
        };
        // A process may exit between the listing and the read: skipped.
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            continue;
        };
        if let Some((pgrp, start)) = stat_fields(&stat) {
            groups.insert(pgrp, None);
            starts.insert(pid, start);
        }
    }
    for (g, leader) in groups.iter_mut() {
        *leader = starts.get(g).copied();
    }
    Some(groups)
}

/// Whether the counter of group `pgid` (leader started at `start`, 0: gone when it was made)
/// may still be in use.
fn in_use(groups: &HashMap<u64, Option<u64>>, pgid: u64, start: u64) -> bool {
    match groups.get(&pgid) {
        None => false,
        // A leader started at another time (or alive where the file says it was gone): the
        // group id was reused by a later group.
        Some(Some(now)) => *now == start,
        // The leader is gone, members still run.
        Some(None) => true,
    }
}

/// Removes the stale counters in `dir`; returns how many. Best effort: without `/proc` (not
/// Linux) nothing is known to be stale and nothing is removed; a file that cannot be removed
/// stays.
pub fn prune_stale(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let stale: Vec<(std::path::PathBuf, u64, u64)> = entries
        .flatten()
        .filter_map(|e| {
            let (pgid, start) = key(e.file_name().to_str()?)?;
            e.file_type()
                .ok()?
                .is_file()
                .then(|| (e.path(), pgid, start))
        })
        .collect();
    if stale.is_empty() {
        return 0;
    }
    let Some(groups) = live_groups() else {
        return 0;
    };
    stale
        .into_iter()
        .filter(|(_, g, s)| !in_use(&groups, *g, *s))
        .filter(|(p, _, _)| std::fs::remove_file(p).is_ok())
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_stat_lines_are_read_strictly() {
        assert_eq!(key(".revy-run-123-4567.budget"), Some((123, 4567)));
        assert_eq!(key(".revy-run-123-0.budget"), Some((123, 0)));
        // `revy run`'s own (random names, removed by it) and anything else: not ours to judge.
        assert_eq!(key(".revy-run-a8Xk2q.budget"), None);
        assert_eq!(key(".revy-run-1-2-3.budget"), None);
        assert_eq!(key("run.budget"), None);
        let stat = "42 (a (b) c) S 1 40 40 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987 0";
        assert_eq!(stat_fields(stat), Some((40, 987)));
    }

    #[test]
    fn a_group_is_alive_while_a_member_runs_and_its_leader_is_the_one_named() {
        let groups = HashMap::from([(10, Some(500)), (11, None)]);
        assert!(in_use(&groups, 10, 500));
        assert!(!in_use(&groups, 10, 499), "group id reused");
        assert!(
            !in_use(&groups, 10, 0),
            "made after an earlier leader exited"
        );
        assert!(in_use(&groups, 11, 7), "leader gone, members running");
        assert!(!in_use(&groups, 12, 7), "no member left");
    }
}
