#!/bin/bash
# setup_debian.sh — install what building and testing gpudb needs on Debian 12.
#
# usage: bash test/setup_debian.sh [--with-node] [--pg MAJOR]...
#   --with-node   also install Node.js and npm (only test/demo_flights.sh needs them)
#   --pg MAJOR    a PostgreSQL major version to build and test against; may be
#                 repeated.  Default: the versions in $PG_VERSIONS, else
#                 $PG_CONFIG's, else Debian 12's own (15).
#
# A version that Debian packages gets its server, server development files
# and pgTAP.  A version it does not package (18, 19, ...) is built from
# source by test/build_postgres.sh: for it, this installs the build's
# dependencies, and pgTAP for Debian's own version, whose SQL files the
# source build copies.  Either way pg_virtualenv, pg_prove, python3 and
# procps come too.
#
# Idempotent: a package that is already installed is skipped, and apt-get runs
# only when something is missing, so a second run takes well under a second.
# Runs as root, or through sudo otherwise.  Never prompts.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GDB_ROOT="$ROOT"
# shellcheck source=test/pg_lib.sh
source "$ROOT/test/pg_lib.sh"
gdb_sane_env        # dpkg needs the sbin directories on PATH

with_node=0
majors=()
while [ $# -gt 0 ]; do
    case "$1" in
        --with-node) with_node=1 ;;
        --pg)
            [[ "${2:-}" =~ ^[0-9]+$ ]] || { echo "setup_debian: --pg needs a major version (e.g. 18)" >&2; exit 2; }
            majors+=("$2"); shift ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "setup_debian: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift
done
if [ "${#majors[@]}" = 0 ]; then
    if [ -n "${PG_VERSIONS:-}" ]; then
        read -r -a majors <<< "$PG_VERSIONS"
    elif [ -n "${PG_CONFIG:-}" ] && m="$(gdb_pg_major "$PG_CONFIG")"; then
        majors=("$m")
    else
        majors=("$GDB_DEBIAN_PGMAJOR")
    fi
fi

export DEBIAN_FRONTEND=noninteractive
SUDO=()
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || { echo "setup_debian: not root and no sudo" >&2; exit 1; }
    SUDO=(sudo -n env DEBIAN_FRONTEND=noninteractive)
fi

packages=(
    build-essential                         # gcc, make
    "postgresql-$GDB_DEBIAN_PGMAJOR-pgtap"  # pgTAP (its SQL serves source builds too)
    libtap-parser-sourcehandler-pgtap-perl  # pg_prove
    postgresql-common                       # pg_virtualenv, pg_createcluster
    python3                                 # test/bench/bench.py (smoke run)
    procps                                  # ps, pgrep (test/faults.sh)
)
# what test/build_postgres.sh needs for a version Debian does not package
# (from 17 on, the tarball has no generated parser files: bison, flex, perl)
source_build_packages=(bison flex perl bzip2 xz-utils pkg-config libicu-dev)

installed() {
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]
}

# Debian's packages of MAJOR, when its apt sources have them
debian_packages() {
    echo "postgresql-$1" "postgresql-server-dev-$1" "postgresql-$1-pgtap"
}
has_candidate() {
    local c
    c="$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p')"
    [ -n "$c" ] && [ "$c" != "(none)" ]
}
apt_updated=0
apt_update() {
    [ "$apt_updated" = 1 ] && return 0
    echo "setup_debian: apt-get update"
    "${SUDO[@]}" apt-get update -qq
    apt_updated=1
}
# A fresh machine may have no package lists at all: without them no version
# would look packaged.
if ! compgen -G '/var/lib/apt/lists/*_Packages*' > /dev/null; then
    apt_update
fi

missing=()
for p in "${packages[@]}"; do
    installed "$p" || missing+=("$p")
done
source_majors=()
for m in "${majors[@]}"; do
    if [ "$m" = "$GDB_DEBIAN_PGMAJOR" ] || installed "postgresql-server-dev-$m" ||
        has_candidate "postgresql-server-dev-$m"; then
        for p in $(debian_packages "$m"); do
            installed "$p" || missing+=("$p")
        done
    else
        source_majors+=("$m")
        for p in "${source_build_packages[@]}"; do
            installed "$p" || missing+=("$p")
        done
    fi
done
[ "${#source_majors[@]}" = 0 ] ||
    echo "setup_debian: PostgreSQL ${source_majors[*]}: not packaged for this Debian; built from source by test/build_postgres.sh"
# (a package asked for by two versions once)
if [ "${#missing[@]}" != 0 ]; then
    mapfile -t missing < <(printf '%s\n' "${missing[@]}" | awk '!seen[$0]++')
fi

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
apt_update
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends \
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
    "${missing[@]}" >/dev/null

for p in "${missing[@]}"; do
    installed "$p" || { echo "setup_debian: $p did not install" >&2; exit 1; }
done
echo "setup_debian: done"
