#!/bin/sh
# `fusecert hook install|uninstall` with real git in a temporary repository:
# a foreign hook is refused without --force and restored by uninstall; a
# commit adding a plan with no plan_state is rejected with the finding
# printed; the fixed commit goes through; a staged .mlir with an illegal
# fusion is rejected.
# Usage: hook_native_test.sh FUSECERT SRCDIR
. "$(dirname "$0")/lib.sh"
git_identity

git init -q "$W/repo" && cd "$W/repo" || exit 1
today=$(date -u +%F)
mkdir -p docs/audit ir
for f in "$SRC"/fixtures/docs/frontmatter.plan-state/pass/docs/audit/*.md; do
  sed "s/^last_updated: .*/last_updated: $today/" "$f" >"docs/audit/$(basename "$f")"
done
git add docs && git commit -q -m base || exit 1

# A hook fusecert did not write: refused, then replaced with --force.
printf '#!/bin/sh\necho foreign hook ran\n' >.git/hooks/pre-commit
chmod +x .git/hooks/pre-commit
"$BIN" hook install >"$W/i1.out" 2>"$W/i1.err"
[ $? -eq 2 ] || fail "install over a foreign hook: expected exit 2"
contains i1.err "a pre-commit hook fusecert did not write is already there"
grep -q "foreign hook ran" .git/hooks/pre-commit || fail "the foreign hook was changed"
"$BIN" hook install --force >"$W/i2.out" 2>&1 || fail "install --force: $(cat "$W/i2.out")"
[ -x .git/hooks/pre-commit ] && grep -q "fusecert-hook" .git/hooks/pre-commit || fail "hook not installed"
grep -q "foreign hook ran" .git/hooks/pre-commit.fusecert-saved || fail "foreign hook not kept"
"$BIN" hook install >/dev/null 2>&1 || fail "reinstalling over our own hook must succeed"

# A plan with no plan_state: rejected, the finding printed.
sed '/^plan_state:/d' docs/audit/FUSION_PLAN.md >"$W/p" && mv "$W/p" docs/audit/FUSION_PLAN.md
git add docs/audit/FUSION_PLAN.md
commit bad 1 "plan without plan_state"
contains bad.log "frontmatter.plan-state"
contains bad.log "FUSION_PLAN.md"
contains bad.log "commit rejected"
# The rejection is a diagnostic in the one form, with its rule id (issue #13).
contains bad.log "^fusecert hook: error: commit rejected: .* \[hook\.rejected\]$"
[ "$(git rev-list --count HEAD)" -eq 1 ] || fail "the bad commit landed"

# The fixed commit goes through.
sed 's/^audit_role: plan$/audit_role: plan\nplan_state: landing/' docs/audit/FUSION_PLAN.md >"$W/p" && mv "$W/p" docs/audit/FUSION_PLAN.md
git add docs/audit/FUSION_PLAN.md
commit fixed 0 "plan with plan_state"
[ "$(git rev-list --count HEAD)" -eq 2 ] || fail "the fixed commit did not land"

# An illegal fusion in a staged .mlir: rejected, the P2 diagnostic printed;
# a legal one goes through. Unstaged files are not checked.
cp "$SRC/fixtures/ir/global_clip_linalg.mlir" ir/
cp "$SRC/fixtures/ir/layer_clip_linalg.mlir" ir/
git add ir/global_clip_linalg.mlir
commit ir_bad 1 "illegal fusion"
contains ir_bad.log "error: .* \[P2\.[a-z_]*\]$"
git reset -q
git add ir/layer_clip_linalg.mlir
commit ir_good 0 "legal fusion (the illegal file is not staged)"

# The gate checks what the commit holds (issue #17): the index, not the
# working copy; every extension case; type changes; a file named like an
# option. Each of these used to let an illegal fusion or a bad doc through.
cp "$SRC/fixtures/ir/global_clip_linalg.mlir" ir/layer_clip_linalg.mlir
git add ir/layer_clip_linalg.mlir
cp "$SRC/fixtures/ir/layer_clip_linalg.mlir" ir/layer_clip_linalg.mlir   # the working copy is legal again
commit staged_blob 1 "illegal fusion staged, legal working copy"
contains staged_blob.log "error: .*\[P2\.clip_scope\]"
git checkout -q -- ir/layer_clip_linalg.mlir 2>/dev/null; git reset -q --hard
cp "$SRC/fixtures/ir/global_clip_linalg.mlir" ir/UPPER.MLIR
git add ir/UPPER.MLIR
commit upper 1 "illegal fusion in UPPER.MLIR"
contains upper.log "error: .*\[P2\.clip_scope\]"
git rm -q --cached ir/UPPER.MLIR && rm -f ir/UPPER.MLIR
cp "$SRC/fixtures/ir/global_clip_linalg.mlir" ./-h.mlir
git add -- -h.mlir
commit dash 1 "illegal fusion in a file named -h.mlir"
contains dash.log "error: .*\[P2\.clip_scope\]"
git rm -q --cached -- -h.mlir && rm -f ./-h.mlir
ln -s layer_clip_linalg.mlir ir/link.mlir && git add ir/link.mlir && git commit -q --no-verify -m "a symlink" || exit 1
rm ir/link.mlir && cp "$SRC/fixtures/ir/global_clip_linalg.mlir" ir/link.mlir && git add ir/link.mlir
[ "$(git diff --cached --name-status -- ir/link.mlir | cut -c1)" = T ] || fail "the test meant a type change (T)"
commit typechange 1 "a symlink turned into an illegal fusion (type change)"
contains typechange.log "error: .*\[P2\.clip_scope\]"
git reset -q --hard
sed '/^plan_state:/d' docs/audit/FUSION_PLAN.md >"$W/p" && cp "$W/p" docs/audit/FUSION_PLAN.md
git add docs/audit/FUSION_PLAN.md
git show HEAD:docs/audit/FUSION_PLAN.md >docs/audit/FUSION_PLAN.md   # the working copy is fixed, the index is not
git show :docs/audit/FUSION_PLAN.md | grep -q '^plan_state:' && fail "the test meant a staged plan without plan_state"
commit staged_doc 1 "a plan without plan_state staged, the working copy fixed"
contains staged_doc.log "frontmatter.plan-state"
git reset -q --hard
# Deleting a routed doc (issue #18): the documents that linked it get the
# routing and link rules, as a tree run in CI would.
git rm -q docs/audit/FUSION_PLAN.md
commit removed 1 "delete a plan the index links"
contains removed.log "docs/audit/README.md:.*anchor.broken-link"
git reset -q --hard
# Renaming it (git mv): the hook reads the staged names with --no-renames, so
# the old name is a deletion and the index that links it is checked as well.
git mv docs/audit/FUSION_PLAN.md docs/audit/FUSION_PLAN_V2.md
commit renamed 1 "rename a plan the index links"
contains renamed.log "docs/audit/README.md:.*anchor.broken-link"
git reset -q --hard
[ -f docs/audit/FUSION_PLAN.md ] && [ ! -e docs/audit/FUSION_PLAN_V2.md ] || fail "the rename was not undone"

# A hook that cannot check the commit refuses it and says why, in the one
# form (issue #13): here mktemp has no folder to write in.
cp "$SRC/fixtures/ir/layer_clip_linalg.mlir" ir/tmpdir.mlir && git add ir/tmpdir.mlir
TMPDIR=$W/no/such/folder commit notmp 1 "no temporary folder"
contains notmp.log "^fusecert hook: error: cannot make a temporary folder; the commit was not checked \[hook\.failed\]$"
git reset -q --hard && rm -f ir/tmpdir.mlir

# Uninstall restores the foreign hook.
"$BIN" hook uninstall >"$W/u.out" 2>&1 || fail "uninstall: $(cat "$W/u.out")"
grep -q "foreign hook ran" .git/hooks/pre-commit || fail "the foreign hook was not restored"
[ -e .git/hooks/pre-commit.fusecert-saved ] && fail "the saved copy is still there"
git add ir/global_clip_linalg.mlir
commit after 0 "after uninstall"
contains after.log "foreign hook ran"
"$BIN" hook uninstall >/dev/null 2>"$W/u2.err"
[ $? -eq 2 ] || fail "uninstall with no fusecert hook: expected exit 2"
contains u2.err "no fusecert hook installed"
"$BIN" hook install --repo "$W/nope" >/dev/null 2>"$W/nr.err"
[ $? -eq 2 ] || fail "install outside a repository: expected exit 2"

# The hooks folder is the repository's wherever install runs: from a
# subfolder, with --repo naming a subfolder, with a relative core.hooksPath
# (relative to the top level, as git runs hooks there), and in a linked
# worktree (hooks are shared with the main repository). Nothing is written
# outside the repository (git rev-parse --git-path answers relative to the
# folder git ran in, e.g. ../.git/hooks from sub/).
W2=$(cd "$W" && pwd -P)
mkdir "$W2/outer" && git init -q "$W2/outer/repo2" && mkdir -p "$W2/outer/repo2/sub/deeper" || exit 1
(cd "$W2/outer/repo2/sub" && "$BIN" hook install) >"$W/s1.out" 2>&1 || fail "install from a subfolder: $(cat "$W/s1.out")"
contains s1.out "installed $W2/outer/repo2/.git/hooks/pre-commit"
grep -q fusecert-hook "$W2/outer/repo2/.git/hooks/pre-commit" 2>/dev/null || fail "install from a subfolder: no hook in repo2/.git/hooks"
[ -e "$W2/outer/.git" ] && fail "install from a subfolder created $W2/outer/.git"
(cd "$W2/outer/repo2/sub/deeper" && "$BIN" hook uninstall) >"$W/s2.out" 2>&1 || fail "uninstall from a subfolder: $(cat "$W/s2.out")"
[ -e "$W2/outer/repo2/.git/hooks/pre-commit" ] && fail "uninstall from a subfolder left the hook"
(cd "$W2" && "$BIN" hook install --repo outer/repo2/sub) >"$W/s3.out" 2>&1 || fail "install --repo SUBFOLDER: $(cat "$W/s3.out")"
grep -q fusecert-hook "$W2/outer/repo2/.git/hooks/pre-commit" 2>/dev/null || fail "install --repo SUBFOLDER: no hook in repo2/.git/hooks"
[ -e "$W2/outer/.git" ] || [ -e "$W2/outer/repo2/sub/.git" ] || [ -e "$W2/.git" ] && fail "install --repo SUBFOLDER wrote a .git outside repo2"
"$BIN" hook uninstall --repo "$W2/outer/repo2/sub/deeper" >"$W/s4.out" 2>&1 || fail "uninstall --repo SUBFOLDER: $(cat "$W/s4.out")"
git -C "$W2/outer/repo2" config core.hooksPath myhooks
(cd "$W2/outer/repo2/sub" && "$BIN" hook install) >"$W/s5.out" 2>&1 || fail "install with core.hooksPath: $(cat "$W/s5.out")"
grep -q fusecert-hook "$W2/outer/repo2/myhooks/pre-commit" 2>/dev/null || fail "core.hooksPath=myhooks: no hook in repo2/myhooks ($(cat "$W/s5.out"))"
[ -e "$W2/outer/repo2/sub/myhooks" ] && fail "core.hooksPath=myhooks: hook written below sub/"
(cd "$W2/outer/repo2/sub" && "$BIN" hook uninstall) >"$W/s6.out" 2>&1 || fail "uninstall with core.hooksPath: $(cat "$W/s6.out")"
[ -e "$W2/outer/repo2/myhooks/pre-commit" ] && fail "uninstall with core.hooksPath left the hook"
git -C "$W2/outer/repo2" config --unset core.hooksPath
git -C "$W2/outer/repo2" commit -q --allow-empty -m base && git -C "$W2/outer/repo2" worktree add -q "$W2/outer/wt" || exit 1
mkdir "$W2/outer/wt/sub"
(cd "$W2/outer/wt/sub" && "$BIN" hook install) >"$W/s7.out" 2>&1 || fail "install in a worktree: $(cat "$W/s7.out")"
grep -q fusecert-hook "$W2/outer/repo2/.git/hooks/pre-commit" 2>/dev/null || fail "worktree: no hook in the main repository's hooks"
[ -e "$W2/outer/wt/.git/hooks" ] || [ -e "$W2/outer/.git" ] && fail "worktree: hook written outside the repository's hooks"
# The hook runs on a commit made in the worktree's subfolder ($FUSECERT
# stands in for the binary, so only the hook's wiring is tested here).
printf '#!/bin/sh\necho "stand-in fusecert ran: $*"\n' >"$W/fake" && chmod +x "$W/fake"
echo "# x" >"$W2/outer/wt/sub/x.md"
(cd "$W2/outer/wt/sub" && git add x.md && FUSECERT="$W/fake" git commit -q -m wt) >"$W/s8.out" 2>&1 ||
  fail "worktree commit: $(cat "$W/s8.out")"
# The tree run of the index, as CI runs it: no file arguments (issue #18).
contains s8.out "stand-in fusecert ran: docs --repo-root . --whole-tree$"
(cd "$W2/outer/wt/sub" && "$BIN" hook uninstall) >"$W/s9.out" 2>&1 || fail "uninstall in a worktree: $(cat "$W/s9.out")"

finish
