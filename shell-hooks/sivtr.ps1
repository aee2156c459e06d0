# sivtr shell integration for PowerShell (pwsh 7; Windows PowerShell 5.1 by construction). Loaded by
# the block `sivtr init pwsh` adds to $PROFILE, or by `sivtr shell pwsh` itself.
#
# Two modes, one snippet:
#  - under `sivtr shell` (SIVTR_NONCE in the environment) the prompt prints OSC 133 D/A/B and 633;P;Cwd,
#    and the PSConsoleHostReadLine wrapper prints 633;E (the accepted line) and 133;C, all carrying the
#    session nonce; the recorder keeps the real output;
#  - otherwise (or when PSReadLine is absent, so there is no pre-execution hook) the prompt appends one
#    metadata-only SessionEntry line per command to <data>/terminals/<SIVTR_TERMINAL_ID>.jsonl.
# `$?` and $LASTEXITCODE are read on the first line of the prompt; nothing here starts a process.

if ($env:SIVTR_DISABLE) { return }
if ($global:__SivtrLoaded) { return } # dot-sourced twice (profile + `sivtr shell`): one set of hooks

if ($env:SIVTR_NONCE) {
  $global:__SivtrMode = 'proxy'
  $global:__SivtrNonce = $env:SIVTR_NONCE
  Remove-Item Env:SIVTR_NONCE # nested shells must not speak for this session
} elseif ($env:SIVTR_PTY_PROXY) {
  return # a shell nested inside a recorded one: its text is part of the outer command's output
} else {
  $global:__SivtrMode = 'hooks'
}
$global:__SivtrLoaded = $true

$global:__SivtrEsc = [string][char]27
$global:__SivtrBel = [string][char]7

# Data dir exactly as sivtr resolves it (src/session/paths.ts).
$global:__SivtrHome = if ($env:HOME) { $env:HOME } elseif ($env:USERPROFILE) { $env:USERPROFILE } else { $HOME }
if ($env:SIVTR_DATA_DIR) {
  $global:__SivtrData = $env:SIVTR_DATA_DIR
} elseif ($PSVersionTable.PSVersion.Major -lt 6 -or $IsWindows) {
  $global:__SivtrData = Join-Path $(if ($env:APPDATA) { $env:APPDATA } else { Join-Path $global:__SivtrHome 'AppData\Roaming' }) 'sivtr'
} elseif ($IsMacOS) {
  $global:__SivtrData = Join-Path $global:__SivtrHome 'Library/Application Support/sivtr'
} else {
  $global:__SivtrData = Join-Path $(if ($env:XDG_STATE_HOME) { $env:XDG_STATE_HOME } else { Join-Path $global:__SivtrHome '.local/state' }) 'sivtr'
}
if (-not $env:SIVTR_TERMINAL_ID -or $global:__SivtrMode -eq 'hooks') {
  # Random hex first, so ids (and the 8-character refs printed for them) differ from the first
  # character; then pid plus start second, unique across time (pids are reused, seconds are not).
  $env:SIVTR_TERMINAL_ID = "$([guid]::NewGuid().ToString('N').Substring(0, 8))-$PID-$([DateTimeOffset]::UtcNow.ToUnixTimeSeconds())"
}
$global:__SivtrLog = Join-Path (Join-Path $global:__SivtrData 'terminals') "$($env:SIVTR_TERMINAL_ID).jsonl"

$global:__SivtrLastHistoryId = 0
$h = Get-History -Count 1
if ($h) { $global:__SivtrLastHistoryId = $h.Id }
$global:__SivtrLecAtStart = $global:LASTEXITCODE
$global:__SivtrCwd = $null
$global:__SivtrPromptText = ''
$global:__SivtrCommand = $null
$global:__SivtrStarted = $false
$global:__SivtrPrimed = $false

# VS Code's 633 escaping: `\` -> `\\`, `;` and every char <= 0x20 -> \xHH.
function global:__SivtrOscEscape([string]$text) {
  $sb = [System.Text.StringBuilder]::new()
  foreach ($ch in $text.ToCharArray()) {
    if ($ch -eq '\') { [void]$sb.Append('\\') }
    elseif ($ch -eq ';' -or [int]$ch -le 0x20) { [void]$sb.Append(('\x{0:x2}' -f [int]$ch)) }
    else { [void]$sb.Append($ch) }
  }
  $sb.ToString()
}

function global:__SivtrAppend([string]$command, [int]$exitCode, $durationMs) {
  try {
    $dir = Join-Path $global:__SivtrData 'terminals'
    if (-not (Test-Path -LiteralPath $dir)) {
      if ($PSVersionTable.PSVersion.Major -ge 7 -and -not $IsWindows) {
        [void][IO.Directory]::CreateDirectory($global:__SivtrData, [IO.UnixFileMode]'UserRead, UserWrite, UserExecute')
        [void][IO.Directory]::CreateDirectory($dir, [IO.UnixFileMode]'UserRead, UserWrite, UserExecute')
      } else {
        [void][IO.Directory]::CreateDirectory($dir)
      }
    }
    $entry = [ordered]@{ prompt = $global:__SivtrPromptText; command = $command; output = '' }
    if ($global:__SivtrCwd) { $entry.cwd = $global:__SivtrCwd }
    $entry.ended_at = [DateTimeOffset]::Now.ToString("yyyy-MM-dd'T'HH:mm:ss.fffzzz", [Globalization.CultureInfo]::InvariantCulture)
    if ($null -ne $durationMs) { $entry.duration_ms = [int64]$durationMs }
    $entry.exit_code = $exitCode
    $line = ($entry | ConvertTo-Json -Compress) + "`n"
    $new = -not (Test-Path -LiteralPath $global:__SivtrLog)
    if (-not $new) {
      # Text that reached the log without its newline (an editor, a write cut short) must not
      # swallow this entry: end that line first.
      $fs = [IO.File]::Open($global:__SivtrLog, [IO.FileMode]::Open, [IO.FileAccess]::Read, [IO.FileShare]::ReadWrite)
      try {
        if ($fs.Length -gt 0) { [void]$fs.Seek(-1, [IO.SeekOrigin]::End); if ($fs.ReadByte() -ne 10) { $line = "`n" + $line } }
      } finally { $fs.Dispose() }
    }
    # UTF-8 without BOM in every .NET; never Out-File / Add-Content (UTF-16 / ANSI in 5.1).
    [IO.File]::AppendAllText($global:__SivtrLog, $line)
    if ($new -and $PSVersionTable.PSVersion.Major -ge 7 -and -not $IsWindows) {
      [IO.File]::SetUnixFileMode($global:__SivtrLog, [IO.UnixFileMode]'UserRead, UserWrite')
    }
  } catch {
    # recording must never break the prompt
  }
}

$global:__SivtrOriginalPrompt = $function:prompt

function global:prompt {
  # First line: the status of what the user ran, before anything here changes it.
  $ok = $global:?
  $native = $global:LASTEXITCODE
  $n = $global:__SivtrNonce
  $e = $global:__SivtrEsc
  $b = $global:__SivtrBel
  $out = ''
  $last = Get-History -Count 1
  $ran = $last -and $last.Id -ne $global:__SivtrLastHistoryId
  if (-not $global:__SivtrPrimed) {
    # Nothing the user typed precedes the first prompt (`pwsh -Command ". sivtr.ps1"` is in history).
    $global:__SivtrPrimed = $true
    if ($last) { $global:__SivtrLastHistoryId = $last.Id }
    $ran = $false
  }
  if ($ran -or $global:__SivtrStarted) {
    # $? is only true/false; a native program's code counts when $LASTEXITCODE moved during the command.
    $status = if ($ok) { 0 } elseif ($null -ne $native -and $native -ne $global:__SivtrLecAtStart) { [int]$native } else { 1 }
    $duration = $null
    if ($ran) {
      $global:__SivtrLastHistoryId = $last.Id
      if ($last.PSObject.Properties['Duration']) { $duration = [math]::Floor($last.Duration.TotalMilliseconds) }
      elseif ($last.EndExecutionTime) { $duration = [math]::Floor(($last.EndExecutionTime - $last.StartExecutionTime).TotalMilliseconds) }
    }
    $command = if ($null -ne $global:__SivtrCommand) { $global:__SivtrCommand } elseif ($last) { $last.CommandLine } else { '' }
    if ($global:__SivtrMode -eq 'proxy' -and $global:__SivtrStarted) {
      $out += "$e]633;E;$(__SivtrOscEscape $command);$n$b$e]133;D;$status;sivtr=$n$b"
    } elseif ($ran -and -not $global:__SivtrReadLineWrapped) {
      __SivtrAppend $command $status $duration
    }
  }
  $global:__SivtrStarted = $false
  $global:__SivtrCommand = $null
  $global:__SivtrLecAtStart = $global:LASTEXITCODE

  $location = $executionContext.SessionState.Path.CurrentLocation
  if ($location.Provider.Name -eq 'FileSystem') {
    $cwd = $location.ProviderPath
    if ($global:__SivtrMode -eq 'proxy' -and $cwd -ne $global:__SivtrCwd) { $out += "$e]633;P;Cwd=$(__SivtrOscEscape $cwd);$n$b" }
    $global:__SivtrCwd = $cwd
  }

  $text = try { [string](& $global:__SivtrOriginalPrompt) } catch { 'PS> ' }
  if (-not $text) { $text = 'PS> ' }
  $global:__SivtrPromptText = $text
  # Restore what the user's command left, for their own prompt logic and for the next command.
  $global:LASTEXITCODE = $native
  if ($global:__SivtrMode -eq 'proxy' -and $global:__SivtrReadLineWrapped) {
    return "$out$e]133;A;sivtr=$n$b$text$e]133;B;sivtr=$n$b"
  }
  return $text
}

# Under the recorder, the accepted line is known only to PSReadLine: wrap its entry point to announce
# the command (E) and the start of its output (C). Without PSReadLine there is no pre-execution hook,
# so the prompt records metadata only (no markers: never a wrong output slice).
$global:__SivtrReadLineWrapped = $false
# Get-Module, not Get-Command: Get-Command would auto-load PSReadLine where the user removed it.
if ($global:__SivtrMode -eq 'proxy' -and (Get-Module PSReadLine) -and (Get-Command PSConsoleHostReadLine -ErrorAction SilentlyContinue)) {
  $global:__SivtrOriginalReadLine = $function:PSConsoleHostReadLine
  function global:PSConsoleHostReadLine {
    $line = & $global:__SivtrOriginalReadLine
    if ($line -and $line.Trim()) {
      $global:__SivtrCommand = $line
      $global:__SivtrStarted = $true
      # E before C as well: the line is known here, and `exit` never reaches the prompt's D.
      $n = $global:__SivtrNonce
      [Console]::Write("$($global:__SivtrEsc)]633;E;$(__SivtrOscEscape $line);$n$($global:__SivtrBel)$($global:__SivtrEsc)]133;C;sivtr=$n$($global:__SivtrBel)")
    }
    $line
  }
  $global:__SivtrReadLineWrapped = $true
}
