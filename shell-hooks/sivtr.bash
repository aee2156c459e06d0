# sivtr shell integration for bash (>= 3.2). Loaded by the block `sivtr init bash` adds to ~/.bashrc,
# or by `sivtr shell bash` itself.
#
# Two modes, one snippet:
#  - under `sivtr shell` (SIVTR_NONCE in the environment) it prints OSC 133 A/B/C/D, 633;E (command line)
#    and 633;P;Cwd markers carrying the session nonce; the recorder keeps the real output;
#  - otherwise it appends one metadata-only SessionEntry line per command to
#    <data>/terminals/<SIVTR_TERMINAL_ID>.jsonl, from pure shell code.
# Nothing on the prompt path forks: builtins, parameter expansion and redirections only.
# `$?` is captured on the first line of the first PROMPT_COMMAND hook and returned unchanged.

[[ $- == *i* ]] || return 0
[[ -n ${SIVTR_DISABLE-} ]] && return 0
if [[ -n ${__sivtr_loaded-} ]]; then
  # Sourced again (rc block + `sivtr shell`, or after another integration): one set of hooks, back
  # in their places — first and last in PROMPT_COMMAND.
  __sivtr_install_prompt_command
  return 0
fi

if [[ -n ${SIVTR_NONCE-} ]]; then
  __sivtr_mode=proxy
  __sivtr_nonce=$SIVTR_NONCE
  unset SIVTR_NONCE # nested shells must not speak for this session
elif [[ -n ${SIVTR_PTY_PROXY-} ]]; then
  return 0 # a shell nested inside a recorded one: its text is part of the outer command's output
else
  __sivtr_mode=hooks
fi
__sivtr_loaded=1

# --- state -----------------------------------------------------------------------------------------
__sivtr_noop=('')   # PS0 evaluates assignments inside this array's subscript: state without a fork
__sivtr_ran=0       # set by PS0 (or the DEBUG trap) when a command line was accepted
__sivtr_t0=         # microseconds since the epoch at PS0 (bash >= 5)
__sivtr_hn=${HISTCMD-0} # history number at the previous prompt: unchanged means the line was not saved
__sivtr_cmd=
__sivtr_cwd=$PWD     # the directory a command starts in (the previous prompt's)
__sivtr_prompt=
__sivtr_prompt_raw= __sivtr_prompt_json= __sivtr_cwd_raw= __sivtr_cwd_json=

if [[ $__sivtr_mode == hooks ]]; then
  if [[ $OSTYPE == darwin* ]]; then
    __sivtr_data=${SIVTR_DATA_DIR:-$HOME/Library/Application Support/sivtr}
  else
    __sivtr_data=${SIVTR_DATA_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/sivtr}
  fi
  if [[ -z ${EPOCHSECONDS-} ]] && (( BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 2) )); then
    printf -v __sivtr_start '%(%s)T' -1
  fi
  # Random hex first, so ids (and the 8-character refs printed for them) differ from the first
  # character; then pid plus start second, unique across time (pids are reused, seconds are not).
  printf -v SIVTR_TERMINAL_ID '%08x' "${SRANDOM:-$(( (RANDOM << 17 | RANDOM << 2 | RANDOM >> 13) & 0xffffffff ))}"
  SIVTR_TERMINAL_ID=$SIVTR_TERMINAL_ID-$$-${EPOCHSECONDS:-${__sivtr_start:-$RANDOM$RANDOM}}
  export SIVTR_TERMINAL_ID
  __sivtr_log=$__sivtr_data/terminals/$SIVTR_TERMINAL_ID.jsonl
  [[ -d $__sivtr_data/terminals ]] || (umask 077 && mkdir -p "$__sivtr_data/terminals") 2>/dev/null
else
  __sivtr_data=${SIVTR_DATA_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/sivtr}
  [[ $OSTYPE == darwin* && -z ${SIVTR_DATA_DIR-} ]] && __sivtr_data="$HOME/Library/Application Support/sivtr"
fi
__sivtr_umask=$(builtin umask) # load time, not the prompt path
# `history 1` is written to this file and read back: a builtin with a redirection does not fork,
# `$(history 1)` would. One file per shell pid, so they stay bounded.
__sivtr_histfile=$__sivtr_data/terminals/.cmd-$$

# --- escaping --------------------------------------------------------------------------------------
# Patterns of the characters that need escaping, built once: the common case (nothing to escape)
# costs one match. Explicit sets, not ranges, so the user's locale cannot change what they match.
printf -v __sivtr_c0 '%b' '\001\002\003\004\005\006\007\010\011\012\013\014\015\016\017\020\021\022\023\024\025\026\027\030\031\032\033\034\035\036\037'
__sivtr_json_pat="*[\\\\\"$__sivtr_c0]*"
__sivtr_c0_pat="*[$__sivtr_c0]*"
__sivtr_osc_pat="*[\\\\; $__sivtr_c0]*"

# JSON string escaping (RFC 8259), result in REPLY. ASCII bytes never occur inside UTF-8 sequences,
# so byte-wise replacement leaves UTF-8 intact.
__sivtr_json() {
  REPLY=$1
  [[ $REPLY == $__sivtr_json_pat ]] || return 0
  local s=$REPLY i c out
  s=${s//\\/\\\\}; s=${s//\"/\\\"}
  s=${s//$'\n'/\\n}; s=${s//$'\r'/\\r}; s=${s//$'\t'/\\t}; s=${s//$'\e'/\\u001b}
  s=${s//$'\001'/}; s=${s//$'\002'/} # readline's invisible-text brackets from ${PS1@P}
  if [[ $s == $__sivtr_c0_pat ]]; then
    local LC_ALL=C
    out=
    for (( i = 0; i < ${#s}; i++ )); do
      c=${s:$i:1}
      [[ $c == $__sivtr_c0_pat ]] && printf -v c '\\u%04x' "'$c"
      out+=$c
    done
    s=$out
  fi
  REPLY=$s
}

# VS Code's 633 escaping: `\` -> `\\`, `;` and every byte <= 0x20 -> \xHH. Result in REPLY.
__sivtr_osc_escape() {
  REPLY=$1
  [[ $REPLY == $__sivtr_osc_pat ]] || return 0
  local s=$REPLY i c out
  s=${s//\\/\\\\}; s=${s//;/\\x3b}; s=${s// /\\x20}
  s=${s//$'\n'/\\x0a}; s=${s//$'\r'/\\x0d}; s=${s//$'\t'/\\x09}; s=${s//$'\e'/\\x1b}
  if [[ $s == $__sivtr_c0_pat ]]; then
    local LC_ALL=C
    out=
    for (( i = 0; i < ${#s}; i++ )); do
      c=${s:$i:1}
      [[ $c == $__sivtr_c0_pat ]] && printf -v c '\\x%02x' "'$c"
      out+=$c
    done
    s=$out
  fi
  REPLY=$s
}

# --- the command line of the command that just ran -------------------------------------------------
# Sets __sivtr_cmd, and __sivtr_prev_entry to the history entry before it; __sivtr_cmd is empty when
# the shell did not store the line (a space-prefixed line under ignorespace, `set +o history`).
__sivtr_read_command() {
  __sivtr_cmd= __sivtr_prev_entry=
  local hn=${HISTCMD-0}
  if [[ $hn != "$__sivtr_hn" ]]; then
    __sivtr_hn=$hn
    local HISTTIMEFORMAT= line pre
    # `1<>` opens without truncating (a truncate costs ~0.2 ms on ext4); the NUL ends what is new.
    if [[ -e $__sivtr_histfile ]]; then
      { builtin history 2; builtin printf '\0'; } 2>/dev/null 1<> "$__sivtr_histfile"
    else
      builtin umask 077
      { builtin history 2; builtin printf '\0'; } 2>/dev/null 1<> "$__sivtr_histfile"
      builtin umask "$__sivtr_umask"
    fi
    IFS= read -r -d '' line 2>/dev/null < "$__sivtr_histfile"
    line=${line%$'\n'}
    # "%5d  command", or "%5d* command" for an edited line. The new entry's number is known, so
    # the boundary between the two entries is found even when one of them spans lines.
    printf -v pre '\n%5d' $(( hn - 1 ))
    if [[ $line == *"$pre"[*\ ]\ * ]]; then
      __sivtr_prev_entry=${line%%"$pre"*}
      __sivtr_prev_entry=${__sivtr_prev_entry#*[0-9][* ] }
      line=${line#*"$pre"}
      __sivtr_cmd=${line:2}
    else
      __sivtr_cmd=${line#*[0-9][* ] }
    fi
  fi
}

# --- every command is recorded, whatever the history keeps -----------------------------------------
# ignoredups, erasedups and HISTIGNORE keep a line out of the history, and the history is the only
# place pure shell code can read a command line from. So while the line is read, only ignorespace
# stays in force (privacy: such a line is kept neither by bash nor by sivtr), and once sivtr has read
# the line it applies the user's other rules to the history itself. While a command runs,
# HISTCONTROL and HISTIGNORE carry a `sivtr` marker, so a command that changes them is noticed.
__sivtr_hist_on=0 __sivtr_hist_applies=0
__sivtr_hc_mark=sivtr-records-all # bash ignores words it does not know in HISTCONTROL
__sivtr_hi_mark=$'\001sivtr-records-all' # matches no line typed at a prompt
__sivtr_history_lift() {
  (( __sivtr_hist_on )) && return 0
  __sivtr_hc_user=${HISTCONTROL-} __sivtr_hi_user=${HISTIGNORE-}
  case :$__sivtr_hc_user: in
    *:ignoredups:* | *:erasedups:* | *:ignoreboth:*) ;;
    *) [[ -n $__sivtr_hi_user ]] || return 0 ;;
  esac
  __sivtr_hc_had=${HISTCONTROL+1} __sivtr_hi_had=${HISTIGNORE+1}
  case :$__sivtr_hc_user: in
    *:ignorespace:* | *:ignoreboth:*) HISTCONTROL=ignorespace:$__sivtr_hc_mark ;;
    *) HISTCONTROL=$__sivtr_hc_mark ;;
  esac
  __sivtr_hc_set=$HISTCONTROL
  HISTIGNORE=$__sivtr_hi_mark
  __sivtr_hist_on=1
}

# Puts the user's values back, unless the command just run set its own.
__sivtr_history_restore() {
  __sivtr_hist_applies=$__sivtr_hist_on
  (( __sivtr_hist_on )) || return 0
  __sivtr_hist_on=0
  if [[ ${HISTCONTROL-} == "$__sivtr_hc_set" ]]; then
    if [[ -n $__sivtr_hc_had ]]; then HISTCONTROL=$__sivtr_hc_user; else unset HISTCONTROL; fi
  elif [[ ${HISTCONTROL-} == *"$__sivtr_hc_mark"* ]]; then
    HISTCONTROL=${HISTCONTROL//$__sivtr_hc_mark/} # edited (`HISTCONTROL+=:erasedups`): the user's, less the marker
  fi
  if [[ ${HISTIGNORE-} == "$__sivtr_hi_mark" ]]; then
    if [[ -n $__sivtr_hi_had ]]; then HISTIGNORE=$__sivtr_hi_user; else unset HISTIGNORE; fi
  fi
  return 0
}

# The user's ignoredups, erasedups and HISTIGNORE, applied to the entry bash just stored.
__sivtr_history_apply() {
  local cmd=$__sivtr_cmd drop=0 rest=${__sivtr_hi_user//\\:/$'\002'} pat
  while [[ -n $rest ]]; do
    pat=${rest%%:*}
    if [[ $rest == *:* ]]; then rest=${rest#*:}; else rest=; fi
    pat=${pat//$'\002'/:}
    if [[ $pat == '&' ]]; then
      [[ $cmd == "$__sivtr_prev_entry" ]] && drop=1
    elif [[ -n $pat && $cmd == $pat ]]; then
      drop=1
    fi
    (( drop )) && break
  done
  case :$__sivtr_hc_user: in
    *:ignoredups:* | *:ignoreboth:*) [[ $cmd == "$__sivtr_prev_entry" ]] && drop=1 ;;
  esac
  if (( drop )); then
    builtin history -d $(( HISTCMD - 1 )) 2>/dev/null
  elif [[ :$__sivtr_hc_user: == *:erasedups:* ]]; then
    __sivtr_erase_dups "$cmd"
  fi
  __sivtr_hn=${HISTCMD-0}
}

# erasedups: earlier entries equal to the new one go. Reads the whole history, so only for its users.
__sivtr_erase_dups() {
  (( BASH_VERSINFO[0] >= 4 )) || return 0 # mapfile; bash 3.2 keeps its copies
  local HISTTIMEFORMAT= lines=() i num= text= found=()
  builtin history > "$__sivtr_histfile.all" 2>/dev/null || return 0
  mapfile -t lines < "$__sivtr_histfile.all"
  builtin printf '' > "$__sivtr_histfile.all"
  for (( i = 0; i < ${#lines[@]}; i++ )); do
    # An entry starts with the next number; any other line continues the entry before it.
    if [[ ${lines[i]} =~ ^\ *([0-9]+)[*\ ]\  ]] && [[ -z $num || ${BASH_REMATCH[1]} -eq num+1 ]]; then
      [[ -n $num && $text == "$1" ]] && found+=("$num")
      num=${BASH_REMATCH[1]}
      text=${lines[i]#*[0-9][* ] }
    else
      text+=$'\n'${lines[i]}
    fi
  done
  # The last entry is the new line itself; delete the earlier copies from the highest number down.
  for (( i = ${#found[@]} - 1; i >= 0; i-- )); do builtin history -d "${found[i]}" 2>/dev/null; done
}

# --- hooks-only writer -----------------------------------------------------------------------------
__sivtr_append() { # status
  local c p d ended= dur=
  # Not stored: a space-prefixed line under ignorespace is private, so is not recorded either.
  [[ -z $__sivtr_cmd ]] && return 0
  # The prompt and cwd rarely change between commands: escape them only when they do.
  if [[ $__sivtr_prompt != "$__sivtr_prompt_raw" ]]; then
    __sivtr_json "$__sivtr_prompt"; __sivtr_prompt_json=$REPLY; __sivtr_prompt_raw=$__sivtr_prompt
  fi
  if [[ $__sivtr_cwd != "$__sivtr_cwd_raw" ]]; then
    __sivtr_json "$__sivtr_cwd"; __sivtr_cwd_json=$REPLY; __sivtr_cwd_raw=$__sivtr_cwd
  fi
  p=$__sivtr_prompt_json d=$__sivtr_cwd_json
  __sivtr_json "$__sivtr_cmd"; c=$REPLY
  if [[ -n ${EPOCHREALTIME-} ]]; then
    local rt=$EPOCHREALTIME t
    local now=${rt//[!0-9]/} frac=${rt##*[!0-9]}
    printf -v t '%(%Y-%m-%dT%H:%M:%S%z)T' "${rt%%[!0-9]*}" # one strftime: "…T12:34:56+0100"
    ended=",\"ended_at\":\"${t:0:19}.${frac:0:3}${t:19:3}:${t:22:2}\""
    [[ -n $__sivtr_t0 ]] && dur=",\"duration_ms\":$(( (now - __sivtr_t0) / 1000 ))"
  elif (( BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 2) )); then
    local t
    printf -v t '%(%Y-%m-%dT%H:%M:%S%z)T' -1
    ended=",\"ended_at\":\"${t:0:19}${t:19:3}:${t:22:2}\""
  fi
  local line
  # A newline before the entry as well as after it: text that reached the log without its newline
  # (an editor, a write cut short) becomes a line of its own instead of swallowing this entry.
  # Readers skip the blank line; seeing the last byte would take a fork.
  printf -v line '\n{"prompt":"%s","command":"%s","output":"","cwd":"%s"%s%s,"exit_code":%d}\n' "$p" "$c" "$d" "$ended" "$dur" "$1"
  if [[ -e $__sivtr_log ]]; then
    printf '%s' "$line" >> "$__sivtr_log" 2>/dev/null
  else
    # First line of this session: a private file in a private directory.
    builtin umask 077
    [[ -d $__sivtr_data/terminals ]] || (mkdir -p "$__sivtr_data/terminals") 2>/dev/null
    printf '%s' "$line" >> "$__sivtr_log" 2>/dev/null
    builtin umask "$__sivtr_umask"
  fi
}

# --- prompt hooks ----------------------------------------------------------------------------------
# First in PROMPT_COMMAND: sees the real status, records the finished command, then returns the status.
__sivtr_precmd() {
  local __sivtr_st=$?
  __sivtr_history_restore
  if (( __sivtr_ran )); then
    __sivtr_ran=0
    __sivtr_read_command
    [[ -n $__sivtr_cmd ]] && (( __sivtr_hist_applies )) && __sivtr_history_apply
    if [[ $__sivtr_mode == proxy ]]; then
      __sivtr_osc_escape "$__sivtr_cmd"
      builtin printf '\e]633;E;%s;%s\a\e]133;D;%d;sivtr=%s\a' "$REPLY" "$__sivtr_nonce" "$__sivtr_st" "$__sivtr_nonce" >&2
    else
      __sivtr_append "$__sivtr_st"
    fi
    __sivtr_t0=
  else
    __sivtr_hn=${HISTCMD-0} # Ctrl-C or an empty line: nothing ran, keep the history number in step
  fi
  if [[ $__sivtr_mode == proxy ]]; then
    if [[ $PWD != "$__sivtr_cwd" || -z ${__sivtr_cwd_sent-} ]]; then
      __sivtr_osc_escape "$PWD"
      builtin printf '\e]633;P;Cwd=%s;%s\a' "$REPLY" "$__sivtr_nonce" >&2
      __sivtr_cwd_sent=1
    fi
    case :${HISTCONTROL-}: in
      *:ignorespace:* | *:ignoreboth:*) [[ -n ${__sivtr_ignsp_sent-} ]] || { builtin printf '\e]633;P;HistIgnoreSpace=1;%s\a' "$__sivtr_nonce" >&2; __sivtr_ignsp_sent=1; } ;;
      *) [[ -n ${__sivtr_ignsp_sent-} ]] && { builtin printf '\e]633;P;HistIgnoreSpace=0;%s\a' "$__sivtr_nonce" >&2; __sivtr_ignsp_sent=; } ;;
    esac
  fi
  __sivtr_cwd=$PWD
  return $__sivtr_st
}

# Last in PROMPT_COMMAND: themes (starship, oh-my-bash) rebuild PS1 in their own hooks, so the markers
# are re-applied after them. Only sivtr's own markers are removed; anyone else's stay.
__sivtr_wrap() {
  local __sivtr_st=$?
  if [[ $__sivtr_mode == proxy ]]; then
    if [[ $PS1 != "$__sivtr_ps1_out" ]]; then
      local ps1=${PS1//"$__sivtr_mark_a"/}
      ps1=${ps1//"$__sivtr_mark_b"/}
      PS1=$__sivtr_mark_a$ps1$__sivtr_mark_b
      __sivtr_ps1_out=$PS1
    fi
    # The continuation prompt is marked too, so the recorder can tell it from what was typed.
    if [[ ${PS2-} != "$__sivtr_ps2_out" ]]; then
      local ps2=${PS2-}
      ps2=${ps2//"$__sivtr_mark_a2"/}
      ps2=${ps2//"$__sivtr_mark_b2"/}
      PS2=$__sivtr_mark_a2$ps2$__sivtr_mark_b2
      __sivtr_ps2_out=$PS2
    fi
  elif (( __sivtr_has_ps0 )); then
    # The prompt shown for the next command, expanded without running anything: a PS1 holding
    # command substitutions is left out rather than executed a second time.
    case $PS1 in
      *'$('* | *'`'*) __sivtr_prompt= ;;
      *) __sivtr_prompt=${PS1@P} ;;
    esac
  fi
  if (( __sivtr_has_ps0 )); then
    if [[ $PS0 != "$__sivtr_ps0_out" ]]; then
      PS0=${PS0//"$__sivtr_ps0_mark"/}$__sivtr_ps0_mark
      __sivtr_ps0_out=$PS0
    fi
  else
    __sivtr_armed=1 # the DEBUG trap may now report the next command line
  fi
  [[ $__sivtr_mode == hooks ]] && __sivtr_history_lift
  # Something prepended or appended to PROMPT_COMMAND after us: take our places back for next time.
  if (( __sivtr_pc_array )); then
    [[ ${PROMPT_COMMAND[0]} == __sivtr_precmd && ${PROMPT_COMMAND[${#PROMPT_COMMAND[@]}-1]} == __sivtr_wrap ]] || __sivtr_install_prompt_command
  else
    [[ $PROMPT_COMMAND == __sivtr_precmd\;* && $PROMPT_COMMAND == *\;__sivtr_wrap ]] || __sivtr_install_prompt_command
  fi
  return $__sivtr_st
}

# --- markers ---------------------------------------------------------------------------------------
__sivtr_has_ps0=0
if (( BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4) )) && [[ -z ${__SIVTR_FORCE_DEBUG_TRAP-} ]]; then
  __sivtr_has_ps0=1
fi
if [[ $__sivtr_mode == proxy ]]; then
  __sivtr_mark_a="\[\e]133;A;sivtr=$__sivtr_nonce\a\]"
  __sivtr_mark_b="\[\e]133;B;sivtr=$__sivtr_nonce\a\]"
  __sivtr_mark_a2="\[\e]133;A;k=s;sivtr=$__sivtr_nonce\a\]"
  __sivtr_mark_b2="\[\e]133;B;k=s;sivtr=$__sivtr_nonce\a\]"
  __sivtr_c_bytes=$'\e]133;C;sivtr='$__sivtr_nonce$'\a'
else
  __sivtr_c_bytes=
fi
# PS0 (bash >= 4.4) runs after a line is accepted and before it executes; not for an empty line or
# Ctrl-C. The subscript assignments set flags in this shell; `\[ \]` must not appear in PS0.
__sivtr_ps0_mark="$__sivtr_c_bytes"'${__sivtr_noop[__sivtr_ran=1,0]}'
if [[ -n ${EPOCHREALTIME-} ]]; then
  __sivtr_ps0_mark+='${__sivtr_noop[__sivtr_t0=${EPOCHREALTIME//[!0-9]/},0]}'
fi
__sivtr_ps1_out=$'\001' # never equal to a real prompt: the first prompt wraps
__sivtr_ps2_out=$'\001'
__sivtr_ps0_out=$'\001'

# bash < 4.4 (macOS /bin/bash 3.2): a DEBUG trap stands in for PS0, with bash-preexec's guards —
# armed only by the last PROMPT_COMMAND hook, never for completion, bind -x widgets or the prompt hooks.
__sivtr_debug() {
  (( __sivtr_armed )) || return 0
  [[ -n ${COMP_LINE-} || -n ${READLINE_POINT-} ]] && return 0
  case $BASH_COMMAND in __sivtr_precmd* | __sivtr_wrap*) return 0 ;; esac
  __sivtr_armed=0
  __sivtr_ran=1
  [[ -n ${EPOCHREALTIME-} ]] && __sivtr_t0=${EPOCHREALTIME//[!0-9]/}
  [[ -n $__sivtr_c_bytes ]] && builtin printf '%s' "$__sivtr_c_bytes" >&2
  return 0
}
if (( ! __sivtr_has_ps0 )); then
  __sivtr_armed=0
  __sivtr_prev_debug=$(trap -p DEBUG)
  __sivtr_prev_debug=${__sivtr_prev_debug#trap -- \'}
  __sivtr_prev_debug=${__sivtr_prev_debug%\' DEBUG}
  trap "__sivtr_debug${__sivtr_prev_debug:+; $__sivtr_prev_debug}" DEBUG
fi

# --- PROMPT_COMMAND: ours first (sees $?), the re-wrap last; arrays (bash >= 5.1) and strings kept ---
__sivtr_pc_array=0
__sivtr_install_prompt_command() {
  __sivtr_pc_array=0
  if (( __sivtr_has_ps0 )); then
    [[ ${PROMPT_COMMAND@a} == *a* ]] && __sivtr_pc_array=1
  fi
  if (( __sivtr_pc_array )); then
    local kept=() cmd
    for cmd in "${PROMPT_COMMAND[@]}"; do
      [[ $cmd == __sivtr_precmd || $cmd == __sivtr_wrap ]] || kept+=("$cmd")
    done
    PROMPT_COMMAND=(__sivtr_precmd "${kept[@]}" __sivtr_wrap)
  else
    local pc=${PROMPT_COMMAND-}
    pc=${pc//__sivtr_precmd;/}
    pc=${pc//;__sivtr_wrap/}
    while [[ $pc == *[[:space:]\;] ]]; do pc=${pc%?}; done
    PROMPT_COMMAND="__sivtr_precmd;${pc:+$pc;}__sivtr_wrap"
  fi
}
__sivtr_install_prompt_command
