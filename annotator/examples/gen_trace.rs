//! Synthetic trace generator for benchmarks:
//! `cargo run --release --example gen_trace -- --events 10000000 --instances 10000 --threads 8 --form compact -o t.rvt`

use std::io::BufWriter;

use revy::analyse::trace::synth::{generate, Spec};
use revy::analyse::trace::Form;

fn main() {
    let mut spec = Spec::default();
    let mut form = Form::Compact;
    let mut out: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || {
            args.next()
                .unwrap_or_else(|| usage(&format!("{a} needs a value")))
        };
        let num = |v: String| {
            v.replace('_', "")
                .parse::<u64>()
                .unwrap_or_else(|_| usage(&format!("bad number {v}")))
        };
        match a.as_str() {
            "--events" => spec.events = num(val()),
            "--instances" => spec.instances = num(val()),
            "--threads" => spec.threads = num(val()).max(1),
            "--classes" => spec.classes = num(val()).max(1),
            "--seed" => spec.seed = num(val()),
            "--fanout" => spec.fanout = num(val()),
            "--form" => {
                form = match val().as_str() {
                    "text" => Form::Text,
                    "compact" => Form::Compact,
                    f => usage(&format!("unknown form {f}")),
                }
            }
            "-o" | "--output" => out = Some(val()),
            "-h" | "--help" => {
                println!("{USAGE}");
                return;
            }
            _ => usage(&format!("unknown argument {a}")),
        }
    }
    let path = out.unwrap_or_else(|| usage("-o FILE is required"));
    let file = std::fs::File::create(&path).unwrap_or_else(|e| usage(&format!("{path}: {e}")));
    let n = generate(&spec, form, BufWriter::with_capacity(1 << 20, file)).expect("write trace");
    eprintln!("wrote {n} events to {path}");
}

const USAGE: &str = "usage: gen_trace --events N [--instances N] [--threads N] [--classes N] \
[--seed N] [--fanout N] [--form compact|text] -o FILE\n\
Writes a synthetic trace of N events (default form: compact) for benchmarks and tests.";

fn usage(msg: &str) -> ! {
    eprintln!("gen_trace: {msg}\n{USAGE}");
    std::process::exit(2)
}
