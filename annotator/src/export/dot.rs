//! Graphviz DOT of the object graph: instances as nodes coloured by activity band (the
//! thesis's red/blue/green/black), one edge per sender→receiver pair with calls and time.

use std::io::Write;

use crate::analysis::Analysis;

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
    let mut edges: Vec<_> = a.edges.iter().collect();
    if let Some(n) = top.filter(|&n| n < edges.len()) {
        edges.sort_by_key(|e| (std::cmp::Reverse(e.net_time), e.sender, e.receiver));
        edges.truncate(n);
        edges.sort_by_key(|e| (e.sender, e.receiver));
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
    for e in &edges {
        used[e.sender as usize] = true;
        used[e.receiver as usize] = true;
    }
    for i in a.instances.iter().filter(|i| used[i.id as usize]) {
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
    for e in &edges {
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
