//! Data safety of annotate/restore through the CLI: kills during annotate, edits after
//! annotate, stale SAFs, annotating twice, unwritable files and files with syntax errors.
//! Nothing may ever be lost: after `revy restore` the tree equals the original byte for byte
//! (or the user's edits are kept).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

mod common;
use common::revy_in as revy;

use common::snapshot;

fn project_copy(name: &str) -> tempfile::TempDir {
    common::copy_of(name)
}

/// Restores after a kill, checking status's verdict and the byte-identical tree.
fn check_after_kill(dir: &Path, original: &Tree, round: &str) -> Seen {
    let now = snapshot(dir);
    // Each file is either original or fully annotated (never half written).
    let status = revy(dir, &["status"]);
    let text = String::from_utf8_lossy(&status.stdout).into_owned();
    let seen = if text.contains("not annotated") {
        assert_eq!(
            &now, original,
            "killed before the journal: tree must be untouched"
        );
        Seen::Before
    } else {
        assert!(!text.contains("edited since"), "{text}");
        let r = revy(dir, &["restore"]);
        assert_eq!(
            r.status.code(),
            Some(0),
            "restore after kill in round {round}: {}",
            err(&r)
        );
        assert_eq!(
            &snapshot(dir),
            original,
            "restore after kill in round {round}"
        );
        if text.contains("interrupted") {
            Seen::MidWrite
        } else {
            Seen::Finished
        }
    };
    assert!(!dir.join(".revy/state.toml").exists());
    seen
}

type Tree = std::collections::BTreeMap<PathBuf, Vec<u8>>;

#[derive(Debug, PartialEq)]
enum Seen {
    Before,
    MidWrite,
    Finished,
}

fn annotate_slowly(dir: &Path) -> std::process::Child {
    common::bin()
        .args(["annotate", "--better"])
        .current_dir(dir)
        .env("REVY_TEST_WRITE_DELAY_MS", "20")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

fn signal(child: &std::process::Child, sig: &str) {
    let st = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(st.success(), "kill {sig}");
}

/// The sources that differ from `original`.
fn changed(dir: &Path, original: &Tree) -> usize {
    let now = snapshot(dir);
    original
        .iter()
        .filter(|(p, b)| now.get(*p) != Some(*b))
        .count()
}

#[test]
fn sigkill_during_annotate_never_loses_anything() {
    let t = project_copy("tests/java-corpus/features");
    let dir = t.path();
    assert_eq!(revy(dir, &["parse"]).status.code(), Some(0));
    let original = snapshot(dir);
    // `None`: kill right away (before the journal exists); `Some(ms)`: wait for the journal
    // to appear, then kill `ms` later, inside the (widened) window of file writes.
    let plan = [
        None,
        Some(0u64),
        Some(10),
        Some(30),
        Some(60),
        Some(100),
        Some(150),
    ];
    for (round, after_journal) in plan.into_iter().enumerate() {
        let mut child = annotate_slowly(dir);
        if let Some(ms) = after_journal {
            let journal = dir.join(".revy/state.toml");
            while !journal.exists() && child.try_wait().unwrap().is_none() {
                std::thread::sleep(std::time::Duration::from_micros(200));
            }
            std::thread::sleep(std::time::Duration::from_millis(ms));
        }
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        check_after_kill(dir, &original, &round.to_string());
    }
    // An annotate left to finish: how many sources it changes.
    let mut child = annotate_slowly(dir);
    child.wait().unwrap();
    let all = changed(dir, &original);
    assert!(all > 1, "{all} sources annotated: no window between writes");
    assert_eq!(check_after_kill(dir, &original, "finished"), Seen::Finished);
    // A kill that lands mid-write for certain: revy is stopped (SIGSTOP) whenever its files
    // are looked at, and killed while stopped once some but not all sources are annotated
    // (tried again if a loaded machine let it write them all between two looks).
    for attempt in 1.. {
        let mut child = annotate_slowly(dir);
        let partial = loop {
            signal(&child, "-STOP");
            let n = changed(dir, &original);
            if n > 0 || child.try_wait().unwrap().is_some() {
                break n;
            }
            signal(&child, "-CONT");
            std::thread::sleep(std::time::Duration::from_millis(1));
        };
        let _ = child.kill();
        let _ = child.wait();
        if (1..all).contains(&partial) {
            break;
        }
        check_after_kill(dir, &original, &format!("attempt {attempt}"));
        assert!(
            attempt < 10,
            "never stopped between two writes in {attempt} attempts"
        );
    }
    assert_eq!(
        check_after_kill(dir, &original, "mid-write"),
        Seen::MidWrite
    );
}

#[test]
fn edits_after_annotate_are_kept_or_restore_refuses() {
    let t = project_copy("projects/account");
    let dir = t.path();
    assert_eq!(revy(dir, &["parse"]).status.code(), Some(0));
    let original = snapshot(dir);
    assert_eq!(revy(dir, &["annotate", "--faster"]).status.code(), Some(0));
    let acct = dir.join("src/bank/Account.java");
    let annotated = std::fs::read_to_string(&acct).unwrap();
    // An edit away from Revy's insertions is kept.
    std::fs::write(
        &acct,
        annotated.replace("balance += amount;", "balance += amount; // audited"),
    )
    .unwrap();
    let st = String::from_utf8_lossy(&revy(dir, &["status"]).stdout).into_owned();
    assert!(st.contains("edited since"), "{st}");
    let r = revy(dir, &["restore"]);
    assert_eq!(r.status.code(), Some(0), "{}", err(&r));
    assert!(String::from_utf8_lossy(&r.stdout).contains("kept your edits in src/bank/Account.java"));
    let mut want = original.clone();
    let key = PathBuf::from("src/bank/Account.java");
    let fixed = String::from_utf8(want[&key].clone())
        .unwrap()
        .replace("balance += amount;", "balance += amount; // audited");
    want.insert(key, fixed.into_bytes());
    assert_eq!(snapshot(dir), want);

    // An edit that damages an insertion makes restore refuse and change nothing.
    std::fs::write(&acct, &original[&PathBuf::from("src/bank/Account.java")]).unwrap();
    assert_eq!(revy(dir, &["parse"]).status.code(), Some(0));
    assert_eq!(revy(dir, &["annotate", "--better"]).status.code(), Some(0));
    let annotated = std::fs::read_to_string(&acct).unwrap();
    let damaged = annotated.replacen("_revy.runtime.Rv.exit(", "_revy.runtime.Rv.EXIT(", 1);
    std::fs::write(&acct, &damaged).unwrap();
    let before = snapshot(dir);
    let r = revy(dir, &["restore"]);
    assert_eq!(r.status.code(), Some(2));
    let e = err(&r);
    assert!(
        e.contains("refused") && e.contains("src/bank/Account.java"),
        "{e}"
    );
    assert_eq!(snapshot(dir), before, "a refused restore changes nothing");
    // Undo the damage and restore works.
    std::fs::write(&acct, annotated).unwrap();
    assert_eq!(revy(dir, &["restore"]).status.code(), Some(0));
    assert_eq!(snapshot(dir), original);
}

#[test]
fn stale_saf_twice_and_unwritable_are_refused_cleanly() {
    let t = project_copy("projects/account");
    let dir = t.path();
    let o = revy(dir, &["annotate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(err(&o).contains("revy parse"), "{}", err(&o));

    assert_eq!(revy(dir, &["parse"]).status.code(), Some(0));
    let person = dir.join("src/bank/Person.java");
    let text = std::fs::read_to_string(&person).unwrap();
    std::fs::write(&person, text.replace("nextSin++", "nextSin += 1")).unwrap();
    let o = revy(dir, &["annotate"]);
    assert_eq!(o.status.code(), Some(2));
    let e = err(&o);
    assert!(
        e.contains("stale") && e.contains("src/bank/Person.java") && e.contains("revy parse"),
        "{e}"
    );
    assert!(!dir.join(".revy/state.toml").exists());

    assert_eq!(revy(dir, &["parse"]).status.code(), Some(0));
    let original = snapshot(dir);
    let mut perms = std::fs::metadata(&person).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&person, perms.clone()).unwrap();
    let o = revy(dir, &["annotate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("Person.java") && err(&o).contains("writable"),
        "{}",
        err(&o)
    );
    assert_eq!(snapshot(dir), original, "nothing written");
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&person, perms).unwrap();

    assert_eq!(revy(dir, &["annotate"]).status.code(), Some(0));
    let o = revy(dir, &["annotate"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("already annotated") && err(&o).contains("revy restore"),
        "{}",
        err(&o)
    );
    assert_eq!(revy(dir, &["restore"]).status.code(), Some(0));
    assert_eq!(snapshot(dir), original);
    let o = revy(dir, &["restore"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "restoring twice says there is nothing to do"
    );
}

#[test]
fn syntax_errors_skip_only_the_spoiled_method() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    std::fs::write(
        dir.join("revy.toml"),
        "[project]\nname = \"x\"\nsources = [\"*.java\"]\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("A.java"),
        "class A {\n  int ok() { return 1; }\n  int bad() { int x = ; return x; }\n  void alsoOk() { ok(); }\n}\n",
    )
    .unwrap();
    assert_eq!(revy(dir, &["parse"]).status.code(), Some(1));
    let o = revy(dir, &["annotate"]);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let a = std::fs::read_to_string(dir.join("A.java")).unwrap();
    let line = |n: &str| a.lines().find(|l| l.contains(n)).unwrap().to_string();
    assert!(line("int ok()").contains("Rv.enter("), "{a}");
    assert!(line("void alsoOk()").contains("Rv.enter("), "{a}");
    assert!(!line("int bad()").contains("Rv."), "{a}");
    assert_eq!(revy(dir, &["restore"]).status.code(), Some(0));
}

/// Whether another open of `dir`'s lock file could take the lock now (flock locks belong to
/// one open file, so this sees this process's own holders too).
fn lock_free(dir: &Path) -> bool {
    let Ok(f) = std::fs::File::open(dir.join(".revy/lock")) else {
        return true; // never locked
    };
    match f.try_lock() {
        Ok(()) => true,
        Err(std::fs::TryLockError::WouldBlock) => false,
        Err(e) => panic!("{e:?}"),
    }
}

/// Whether the project's lock is free within a second: a child another test thread forks
/// holds a copy of every open descriptor, the lock's too, until it execs (they are
/// close-on-exec), so a lock just released can look held for that moment.
fn lock_freed(dir: &Path) -> bool {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(1);
    while !lock_free(dir) {
        if std::time::Instant::now() > until {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    true
}

/// The lock is re-entrant per project, not per process: a library caller holding project X
/// must neither skip locking project Y nor keep X locked until Y is released (the race that
/// refused a parallel test's `revy annotate` with "another revy").
#[test]
fn lock_is_per_project_within_a_process() {
    let (x, y) = (
        project_copy("projects/account"),
        project_copy("projects/account"),
    );
    let load = |d: &Path| revy::instrument::manifest::Manifest::load(&d.join("revy.toml")).unwrap();
    let (mx, my) = (load(x.path()), load(y.path()));
    let gx = revy::instrument::lock::acquire(&mx).unwrap();
    let gy = revy::instrument::lock::acquire(&my).unwrap();
    assert!(
        !lock_free(y.path()),
        "project Y is not locked while its guard is held"
    );
    let again = revy::instrument::lock::acquire(&mx).unwrap();
    drop(again);
    assert!(!lock_free(x.path()), "re-entry released X early");
    drop(gx);
    assert!(
        lock_freed(x.path()),
        "X stays locked after its last guard dropped"
    );
    let out = revy(x.path(), &["restore"]);
    assert!(
        !err(&out).contains("another revy"),
        "a revy of X was refused: {}",
        err(&out)
    );
    drop(gy);
    assert!(lock_freed(y.path()));
}
