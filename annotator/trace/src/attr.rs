//! Names as attribute values of the text form, shared by its event lines and its
//! aggregate lines.

use std::borrow::Cow;

use super::Names;

pub(super) fn method_names(names: &Names, id: u32) -> (Cow<'_, str>, Cow<'_, str>, Cow<'_, str>) {
    match names.method(id) {
        Some(d) => (
            value(names.class(d.class)),
            value(&d.name),
            value(&d.signature),
        ),
        None => ("?".into(), "?".into(), "!!".into()),
    }
}

/// A name as an attribute value: values hold no spaces (they separate attributes). Names
/// read from traces hold no control characters (see `escape_name`).
pub(super) fn value(s: &str) -> Cow<'_, str> {
    if s.contains(' ') {
        Cow::Owned(s.replace(' ', "_"))
    } else {
        Cow::Borrowed(s)
    }
}
