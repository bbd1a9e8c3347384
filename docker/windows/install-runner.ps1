# Installs a perfjudge windows-amd judge host: Node.js 20, LLVM (clang-cl, lld-link), CMake, Ninja,
# Git and the Visual Studio Build Tools (the MSVC libraries and Windows SDK clang-cl links against),
# then registers `perfjudge runner --target windows-amd` as a Windows service running as a dedicated
# low-privilege account.
#
# UNTESTED: no Windows host exists where this project is developed; see README.md in this folder.
#
# Run in an elevated PowerShell on a fresh Windows Server 2022 / Windows 11 host:
#   Set-ExecutionPolicy -Scope Process Bypass
#   .\install-runner.ps1 -RepoUrl https://example.org/perfjudge.git -RedisUrl redis://queue.example:6379
param(
  [Parameter(Mandatory = $true)] [string] $RepoUrl,
  [Parameter(Mandatory = $true)] [string] $RedisUrl,
  [string] $InstallDir = 'C:\perfjudge',
  [string] $QueuePrefix = 'perfjudge',
  [string] $ServiceName = 'perfjudge-runner-windows-amd',
  [string] $ServiceUser = 'perfjudge-runner'
)
$ErrorActionPreference = 'Stop'

function Install-WingetPackage([string] $Id, [string] $Override = '') {
  Write-Host "installing $Id"
  $args = @('install', '--id', $Id, '--exact', '--silent', '--accept-package-agreements', '--accept-source-agreements')
  if ($Override) { $args += @('--override', $Override) }
  & winget @args
  if ($LASTEXITCODE -ne 0 -and $LASTEXITCODE -ne -1978335189) { throw "winget install $Id failed ($LASTEXITCODE)" }
}

# 1. Toolchain: the manifest's windows-amd target builds with CMake + Ninja + clang-cl.
Install-WingetPackage 'OpenJS.NodeJS.LTS'
Install-WingetPackage 'LLVM.LLVM'
Install-WingetPackage 'Kitware.CMake'
Install-WingetPackage 'Ninja-build.Ninja'
Install-WingetPackage 'Git.Git'
# clang-cl needs the MSVC C++ libraries and the Windows SDK (headers, import libraries).
Install-WingetPackage 'Microsoft.VisualStudio.2022.BuildTools' `
  '--quiet --wait --norestart --add Microsoft.VisualStudio.Workload.VCTools --includeRecommended'
# NSSM runs a console program as a service (restarts it, sends Ctrl+C on stop: a graceful shutdown).
Install-WingetPackage 'NSSM.NSSM'
$env:Path = [Environment]::GetEnvironmentVariable('Path', 'Machine')

# 2. The code: the runner needs the repository (challenges, runner/, the job helper's source).
if (-not (Test-Path $InstallDir)) { git clone $RepoUrl $InstallDir }
Push-Location $InstallDir
npm ci --no-audit --no-fund
Pop-Location

# 3. A dedicated account: the Job Object limits a run's time, memory and processes, but not what it
#    can read, so the service runs as a user that owns nothing but the work folders.
$data = Join-Path $InstallDir '.data'
New-Item -ItemType Directory -Force -Path $data | Out-Null
if (-not (Get-LocalUser -Name $ServiceUser -ErrorAction SilentlyContinue)) {
  $password = [System.Web.Security.Membership]::GeneratePassword(32, 4)
  New-LocalUser -Name $ServiceUser -Password (ConvertTo-SecureString $password -AsPlainText -Force) `
    -PasswordNeverExpires -UserMayNotChangePassword | Out-Null
  Set-Content -Path (Join-Path $data 'service-password.txt') -Value $password
  icacls (Join-Path $data 'service-password.txt') /inheritance:r /grant:r 'Administrators:F' | Out-Null
}
icacls $data /grant "${ServiceUser}:(OI)(CI)M" | Out-Null
icacls $InstallDir /grant "${ServiceUser}:(OI)(CI)RX" | Out-Null

# 4. No network for untrusted code: outbound traffic only to Redis, for node.exe.
$redisHost = ([Uri]$RedisUrl).Host
$redisPort = ([Uri]$RedisUrl).Port
New-NetFirewallRule -DisplayName 'perfjudge: block outbound' -Direction Outbound -Action Block `
  -LocalUser (New-Object System.Security.Principal.NTAccount($ServiceUser)).Translate([System.Security.Principal.SecurityIdentifier]).Value `
  -ErrorAction SilentlyContinue | Out-Null
New-NetFirewallRule -DisplayName 'perfjudge: runner to Redis' -Direction Outbound -Action Allow `
  -Program (Get-Command node).Source -RemoteAddress $redisHost -RemotePort $redisPort -Protocol TCP `
  -ErrorAction SilentlyContinue | Out-Null

# 5. The service: `perfjudge runner --target windows-amd` (it refuses to start if the CPU is not
#    AuthenticAMD; set PERFJUDGE_WORDCOUNT_SEED, the organizer's secret, in the service environment).
$node = (Get-Command node).Source
nssm install $ServiceName $node "$InstallDir\bin\perfjudge.mjs" runner --target windows-amd
nssm set $ServiceName AppDirectory $InstallDir
nssm set $ServiceName AppEnvironmentExtra "REDIS_URL=$RedisUrl" "PERFJUDGE_QUEUE_PREFIX=$QueuePrefix" "PERFJUDGE_DATA_DIR=$data"
nssm set $ServiceName AppStopMethodConsole 600000
nssm set $ServiceName AppStdout (Join-Path $data 'runner.log')
nssm set $ServiceName AppStderr (Join-Path $data 'runner.log')
nssm set $ServiceName ObjectName ".\$ServiceUser" (Get-Content (Join-Path $data 'service-password.txt'))
Write-Host "Set the benchmark seed, then start the service:"
Write-Host "  nssm set $ServiceName AppEnvironmentExtra +PERFJUDGE_WORDCOUNT_SEED=<secret>"
Write-Host "  nssm start $ServiceName"
