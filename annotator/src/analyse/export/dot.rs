//! Graphviz DOT of the object graph: instances as nodes coloured by activity band (the
//! thesis's red/blue/green/black), one edge per sender→receiver pair with calls and time.

use std::io::Write;

use crate::analyse::analysis::Analysis;

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

/// Writes the graph (the `top` edges with most net time, if given); returns (edges written,
/// edges in the graph).
pub fn write(
    a: &Analysis,
    w: &mut impl Write,
    top: Option<usize>,
) -> std::io::Result<(usize, usize)> {
    // Edge positions (4 bytes each), in (sender, receiver) order; rows built when written.
    let mut edges: Vec<u32> = (0..a.edges.len() as u32).collect();
    let row = |i: &u32| a.edges.get(*i as usize).expect("edge position");
    if let Some(n) = top.filter(|&n| n < edges.len()) {
        edges.sort_by_cached_key(|i| {
            let e = row(i);
            (std::cmp::Reverse(e.net_time), e.sender, e.receiver)
        });
        edges.truncate(n);
        edges.sort_unstable();
    }
    let u = a.trace.unit.as_str();
    writeln!(w, "digraph revy {{")?;
    writeln!(
        w,
        "  graph [rankdir=LR, label=\"{}\", fontsize=10];",
        esc(&format!(
            "{}: total {} {u}",
            a.trace.path, a.totals.total_time
        ))
    )?;
    writeln!(w, "  node [shape=ellipse, fontsize=10];")?;
    writeln!(w, "  edge [fontsize=9];")?;
    let mut used = vec![false; a.instances.len()];
    for e in edges.iter().map(row) {
        used[e.sender as usize] = true;
        used[e.receiver as usize] = true;
    }
    let kept = (0..used.len() as u32).filter(|&i| used[i as usize]);
    for i in kept.filter_map(|i| a.instances.get(i)) {
        let c = i.band.colour();
        let label = format!(
            "{}\\n{} {u} ({:.1}%)",
            esc(&i.label),
            i.active_time,
            i.level * 100.0
        );
        writeln!(
            w,
            "  n{} [label=\"{label}\", color={c}, fontcolor={c}];",
            i.id
        )?;
    }
    for e in edges.iter().map(row) {
        let c = e.band.colour();
        writeln!(
            w,
            "  n{} -> n{} [label=\"calls={}\\ntime={} {u}\", color={c}];",
            e.sender, e.receiver, e.calls, e.aggregate_time
        )?;
    }
    writeln!(w, "}}")?;
    Ok((edges.len(), a.edges.len()))
}
