# Sourced by the corpus scripts: sets $shared to the folder holding the corpus recipes and
# outcomes.py (`shared/`, with SPEC.md): $SHARED if set, else the first `shared/SPEC.md`
# found going up from the repository (a checkout beside it, or a worktree nested deeper).
find_shared() {
  if [ -n "${SHARED:-}" ]; then
    [ -f "$SHARED/corpus/outcomes.py" ] && { echo "$SHARED"; return; }
    echo "SHARED=$SHARED has no corpus/outcomes.py" >&2
    return 1
  fi
  local d
  d=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  while [ "$d" != / ]; do
    d=$(dirname "$d")
    if [ -f "$d/shared/SPEC.md" ] && [ -f "$d/shared/corpus/outcomes.py" ]; then
      echo "$d/shared"
      return
    fi
  done
  echo "no shared/SPEC.md with corpus/outcomes.py above $(dirname "${BASH_SOURCE[0]}"); set SHARED=/path/to/shared" >&2
  return 1
}
