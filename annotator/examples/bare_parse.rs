//! Baseline for the parse benchmark: reads the given files and parses each with bare
//! tree-sitter (no model extraction), on all cores like `revy parse`.
//! Usage: bare_parse FILE_LIST   (one path per line)

use rayon::prelude::*;

fn main() {
    let list = std::env::args()
        .nth(1)
        .expect("usage: bare_parse FILE_LIST");
    let files: Vec<String> = std::fs::read_to_string(list)
        .expect("file list")
        .lines()
        .map(String::from)
        .collect();
    let started = std::time::Instant::now();
    let nodes: usize = files
        .par_iter()
        .map(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            let lang: tree_sitter::Language = if f.ends_with(".java") {
                tree_sitter_java::LANGUAGE.into()
            } else {
                tree_sitter_cpp::LANGUAGE.into()
            };
            let mut p = tree_sitter::Parser::new();
            p.set_language(&lang).unwrap();
            let tree = p.parse(&text, None).unwrap();
            tree.root_node().child_count()
        })
        .sum();
    println!(
        "bare tree-sitter parse: {} files in {:.3}s ({nodes} top-level nodes)",
        files.len(),
        started.elapsed().as_secs_f64()
    );
}
