#!/usr/bin/env bash
# Installs the system packages the tests use, when they are missing (Debian/Ubuntu, as root or via
# sudo): git (real repositories and worktrees), chromium (browser tests), bubblewrap + socat (the
# OS sandbox around Claude Code), postgresql (the store's second dialect, started for the tests by
# scripts/start-test-postgres.sh), python3 (the warm sandbox's spawn helper, which starts commands
# with posix_spawn; the tests run it next to the Node one). It also gives git an identity when it has
# none (tests commit).
set -euo pipefail

need=()
command -v git >/dev/null 2>&1 || need+=(git)
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v bwrap >/dev/null 2>&1 || need+=(bubblewrap)
command -v socat >/dev/null 2>&1 || need+=(socat)
ls -d /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql)
/usr/bin/python3 -c 'import json, selectors' >/dev/null 2>&1 || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  echo "installed: ${need[*]}"
fi

git config --global user.name >/dev/null 2>&1 || git config --global user.name "Control Center Tests"
git config --global user.email >/dev/null 2>&1 || git config --global user.email "tests@control-center.invalid"
git config --global init.defaultBranch >/dev/null 2>&1 || git config --global init.defaultBranch main
exit 0
