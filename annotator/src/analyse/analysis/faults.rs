//! Page faults per method (issue 11): the C++ runtime counts each long call's minor faults
//! (`F` records) and measures one fault's cost at start-up (`fault_ns=`). A method that spends
//! a good share of its time faulting is told so: the allocator returns memory to the OS
//! between its allocations, which no change of threads fixes by itself (the replay's model of
//! where the faults go is in docs/analysis.md, "What-if replay").

use std::collections::BTreeMap;

use super::hints::{Hint, HintKind};
use super::Analysis;
use crate::analyse::trace::agg::FaultAgg;
use crate::analyse::trace::Unit;

/// A method is told about its faults from this share of its net time...
const SHARE: f64 = 0.10;
/// ...when they are also this share of the run.
const RUN_SHARE: f64 = 0.01;

/// Fault time per method: (net fault time in trace units, share of the method's net time).
pub fn per_method(a: &Analysis, faults: &[FaultAgg], fault_ns: f64) -> BTreeMap<u32, (f64, f64)> {
    let mut sums: BTreeMap<u32, (u64, u64)> = BTreeMap::new();
    for f in faults {
        let e = sums.entry(f.method).or_default();
        e.0 = e.0.saturating_add(f.calls);
        e.1 = e.1.saturating_add(f.faults);
    }
    let per_unit = Unit::Ns.micros() / a.trace.unit.micros();
    let mut out = BTreeMap::new();
    for (m, (calls, n)) in sums {
        let Some(ms) = a.methods.get(m as usize) else {
            continue;
        };
        if calls == 0 || ms.net_time.total == 0 {
            continue;
        }
        // Measured calls stand for all of the method's calls.
        let time = n as f64 / calls as f64 * ms.calls as f64 * fault_ns * per_unit;
        out.insert(m, (time, (time / ms.net_time.total as f64).min(1.0)));
    }
    out
}

/// Observations for the methods whose faults are a large share of their time and of the run.
pub fn hints(a: &Analysis, faults: &[FaultAgg], fault_ns: Option<f64>) -> Vec<Hint> {
    let Some(fault_ns) = fault_ns.filter(|f| *f > 0.0) else {
        return Vec::new();
    };
    let total = a.totals.total_time.max(1) as f64;
    let mut rows: Vec<(u32, f64, f64)> = per_method(a, faults, fault_ns)
        .into_iter()
        .filter(|(_, (t, share))| *share >= SHARE && *t / total >= RUN_SHARE)
        .map(|(m, (t, s))| (m, t, s))
        .collect();
    rows.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    rows.into_iter()
        .map(|(m, time, share)| {
            let ms = &a.methods[m as usize];
            let name = format!("{}.{}", ms.class, ms.method);
            let reason = format!(
                "spends {:.0}% of its time in minor page faults ({:.1}% of the run, at {:.0} ns a fault): the allocator hands memory back to the OS between its allocations and takes it again; reuse its buffers, or raise the allocator's trim threshold (glibc: M_TRIM_THRESHOLD / GLIBC_TUNABLES=glibc.malloc.trim_threshold)",
                share * 100.0,
                time / total * 100.0,
                fault_ns
            );
            let mut h = Hint::new(
                HintKind::PageFaults,
                name,
                reason,
                &[
                    ("fault_share", share),
                    ("fault_time", time),
                    ("level", time / total),
                ],
            );
            h.class = Some(ms.class.clone());
            h.method = Some(m);
            h
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::super::{analyze_path, Options};
    use super::HintKind;

    /// main (1 ms) calls W#2.write ten times, 50 µs each; the runtime counted 100 faults over
    /// the ten calls: at `fault_ns` 1000, 10 µs of each call (20 %), 10 % of the run.
    fn trace(fault_ns: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::Builder::new().suffix(".dtf").tempfile().unwrap();
        writeln!(f, "##### revy-trace 1 unit=ns lang=cpp pid=1{fault_ns}").unwrap();
        writeln!(f, "<Msg cls=Main oid=1 mth=main sgn=!! size=0 tid=1 t=0>").unwrap();
        for i in 0..10u64 {
            let t = 1000 + i * 60_000;
            writeln!(f, "<Msg cls=W oid=2 mth=write sgn=!! size=8 tid=1 t={t}>").unwrap();
            writeln!(
                f,
                "</Msg cls=W oid=2 mth=write sgn=!! tid=1 t={}>",
                t + 50_000
            )
            .unwrap();
        }
        writeln!(f, "</Msg cls=Main oid=1 mth=main sgn=!! tid=1 t=1000000>").unwrap();
        writeln!(
            f,
            "##### faults tid=1 cls=W mth=write sgn=!! oid=2 calls=10 faults=100"
        )
        .unwrap();
        writeln!(f, "##### end events=22").unwrap();
        f.flush().unwrap();
        f
    }

    #[test]
    fn a_method_spending_its_time_in_page_faults_is_told_so() {
        let opts = Options {
            proposals: false,
            ..Options::default()
        };
        let f = trace(" fault_ns=1000");
        let a = analyze_path(f.path(), &opts).unwrap();
        let h: Vec<_> = a
            .hints
            .iter()
            .filter(|h| h.kind == HintKind::PageFaults)
            .collect();
        assert_eq!(h.len(), 1, "{:?}", a.hints);
        assert_eq!(h[0].subject, "W.write");
        assert!(
            (h[0].numbers["fault_share"] - 0.2).abs() < 1e-9,
            "{:?}",
            h[0]
        );
        assert!((h[0].numbers["level"] - 0.1).abs() < 1e-9, "{:?}", h[0]);
        assert!(h[0].text.contains("20% of its time"), "{}", h[0].text);
        // Without the header's fault cost the faults cannot be timed: nothing is said.
        let f = trace("");
        let a = analyze_path(f.path(), &opts).unwrap();
        assert!(a.hints.iter().all(|h| h.kind != HintKind::PageFaults));
    }
}
