#!/bin/sh
# The repository's .pre-commit-hooks.yaml with the real `pre-commit`
# framework, offline: a hooks repository holding that file, a project using
# fusecert-docs and fusecert-ir; a plan with no plan_state is rejected with
# the finding printed, the fixed commit goes through, an illegal fusion in a
# staged .mlir is rejected, also in a file named -h.mlir; a staged
# `git rm -r src` that breaks a document's `src/x.py` is rejected.
# Usage: hook_precommit_test.sh FUSECERT SRCDIR PRE_COMMIT
. "$(dirname "$0")/lib.sh"
PC=$3
git_identity
export PRE_COMMIT_HOME="$W/cache"
PATH="$(dirname "$BIN"):$PATH"
export PATH
[ "$(command -v fusecert)" = "$BIN" ] || [ "$(command -v fusecert)" = "$(dirname "$BIN")/fusecert" ] || fail "fusecert not first on PATH"

# The hooks repository: this repository's hook definitions.
git init -q "$W/hooks" && cp "$SRC/.pre-commit-hooks.yaml" "$W/hooks/" || exit 1
git -C "$W/hooks" add .pre-commit-hooks.yaml && git -C "$W/hooks" commit -q -m hooks || exit 1
rev=$(git -C "$W/hooks" rev-parse HEAD)

git init -q "$W/repo" && cd "$W/repo" || exit 1
cat >.pre-commit-config.yaml <<YAML
repos:
  - repo: $W/hooks
    rev: $rev
    hooks:
      - id: fusecert-docs
      - id: fusecert-ir
YAML
today=$(date -u +%F)
mkdir -p docs/audit ir
for f in "$SRC"/fixtures/docs/frontmatter.plan-state/pass/docs/audit/*.md; do
  sed "s/^last_updated: .*/last_updated: $today/" "$f" >"docs/audit/$(basename "$f")"
done
git add . && git commit -q -m base || exit 1
"$PC" install >"$W/install.log" 2>&1 || fail "pre-commit install: $(cat "$W/install.log")"

sed '/^plan_state:/d' docs/audit/FUSION_PLAN.md >"$W/p" && mv "$W/p" docs/audit/FUSION_PLAN.md
git add docs/audit/FUSION_PLAN.md
commit bad 1 "plan without plan_state"
contains bad.log "fusecert docs (audit documents)"
contains bad.log "frontmatter.plan-state"
contains bad.log "Failed"
[ "$(git rev-list --count HEAD)" -eq 1 ] || fail "the bad commit landed"

sed 's/^audit_role: plan$/audit_role: plan\nplan_state: landing/' docs/audit/FUSION_PLAN.md >"$W/p" && mv "$W/p" docs/audit/FUSION_PLAN.md
git add docs/audit/FUSION_PLAN.md
commit fixed 0 "plan with plan_state"
[ "$(git rev-list --count HEAD)" -eq 2 ] || fail "the fixed commit did not land"

cp "$SRC/fixtures/ir/global_clip_linalg.mlir" ir/
git add ir/global_clip_linalg.mlir
commit ir_bad 1 "illegal fusion"
contains ir_bad.log "fusecert certify (fusion legality of .mlir)"
contains ir_bad.log "error: .* \[P2\.[a-z_]*\]$"
git rm -q --cached ir/global_clip_linalg.mlir
cp "$SRC/fixtures/ir/layer_clip_linalg.mlir" ir/
git add ir/layer_clip_linalg.mlir
rm ir/global_clip_linalg.mlir
commit ir_good 0 "legal fusion"

# A staged file whose name starts with '-' is a file name, not an option
# (expected, from the fusion it holds: the global-norm clip rejects the
# commit under P2, instead of `-h` printing the help and exiting 0).
cp "$SRC/fixtures/ir/global_clip_linalg.mlir" ./-h.mlir
git add -- -h.mlir
commit dash 1 "illegal fusion in a file named -h.mlir"
contains dash.log "error: .* \[P2\.[a-z_]*\]$"
contains dash.log "^-h.mlir:[0-9]*:[0-9]*: error:"
git rm -q --cached -- -h.mlir && rm -f ./-h.mlir

# The hook and CI agree (issue #18): fusecert-docs checks the whole audit
# tree, not only the staged files. Expected from the routing semantics:
# the index stops naming REF.md (its only route), REF.md is not staged and
# becomes routing.unrouted -> Failed (1); deleting FUSION_PLAN.md alone
# (nothing Markdown left to pass) breaks the index's link -> Failed (1).
sed '/`REF.md`/d' docs/audit/README.md >"$W/r" && cp "$W/r" docs/audit/README.md
git add docs/audit/README.md
commit orphan 1 "the index stops naming REF.md"
contains orphan.log "docs/audit/REF.md:.*routing.unrouted"
git reset -q --hard
git rm -q docs/audit/FUSION_PLAN.md
commit delete_only 1 "delete a plan the index links"
contains delete_only.log "docs/audit/README.md:.*anchor.broken-link"
git reset -q --hard
printf 'More background.\n' >>docs/audit/REF.md
git add docs/audit/REF.md
commit ref_edit 0 "an edit that breaks nothing"
# A root NOTES.md (outside the audit root) with a broken link: CI's tree run
# (`fusecert docs`) does not decide it and passes (0), so the hook passes too.
printf '# Notes\n\nSee [gone](gone.md).\n' >NOTES.md
git add NOTES.md
commit notes 0 "a root NOTES.md with a broken link"
expect 0 notes_ci "$BIN" docs --repo-root .

# `git rm -r src` while REF.md names `src/x.py` (issue #18 acceptance F2):
# fusecert-docs runs in the work tree before the commit exists, so the
# deletion is only in the index; src stays a path root and the path is
# broken -> Failed (1), as the native hook and CI's tree run after it say.
mkdir -p src && printf 'x = 1\n' >src/x.py
printf 'The helper is `src/x.py`.\n' >>docs/audit/REF.md
git add src/x.py docs/audit/REF.md
commit src_base 0 "name src/x.py"
git rm -r -q src
commit src_removed 1 "delete src while REF.md names src/x.py"
contains src_removed.log "docs/audit/REF.md:.*repository path .src/x.py. does not exist.*anchor.broken-path"
git reset -q --hard

finish
