# Alt-O opens the sivtr picker at the bash prompt. Loaded by the block `sivtr init bash --keybinding`
# adds to ~/.bashrc, after it has set __sivtr_pick_node / __sivtr_pick_bin (the sivtr of init time).
# Nothing runs until the key is pressed. The picker draws on the alternate screen and gives the
# terminal back as it found it; the line being typed stays as it was.

[[ $- == *i* ]] || return 0
[[ -n ${SIVTR_DISABLE-} ]] && return 0

__sivtr_pick_widget() {
  local node=${__sivtr_pick_node-} bin=${__sivtr_pick_bin:-sivtr}
  if [[ $bin == */* && ! -f $bin ]]; then
    printf 'sivtr: %s is gone; run `sivtr init bash --keybinding` with the sivtr you use now\n' "$bin" >&2
    return 0
  fi
  if [[ -n $node ]]; then
    [[ -x $node ]] || node=node
    "$node" "$bin" pick </dev/tty >/dev/tty
  else
    "$bin" pick </dev/tty >/dev/tty
  fi
  return 0 # 130 (left without a choice) is not an error of the line being edited
}

# bind needs readline (not there under `bash --noediting`): then there is no key to bind.
bind -x '"\eo": __sivtr_pick_widget' 2>/dev/null || true
