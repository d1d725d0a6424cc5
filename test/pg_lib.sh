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
#   gdb_sane_env                what the scripts need of the environment,
#                               whatever the caller's (env -i, a chroot, cron):
#                               PATH with the sbin directories (dpkg, runuser,
#                               useradd), HOME, and LC_ALL=C.UTF-8
#   gdb_cache_dir               the cache outside the repository
#                               ($GPUDB_CACHE, default ~/.cache/gpudb)
#   gdb_pg_build_dir MAJOR      where test/build_postgres.sh installs MAJOR:
#                               $GPUDB_PG_BUILDS/pgMAJOR; by default
#                               gdb_cache_dir's, but as root
#                               /var/cache/gpudb: the servers then run as the
#                               postgres user, who cannot enter /root
#
# Needs GDB_ROOT (the repository root) for gdb_pg_tarball.

# Debian 12 (bookworm) packages PostgreSQL 15 only; every other version is
# built from source by test/build_postgres.sh.
GDB_DEBIAN_PGMAJOR=15

gdb_sane_env() {
    local d p="" parts=()
    IFS=: read -r -a parts <<< "${PATH:-}"
    # (bash's own PATH when none is exported ends in ".": not that)
    for d in "${parts[@]}" /usr/local/sbin /usr/sbin /sbin /usr/local/bin /usr/bin /bin; do
        case "$d" in /*) ;; *) continue ;; esac
        case ":$p:" in *":$d:"*) ;; *) p="${p:+$p:}$d" ;; esac
    done
    export PATH="$p"
    # (with HOME unset, ~ is the user's home from the password database)
    [ -n "${HOME:-}" ] || HOME=~
    export HOME
    # C.UTF-8 exists on every Debian; the output of the tests, and of psql
    # and perl within them, must not depend on the caller's language
    export LC_ALL=C.UTF-8 LANG=C.UTF-8
    unset LANGUAGE
}

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

gdb_pg_build_dir() {
    local base="${GPUDB_PG_BUILDS:-}"
    if [ -z "$base" ]; then
        if [ -z "${GPUDB_CACHE:-}" ] && [ "$(id -u)" = 0 ]; then
            base=/var/cache/gpudb
        else
            base="$(gdb_cache_dir)"
        fi
    fi
    echo "$base/pg$1"
}

# ---------------------------------------------------------------------------
# gdb_with_cluster TIMEOUT GUC=VALUE... -- COMMAND...
#
# Runs COMMAND in a throwaway cluster of $PG_CONFIG's PostgreSQL, with the
# PG* variables set to reach it as a superuser, and removes the cluster;
# returns COMMAND's exit status (124 when it ran past TIMEOUT seconds), or 2
# when the cluster could not be made.  The cluster's encoding is UTF8 and its
# locale C.UTF-8 whatever the caller's environment (a chroot or a minimal
# container sets no locale, and initdb would then make a SQL_ASCII cluster,
# in which no ICU collation can be created); the GUCs go to postgresql.conf.
#
#   Debian's PostgreSQL: pg_virtualenv -t (a temporary cluster directory
#   even as root, so nothing under /etc/postgresql is touched), on the first
#   free port from $GPUDB_TEST_PORT (default 55450): left to itself
#   pg_createcluster takes the first free one from 5432, the port of the
#   machine's own server, whose clients would then reach the test cluster.
#   Any other (a source build): pg_virtualenv knows only Debian's versions,
#   so initdb and pg_ctl, made to look like pg_virtualenv's: a temporary
#   directory, owned by $GPUDB_TEST_USER (default postgres) when run as root
#   (initdb refuses root), fsync off, Debian's log_line_prefix (the tests read
#   PIDs from the log); it listens only on a Unix socket in that directory,
#   so its port collides with no other cluster's.  COMMAND gets this
#   version's programs first on PATH, and the server log's path in
#   GDB_SERVER_LOG (pg_lsclusters does not know the cluster).
# ---------------------------------------------------------------------------
GDB_CLUSTER_ENCODING=UTF8
GDB_CLUSTER_LOCALE=C.UTF-8

# gdb_free_port FIRST: the first of FIRST..FIRST+99 that no server listens on
# over TCP (loopback) and that has no Unix socket in the usual directories
gdb_free_port() {
    local p
    for (( p = $1; p < $1 + 100; p++ )); do
        [ -e "/var/run/postgresql/.s.PGSQL.$p" ] || [ -e "/tmp/.s.PGSQL.$p" ] && continue
        (exec 3<> "/dev/tcp/127.0.0.1/$p") 2> /dev/null && continue
        echo "$p"
        return 0
    done
    return 1
}

gdb_with_cluster() {
    local timeout_s="$1" gucs=() major g
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do gucs+=("$1"); shift; done
    [ "${1:-}" = -- ] && shift
    major="$(gdb_pg_major "${PG_CONFIG:?}")" || { echo "gdb_with_cluster: cannot run $PG_CONFIG" >&2; return 2; }
    if gdb_is_debian_pg "$PG_CONFIG"; then
        local opts=(-t -v "$major" -c "--encoding=$GDB_CLUSTER_ENCODING --locale=$GDB_CLUSTER_LOCALE")
        local port
        port="$(gdb_free_port "${GPUDB_TEST_PORT:-55450}")" ||
            { echo "gdb_with_cluster: no free port from ${GPUDB_TEST_PORT:-55450}" >&2; return 2; }
        for g in "${gucs[@]}"; do opts+=(-o "$g"); done
        echo "cluster: PGPORT=$port pg_virtualenv ${opts[*]}"
        local rc=0     # (|| keeps a caller's set -e from ending it here)
        PGPORT="$port" timeout --kill-after=30 "$timeout_s" pg_virtualenv "${opts[@]}" "$@" < /dev/null || rc=$?
        return "$rc"
    fi
    # (a subshell, so that its EXIT trap stops and removes the cluster
    # whatever happens, without touching the caller's traps)
    (
        bindir="$("$PG_CONFIG" --bindir)"
        run_user="${GPUDB_TEST_USER:-postgres}"
        port=55470
        as=()
        if [ "$(id -u)" = 0 ]; then
            if ! id "$run_user" > /dev/null 2>&1; then
                useradd --system --no-create-home --shell /usr/sbin/nologin "$run_user" || exit 2
            fi
            as=(runuser -u "$run_user" --)
        fi
        dir="$(mktemp -d /tmp/gpudb-cluster.XXXXXX)" || exit 2
        started=0
        trap '[ "$started" = 1 ] && "${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop > /dev/null 2>&1; rm -rf "$dir"' EXIT
        trap 'exit 130' INT TERM
        [ "${#as[@]}" = 0 ] || chown "$run_user" "$dir" || exit 2
        echo "cluster: initdb -E $GDB_CLUSTER_ENCODING --locale=$GDB_CLUSTER_LOCALE in $dir, ${gucs[*]}"
        if ! "${as[@]}" "$bindir/initdb" -D "$dir/data" -U postgres -A trust --no-sync \
                -E "$GDB_CLUSTER_ENCODING" --locale="$GDB_CLUSTER_LOCALE" > "$dir/initdb.log" 2>&1; then
            cat "$dir/initdb.log"
            exit 2
        fi
        {
            echo "# gdb_with_cluster (test/pg_lib.sh)"
            echo "listen_addresses = ''"
            echo "unix_socket_directories = '$dir'"
            echo "port = $port"
            echo "fsync = off"
            echo "log_line_prefix = '%m [%p] %q%u@%d '"
            for g in "${gucs[@]}"; do echo "${g%%=*} = '${g#*=}'"; done
        } >> "$dir/data/postgresql.conf"
        started=1
        if ! "${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 120 start > /dev/null; then
            tail -20 "$dir/server.log"
            exit 2
        fi
        # what pg_virtualenv exports, and this version's programs first
        unset PGSERVICE PGSERVICEFILE PGOPTIONS PGPASSWORD PGSSLMODE PGCLUSTER
        export PGHOST="$dir" PGPORT="$port" PGUSER=postgres PGDATABASE=postgres
        export PATH="$bindir:$PATH" GDB_SERVER_LOG="$dir/server.log"
        rc=0
        timeout --kill-after=30 "$timeout_s" "$@" < /dev/null || rc=$?
        if [ "$rc" != 0 ]; then
            echo "---- the end of the server log ----"
            tail -30 "$dir/server.log"
        fi
        exit "$rc"
    )
}
