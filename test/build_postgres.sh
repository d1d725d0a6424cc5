#!/bin/bash
# build_postgres.sh — build a PostgreSQL that Debian does not package, from
# its source tarball, into a cache outside the repository; reuse it after.
#
# usage: bash test/build_postgres.sh MAJOR
#
# Prints the installed pg_config's path on stdout (and nothing else there:
# progress goes to stderr), e.g. ~/.cache/gpudb/pg18/bin/pg_config, or as
# root /var/cache/gpudb/pg18/bin/pg_config (the test clusters' servers run
# as the postgres user, who must reach the programs; /root is closed to it).
#
# The tarball is the newest postgresql-MAJOR.*.tar.* in $GPUDB_PG_TARBALL_DIR,
# ../shared/postgresql or shared/postgresql (relative to the repository root;
# test/pg_lib.sh), checked against a SHA256SUMS file beside it when there is
# one.  The build has what the test suites need:
#   - the server and client programs (make install), with ICU (the tests
#     create ICU collations); without readline and zlib, which no test needs
#   - pg_regress and pg_isolation_regress under PGXS (make installcheck)
#   - contrib's auto_explain (test/pg_regress_suite.sh), dblink
#     (sql/19_page_reader.sql) and spi (PostgreSQL's own regression suite)
#   - pgTAP, whose files are SQL only: copied from Debian's
#     postgresql-15-pgtap (share/extension of the packaged server) into this
#     server's share/extension, on every call, so that a pgTAP installed
#     after the build is picked up too
# It is rebuilt only when the tarball, the configure options or this recipe
# change (recorded in PREFIX/.gpudb-build); two runs at once wait for each
# other (flock).  About 5 minutes on 2 cores.
#
# Environment:
#   GPUDB_PG_BUILDS        where builds go, as pgMAJOR (default: GPUDB_CACHE,
#                          else ~/.cache/gpudb, as root /var/cache/gpudb)
#   GPUDB_CACHE            cache directory (default ~/.cache/gpudb)
#   GPUDB_PG_TARBALL_DIR   look here first for the tarball
#   GPUDB_PG_REBUILD=1     rebuild even when the cached build is current
#
# Build dependencies (test/setup_debian.sh installs them for a version that
# Debian does not package): build-essential, bison, flex, perl, bzip2,
# pkg-config, libicu-dev.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GDB_ROOT="$ROOT"
# shellcheck source=test/pg_lib.sh
source "$ROOT/test/pg_lib.sh"

say() { echo "build_postgres: $*" >&2; }
die() { say "$*"; exit 1; }

[ $# = 1 ] && [[ "$1" =~ ^[0-9]+$ ]] || die "usage: bash test/build_postgres.sh MAJOR (e.g. 18)"
MAJOR="$1"

# Bump when the steps below change, so that cached builds are redone.
RECIPE=1
CONFIGURE_OPTS=(--with-icu --without-readline --without-zlib)
CONTRIB=(auto_explain dblink spi)

# the install must be readable by the user the servers run as
umask 022
PREFIX="$(gdb_pg_build_dir "$MAJOR")"
CACHE="$(dirname "$PREFIX")"
PG_CONFIG_OUT="$PREFIX/bin/pg_config"

TARBALL="$(gdb_pg_tarball "$MAJOR")"
[ -n "$TARBALL" ] || die "no postgresql-$MAJOR.*.tar.* in: $(gdb_tarball_dirs | tr '\n' ' ')(set GPUDB_PG_TARBALL_DIR)"

mkdir -p "$CACHE"
exec 9> "$CACHE/pg$MAJOR.lock"
if ! flock -n 9; then
    say "another build of PostgreSQL $MAJOR is under way; waiting for it"
    flock 9
fi

sum="$(sha256sum "$TARBALL" | cut -d' ' -f1)"
sums_file="$(dirname "$TARBALL")/SHA256SUMS"
if [ -f "$sums_file" ] && grep -q " \*\?$(basename "$TARBALL")\$" "$sums_file"; then
    grep -q "^$sum  \*\?$(basename "$TARBALL")\$" "$sums_file" ||
        die "$TARBALL does not match its checksum in $sums_file"
fi
want="recipe $RECIPE; $(basename "$TARBALL") sha256 $sum; configure ${CONFIGURE_OPTS[*]}; contrib ${CONTRIB[*]}"

if [ "${GPUDB_PG_REBUILD:-0}" != 1 ] && [ -x "$PG_CONFIG_OUT" ] &&
    [ "$(cat "$PREFIX/.gpudb-build" 2>/dev/null)" = "$want" ]; then
    say "PostgreSQL $MAJOR: cached build in $PREFIX ($("$PG_CONFIG_OUT" --version))"
else
    say "PostgreSQL $MAJOR: building $(basename "$TARBALL") into $PREFIX (log: $CACHE/pg$MAJOR.build.log)"
    start=$(date +%s)
    rm -rf "$PREFIX"
    work="$(mktemp -d "$CACHE/pg$MAJOR.src.XXXXXX")"
    log="$CACHE/pg$MAJOR.build.log"
    # a failed or interrupted build leaves no source tree behind and no stamp,
    # so the next call starts over
    trap 'rm -rf "$work"' EXIT
    # (one && chain: set -e does not act inside a tested subshell)
    if ! (
        tar -xf "$TARBALL" -C "$work" &&
        src="$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'postgresql-*' | head -1)" &&
        cd "$src" &&
        ./configure --prefix="$PREFIX" "${CONFIGURE_OPTS[@]}" &&
        make -j"$(nproc)" &&
        make install &&
        make -C src/test/regress install &&
        make -C src/test/isolation install &&
        for m in "${CONTRIB[@]}"; do
            make -C "contrib/$m" -j"$(nproc)" && make -C "contrib/$m" install || exit 1
        done
    ) > "$log" 2>&1; then
        tail -30 "$log" >&2
        rm -rf "$PREFIX"
        die "PostgreSQL $MAJOR did not build (the end of $log is above)"
    fi
    echo "$want" > "$PREFIX/.gpudb-build"
    say "PostgreSQL $MAJOR built in $(( $(date +%s) - start ))s: $("$PG_CONFIG_OUT" --version)"
fi

# pgTAP: SQL files only, so Debian's (for its packaged server) serve any version.
ext="$("$PG_CONFIG_OUT" --sharedir)/extension"
pgtap_src="$(dirname "$(ls /usr/share/postgresql/*/extension/pgtap.control 2>/dev/null | sort -V | tail -1)")"
if [ -f "$pgtap_src/pgtap.control" ]; then
    cp -u "$pgtap_src"/pgtap.control "$pgtap_src"/pgtap--*.sql "$ext/"
    say "pgTAP: $(sed -n "s/^default_version *= *'\(.*\)'/\1/p" "$pgtap_src/pgtap.control") from $pgtap_src"
else
    say "pgTAP: not found under /usr/share/postgresql/*/extension (install postgresql-$GDB_DEBIAN_PGMAJOR-pgtap); the pgTAP suite will fail"
fi

echo "$PG_CONFIG_OUT"
