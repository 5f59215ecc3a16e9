//! Text from outside (trace names, source excerpts, file names) made safe to print: the
//! trace crate's rule, used for every other outside text too.

pub use revy_trace::escape::escape_name;
