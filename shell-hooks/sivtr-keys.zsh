# Alt-O opens the sivtr picker at the zsh prompt: a zle widget. Loaded by the block
# `sivtr init zsh --keybinding` adds to .zshrc, after it has set __sivtr_pick_node / __sivtr_pick_bin
# (the sivtr of init time). Nothing runs until the key is pressed; the line being typed stays.

[[ -o interactive ]] || return 0
[[ -n ${SIVTR_DISABLE-} ]] && return 0

__sivtr_pick_widget() {
  emulate -L zsh
  local node=${__sivtr_pick_node-} bin=${__sivtr_pick_bin:-sivtr}
  local code=0
  # zle -I: what the picker prints (the copy confirmation) goes on a line of its own below the
  # prompt, and zle draws the prompt again below it when the widget returns.
  zle -I
  if [[ $bin == */* && ! -f $bin ]]; then
    print -ru2 -- "sivtr: $bin is gone; run \`sivtr init zsh --keybinding\` with the sivtr you use now"
    code=1
  elif [[ -n $node ]]; then
    [[ -x $node ]] || node=node
    "$node" "$bin" pick </dev/tty >/dev/tty
    code=$?
  else
    "$bin" pick </dev/tty >/dev/tty
    code=$?
  fi
  # Left without a choice (130), the picker printed nothing: the prompt is drawn again where it
  # was. After a message, reset-prompt would go back up to that place and draw over the message.
  (( code == 130 )) && zle reset-prompt
  return 0
}

zle -N __sivtr_pick_widget
bindkey '^[o' __sivtr_pick_widget
