//! What the runtimes count instead of recording (FORMAT.md, "Aggregates"): calls
//! past `max_size` and calls of throttled methods, per thread, per method and per
//! sender→receiver edge, plus the moments methods were throttled, and objects created and
//! destroyed past `max_size`, per class. Read from the compact `A`, `X` and `O` records and
//! the text form's `##### aggregate…` / `##### throttled` lines.

use std::fmt::Write as _;

use serde::Serialize;

use super::Names;

/// An oid the runtime folded into its class (its per-thread edge table was full).
pub const FOLDED: u64 = u64::MAX;

/// One thread's totals of what it did not record.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct ThreadAgg {
    pub tid: u64,
    /// The thread's last probe time (its span reaches here even when events stopped earlier).
    pub last_t: u64,
    /// Calls whose sender or receiver was folded into its class (table bound reached).
    pub folded: u64,
    /// Calls counted per method only (no edge: the table's hard bound was reached).
    pub dropped: u64,
}

/// Per thread and method: calls aggregated, and `net` corrections (calls = 0, net < 0) for
/// recorded messages whose direct callees were aggregated.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct MethodAgg {
    pub tid: u64,
    pub method: u32,
    pub calls: u64,
    pub agg: u64,
    pub net: i64,
    pub size: u64,
    pub agg_min: u64,
    pub agg_max: u64,
    pub net_min: u64,
    pub net_max: u64,
    pub size_min: u64,
    pub size_max: u64,
}

/// Per thread, sender (class and oid; `None` = the thread's root) and receiver (method, oid).
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct EdgeAgg {
    pub tid: u64,
    pub from: Option<(u32, u64)>,
    pub method: u32,
    pub oid: u64,
    pub calls: u64,
    pub agg: u64,
    pub net: i64,
    pub size: u64,
}

/// Per thread and class: objects created and destroyed while events were not recorded (past
/// `max_size`), with the sum and the largest of their sizes (as a `Crt` event would give).
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct ClassAgg {
    pub tid: u64,
    pub class: u32,
    pub created: u64,
    pub destroyed: u64,
    pub size: u64,
    pub size_max: u64,
}

/// A method that stopped producing events on a thread's verdict at time `t`.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Throttled {
    pub tid: u64,
    pub method: u32,
    pub t: u64,
    /// Calls and their total aggregate time on that thread when it was throttled.
    pub calls: u64,
    pub total: u64,
}

/// The time per call a throttled method's counted (untimed) calls take from time `t` on, and
/// what it rests on: the median of the last `timed` calls the thread `tid` timed (at the
/// verdict: calls before it; later: a sample of the counted calls, 1 in 1,024), with their
/// 10th and 90th percentiles. A method's estimates follow each other in time (phases).
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Estimate {
    pub tid: u64,
    pub method: u32,
    pub t: u64,
    pub per_call: u64,
    pub p10: u64,
    pub p90: u64,
    pub timed: u64,
}

/// Per thread, method and receiver: the calls whose minor page faults the runtime counted
/// (only calls of long methods are measured) and their net faults (`F` records).
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct FaultAgg {
    pub tid: u64,
    pub method: u32,
    pub oid: u64,
    pub calls: u64,
    pub faults: u64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Aggregates {
    pub threads: Vec<ThreadAgg>,
    pub methods: Vec<MethodAgg>,
    pub edges: Vec<EdgeAgg>,
    pub throttled: Vec<Throttled>,
    /// Throttled methods' estimates per call, in time order (absent from older traces).
    pub estimates: Vec<Estimate>,
    /// Page faults of measured calls (not unrecorded calls: they ride here as the other
    /// per-thread footers do).
    pub faults: Vec<FaultAgg>,
    /// Unrecorded creations and destructions (absent from older traces).
    pub classes: Vec<ClassAgg>,
}

impl Aggregates {
    pub fn is_empty(&self) -> bool {
        self.threads.is_empty() && self.throttled.is_empty() && self.classes.is_empty()
    }
    /// Objects created, and destroyed, without a `Crt` / `Dst` event.
    pub fn objects(&self) -> (u64, u64) {
        self.classes
            .iter()
            .fold((0, 0), |(c, d), x| (c + x.created, d + x.destroyed))
    }
    /// Calls counted here instead of as events.
    pub fn calls(&self) -> u64 {
        self.methods.iter().map(|m| m.calls).sum()
    }

    /// Append `other` with its ids mapped (a trace set: dense method and class ids, tagged
    /// thread and object ids, times on the shared line).
    pub fn extend_mapped(
        &mut self,
        other: &Aggregates,
        method: &dyn Fn(u32) -> u32,
        class: &dyn Fn(u32) -> u32,
        id: &dyn Fn(u64) -> u64,
        time: &dyn Fn(u64) -> u64,
    ) {
        let oid = |o: u64| if o == FOLDED || o == 0 { o } else { id(o) };
        self.threads.extend(other.threads.iter().map(|t| ThreadAgg {
            tid: id(t.tid),
            last_t: time(t.last_t),
            ..*t
        }));
        self.methods.extend(other.methods.iter().map(|m| MethodAgg {
            tid: id(m.tid),
            method: method(m.method),
            ..*m
        }));
        self.edges.extend(other.edges.iter().map(|e| EdgeAgg {
            tid: id(e.tid),
            from: e.from.map(|(c, o)| (class(c), oid(o))),
            method: method(e.method),
            oid: oid(e.oid),
            ..*e
        }));
        self.throttled
            .extend(other.throttled.iter().map(|x| Throttled {
                tid: id(x.tid),
                method: method(x.method),
                t: time(x.t),
                ..*x
            }));
        self.estimates
            .extend(other.estimates.iter().map(|x| Estimate {
                tid: id(x.tid),
                method: method(x.method),
                t: time(x.t),
                ..*x
            }));
        self.faults.extend(other.faults.iter().map(|f| FaultAgg {
            tid: id(f.tid),
            method: method(f.method),
            oid: oid(f.oid),
            ..*f
        }));
        self.classes.extend(other.classes.iter().map(|x| ClassAgg {
            tid: id(x.tid),
            class: class(x.class),
            ..*x
        }));
    }
}

fn oid_text(o: u64) -> String {
    if o == FOLDED {
        "*".into()
    } else {
        o.to_string()
    }
}

/// The text form's lines for `a` (names as attribute values, no spaces).
pub fn text_lines(a: &Aggregates, names: &Names) -> String {
    let mut out = String::new();
    method_lines(&mut out, a, names);
    receiver_lines(&mut out, a, names);
    out
}

/// A method as the attributes `cls= mth= sgn=`.
fn method_attrs(names: &Names, id: u32) -> String {
    let (c, n, s) = super::attr::method_names(names, id);
    format!("cls={c} mth={n} sgn={s}")
}

/// The `throttled`, `aggregate` and `aggregate-method` lines: per thread and method.
fn method_lines(out: &mut String, a: &Aggregates, names: &Names) {
    let m = |id: u32| method_attrs(names, id);
    for x in &a.throttled {
        let _ = writeln!(
            out,
            "##### throttled tid={} {} t={} calls={} total={}",
            x.tid,
            m(x.method),
            x.t,
            x.calls,
            x.total
        );
    }
    for x in &a.estimates {
        let _ = writeln!(
            out,
            "##### estimate tid={} {} t={} per_call={} p10={} p90={} timed={}",
            x.tid,
            m(x.method),
            x.t,
            x.per_call,
            x.p10,
            x.p90,
            x.timed
        );
    }
    for t in &a.threads {
        let _ = writeln!(
            out,
            "##### aggregate tid={} last_t={} folded={} dropped={}",
            t.tid, t.last_t, t.folded, t.dropped
        );
    }
    for x in &a.methods {
        let _ = writeln!(
            out,
            "##### aggregate-method tid={} {} calls={} agg={} net={} size={} agg_min={} agg_max={} net_min={} net_max={} size_min={} size_max={}",
            x.tid, m(x.method), x.calls, x.agg, x.net, x.size, x.agg_min, x.agg_max,
            x.net_min, x.net_max, x.size_min, x.size_max
        );
    }
}

/// The `aggregate-class`, `aggregate-edge` and `faults` lines: per class or receiver.
fn receiver_lines(out: &mut String, a: &Aggregates, names: &Names) {
    let m = |id: u32| method_attrs(names, id);
    for x in &a.classes {
        let _ = writeln!(
            out,
            "##### aggregate-class tid={} cls={} created={} destroyed={} size={} size_max={}",
            x.tid,
            super::attr::value(names.class(x.class)),
            x.created,
            x.destroyed,
            x.size,
            x.size_max
        );
    }
    for e in &a.edges {
        let from = match e.from {
            None => "from=root".to_string(),
            Some((c, o)) => format!(
                "from_cls={} from_oid={}",
                super::attr::value(names.class(c)),
                oid_text(o)
            ),
        };
        let _ = writeln!(
            out,
            "##### aggregate-edge tid={} {from} {} oid={} calls={} agg={} net={} size={}",
            e.tid,
            m(e.method),
            oid_text(e.oid),
            e.calls,
            e.agg,
            e.net,
            e.size
        );
    }
    for f in &a.faults {
        let _ = writeln!(
            out,
            "##### faults tid={} {} oid={} calls={} faults={}",
            f.tid,
            m(f.method),
            oid_text(f.oid),
            f.calls,
            f.faults
        );
    }
}

/// Parse one text line's body (after `#####`) whose first word is `kind`; `Ok(false)` when
/// it is not an aggregate line. Errors say which attribute is wrong.
pub fn parse_text(
    kind: &str,
    text: &str,
    names: &mut Names,
    a: &mut Aggregates,
) -> Result<bool, String> {
    if !matches!(
        kind,
        "throttled"
            | "estimate"
            | "aggregate"
            | "aggregate-method"
            | "aggregate-edge"
            | "faults"
            | "aggregate-class"
    ) {
        return Ok(false);
    }
    let line = AggLine { kind, text };
    let tid = line.num("tid")?;
    match kind {
        "throttled" => a.throttled.push(line.throttled(tid, names)?),
        "estimate" => a.estimates.push(line.estimate(tid, names)?),
        "faults" => a.faults.push(line.faults(tid, names)?),
        "aggregate" => a.threads.push(line.thread(tid)?),
        "aggregate-class" => a.classes.push(line.class(tid, names)?),
        "aggregate-method" => a.methods.push(line.method_agg(tid, names)?),
        _ => a.edges.push(line.edge(tid, names)?),
    }
    Ok(true)
}

/// One aggregate line's body being read: its kind names it in every error.
struct AggLine<'a> {
    kind: &'a str,
    text: &'a str,
}

impl<'a> AggLine<'a> {
    /// The value of the first `key=` word, if any.
    fn get(&self, key: &str) -> Option<&'a str> {
        self.text
            .split_ascii_whitespace()
            .find_map(|w| w.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
    }

    /// A required attribute parsed as `T`; both errors name the kind and the key.
    fn parsed<T: std::str::FromStr>(&self, key: &str) -> Result<T, String> {
        let kind = self.kind;
        let v = self
            .get(key)
            .ok_or_else(|| format!("`{kind}` line without {key}="))?;
        v.parse()
            .map_err(|_| format!("`{kind}` line: {key}={v} is not a number"))
    }

    /// A required unsigned number.
    fn num(&self, key: &str) -> Result<u64, String> {
        self.parsed(key)
    }

    /// A required signed number (the `net` corrections).
    fn signed(&self, key: &str) -> Result<i64, String> {
        self.parsed(key)
    }

    /// An oid, `*` standing for one folded into its class.
    fn oid(&self, key: &str) -> Result<u64, String> {
        if self.get(key) == Some("*") {
            Ok(FOLDED)
        } else {
            self.num(key)
        }
    }

    /// The method named by `cls=`, `mth=` and `sgn=` (default `!!`).
    fn method(&self, names: &mut Names) -> Result<u32, String> {
        let (Some(c), Some(m)) = (self.get("cls"), self.get("mth")) else {
            return Err(format!("`{}` line without cls= and mth=", self.kind));
        };
        let s = self.get("sgn").unwrap_or("!!");
        Ok(names.intern_method(c.as_bytes(), m.as_bytes(), s.as_bytes()))
    }

    /// A `throttled` line.
    fn throttled(&self, tid: u64, names: &mut Names) -> Result<Throttled, String> {
        Ok(Throttled {
            tid,
            method: self.method(names)?,
            t: self.num("t")?,
            calls: self.num("calls")?,
            total: self.num("total").unwrap_or(0),
        })
    }

    /// An `estimate` line.
    fn estimate(&self, tid: u64, names: &mut Names) -> Result<Estimate, String> {
        Ok(Estimate {
            tid,
            method: self.method(names)?,
            t: self.num("t")?,
            per_call: self.num("per_call")?,
            p10: self.num("p10")?,
            p90: self.num("p90")?,
            timed: self.num("timed")?,
        })
    }

    /// A `faults` line.
    fn faults(&self, tid: u64, names: &mut Names) -> Result<FaultAgg, String> {
        Ok(FaultAgg {
            tid,
            method: self.method(names)?,
            oid: self.oid("oid")?,
            calls: self.num("calls")?,
            faults: self.num("faults")?,
        })
    }

    /// An `aggregate` line (a thread's totals).
    fn thread(&self, tid: u64) -> Result<ThreadAgg, String> {
        Ok(ThreadAgg {
            tid,
            last_t: self.num("last_t")?,
            folded: self.num("folded").unwrap_or(0),
            dropped: self.num("dropped").unwrap_or(0),
        })
    }

    /// An `aggregate-class` line.
    fn class(&self, tid: u64, names: &mut Names) -> Result<ClassAgg, String> {
        let c = self
            .get("cls")
            .ok_or("`aggregate-class` line without cls=")?;
        Ok(ClassAgg {
            tid,
            class: names.intern_class(c.as_bytes()),
            created: self.num("created")?,
            destroyed: self.num("destroyed")?,
            size: self.num("size")?,
            size_max: self.num("size_max")?,
        })
    }

    /// An `aggregate-method` line.
    fn method_agg(&self, tid: u64, names: &mut Names) -> Result<MethodAgg, String> {
        Ok(MethodAgg {
            tid,
            method: self.method(names)?,
            calls: self.num("calls")?,
            agg: self.num("agg")?,
            net: self.signed("net")?,
            size: self.num("size")?,
            agg_min: self.num("agg_min")?,
            agg_max: self.num("agg_max")?,
            net_min: self.num("net_min")?,
            net_max: self.num("net_max")?,
            size_min: self.num("size_min")?,
            size_max: self.num("size_max")?,
        })
    }

    /// An `aggregate-edge` line: the sender is `from_cls=`/`from_oid=` or `from=root`.
    fn edge(&self, tid: u64, names: &mut Names) -> Result<EdgeAgg, String> {
        let from = match self.get("from_cls") {
            None if self.get("from") == Some("root") => None,
            None => return Err("`aggregate-edge` line without from_cls= or from=root".into()),
            Some(c) => Some((names.intern_class(c.as_bytes()), self.oid("from_oid")?)),
        };
        Ok(EdgeAgg {
            tid,
            from,
            method: self.method(names)?,
            oid: self.oid("oid")?,
            calls: self.num("calls")?,
            agg: self.num("agg")?,
            net: self.signed("net")?,
            size: self.num("size")?,
        })
    }
}
