# Alt-O opens the sivtr picker at the zsh prompt: a zle widget. Loaded by the block
# `sivtr init zsh --keybinding` adds to .zshrc, after it has set __sivtr_pick_node / __sivtr_pick_bin
# (the sivtr of init time). Nothing runs until the key is pressed; the line being typed stays.

[[ -o interactive ]] || return 0
[[ -n ${SIVTR_DISABLE-} ]] && return 0

__sivtr_pick_widget() {
  emulate -L zsh
  local node=${__sivtr_pick_node-} bin=${__sivtr_pick_bin:-sivtr}
  # zle -I: what the picker prints below the prompt (the copy confirmation) does not garble it.
  zle -I
  if [[ $bin == */* && ! -f $bin ]]; then
    print -ru2 -- "sivtr: $bin is gone; run \`sivtr init zsh --keybinding\` with the sivtr you use now"
  elif [[ -n $node ]]; then
    [[ -x $node ]] || node=node
    "$node" "$bin" pick </dev/tty >/dev/tty
  else
    "$bin" pick </dev/tty >/dev/tty
  fi
  zle reset-prompt
  return 0
}

zle -N __sivtr_pick_widget
bindkey '^[o' __sivtr_pick_widget
