#!/usr/bin/env bash
# Installs the system tools perfjudge needs (compilers, build tools, sandbox, profilers).
# On Debian/Ubuntu as root it uses apt; otherwise it prints the exact command to run and fails.
# Usage: scripts/install-system-deps.sh [--check]   (--check only reports what is missing)
set -euo pipefail

# command-on-PATH → Debian package that provides it
declare -A PACKAGES=(
  [clang++]=clang
  [cmake]=cmake
  [ninja]=ninja-build
  [bwrap]=bubblewrap
  [perf]=linux-perf
  [valgrind]=valgrind
  [git]=git
  [objcopy]=binutils
  [cc]=gcc
  [redis-server]=redis-server
  # Browser tests (Playwright drives Debian's Chromium; its own browser download is not used).
  [chromium]=chromium
  # Its old headless shell: the same Blink at about half the CPU (playwright.config.ts).
  [chromium-headless-shell]=chromium-headless-shell
  # windows-amd emulated (runner/windows/): Wine, and MinGW-w64 for the solutions and the job helper
  [wine]=wine
  [x86_64-w64-mingw32-g++-posix]=g++-mingw-w64-x86-64
  [x86_64-w64-mingw32-gcc]=gcc-mingw-w64-x86-64
  # The attack tests run the judge under a session keyring (`keyctl session`).
  [keyctl]=keyutils
  # Solution builds reuse the trusted template's compiled units (runner/build/compile-cache.ts).
  [ccache]=ccache
)

# header or library file → Debian package that provides it (nothing on PATH shows these)
declare -A FILES=(
  # The sandbox helper's syscall filter (runner/sandbox/sandbox-helper.c links -lseccomp).
  [/usr/include/seccomp.h]=libseccomp-dev
)

missing=()
for cmd in "${!PACKAGES[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || missing+=("${PACKAGES[$cmd]}")
done
for file in "${!FILES[@]}"; do
  [ -e "$file" ] || missing+=("${FILES[$file]}")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
# Sort for a stable message.
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)

if [ "${1:-}" = "--check" ]; then
  echo "missing system packages: ${missing[*]}"
  exit 1
fi

if [ -r /etc/os-release ] && grep -qiE '^(ID|ID_LIKE)=.*(debian|ubuntu)' /etc/os-release && command -v apt-get >/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "perfjudge: installing system packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    exit 0
  fi
  echo "perfjudge: missing system packages. Run:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "perfjudge: missing system tools (Debian package names): ${missing[*]}" >&2
echo "  Install them with your system's package manager, then run this again." >&2
exit 1
