#!/bin/bash
# setup_debian.sh — install what building and testing gpudb needs on Debian 12.
#
# usage: bash test/setup_debian.sh [--with-node]
#   --with-node   also install Node.js and npm (only test/demo_flights.sh needs them)
#
# Idempotent: a package that is already installed is skipped, and apt-get runs
# only when something is missing, so a second run takes well under a second.
# Runs as root, or through sudo otherwise.  Never prompts.
set -euo pipefail

with_node=0
for arg in "$@"; do
    case "$arg" in
        --with-node) with_node=1 ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) echo "setup_debian: unknown argument '$arg'" >&2; exit 2 ;;
    esac
done

export DEBIAN_FRONTEND=noninteractive
SUDO=()
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "setup_debian: not root and no sudo" >&2; exit 1; }
    SUDO=(sudo -n env DEBIAN_FRONTEND=noninteractive)
fi

PGMAJOR=15
packages=(
    build-essential                         # gcc, make
    "postgresql-$PGMAJOR"                   # the server
    "postgresql-server-dev-$PGMAJOR"        # PGXS, pg_config, server headers
    "postgresql-$PGMAJOR-pgtap"             # the pgTAP extension
    libtap-parser-sourcehandler-pgtap-perl  # pg_prove
    postgresql-common                       # pg_virtualenv, pg_createcluster
    python3                                 # test/bench/bench.py (smoke run)
    procps                                  # ps, pgrep (test/faults.sh)
)

installed() {
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

missing=()
for p in "${packages[@]}"; do
    installed "$p" || missing+=("$p")
done

# Node.js: any node >= 18 with npm will do (a NodeSource node bundles npm, and
# Debian's npm package conflicts with it), so look at the commands, not packages.
if [ "$with_node" = 1 ]; then
    node_ok=0
    if command -v node >/dev/null && command -v npm >/dev/null; then
        major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
        [ "$major" -ge 18 ] && node_ok=1
    fi
    [ "$node_ok" = 1 ] || missing+=(nodejs npm)
fi

if [ "${#missing[@]}" = 0 ]; then
    echo "setup_debian: all packages present"
    exit 0
fi

echo "setup_debian: installing ${missing[*]}"
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends \
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
    "${missing[@]}" >/dev/null

for p in "${missing[@]}"; do
    installed "$p" || { echo "setup_debian: $p did not install" >&2; exit 1; }
done
echo "setup_debian: done"
