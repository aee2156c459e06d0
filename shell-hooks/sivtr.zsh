# sivtr shell integration for zsh. Loaded by the block `sivtr init zsh` adds to ~/.zshrc (or
# $ZDOTDIR/.zshrc), or by `sivtr shell zsh` itself.
#
# Two modes, one snippet:
#  - under `sivtr shell` (SIVTR_NONCE in the environment) it prints OSC 133 A/B/C/D, 633;E (command line)
#    and 633;P;Cwd markers carrying the session nonce; the recorder keeps the real output;
#  - otherwise it appends one metadata-only SessionEntry line per command to
#    <data>/terminals/<SIVTR_TERMINAL_ID>.jsonl, from pure shell code.
# Nothing on the prompt path forks. `$?` is captured first and returned unchanged. Markers go to
# stderr, like the prompt, so they still reach the terminal after `exec >file`.

[[ -o interactive ]] || return 0
[[ -n ${SIVTR_DISABLE-} ]] && return 0
if (( ${+__sivtr_loaded} )); then
  # Sourced again (rc block + `sivtr shell`, or after a theme): one set of hooks, back in their places.
  precmd_functions=(__sivtr_precmd ${precmd_functions:#(__sivtr_precmd|__sivtr_wrap)} __sivtr_wrap)
  return 0
fi

if [[ -n ${SIVTR_NONCE-} ]]; then
  typeset -g __sivtr_mode=proxy __sivtr_nonce=$SIVTR_NONCE
  unset SIVTR_NONCE # nested shells must not speak for this session
elif [[ -n ${SIVTR_PTY_PROXY-} ]]; then
  return 0 # a shell nested inside a recorded one: its text is part of the outer command's output
else
  typeset -g __sivtr_mode=hooks
fi
typeset -g __sivtr_loaded=1
zmodload -F zsh/datetime b:strftime p:EPOCHREALTIME p:EPOCHSECONDS 2>/dev/null

typeset -g __sivtr_ran=0 __sivtr_cmd= __sivtr_t0= __sivtr_cwd=$PWD __sivtr_prompt= __sivtr_cwd_sent=
typeset -g __sivtr_ps1_out=$'\001' # never equal to a real prompt: the first prompt wraps
if [[ $OSTYPE == darwin* && -z ${SIVTR_DATA_DIR-} ]]; then
  typeset -g __sivtr_data="$HOME/Library/Application Support/sivtr"
else
  typeset -g __sivtr_data=${SIVTR_DATA_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/sivtr}
fi

if [[ $__sivtr_mode == hooks ]]; then
  # Random hex first, so ids (and the 8-character refs printed for them) differ from the first
  # character; then pid plus start second, unique across time (pids are reused, seconds are not).
  printf -v SIVTR_TERMINAL_ID '%08x' $(( (RANDOM << 17 | RANDOM << 2 | RANDOM >> 13) & 0xffffffff ))
  export SIVTR_TERMINAL_ID=$SIVTR_TERMINAL_ID-$$-${EPOCHSECONDS:-$RANDOM$RANDOM}
  typeset -g __sivtr_log=$__sivtr_data/terminals/$SIVTR_TERMINAL_ID.jsonl
  typeset -g __sivtr_umask=$(builtin umask) # load time, not the prompt path
  [[ -d $__sivtr_data/terminals ]] || (umask 077 && mkdir -p "$__sivtr_data/terminals") 2>/dev/null
else
  typeset -g __sivtr_mark_a=$'%{\e]133;A;sivtr='$__sivtr_nonce$'\a%}'
  typeset -g __sivtr_mark_b=$'%{\e]133;B;sivtr='$__sivtr_nonce$'\a%}'
  typeset -g __sivtr_mark_a2=$'%{\e]133;A;k=s;sivtr='$__sivtr_nonce$'\a%}'
  typeset -g __sivtr_mark_b2=$'%{\e]133;B;k=s;sivtr='$__sivtr_nonce$'\a%}'
  typeset -g __sivtr_ps2_out=$'\001'
fi

# JSON string escaping (RFC 8259), result in REPLY. Byte-wise under LC_ALL=C; UTF-8 passes through.
__sivtr_json() {
  emulate -L zsh
  local LC_ALL=C s=$1 i c out
  s=${s//\\/\\\\}; s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}; s=${s//$'\r'/\\r}; s=${s//$'\t'/\\t}; s=${s//$'\e'/\\u001b}
  if [[ $s == *[$'\001'-$'\037']* ]]; then
    out=
    for (( i = 0; i < ${#s}; i++ )); do
      c=${s:$i:1}
      case $c in ([$'\001'-$'\037']) printf -v c '\\u%04x' "'$c" ;; esac
      out+=$c
    done
    s=$out
  fi
  REPLY=$s
}

# VS Code's 633 escaping: `\` -> `\\`, `;` and every byte <= 0x20 -> \xHH. Result in REPLY.
__sivtr_osc_escape() {
  emulate -L zsh
  local LC_ALL=C s=$1 i c out
  s=${s//\\/\\\\}; s=${s//;/\\x3b}; s=${s// /\\x20}
  s=${s//$'\n'/\\x0a}; s=${s//$'\r'/\\x0d}; s=${s//$'\t'/\\x09}; s=${s//$'\e'/\\x1b}
  if [[ $s == *[$'\001'-$'\037']* ]]; then
    out=
    for (( i = 0; i < ${#s}; i++ )); do
      c=${s:$i:1}
      case $c in ([$'\001'-$'\037']) printf -v c '\\x%02x' "'$c" ;; esac
      out+=$c
    done
    s=$out
  fi
  REPLY=$s
}

__sivtr_preexec() {
  __sivtr_ran=1
  __sivtr_cmd=$1
  __sivtr_t0=${EPOCHREALTIME-}
  [[ $__sivtr_mode == proxy ]] && builtin print -rn -- $'\e]133;C;sivtr='$__sivtr_nonce$'\a' >&2
  return 0
}

__sivtr_append() { # status
  emulate -L zsh
  local c p d ended= dur= t z
  __sivtr_json "$__sivtr_prompt"; p=$REPLY
  __sivtr_json "$__sivtr_cmd"; c=$REPLY
  __sivtr_json "$__sivtr_cwd"; d=$REPLY
  if [[ -n ${EPOCHREALTIME-} ]]; then
    local now=$EPOCHREALTIME
    strftime -s t '%Y-%m-%dT%H:%M:%S' ${now%.*}
    strftime -s z '%z' ${now%.*}
    local frac=${now#*.}
    ended=",\"ended_at\":\"$t.${frac[1,3]}${z[1,3]}:${z[4,5]}\""
    if [[ -n $__sivtr_t0 ]]; then
      local -i ms; (( ms = (now - __sivtr_t0) * 1000 )) # integer assignment truncates
      dur=",\"duration_ms\":$ms"
    fi
  fi
  builtin umask 077
  [[ -d $__sivtr_data/terminals ]] || (mkdir -p "$__sivtr_data/terminals") 2>/dev/null
  # A newline before the entry as well as after it: text that reached the log without its newline
  # (an editor, a write cut short) becomes a line of its own instead of swallowing this entry.
  builtin printf '\n{"prompt":"%s","command":"%s","output":"","cwd":"%s"%s%s,"exit_code":%d}\n' \
    "$p" "$c" "$d" "$ended" "$dur" "$1" >> "$__sivtr_log" 2>/dev/null
  builtin umask "$__sivtr_umask"
}

# First in precmd_functions: sees the real status, records the finished command, returns the status.
__sivtr_precmd() {
  local __sivtr_st=$?
  if (( __sivtr_ran )); then
    __sivtr_ran=0
    # A space-prefixed line under HIST_IGNORE_SPACE is not stored by zsh, nor by sivtr.
    if [[ -o histignorespace && $__sivtr_cmd == ' '* ]]; then
      [[ $__sivtr_mode == proxy ]] && builtin print -rn -- $'\e]633;P;Skip=1;'$__sivtr_nonce$'\a\e]133;D;'$__sivtr_st';sivtr='$__sivtr_nonce$'\a' >&2
    elif [[ $__sivtr_mode == proxy ]]; then
      __sivtr_osc_escape "$__sivtr_cmd"
      builtin print -rn -- $'\e]633;E;'$REPLY';'$__sivtr_nonce$'\a\e]133;D;'$__sivtr_st';sivtr='$__sivtr_nonce$'\a' >&2
    else
      __sivtr_append $__sivtr_st
    fi
    __sivtr_cmd= __sivtr_t0=
  fi
  if [[ $__sivtr_mode == proxy && ( $PWD != $__sivtr_cwd || -z $__sivtr_cwd_sent ) ]]; then
    __sivtr_osc_escape "$PWD"
    builtin print -rn -- $'\e]633;P;Cwd='$REPLY';'$__sivtr_nonce$'\a' >&2
    __sivtr_cwd_sent=1
  fi
  __sivtr_cwd=$PWD
  return $__sivtr_st
}

# Last in precmd_functions: themes (p10k, starship) rebuild PS1 in their own precmd, so the markers are
# re-applied after them. Only sivtr's own markers are removed; anyone else's stay.
__sivtr_wrap() {
  local __sivtr_st=$?
  if [[ $__sivtr_mode == proxy ]]; then
    if [[ $PS1 != $__sivtr_ps1_out ]]; then
      local ps1=${PS1//$__sivtr_mark_a/}
      ps1=${ps1//$__sivtr_mark_b/}
      PS1=$__sivtr_mark_a$ps1$__sivtr_mark_b
      __sivtr_ps1_out=$PS1
    fi
    # The continuation prompt is marked too, so the recorder can tell it from what was typed.
    if [[ $PS2 != $__sivtr_ps2_out ]]; then
      local ps2=${PS2//$__sivtr_mark_a2/}
      ps2=${ps2//$__sivtr_mark_b2/}
      PS2=$__sivtr_mark_a2$ps2$__sivtr_mark_b2
      __sivtr_ps2_out=$PS2
    fi
  else
    __sivtr_prompt=${(%)PS1} # prompt escapes only: never runs a command substitution
  fi
  # Something added hooks after us: take our places back (first and last) for the next prompt.
  if [[ ${precmd_functions[1]} != __sivtr_precmd || ${precmd_functions[-1]} != __sivtr_wrap ]]; then
    precmd_functions=(__sivtr_precmd ${precmd_functions:#(__sivtr_precmd|__sivtr_wrap)} __sivtr_wrap)
  fi
  return $__sivtr_st
}

typeset -ga precmd_functions preexec_functions
precmd_functions=(__sivtr_precmd ${precmd_functions:#(__sivtr_precmd|__sivtr_wrap)} __sivtr_wrap)
preexec_functions=(${preexec_functions:#__sivtr_preexec} __sivtr_preexec)
