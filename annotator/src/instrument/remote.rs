//! `[[remote]]` of the manifest: one remote call, its client method and the server method
//! that handles it in another process, and the key both see (a parameter, or a field of a
//! parameter or of the receiver). The annotator makes both log the key's hash on entry (a
//! `Key` event of the trace); the analysis links the client's call to the server's handling
//! by it (`analyse::events`).

use serde::Deserialize;
use toml::Spanned;

use super::events::MethodPattern;
use crate::error::{Error, Result};

/// One `[[remote]]` table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawRemote {
    name: Spanned<String>,
    client: Spanned<String>,
    server: Spanned<String>,
    /// A parameter name or `name.field` (both sides), e.g. `"id"` or `"req.id"`.
    key: Spanned<String>,
    /// The server side's key when it is spelled differently there.
    #[serde(default)]
    server_key: Option<Spanned<String>>,
}

/// A validated remote call.
#[derive(Debug, Clone)]
pub struct RemoteDef {
    pub name: String,
    pub client: MethodPattern,
    pub server: MethodPattern,
    /// The key on the client and on the server: a path of names, the first a parameter or
    /// a field of the receiver.
    pub client_key: Vec<String>,
    pub server_key: Vec<String>,
    pub at: String,
}

impl RemoteDef {
    /// The key path of a method of class `class` named `method`: the client's or the
    /// server's (`None`: neither side's method).
    pub(crate) fn key_of(&self, class: &str, method: &str, sgn: &str) -> Option<(bool, &[String])> {
        if self.client.matches(class, method, sgn) {
            Some((false, &self.client_key))
        } else if self.server.matches(class, method, sgn) {
            Some((true, &self.server_key))
        } else {
            None
        }
    }
}

/// Checks the `[[remote]]` tables; `at` turns a span into `file:line:col`.
pub(crate) fn check(
    raw: &[RawRemote],
    at: &dyn Fn(std::ops::Range<usize>) -> String,
) -> Result<Vec<RemoteDef>> {
    let mut out: Vec<RemoteDef> = Vec::with_capacity(raw.len());
    for r in raw {
        let name = r.name.get_ref().trim().to_string();
        if name.is_empty() || out.iter().any(|d| d.name == name) {
            return Err(Error::input(format!(
                "{}: remote.name must be a name no other [[remote]] has",
                at(r.name.span())
            )));
        }
        let pattern = |v: &Spanned<String>, key: &str| {
            MethodPattern::parse(v.get_ref()).map_err(|why| {
                Error::input(format!(
                    "{}: remote.{key} \"{}\" {why}",
                    at(v.span()),
                    v.get_ref()
                ))
            })
        };
        let client_key = key_path(&r.key, "key", at)?;
        let server_key = match &r.server_key {
            Some(k) => key_path(k, "server_key", at)?,
            None => client_key.clone(),
        };
        out.push(RemoteDef {
            client: pattern(&r.client, "client")?,
            server: pattern(&r.server, "server")?,
            client_key,
            server_key,
            at: at(r.name.span()),
            name,
        });
    }
    Ok(out)
}

/// `id` or `req.id`: identifiers separated by dots.
fn key_path(
    v: &Spanned<String>,
    key: &str,
    at: &dyn Fn(std::ops::Range<usize>) -> String,
) -> Result<Vec<String>> {
    let parts: Vec<String> = v.get_ref().trim().split('.').map(str::to_string).collect();
    let ident = |s: &str| {
        let mut c = s.chars();
        c.next()
            .is_some_and(|f| f.is_alphabetic() || f == '_' || f == '$')
            && c.all(|x| x.is_alphanumeric() || x == '_' || x == '$')
    };
    if parts.iter().all(|p| ident(p)) {
        return Ok(parts);
    }
    Err(Error::input(format!(
        "{}: remote.{key} \"{}\" is not a parameter or field (write \"id\" or \"request.id\")",
        at(v.span()),
        v.get_ref()
    )))
}

#[cfg(test)]
mod tests {
    use crate::instrument::manifest::Manifest;
    use std::path::Path;

    fn load(remote: &str) -> crate::error::Result<Manifest> {
        let text = format!("[project]\nname=\"a\"\nsources=[\"*\"]\n{remote}");
        Manifest::from_str(Path::new("revy.toml"), &text)
    }

    #[test]
    fn remote_calls_are_read_and_bad_ones_name_their_line() {
        let m = load(
            "[[remote]]\nname=\"rpc\"\nclient=\"Client.call\"\nserver=\"Server.handle\"\n\
             key=\"req.id\"\nserver_key=\"id\"\n",
        )
        .unwrap();
        let r = &m.remote[0];
        assert_eq!(r.key_of("a.Client", "call", "!!").unwrap().1, ["req", "id"]);
        let (server, key) = r.key_of("b.Server", "handle", "!long^0!").unwrap();
        assert!(server && key == ["id"]);
        assert!(r.key_of("b.Server", "close", "!!").is_none());
        for (text, want) in [
            (
                "[[remote]]\nname=\"r\"\nclient=\"call\"\nserver=\"S.h\"\nkey=\"id\"\n",
                "revy.toml:6:8: remote.client \"call\" names no method",
            ),
            (
                "[[remote]]\nname=\"r\"\nclient=\"C.c\"\nserver=\"S.h\"\nkey=\"a b\"\n",
                "revy.toml:8:5: remote.key \"a b\" is not a parameter or field",
            ),
            (
                "[[remote]]\nname=\"r\"\nclient=\"C.c\"\nserver=\"S.h\"\n",
                "revy.toml:4:1",
            ),
        ] {
            let e = load(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}
