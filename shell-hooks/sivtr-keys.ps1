# Alt-O opens the sivtr picker at the PowerShell prompt: a PSReadLine key handler. Loaded by the block
# `sivtr init pwsh --keybinding` adds to the profile, after it has set $global:__SivtrPickNode and
# $global:__SivtrPickBin (the sivtr of init time). Without PSReadLine there is no key to bind.

if ($env:SIVTR_DISABLE) { return }
# Get-Module, not Get-Command: Get-Command would load PSReadLine where the user removed it.
if (-not (Get-Module PSReadLine)) { return }

Set-PSReadLineKeyHandler -Chord 'Alt+o' -BriefDescription 'sivtr pick' -Description 'Open the sivtr picker: Enter copies the chosen record or turn' -ScriptBlock {
  $node = $global:__SivtrPickNode
  $bin = $global:__SivtrPickBin
  # A key handler's output is not the console: what sivtr says (the copy confirmation) is
  # collected and written under the line being typed, and the prompt is drawn again below it.
  $said = @()
  try {
    if ($bin -and -not (Test-Path -LiteralPath $bin -PathType Leaf)) {
      $said = @("sivtr: $bin is gone; run 'sivtr init pwsh --keybinding' with the sivtr you use now")
    } elseif ($node) {
      $said = @(& $node $bin pick 2>&1 | ForEach-Object { "$_" } | Where-Object { $_.Trim() -ne "" })
    } else {
      $said = @(& sivtr pick 2>&1 | ForEach-Object { "$_" } | Where-Object { $_.Trim() -ne "" })
    }
  } catch {
    $said = @("sivtr: $($_.Exception.Message)")
  }
  # The prompt again on a fresh line, under what was said: drawn over its old place, PSReadLine
  # would lose track of where the line being edited is.
  [Console]::WriteLine()
  foreach ($line in $said) { [Console]::WriteLine($line) }
  [Microsoft.PowerShell.PSConsoleReadLine]::InvokePrompt($null, [Console]::CursorTop)
}
