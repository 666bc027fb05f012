#!/bin/sh
# The hook and CI agree (issue #18): `fusecert hook`'s pre-commit hook checks
# the staged Markdown *and* the audit tree of the index, so a change that
# orphans or breaks an unstaged document fails the commit as `fusecert docs`
# (a tree run, CI) fails on the same tree. Each case's expected exit status
# is written from the routing semantics (a live doc is routed when the root
# index reaches it through links of live docs) before the hook runs:
#   a. the only router of B (the root index) drops its link: B (unstaged) is
#      routing.unrouted -> 1
#   b. a heading of A that C links (`A.md#old-heading`) is renamed: C
#      (unstaged) has anchor.broken-anchor -> 1
#   c. the only router R of E is deleted (git rm) and its link dropped: E
#      (unstaged) is routing.unrouted -> 1
#   d. `--referrers-of-removed` with R removed: E, which R linked, is
#      routing.unrouted -> 1
#   e. no Markdown staged, a path a document names becomes a dangling
#      symlink: A has anchor.broken-path -> 1
#   f. a tree already red, a commit staging only code -> 1
#   g. a staged root NOTES.md (outside the audit root) with a broken link: CI's
#      tree run does not decide it -> 0, and the hook decides what CI decides -> 0
#   h. fusecert cannot run (FUSECERT=/nope): the hook exits 2 with
#      hook.failed, never hook.rejected (the commit was not checked)
#   i. more staged names than one xargs batch holds, on a red tree: each
#      finding printed once, one summary line, one hook.rejected line
#   j. `git rm -r src` (a whole top folder) while A names `src/x.py`: the
#      path was an anchor and now names nothing: A has anchor.broken-path -> 1,
#      in the hook and in CI's tree run once the deletion is committed
#   k. an empty commit (--allow-empty) on a tree already red: CI fails that
#      commit, so the hook does -> 1
#   l. a sparse checkout whose cone leaves out src/: src/x.py is in the
#      commit, so A's `src/x.py` resolves -> 0; a new `src/y.py` in B names
#      nothing in the commit -> 1 (anchor.broken-path), as CI says
#   m. a staged .mlir that does not parse: a finding about the commit
#      (certify exit 2), so hook.rejected -> 1, never hook.failed
#   n. the pre-commit framework's form (.pre-commit-hooks.yaml fusecert-docs:
#      `fusecert docs --whole-tree` in the work tree, before the commit
#      exists) with `git rm -r src` staged while A names `src/x.py`: history
#      does not hold the deletion yet, the index does -> 1, as the native
#      hook (j) and CI once the deletion is committed
#   o. git fails while the deletions are read (a `git` whose `log` exits 3):
#      the run cannot be checked -> 2 with a diagnostic naming `git log`,
#      never a silent "nothing was deleted"; the native hook, which reads
#      history itself, says hook.failed -> 2
#   p. git cannot be run at all (not on PATH) while the root holds .git -> 2
# A change that breaks nothing commits (0), and in every case a tree run over
# the same (fully staged) tree gives the hook's answer.
# Usage: hook_tree_test.sh FUSECERT SRCDIR
. "$(dirname "$0")/lib.sh"
git_identity

git init -q "$W/repo" && cd "$W/repo" || exit 1
today=$(date -u +%F)
mkdir -p docs/audit
doc() {  # doc NAME ROLE BODY...
  f=docs/audit/$1 role=$2
  shift 2
  printf -- '---\nlast_updated: %s\naudit_role: %s\n---\n\n' "$today" "$role" >"$f"
  for line in "$@"; do printf '%s\n' "$line" >>"$f"; done
}
doc README.md index '# Audit index' '' 'Routes readers to every live document.' '' \
  '- [A](A.md)' '- [B](B.md)' '- [C](C.md)' '- [R](R.md)'
doc A.md reference '# A' '' 'Background.' '' '## Old heading' '' 'Details.'
doc B.md reference '# B' '' 'Background.'
doc C.md reference '# C' '' 'See [the details](A.md#old-heading).'
doc R.md reference '# R' '' 'Read [E](E.md) next.'
doc E.md reference '# E' '' 'Background.'
"$BIN" docs >"$W/base.out" 2>&1 || fail "the base tree must be clean: $(cat "$W/base.out")"
git add . && git commit -q -m base || exit 1
"$BIN" hook install >"$W/install.out" 2>&1 || fail "hook install: $(cat "$W/install.out")"

# ci NAME WANT: a tree run (what CI runs) on the work tree, which equals the
# index here; its exit status must be WANT, the hook's.
ci() { expect "$2" "ci_$1" "$BIN" docs --repo-root .; }

# A clean edit commits, and CI agrees.
printf 'More background.\n' >>docs/audit/B.md
git add docs/audit/B.md
commit clean 0 "edit B"
ci clean 0

# a. The root index drops B's link: B is orphaned though not staged.
sed '/(B.md)/d' docs/audit/README.md >"$W/x" && cp "$W/x" docs/audit/README.md
git add docs/audit/README.md
commit a 1 "drop the index's link to B"
contains a.log "docs/audit/B.md:.*routing.unrouted"
contains a.log "commit rejected"
ci a 1
contains ci_a.out "docs/audit/B.md:.*routing.unrouted"
git reset -q --hard

# b. A renames the heading C links to: C's anchor breaks though not staged.
sed 's/^## Old heading$/## New heading/' docs/audit/A.md >"$W/x" && cp "$W/x" docs/audit/A.md
git add docs/audit/A.md
commit b 1 "rename A's heading"
contains b.log "docs/audit/C.md:.*anchor.broken-anchor"
ci b 1
contains ci_b.out "docs/audit/C.md:.*anchor.broken-anchor"
git reset -q --hard

# c. The only router of E is deleted (and the index no longer links it).
git rm -q docs/audit/R.md
sed '/(R.md)/d' docs/audit/README.md >"$W/x" && cp "$W/x" docs/audit/README.md
git add docs/audit/README.md
commit c 1 "delete R, E's only router"
contains c.log "docs/audit/E.md:.*routing.unrouted"
ci c 1
contains ci_c.out "docs/audit/E.md:.*routing.unrouted"
# The same deletion with no Markdown staged besides it (the index's link
# left dangling): E is unrouted and the index's link broken.
git reset -q --hard
git rm -q docs/audit/R.md
commit c_only 1 "delete R alone"
contains c_only.log "docs/audit/E.md:.*routing.unrouted"
contains c_only.log "docs/audit/README.md:.*anchor.broken-link"

# d. --referrers-of-removed (no PATH): the docs R linked lose their route.
git reset -q --hard
git rm -q docs/audit/R.md
sed '/(R.md)/d' docs/audit/README.md >"$W/x" && cp "$W/x" docs/audit/README.md
printf 'docs/audit/R.md\n' >"$W/removed"
expect 1 d "$BIN" docs --repo-root . --referrers-of-removed "$W/removed"
contains d.out "docs/audit/E.md:.*routing.unrouted"
git reset -q --hard

# Unstaged work is not what is committed: the index is clean, the working
# copy orphans B; the hook passes (0), as CI on the committed tree will.
printf 'Unstaged line.\n' >>docs/audit/A.md
git add docs/audit/A.md
sed '/(B.md)/d' docs/audit/README.md >"$W/x" && cp "$W/x" docs/audit/README.md
commit unstaged 0 "the orphaning edit is not staged"
git checkout -q -- docs/audit/README.md

# A .fusecert.yaml whose audit root does not exist: the tree run fails (2),
# so the hook rejects the commit that adds it.
printf 'docs:\n  tree:\n    audit_root: handbook\n' >.fusecert.yaml
git add .fusecert.yaml
commit config 1 "an audit root that does not exist"
contains config.log "audit root"
# A usage error (exit 2) did not check the commit: hook.failed, not rejected.
contains config.log "hook.failed"
grep -q "hook.rejected" "$W/config.log" && fail "config: a usage error was reported as hook.rejected"
ci config 2
git rm -q --cached .fusecert.yaml && rm .fusecert.yaml

# e. No Markdown staged (issue #18 acceptance, 2026-12-02): a document names
#    src/x.py; a commit that only replaces it by a symlink to a missing file
#    breaks that path: A has anchor.broken-path -> 1, as CI.
mkdir -p src && printf 'x = 1\n' >src/x.py
printf 'The code is in `src/x.py`.\n' >>docs/audit/A.md
git add src/x.py docs/audit/A.md
commit e_base 0 "name src/x.py"
rm src/x.py && ln -s gone.py src/x.py
git add src/x.py
commit e 1 "src/x.py becomes a dangling symlink"
contains e.log "docs/audit/A.md:.*anchor.broken-path"
ci e 1
git reset -q --hard
# f. A tree already red (committed with --no-verify) fails the next commit,
#    even one that stages no Markdown: CI fails on it -> 1.
sed '/(B.md)/d' docs/audit/README.md >"$W/x" && cp "$W/x" docs/audit/README.md
git add docs/audit/README.md && git commit -q --no-verify -m "orphan B, unchecked" || exit 1
printf 'x = 2\n' >src/x.py
git add src/x.py
commit f 1 "edit code only on a red tree"
contains f.log "docs/audit/B.md:.*routing.unrouted"
ci f 1
git reset -q --hard HEAD~1

# g. A Markdown file outside the audit root with a broken link: CI's tree
#    run checks the audit root alone, so it passes (0), and so must the hook.
printf '# Notes\n\nSee [gone](gone.md).\n' >NOTES.md
git add NOTES.md
commit g 0 "a root NOTES.md with a broken link"
ci g 0
git reset -q --hard HEAD~1 2>/dev/null; git rm -q --cached NOTES.md 2>/dev/null; rm -f NOTES.md

# h. fusecert cannot run: exit 2 and hook.failed, whatever is staged.
printf 'More.\n' >>docs/audit/B.md
git add docs/audit/B.md
hook=$(git rev-parse --git-path hooks)/pre-commit
FUSECERT=/nope expect 2 h sh "$hook"
contains h.err "hook.failed"
grep -q "hook.rejected" "$W/h.err" && fail "h: fusecert not running was reported as hook.rejected"
FUSECERT=/nope commit h_commit 1 "fusecert missing"
contains h_commit.log "hook.failed"
git reset -q --hard

# i. 700 staged files with long names (past one xargs batch, 128 KiB) on a
#    red tree (B orphaned): B's finding once, one summary, one rejection.
sed '/(B.md)/d' docs/audit/README.md >"$W/x" && cp "$W/x" docs/audit/README.md
mkdir -p notes
long=$(printf '%0200d' 0)
n=0
while [ $n -lt 700 ]; do printf 'x\n' >"notes/$long.$n.md"; n=$((n + 1)); done
git add docs/audit/README.md notes
commit i 1 "many staged files on a red tree"
[ "$(grep -c 'docs/audit/B.md:.*routing.unrouted' "$W/i.log")" -eq 1 ] || fail "i: B's finding not printed exactly once: $(grep -c 'B.md' "$W/i.log")"
[ "$(grep -c '\[summary\]' "$W/i.log")" -eq 1 ] || fail "i: not one summary line: $(grep -c summary "$W/i.log")"
[ "$(grep -c 'hook.rejected' "$W/i.log")" -eq 1 ] || fail "i: not one hook.rejected line"
git reset -q --hard

# j. Deleting the whole top folder a document's path lives in does not make
#    the path "not a path": the hook reports it broken, once.
j_base=$(git rev-parse HEAD)
git rm -r -q src
commit j 1 "delete src"
contains j.log "docs/audit/A.md:.*repository path .src/x.py. does not exist.*anchor.broken-path"
[ "$(grep -c 'A.md:.*anchor.broken-path' "$W/j.log")" -eq 1 ] || fail "j: A's finding not printed once"
printf 'src/x.py\n' >"$W/removed_src"
expect 1 j_removed "$BIN" docs --repo-root . --whole-tree --referrers-of-removed "$W/removed_src"
contains j_removed.out "docs/audit/A.md:.*anchor.broken-path"
# CI after the deletion lands (--no-verify): the tree run reads git's
# history, which deleted src/x.py, so src stays a path root -> 1.
git commit -q --no-verify --allow-empty -m "delete src, unchecked" || exit 1
ci j 1
contains ci_j.out "docs/audit/A.md:.*anchor.broken-path"
# The next commit, staging no deletion: the hook reads git's history as CI
# does, so it fails as CI fails -> 1.
printf 'More.\n' >>docs/audit/B.md
git add docs/audit/B.md
commit j_next 1 "an edit after src was deleted"
contains j_next.log "docs/audit/A.md:.*anchor.broken-path"
git reset -q --hard "$j_base"

# k. An empty commit on a red tree (B orphaned, committed unchecked).
sed '/(B.md)/d' docs/audit/README.md >"$W/x" && cp "$W/x" docs/audit/README.md
git add docs/audit/README.md && git commit -q --no-verify -m "orphan B, unchecked" || exit 1
git commit -q --allow-empty -m "empty" >"$W/k.log" 2>&1
[ $? -eq 1 ] || fail "k: an empty commit on a red tree passed the hook: $(cat "$W/k.log")"
contains k.log "docs/audit/B.md:.*routing.unrouted"
ci k 1
git reset -q --hard "$j_base"

# l. Sparse checkout: src/ is outside the cone, but in the commit.
[ -f src/x.py ] || fail "l: the base tree must hold src/x.py"
git sparse-checkout set docs >/dev/null 2>&1 || fail "l: git sparse-checkout set failed"
[ ! -e src/x.py ] || fail "l: src/x.py is still in the work tree"
printf 'More.\n' >>docs/audit/B.md
git add docs/audit/B.md
commit l 0 "an edit in a sparse checkout"
printf 'See `src/y.py`.\n' >>docs/audit/B.md
git add docs/audit/B.md
commit l_broken 1 "a broken path in a sparse checkout"
contains l_broken.log "docs/audit/B.md:.*src/y.py.*anchor.broken-path"
git reset -q --hard
git sparse-checkout disable >/dev/null 2>&1 || fail "l: git sparse-checkout disable failed"
ci l 0
git reset -q --hard "$j_base"

# m. A staged .mlir that does not parse rejects the commit.
printf 'x\n' >bad.mlir
git add bad.mlir
expect 1 m sh "$hook"
contains m.err "hook.rejected"
grep -q "hook.failed" "$W/m.err" && fail "m: a file that does not parse was reported as hook.failed"
git reset -q --hard
rm -f bad.mlir

# n. The framework's run: the staged deletion, read from the index.
[ -f src/x.py ] || fail "n: the base tree must hold src/x.py"
git rm -r -q src
expect 1 n "$BIN" docs --whole-tree
contains n.out "docs/audit/A.md:.*repository path .src/x.py. does not exist.*anchor.broken-path"
[ "$(grep -c 'A.md:.*anchor.broken-path' "$W/n.out")" -eq 1 ] || fail "n: A's finding not printed once"
git reset -q --hard

# o. A git whose `log` fails: exit 2, the failure named.
mkdir -p "$W/fakegit"
printf '#!/bin/sh\ncase " $* " in *" log "*) exit 3 ;; esac\nexec %s "$@"\n' "$(command -v git)" >"$W/fakegit/git"
chmod +x "$W/fakegit/git"
expect 2 o env PATH="$W/fakegit:$PATH" "$BIN" docs --whole-tree
contains o.err "git log --diff-filter=D. failed (exit 3)"
grep -q "anchor\.\|routing\." "$W/o.out" && fail "o: findings printed though the run could not be checked"
# The native hook reads history itself: the same failure is hook.failed (2).
expect 2 o_hook env PATH="$W/fakegit:$PATH" sh "$hook"
contains o_hook.err "git log --diff-filter=D failed.*hook.failed"

# p. No git at all, though the root holds .git.
expect 2 p env PATH=/nonexistent "$BIN" docs --whole-tree
contains p.err "git cannot be run"

finish
