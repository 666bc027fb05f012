#!/bin/sh
# `fusecert hook install|uninstall` with real git in a temporary repository:
# a foreign hook is refused without --force and restored by uninstall; a
# commit adding a plan with no plan_state is rejected with the finding
# printed; the fixed commit goes through; a staged .mlir with an illegal
# fusion is rejected.
# Usage: hook_native_test.sh FUSECERT SRCDIR
set -u
BIN=$1
SRC=$2
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export HOME="$W" GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com \
  GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
commit() {  # commit NAME WANT_STATUS MESSAGE
  git commit -q -m "$3" >"$W/$1.log" 2>&1
  got=$?
  [ "$got" -eq "$2" ] || fail "$1: git commit exit $got, expected $2: $(cat "$W/$1.log")"
}
has() { grep -q -- "$2" "$W/$1" || fail "$1 lacks '$2': $(head -c 800 "$W/$1")"; }

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
has i1.err "a pre-commit hook fusecert did not write is already there"
grep -q "foreign hook ran" .git/hooks/pre-commit || fail "the foreign hook was changed"
"$BIN" hook install --force >"$W/i2.out" 2>&1 || fail "install --force: $(cat "$W/i2.out")"
[ -x .git/hooks/pre-commit ] && grep -q "fusecert-hook" .git/hooks/pre-commit || fail "hook not installed"
grep -q "foreign hook ran" .git/hooks/pre-commit.fusecert-saved || fail "foreign hook not kept"
"$BIN" hook install >/dev/null 2>&1 || fail "reinstalling over our own hook must succeed"

# A plan with no plan_state: rejected, the finding printed.
sed '/^plan_state:/d' docs/audit/FUSION_PLAN.md >"$W/p" && mv "$W/p" docs/audit/FUSION_PLAN.md
git add docs/audit/FUSION_PLAN.md
commit bad 1 "plan without plan_state"
has bad.log "frontmatter.plan-state"
has bad.log "FUSION_PLAN.md"
has bad.log "commit rejected"
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
has ir_bad.log "error: \[P2\]"
git reset -q
git add ir/layer_clip_linalg.mlir
commit ir_good 0 "legal fusion (the illegal file is not staged)"

# Uninstall restores the foreign hook.
"$BIN" hook uninstall >"$W/u.out" 2>&1 || fail "uninstall: $(cat "$W/u.out")"
grep -q "foreign hook ran" .git/hooks/pre-commit || fail "the foreign hook was not restored"
[ -e .git/hooks/pre-commit.fusecert-saved ] && fail "the saved copy is still there"
git add ir/global_clip_linalg.mlir
commit after 0 "after uninstall"
has after.log "foreign hook ran"
"$BIN" hook uninstall >/dev/null 2>"$W/u2.err"
[ $? -eq 2 ] || fail "uninstall with no fusecert hook: expected exit 2"
has u2.err "no fusecert hook installed"
"$BIN" hook install --repo "$W/nope" >/dev/null 2>"$W/nr.err"
[ $? -eq 2 ] || fail "install outside a repository: expected exit 2"

[ $fails -eq 0 ] && echo PASS
exit $fails
