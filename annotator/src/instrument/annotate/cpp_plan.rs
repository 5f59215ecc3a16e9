//! How each selected C++ class with an intrusive ID carries it, so that one complete object
//! has one ID, one Crt naming its most-derived selected class and one Dst: a root `Tag`; a
//! `SubTag` for a class derived (non-virtually) from exactly one tagged class (it shares the
//! root's tag); a `JoinTag` for one with several tag-carrying bases or a virtual one (the
//! runtime unites the parts' IDs). Non-intrusive classes below exactly one tagged ancestor
//! report its tag; the tags a subclass, a join or a CRTP base reach are `public`.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use super::cpp_ids::{id_kind, member_taken, user_class, IdKind, Ids};
use super::cpp_join::{base_simple, JoinBase};
use super::{fresh_name, Context};
use crate::instrument::model::Lang;
use crate::instrument::saf::{Saf, SafClass};

/// The identity member of a selected class with an intrusive ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagPlan {
    /// The root tag's member name (`this->NAME.oid` is the object's ID).
    pub member: String,
    /// `Some(name)`: the class derives from exactly one tagged selected class, so it gets a
    /// `SubTag` member of this name (same object ID, Crt names the most-derived class).
    pub sub: Option<String>,
    /// No selected class derives from this one through a `SubTag`, nor joins it.
    pub is_final: bool,
    /// `Some`: a `JoinTag` (several tagged bases, or a virtual one) listing these bases.
    pub join: Option<Vec<JoinBase>>,
}

/// Identity plans of the tagged classes, and the tag member that non-intrusive classes
/// inherit from exactly one tagged ancestor (their methods report that ID).
#[derive(Debug, Default)]
pub struct Plans {
    pub tags: HashMap<u32, TagPlan>,
    pub inherited: HashMap<u32, String>,
}

/// Computes every plan of the project (once per annotate run).
pub fn tag_plans(saf: &Saf, project: &IdPlans) -> Plans {
    let p = Planner { saf, project };
    let (parent, joins) = p.shapes();
    let mut tags = p.own_members();
    let mut reached = p.sub_tags(&parent, &mut tags);
    reached.extend(p.join_tags(&parent, &joins, &mut tags));
    let (inherited, owners) = p.inherited(&tags);
    reached.extend(owners);
    reached.extend(p.crtp_derived(&tags));
    // A parent whose child kept its own tag stays final: only the tags reached count.
    for id in reached {
        if let Some(t) = tags.get_mut(&id) {
            t.is_final = false;
        }
    }
    Plans { tags, inherited }
}

struct Planner<'a> {
    saf: &'a Saf,
    project: &'a IdPlans,
}

impl Planner<'_> {
    fn tagged(&self, c: &SafClass) -> bool {
        c.selected
            && c.annotatable
            && c.lang == Lang::Cpp
            && matches!(self.project.id_kind(self.saf, c), IdKind::Tag(_))
    }

    /// Bases that carry a tag member, their own or an ancestor's (a non-intrusive base of a
    /// tagged class still inherits its tag).
    fn carriers(&self, c: &SafClass) -> Vec<&SafClass> {
        (c.supers.iter())
            .filter_map(|s| user_class(self.saf, &c.qname, s))
            .filter(|b| b.id != c.id && self.carries_tag(b, 0))
            .collect()
    }

    /// Whether objects of `c` hold a tag member: its own or one inherited from any ancestor.
    fn carries_tag(&self, c: &SafClass, depth: u32) -> bool {
        self.tagged(c)
            || depth < 32
                && (c.supers.iter())
                    .filter_map(|s| user_class(self.saf, &c.qname, s))
                    .any(|b| b.id != c.id && self.carries_tag(b, depth + 1))
    }

    /// The one tagged direct base of SubTag classes; the bases (as written) of joining ones.
    #[allow(clippy::type_complexity)]
    fn shapes(&self) -> (HashMap<u32, u32>, HashMap<u32, Vec<(String, u32)>>) {
        let mut parent = HashMap::new();
        let mut joins = HashMap::new();
        for c in self.saf.classes.iter().filter(|c| self.tagged(c)) {
            let carriers = self.carriers(c);
            if carriers.is_empty() {
                continue;
            }
            // Virtual bases: member offsets differ between objects, so no SubTag.
            if carriers.len() == 1
                && self.tagged(carriers[0])
                && !c.bases_written.iter().any(|b| b.is_virtual)
            {
                parent.insert(c.id, carriers[0].id);
            } else if let Some(j) = join_bases(c, &carriers) {
                joins.insert(c.id, j);
            }
        }
        (parent, joins)
    }

    /// Every tagged class with a tag member of its own (roots and joining classes keep it).
    fn own_members(&self) -> HashMap<u32, TagPlan> {
        let mut tags = HashMap::new();
        for c in self.saf.classes.iter().filter(|c| self.tagged(c)) {
            if let IdKind::Tag(member) = self.project.id_kind(self.saf, c) {
                let plan = TagPlan {
                    member,
                    sub: None,
                    is_final: true,
                    join: None,
                };
                tags.insert(c.id, plan);
            }
        }
        tags
    }

    /// SubTag classes take their root's member; returns the parents they reach.
    fn sub_tags(&self, parent: &HashMap<u32, u32>, tags: &mut HashMap<u32, TagPlan>) -> Vec<u32> {
        let by_id: HashMap<u32, &SafClass> = self.saf.classes.iter().map(|c| (c.id, c)).collect();
        let mut reached = Vec::new();
        for (&child, &par) in parent {
            let root = root_of(parent, child);
            let Some(root_member) = tags.get(&root).map(|p| p.member.clone()) else {
                continue;
            };
            let Some(sc) = by_id.get(&child) else {
                continue;
            };
            if member_taken(sc, &root_member) {
                continue; // its own member hides the root's: it keeps a root tag of its own
            }
            let sub = fresh_name("_rv_sub", |n| member_taken(sc, n));
            if let Some(p) = tags.get_mut(&child) {
                p.member = root_member;
                p.sub = Some(sub);
            }
            reached.push(par);
        }
        reached
    }

    /// The member seen through class `id` (its plan's, or for a non-intrusive class its one
    /// tag-carrying base's) and the tagged class whose tag or SubTag that is.
    fn seen(&self, tags: &HashMap<u32, TagPlan>, id: u32) -> Option<(String, u32)> {
        let mut id = id;
        for _ in 0..32 {
            if let Some(p) = tags.get(&id) {
                return Some((p.member.clone(), id));
            }
            let c = self.saf.classes.iter().find(|c| c.id == id)?;
            let carriers = self.carriers(c);
            if carriers.len() != 1 {
                return None;
            }
            id = carriers[0].id;
        }
        None
    }

    /// JoinTag classes whose every base is understood list them; returns the tags reached.
    fn join_tags(
        &self,
        parent: &HashMap<u32, u32>,
        joins: &HashMap<u32, Vec<(String, u32)>>,
        tags: &mut HashMap<u32, TagPlan>,
    ) -> Vec<u32> {
        let mut listed: HashMap<u32, Vec<(String, String, u32)>> = HashMap::new();
        for (&id, bases) in joins {
            let l: Vec<(String, String, u32)> = (bases.iter())
                .map_while(|(w, b)| self.seen(tags, *b).map(|(m, owner)| (w.clone(), m, owner)))
                .collect();
            if l.len() == bases.len() {
                listed.insert(id, l);
            }
        }
        // Whether a tagged class has an `_rv_join`: its own, or its SubTag root's.
        let has_join =
            |id: u32| listed.contains_key(&id) || listed.contains_key(&root_of(parent, id));
        let mut reached = Vec::new();
        for (id, l) in &listed {
            let bases = l.iter().map(|(name, member, owner)| JoinBase {
                name: name.clone(),
                member: member.clone(),
                nested: has_join(*owner),
            });
            if let Some(p) = tags.get_mut(id) {
                p.join = Some(bases.collect());
            }
            reached.extend(l.iter().map(|x| x.2));
        }
        reached
    }

    /// Selected non-intrusive classes below exactly one tagged class, with the tagged class.
    fn inherited(&self, tags: &HashMap<u32, TagPlan>) -> (HashMap<u32, String>, Vec<u32>) {
        let mut inherited = HashMap::new();
        let mut reached = Vec::new();
        for c in self
            .saf
            .classes
            .iter()
            .filter(|c| c.selected && c.lang == Lang::Cpp)
        {
            if tags.contains_key(&c.id) || self.carriers(c).is_empty() {
                continue;
            }
            if let Some((member, owner)) = self.seen(tags, c.id) {
                inherited.insert(c.id, member);
                reached.push(owner); // public, so the subclass reaches it
            }
        }
        (inherited, reached)
    }

    /// Tagged classes deriving from a CRTP base, which reads their tag: public.
    fn crtp_derived(&self, tags: &HashMap<u32, TagPlan>) -> Vec<u32> {
        let saf = self.saf;
        (saf.classes.iter())
            .filter(|c| tags.contains_key(&c.id))
            .filter(|c| {
                (c.supers.iter())
                    .filter_map(|s| user_class(saf, &c.qname, s))
                    .any(|b| b.id != c.id && self.project.crtp_param(saf, b).is_some())
            })
            .map(|c| c.id)
            .collect()
    }
}

/// The root of a SubTag chain.
fn root_of(parent: &HashMap<u32, u32>, mut id: u32) -> u32 {
    for _ in 0..64 {
        match parent.get(&id) {
            Some(p) => id = *p,
            None => break, // (a cycle would be a front-end mistake: stop)
        }
    }
    id
}

/// The bases a joining class lists: each tag-carrying base as written in its head. `None` when
/// one is not found there, the class has no usable name, or `_rv_join` is taken.
fn join_bases(c: &SafClass, carriers: &[&SafClass]) -> Option<Vec<(String, u32)>> {
    let named = !c.name.is_empty() && c.name.chars().all(|ch| ch.is_alphanumeric() || ch == '_');
    if !named || member_taken(c, "_rv_join") {
        return None;
    }
    let written = &c.bases_written;
    if written.iter().any(|w| w.name.contains("...")) {
        return None; // a pack expansion: its bases are not named
    }
    carriers
        .iter()
        .map(|b| {
            let w = written.iter().find(|w| base_simple(&w.name) == b.name)?;
            Some((w.name.clone(), b.id))
        })
        .collect()
}
/// Per annotate run: how each class is identified ([`Ids`]) and, made from that on first
/// use, how each tagged class gets its identity member.
#[derive(Default)]
pub struct IdPlans {
    ids: Ids,
    plans: OnceLock<Plans>,
}

impl IdPlans {
    /// This run's plans, made on first use (runs never share them: `--verify` re-plans over
    /// withdrawn classes within one process).
    pub(super) fn get(cx: &Context) -> Arc<IdPlans> {
        cx.memo(Lang::Cpp, IdPlans::default)
    }

    /// How objects of `sc` are identified (see [`id_kind`]).
    pub fn id_kind(&self, saf: &Saf, sc: &SafClass) -> IdKind {
        id_kind(saf, sc, &self.ids)
    }

    /// A non-intrusive CRTP base's derived-type parameter (see [`Ids::crtp_param`]).
    pub(super) fn crtp_param(&self, saf: &Saf, sc: &SafClass) -> Option<String> {
        self.ids.crtp_param(saf, sc)
    }

    /// The identity plan of a tagged class (a root tag of its own when not computed).
    pub fn tag_plan(&self, saf: &Saf, sc: &SafClass) -> TagPlan {
        self.plans
            .get_or_init(|| tag_plans(saf, self))
            .tags
            .get(&sc.id)
            .cloned()
            .unwrap_or_else(|| TagPlan {
                member: "_rv_tag".into(),
                sub: None,
                is_final: true,
                join: None,
            })
    }

    /// The tag member a non-intrusive class inherits from its one tagged ancestor, if any.
    pub fn inherited_tag(&self, saf: &Saf, sc: &SafClass) -> Option<String> {
        let plans = self.plans.get_or_init(|| tag_plans(saf, self));
        plans.inherited.get(&sc.id).cloned()
    }
}
