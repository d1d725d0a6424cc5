# test/pg_lib.sh — which PostgreSQL the test scripts build and test against.
# Sourced, not run (by run_tests.sh, setup_debian.sh, demo_flights.sh,
# build_postgres.sh and pg_regress_suite.sh), so that the version rules live
# in one place.
#
#   GDB_DEBIAN_PGMAJOR          the major version Debian 12 packages (15): the
#                               default when neither PG_CONFIG nor
#                               PG_VERSIONS says otherwise
#   gdb_pg_major PG_CONFIG      the major version of that pg_config ("15",
#                               "18"; "19" for 19beta2); non-zero when it
#                               cannot be read
#   gdb_debian_pg_config MAJOR  Debian's pg_config path for MAJOR (which may
#                               not be installed)
#   gdb_is_debian_pg PG_CONFIG  true when PG_CONFIG is a Debian-packaged
#                               server's, which pg_virtualenv can run
#   gdb_pg_tarball MAJOR        the newest source tarball of MAJOR
#                               (postgresql-MAJOR.*.tar.*) in
#                               $GPUDB_PG_TARBALL_DIR, ../shared/postgresql
#                               or shared/postgresql (relative to the
#                               repository root); prints nothing when none
#   gdb_cache_dir               the cache outside the repository
#                               ($GPUDB_CACHE, default ~/.cache/gpudb)
#
# Needs GDB_ROOT (the repository root) for gdb_pg_tarball.

# Debian 12 (bookworm) packages PostgreSQL 15 only; every other version is
# built from source by test/build_postgres.sh.
GDB_DEBIAN_PGMAJOR=15

gdb_pg_major() {
    local line
    line="$("$1" --version 2>/dev/null)" || return 1
    # "PostgreSQL 15.20 (Debian 15.20-0+deb12u1)", "PostgreSQL 18.6",
    # "PostgreSQL 19beta2"
    line="$(sed -n 's/^PostgreSQL \([0-9][0-9]*\).*/\1/p' <<< "$line")"
    [ -n "$line" ] || return 1
    echo "$line"
}

gdb_debian_pg_config() {
    echo "/usr/lib/postgresql/$1/bin/pg_config"
}

gdb_is_debian_pg() {
    local major
    major="$(gdb_pg_major "$1")" || return 1
    [ "$(readlink -f "$1")" = "$(readlink -f "$(gdb_debian_pg_config "$major")")" ] &&
        command -v pg_virtualenv > /dev/null
}

gdb_tarball_dirs() {
    [ -n "${GPUDB_PG_TARBALL_DIR:-}" ] && echo "$GPUDB_PG_TARBALL_DIR"
    echo "${GDB_ROOT:?}/../shared/postgresql"
    echo "$GDB_ROOT/shared/postgresql"
}

gdb_pg_tarball() {
    local dir f best=""
    while read -r dir; do
        [ -d "$dir" ] || continue
        # postgresql-18.6.tar.bz2, postgresql-19beta2.tar.bz2; not 180.x
        for f in "$dir"/postgresql-"$1".*.tar.* "$dir"/postgresql-"$1"beta*.tar.* "$dir"/postgresql-"$1"rc*.tar.*; do
            [ -f "$f" ] || continue
            if [ -z "$best" ] || [ "$(printf '%s\n%s\n' "$(basename "$best")" "$(basename "$f")" | sort -V | tail -1)" = "$(basename "$f")" ]; then
                best="$f"
            fi
        done
        # the first directory holding one wins (GPUDB_PG_TARBALL_DIR first)
        [ -n "$best" ] && break
    done < <(gdb_tarball_dirs)
    [ -n "$best" ] && echo "$(cd "$(dirname "$best")" && pwd)/$(basename "$best")"
    return 0
}

gdb_cache_dir() {
    echo "${GPUDB_CACHE:-${XDG_CACHE_HOME:-${HOME:-/root}/.cache}/gpudb}"
}
