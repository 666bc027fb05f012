# bash completion for fusecert (installed as
# share/bash-completion/completions/fusecert).
#
# Asks the binary itself: the subcommands and options of `fusecert SUB...`
# are read from `fusecert SUB... --help` (CLI11's "Options:" and
# "Subcommands:" lists), and the values of an option with a fixed set
# (`--format TEXT:{text,json}`) from the same text, so the completion never
# drifts from the program. Anything else completes as a file name.

_fusecert_help() {
  # $1: the command path ("fusecert certify"); cached per shell.
  local key=${1// /_}
  key=_fusecert_cache_${key//[^A-Za-z0-9_]/_}
  if [[ -z ${!key+set} ]]; then
    printf -v "$key" '%s' "$(${1} --help 2>/dev/null)"
  fi
  printf '%s' "${!key}"
}

_fusecert() {
  local cur prev words cword
  if declare -F _init_completion >/dev/null; then
    _init_completion -n = || return
  else
    cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
  fi
  local bin=${words[0]} path i w help subs
  path=$bin
  # The subcommand path typed so far: each word that the current level lists
  # under "Subcommands:".
  for ((i = 1; i < cword; i++)); do
    w=${words[i]}
    [[ $w == -* ]] && continue
    help=$(_fusecert_help "$path")
    subs=$(awk '/^Subcommands:/ {s = 1; next} s && /^  [a-z]/ {print $1} s && /^$/ {s = 0}' <<<"$help")
    if grep -qx -- "$w" <<<"$subs"; then path="$path $w"; fi
  done
  help=$(_fusecert_help "$path")

  # --opt=value and `--opt value` for an option with a fixed set of values.
  local opt=$prev val=$cur
  if [[ $cur == --*=* ]]; then opt=${cur%%=*} val=${cur#*=}; fi
  if [[ $opt == --* ]]; then
    local line choices
    line=$(grep -E -- "^ +(-[A-Za-z],)?${opt}( |$)" <<<"$help" | head -n1)
    if [[ $line =~ \{([^}]*)\} ]]; then
      choices=${BASH_REMATCH[1]//,/ }
      COMPREPLY=($(compgen -W "$choices" -- "$val"))
      return
    fi
    if [[ $line =~ ^\ +(-[A-Za-z],)?--[a-z0-9-]+\ +[A-Z] ]]; then
      COMPREPLY=($(compgen -f -- "$val"))
      compopt -o filenames 2>/dev/null
      return
    fi
  fi
  if [[ $cur == -* ]]; then
    local opts
    opts=$(grep -oE -- '^ +(-[A-Za-z],)?--[a-z0-9-]+' <<<"$help" | sed -E 's/^ +(-[A-Za-z],)?//')
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi
  subs=$(awk '/^Subcommands:/ {s = 1; next} s && /^  [a-z]/ {print $1} s && /^$/ {s = 0}' <<<"$help")
  if [[ -n $subs ]]; then
    COMPREPLY=($(compgen -W "$subs" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -f -- "$cur"))
  compopt -o filenames 2>/dev/null
}
complete -F _fusecert fusecert
