#!/usr/bin/env bash
# npm run conformance [set ...]
# Installs the pinned agent CLIs into a cache outside the repo, runs each driver (the real,
# unmodified CLI against mock-llm.cjs on 127.0.0.1, fresh HOME), and copies the session files
# sivtr reads into fixtures/real/<agent>-<version>/home/ with NOTES.md and run.json beside them.
# Sets: claude claude-2.1.197 codex pi gemini opencode (default) and qwen copilot kilo continue droid auggie;
# mcp-claude (Claude Code calling this checkout's `sivtr mcp`; run `npm run build` first);
# codex-edits copilot-edits opencode-edits (the CLI writes a file, so its own record of the change
# is in the session; fixtures/real/<agent>-<version>-edits/).
# env: SIVTR_CONFORMANCE_CACHE (installs; default ~/.cache/sivtr-conformance)
#      VERSIONS=latest (take npm's latest instead of the pins; a new version gets its own set)
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
export AGENTS_ROOT="${SIVTR_CONFORMANCE_CACHE:-$HOME/.cache/sivtr-conformance}"
# Scratch HOMEs live at a fixed path so the cwd every session records is the same on every
# machine (/tmp/sivtr-conformance/<set>/proj); removed when the run ends.
export RUNS_ROOT=/tmp/sivtr-conformance
export SAMPLES_DIR="$RUNS_ROOT/samples"
declare -A PKG=(
  [claude]="@anthropic-ai/claude-code@2.1.332"
  [claude-2.1.197]="@anthropic-ai/claude-code@2.1.197"
  [codex]="@openai/codex@0.171.0"
  [pi]="@mariozechner/pi-coding-agent@0.73.1"
  [gemini]="@google/gemini-cli@0.61.0"
  [opencode]="opencode-ai@1.18.33"
  [qwen]="@qwen-code/qwen-code@0.24.4"
  [copilot]="@github/copilot@1.0.102"
  [kilo]="@kilocode/cli@7.7.7"
  [continue]="@continuedev/cli@1.5.47"
  [droid]="droid@0.215.0"
  [auggie]="@augmentcode/auggie@0.36.0"
)
declare -A APPROVE=( [claude]=1 [claude-2.1.197]=1 [codex]=1 [pi]=1 [gemini]=1 [opencode]=1 )
names=("${@:-claude claude-2.1.197 codex pi gemini opencode}")
names=(${names[*]})

install_one() { # install_one NAME -> installs PKG[NAME] into $AGENTS_ROOT/NAME unless already there
  local name="$1" spec="${PKG[$1]}" dir="$AGENTS_ROOT/$1"
  [ "${VERSIONS:-}" = latest ] && spec="${spec%@*}@latest"
  local pkg="${spec%@*}" want="${spec##*@}"
  if [ "$want" = latest ]; then want="$(npm view "$pkg" version)"; fi
  local have; have="$(node -p "require('$dir/node_modules/$pkg/package.json').version" 2>/dev/null || true)"
  if [ "$have" = "$want" ]; then return 0; fi
  echo "== install $pkg@$want into $dir"
  rm -rf "$dir"; mkdir -p "$dir/install-home"
  (
    cd "$dir"
    export npm_config_userconfig="${npm_config_userconfig:-$HOME/.npmrc}" npm_config_cache="${npm_config_cache:-$HOME/.npm}"
    export HOME="$dir/install-home"
    npm init -y > /dev/null
    npm install "$pkg@$want" > install.log 2>&1
    # npm 11 skips install scripts until approved; the first six were made with them approved
    if [ -n "${APPROVE[$name]:-}" ] && grep -q 'install-scripts' install.log; then
      npm install-scripts approve --all >> install.log 2>&1 || true
      npm install >> install.log 2>&1
    fi
    rm -rf "$dir/install-home"
  )
}

# The scratch path is fixed, so a second run at the same time would delete the first one's sessions.
exec 9> "$RUNS_ROOT.lock"
if ! flock -n 9; then
  echo "conformance: another run is using $RUNS_ROOT — wait for it to end, then run again" >&2
  exit 1
fi
rm -rf "$RUNS_ROOT"; mkdir -p "$SAMPLES_DIR"
trap 'rm -rf "$RUNS_ROOT" "$RUNS_ROOT.lock"' EXIT
status=0
for n in "${names[@]}"; do
  if [ "$n" = mcp-claude ]; then
    # the claude install, a driver that writes its own fixture folder (no collect step)
    install_one claude
    echo "===== $n"
    bash "$HERE/run-mcp-claude.sh" > "$RUNS_ROOT/$n.log" 2>&1 || { echo "driver $n failed:"; tail -20 "$RUNS_ROOT/$n.log"; status=1; }
    continue
  fi
  base="${n%-edits}"
  [ -n "${PKG[$base]:-}" ] && { [ "$base" = "$n" ] || [ -f "$HERE/run-$n.sh" ]; } || { echo "unknown set $n (known: ${!PKG[*]} mcp-claude codex-edits copilot-edits opencode-edits)" >&2; exit 2; }
  install_one "$base"
  echo "===== $n"
  case "$n" in
    claude-*) cmd=(env CLAUDE_DIR="$AGENTS_ROOT/$n" SAMPLE_NAME="$n" bash "$HERE/run-claude.sh") ;;
    *) cmd=(bash "$HERE/run-$n.sh") ;;
  esac
  if "${cmd[@]}" > "$RUNS_ROOT/$n.log" 2>&1; then
    node "$HERE/collect.mjs" "$n" "$REPO/fixtures/real" || status=1
  else
    echo "driver $n failed:"; tail -20 "$RUNS_ROOT/$n.log"; status=1
  fi
done
exit $status
