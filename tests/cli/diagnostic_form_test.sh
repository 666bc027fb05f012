#!/bin/sh
# The one text form of docs/diagnostics.md, subcommand by subcommand (issue
# #13): every diagnostic line is `PATH[:LINE[:COL]]: SEVERITY: MESSAGE [RULE]`
# or, about no file, `fusecert SUBCOMMAND: SEVERITY: MESSAGE [RULE]`; a note
# the same with `note:` and no rule. The expectations are the contract's,
# written before the runs:
#   - CLI11's parse errors (a value not allowed, an unknown option, a missing
#     argument), on every subcommand: `fusecert SUB: error: … [usage]`, a
#     note naming `fusecert SUB --help`, exit 2; --help still exits 0;
#   - the subcommands' own usage errors: the same form, `[usage]`;
#   - a file that cannot be read (missing, a folder, a FIFO; no permission
#     unless run as root, who reads anything): `PATH: error: cannot read: …
#     [input.unreadable]`, exit 2, by every subcommand that reads files;
#   - paths relative to the working directory, normalised lexically:
#     `./in/x.mlir`, `in/x.mlir` and `$PWD/in/x.mlir` print as `in/x.mlir`,
#     `../in/x.mlir` as `../in/x.mlir`.
# Usage: diagnostic_form_test.sh FUSECERT SRCDIR
. "$2/tests/shell/lib.sh"
IR=$SRC/fixtures/ir

# run WANT NAME CMD...: expect (lib.sh), and stdout and stderr together in $W/NAME.all.
run() {
  expect "$@"
  cat "$W/$2.out" "$W/$2.err" >"$W/$2.all"
}
# has NAME REGEX: a line of $W/NAME.all matches REGEX (grep -E).
has() { grep -E -q -- "$2" "$W/$1.all" || fail "$1: no line matches '$2': $(head -c 800 "$W/$1.all")"; }
# one_form NAME: every line of $W/NAME.err is a diagnostic in the one form:
# an error, warning or remark ends in its [rule], a note has none, and none
# starts with a bare severity.
one_form() {
  bad=$(grep -E -v '^[^ ]([^:]*[^ :])?(:[0-9]+(:[0-9]+)?)?: (((error|warning|remark): .* \[[A-Za-z0-9_.-]+\])|(note: .*))$' "$W/$1.err" |
    cat)
  [ -z "$bad" ] || fail "$1: lines not in the one form: $bad"
  ! grep -E -q '^(error|warning|note|remark):' "$W/$1.err" "$W/$1.out" || fail "$1: a bare severity line"
}
# usage NAME SUB CMD...: exit 2, `fusecert SUB: error: … [usage]` and its
# --help note, and nothing else on stderr.
usage() {
  name=$1 tool="fusecert${2:+ $2}"
  shift 2
  run 2 "$name" "$@"
  has "$name" "^$tool: error: .* \[usage\]$"
  has "$name" "^$tool: note: run '$tool --help' for the options$"
  one_form "$name"
}

# 1. CLI11's parse errors, on every subcommand.
usage top "" "$BIN" --bogus
usage top_nosub "" "$BIN"
for sub in docs certify check-cert validate prove query shell kernels hook; do
  usage "unknown_$sub" "$sub" "$BIN" "$sub" --no-such-option
done
# With what each one requires given, the unknown option is what is reported.
for sub in docs certify "check-cert x.cert.json" "validate x.mlir" prove "query list" shell "kernels evidence" \
  "hook install"; do
  case $sub in
  kernels*) as="kernels evidence" ;;
  hook*) as="hook install" ;;
  *) as=${sub%% *} ;;
  esac
  case_name=unknown_given_$(echo "$sub" | tr ' .' '__')
  # shellcheck disable=SC2086
  usage "$case_name" "$as" "$BIN" $sub --no-such-option
  has "$case_name" "no-such-option"
done
for sub in docs certify check-cert validate prove query; do
  usage "format_$sub" "$sub" "$BIN" "$sub" --format xml x
  has "format_$sub" "xml"
done
usage missing_check_cert check-cert "$BIN" check-cert
has missing_check_cert "certs"
usage missing_validate validate "$BIN" validate
has missing_validate "before"
usage missing_query query "$BIN" query
has missing_query "command"
usage missing_kernels kernels "$BIN" kernels
usage missing_hook hook "$BIN" hook
usage kernels_bench_reps "kernels bench" "$BIN" kernels bench --reps 0
usage validate_k validate "$BIN" validate "$SRC/fixtures/tv/wrong_step.mlir" --k 0
for sub in "" docs certify check-cert validate prove query shell kernels hook; do
  # shellcheck disable=SC2086
  run 0 "help_$sub" "$BIN" $sub --help
  has "help_$sub" "^Exit codes \(every subcommand\):$"
done

# 2. The subcommands' own usage errors: one form, [usage].
run 2 prove_id "$BIN" prove P99
has prove_id "^fusecert prove: error: unknown proposition id 'P99'; known: .* \[usage\]$"
one_form prove_id
run 2 prove_param "$BIN" prove P2 --param nosuch=1
has prove_param "^fusecert prove: error: .*nosuch.* \[usage\]$"
one_form prove_param
run 2 docs_today "$BIN" docs --today 2026-13-45 "$SRC/fixtures/docs/claim.overclaim/pass"
has docs_today "^fusecert docs: error: --today must be a real date .* \[usage\]$"
one_form docs_today
run 2 certify_verify "$BIN" certify --verify-diagnostics
has certify_verify "^fusecert certify: error: --verify-diagnostics needs FILE inputs \[usage\]$"
one_form certify_verify
run 2 cc_ir_before "$BIN" check-cert --ir-before "$IR/adamw_tessera.mlir" x.cert.json
has cc_ir_before "^fusecert check-cert: error: --ir-before needs --ir \(the AFTER module\) \[usage\]$"
one_form cc_ir_before
run 2 assume "$BIN" certify --assume nosuchkey=1 "$IR/adamw_tessera.mlir"
has assume "^fusecert certify: error: .* \[usage\]$"
one_form assume

# prove: stderr holds only diagnostics (--bench's remarks); stdout is the
# report in the form docs/prover.md "The text report" lists, line by line.
run 0 prove_bench "$BIN" prove P4 --no-witness --bench
has prove_bench "^fusecert prove: remark: P4: [0-9]+ ms, solver [0-9]+ ms \[prove.bench\]$"
has prove_bench "^fusecert prove: remark: total [0-9]+ ms, solver [0-9]+ ms, cache hits [0-9]+ \[prove.bench\]$"
one_form prove_bench
bad=$(grep -E -v -e '^id +statement +verdict +expected +time$' -e '^-{103}$' \
  -e '^P[0-9][0-9a-z]* +.* +(holds|refuted|conditional|inconclusive) +(holds|refuted|conditional) +[0-9]+ms(  <-- differs)?$' \
  -e '^total +[0-9]+ms$' -e '^$' -e '^P[0-9][0-9a-z]* — .+$' \
  -e '^  (verdict|parameters overridden|obligation|sanity check|counterexample|witness|note)[ :(].*$' \
  -e '^      [^ ].*$' "$W/prove_bench.out" | cat)
[ -z "$bad" ] || fail "prove's report: lines not in its documented form: $bad"
grep -q '^P4 — ' "$W/prove_bench.out" || fail "prove's report: no section for P4"

# 3. Files that cannot be read, by every subcommand that reads files; paths
# as named, relative to the working directory.
mkdir -p "$W/wd/in" "$W/wd/sub" "$W/wd/folder.mlir" "$W/wd/folder.cert.json"
mkfifo "$W/wd/fifo.mlir" "$W/wd/fifo.cert.json"
cp "$IR/global_clip_tessera.mlir" "$W/wd/in/x.mlir"
cd "$W/wd" || exit 1
for f in missing folder fifo; do
  # (a folder is a tree input of certify: certify_tree_missing below)
  if [ "$f" != folder ]; then
    run 2 "certify_$f" "$BIN" certify "./$f.mlir"
    has "certify_$f" "^$f.mlir: error: cannot read: .* \[input.unreadable\]$"
  fi
  run 2 "validate_$f" "$BIN" validate "./$f.mlir"
  has "validate_$f" "^$f.mlir: error: cannot read: .* \[input.unreadable\]$"
  run 2 "cc_$f" "$BIN" check-cert "./$f.cert.json"
  has "cc_$f" "^$f.cert.json: error: cannot read: .* \[input.unreadable\]$"
  one_form "cc_$f"
  run 2 "cc_ir_$f" "$BIN" check-cert --ir "./$f.mlir" x.cert.json
  has "cc_ir_$f" "^$f.mlir: error: cannot read: .* \[input.unreadable\]$"
  one_form "cc_ir_$f"
  run 2 "dialect_$f" "$BIN" certify --dialect "./$f.mlir" in/x.mlir
  has "dialect_$f" "^$f.mlir: error: cannot read: .* \[input.unreadable\]$"
  one_form "dialect_$f"
done
has cc_folder "^folder.cert.json: error: cannot read: is a folder, not a regular file \[input.unreadable\]$"
has cc_fifo "^fifo.cert.json: error: cannot read: not a regular file \[input.unreadable\]$"
has certify_missing "^missing.mlir: error: cannot read: No such file or directory \[input.unreadable\]$"
# One wording for a missing file, whatever the subcommand (issue #13
# acceptance: certify said "no such file", check-cert and validate the
# system's message).
run 2 cc_missing_one "$BIN" check-cert ./missing.mlir
run 2 validate_missing_one "$BIN" validate ./missing.mlir
run 2 cc_ir_missing_one "$BIN" check-cert ./missing.mlir --ir ./missing.mlir
for n in cc_missing_one validate_missing_one cc_ir_missing_one; do
  has "$n" "^missing.mlir: error: cannot read: No such file or directory \[input.unreadable\]$"
done
run 2 docs_missing "$BIN" docs --repo-root . ./missing.md
has docs_missing "^missing.md: error: cannot read: No such file or directory \[input.unreadable\]$"
one_form docs_missing
run 2 docs_removed "$BIN" docs --repo-root . --referrers-of-removed ./folder.mlir
has docs_removed "^folder.mlir: error: cannot read: .* \[input.unreadable\]$"
one_form docs_removed
run 2 docs_config_missing "$BIN" docs --repo-root . --config ./missing.yaml
has docs_config_missing "^missing.yaml: error: cannot read: No such file or directory \[input.unreadable\]$"
one_form docs_config_missing
# A configuration that does not load is reported at its key, input.config.
printf 'docs:\n  nosuch: 1\n' >bad.yaml
run 2 docs_config_key "$BIN" docs --repo-root . --config ./bad.yaml
has docs_config_key "^bad.yaml:2:3: error: unknown key \`docs.nosuch\` \[input.config\]$"
one_form docs_config_key
# A rules file that does not load is reported at its key, input.config, by
# prove and query: one diagnostic line, not a located error inside a usage one.
mkdir -p badrules
printf 'propositions:\n  - id: P1\n    title: t\n' >badrules/propositions.yaml
export FUSECERT_RULES_DIR=badrules
run 2 prove_rules "$BIN" prove P1
has prove_rules "^badrules/propositions.yaml:2:5: error: missing or non-scalar key 'statement' \[input.config\]$"
one_form prove_rules
run 2 query_rules "$BIN" query list
has query_rules "^badrules/propositions.yaml:2:5: error: missing or non-scalar key 'statement' \[input.config\]$"
one_form query_rules
printf 'propositions: [\n' >badrules/propositions.yaml
run 2 prove_rules_yaml "$BIN" prove P1
has prove_rules_yaml "^badrules/propositions.yaml:[0-9]+:[0-9]+: error: .* \[input.config\]$"
one_form prove_rules_yaml
rm badrules/propositions.yaml
run 2 prove_rules_missing "$BIN" prove P1
has prove_rules_missing "^badrules/propositions.yaml: error: .* \[input.config\]$"
one_form prove_rules_missing
unset FUSECERT_RULES_DIR
# A --dialect table that does not load: at its line, in one line.
printf 'dialect: acme\nops: [\n' >bad_table.yaml
run 2 dialect_bad "$BIN" certify --dialect ./bad_table.yaml in/x.mlir
has dialect_bad "^bad_table.yaml(:[0-9]+(:[0-9]+)?)?: error: .* \[input.config\]$"
one_form dialect_bad
! grep -q '^fusecert certify: error: .*bad_table.yaml' "$W/dialect_bad.all" || fail "dialect_bad: the table's error is not at the table"
run 2 certify_tree_missing "$BIN" certify -r ./missing --out out
has certify_tree_missing "^missing: error: cannot read: No such file or directory \[input.unreadable\]$"
one_form certify_tree_missing
if [ "$(id -u)" -ne 0 ]; then
  printf 'x\n' >noperm.mlir && chmod 000 noperm.mlir
  run 2 certify_noperm "$BIN" certify ./noperm.mlir
  has certify_noperm "^noperm.mlir: error: cannot read: .* \[input.unreadable\]$"
  run 2 cc_noperm "$BIN" check-cert ./noperm.mlir
  has cc_noperm "^noperm.mlir: error: cannot read: .* \[input.unreadable\]$"
fi

# 4. Paths relative to the working directory, normalised lexically.
run 1 rel "$BIN" certify in/x.mlir
run 1 dot "$BIN" certify ./in/x.mlir
run 1 abs "$BIN" certify "$W/wd/in/x.mlir"
run 1 dotdot "$BIN" certify ./sub/../in/x.mlir
for n in rel dot abs dotdot; do
  has "$n" "^in/x.mlir:14:19: error: .* \[P2.clip_scope\]$"
  ! grep -E -q "(^|[^a-z])\./in/|$W/wd/in|sub/\.\." "$W/$n.all" || fail "$n: a path not as compilers print it: $(grep -E "\./in/|$W|sub/" "$W/$n.all" | head -3)"
done
cmp -s "$W/rel.out" "$W/dot.out" && cmp -s "$W/rel.out" "$W/abs.out" && cmp -s "$W/rel.out" "$W/dotdot.out" ||
  fail "certify prints in/x.mlir, ./in/x.mlir and \$PWD/in/x.mlir differently"
cd sub || exit 1
run 1 up "$BIN" certify ../in/x.mlir
has up "^\.\./in/x.mlir:14:19: error: .* \[P2.clip_scope\]$"
run 1 up_abs "$BIN" certify "$W/wd/in/x.mlir"
has up_abs "^$W/wd/in/x.mlir:14:19: error: .* \[P2.clip_scope\]$"
run 2 up_missing "$BIN" check-cert ../in/./missing.cert.json
has up_missing "^\.\./in/missing.cert.json: error: cannot read: .* \[input.unreadable\]$"
cd "$W" || exit 1

finish
