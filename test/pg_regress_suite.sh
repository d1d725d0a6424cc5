#!/bin/bash
# pg_regress_suite.sh — PostgreSQL's own regression suite, vanilla against
# gpudb with its plan nodes forced.
#
# usage: bash test/pg_regress_suite.sh
#
# As TimescaleDB does with its "pg_regress against the extension" runs, this
# runs PostgreSQL's src/test/regress (its parallel_schedule, about 200 tests)
# twice, each in a fresh throwaway cluster of the PostgreSQL that PG_CONFIG
# names (initdb --no-locale -E UTF8; pg_regress creates the "regression"
# database in UTF8 with the C locale and sets the time zone and date style
# itself, as PostgreSQL's `make installcheck` does):
#
#   vanilla  shared_preload_libraries = 'auto_explain'
#   gpudb    shared_preload_libraries = 'gpudb,auto_explain',
#            gpudb.device = $GPUDB_PGREGRESS_DEVICE (default cpu: the plan
#            nodes run on the CPU path), and the three cost constants
#            gpudb.gpu_setup_cost, gpu_tuple_cost and gpu_transfer_cost = 0,
#            which makes the planner take GpudbScan, GpudbAgg, GpudbSort and GpudbJoin wherever
#            they apply (README, "Cost model").  The extension itself is not
#            created in the database (its functions would show up in the
#            catalog tests); the planner hooks need only the preload.
#
# and compares the two runs' results/TEST.out test by test with
# test/pg_regress_compare.py: a difference inside plan text (EXPLAIN results,
# explain helpers' results, plans raised as NOTICEs) is expected and listed
# as plan-only, and so is a different order of a result's rows when its
# statement has no ORDER BY (order-only); any other difference (rows, their
# order under ORDER BY, errors, notices) is a result difference, printed as a
# diff, and fails the script unless the test is listed, with its reason, in
# test/pg_regress_suite.known.  A listed test
# that no longer differs is warned about.  How either run compares with
# PostgreSQL's own expected files does not matter (it is printed for
# information).  A server crash in either run fails the script.
#
# Executed plans with a Gpudb node are counted from auto_explain
# (log_min_duration = 0, nested statements included: every plan the executor
# finished, logged with pg_regress's application name, so per test); gpudb
# has no execution counter of its own (gpu_last_execution() covers only
# gpu_groupby calls).  Plans of statements that failed are not logged.
#
# The regression suite's source must match the server's: it is taken from
# Debian's source package postgresql-MAJOR (apt-get source --download-only;
# a deb-src entry mirroring /etc/apt/sources.list.d/debian.sources is added as
# /etc/apt/sources.list.d/gpudb-deb-src.sources when none is configured (or,
# where apt has only /etc/apt/sources.list, as debootstrap leaves it, one
# mirroring its deb lines as gpudb-deb-src.list), then
# apt-get update).  The server's exact Debian version is tried first, then the
# other versions of the same major, newest first (Debian's security pool may
# not serve the installed version's source: 15.20 was installed while only
# 15.18's source could be fetched); minor versions differ in a few tests'
# expected files, which the comparison does not use.  Only when no Debian
# source can be had is PostgreSQL 18.6's tarball in
# ../shared/postgresql/ used (relative to the repository root): a newer
# suite against a 15 server, whose regress.c may not build; many tests then
# fail in both runs alike, which the comparison tolerates but makes weaker,
# and some leak OIDs or PIDs into their output (listed as "@18" lines of the
# known file).  A server built from a tarball (test/build_postgres.sh: not
# Debian's) takes its suite from a tarball of its own version first (found
# as test/pg_lib.sh finds it), with no apt-get at all.
# Only src/test/regress and contrib/spi are extracted, into
# $GPUDB_PGREGRESS_CACHE (default ~/.cache/gpudb/pg_regress), outside the
# repository, and reused.  Which source was used is printed.
#
# What the suite needs is built into the run's work directory with PGXS:
# regress.so (src/test/regress/regress.c), refint.so and autoinc.so
# (contrib/spi); pg_regress is PGXS's
# $(pg_config --pkglibdir)/pgxs/src/test/regress/pg_regress.
#
# As root (CI), the servers and pg_regress run as an unprivileged user
# (GPUDB_PGREGRESS_USER, default postgres, created with useradd when missing);
# the work directory (/tmp/gpudb-pgregress.XXXXXX) is theirs.  The servers
# listen only on a Unix socket in it, so their ports cannot collide with any
# other cluster.
#
# Environment:
#   PG_CONFIG                default Debian's 15: /usr/lib/postgresql/15/bin/pg_config
#   GPUDB_PGREGRESS_DEVICE   gpudb.device of the gpudb run (default cpu)
#   GPUDB_PGREGRESS_SCHEDULE parallel (default: parallel_schedule, up to
#                            GPUDB_PGREGRESS_CONCURRENCY tests at once,
#                            default 20) or serial (one test at a time)
#   GPUDB_PGREGRESS_TESTS    run these tests (space-separated) instead of the
#                            schedule (test_setup is prepended), for debugging
#   GPUDB_PGREGRESS_PORT     port of the vanilla cluster, gpudb's is +1
#                            (default 55440; Unix socket only)
#   GPUDB_PGREGRESS_SOURCE   auto (default: Debian, then the tarball), debian,
#                            tarball, or the path of a PostgreSQL source tree
#   GPUDB_PGREGRESS_TARBALL  default: the server's major version's tarball in
#                            GPUDB_PG_TARBALL_DIR, ../shared/postgresql or
#                            shared/postgresql, else the newest tarball there
#   GPUDB_PGREGRESS_CACHE    default ~/.cache/gpudb/pg_regress
#   GPUDB_PGREGRESS_KNOWN    default test/pg_regress_suite.known
#   GPUDB_PGREGRESS_TIMEOUT  seconds allowed to each run (default 600)
#   GPUDB_PGREGRESS_SKIP     tests removed from the schedule (space-separated);
#                            default none, or "psql psql_pipeline" when the
#                            suite is not the server's major version (18's
#                            psql tests use \watch and pipeline commands that
#                            an older psql loops or waits on forever)
#   GPUDB_PGREGRESS_USER     server user when run as root (default postgres)
#   GPUDB_PGREGRESS_KEEP=1   keep the work directory (results, server logs)
#   GPUDB_PGREGRESS_DIFF_LINES  diff lines printed per test (default 200)
#
# Exits 0 when the only result differences are known ones, 1 otherwise, 2
# when the suite could not be set up.  The last line is the summary:
#   pg_regress_suite: PASS|FAIL, N tests, M with result differences (K known),
#   P with plan-only differences, O with order-only differences, G executed
#   plans with a Gpudb node
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GDB_ROOT="$ROOT"
# shellcheck source=test/pg_lib.sh
source "$ROOT/test/pg_lib.sh"
PG_CONFIG="${PG_CONFIG:-$(gdb_debian_pg_config "$GDB_DEBIAN_PGMAJOR")}"
DEVICE="${GPUDB_PGREGRESS_DEVICE:-cpu}"
SCHEDULE="${GPUDB_PGREGRESS_SCHEDULE:-parallel}"
CONCURRENCY="${GPUDB_PGREGRESS_CONCURRENCY:-20}"
PORT="${GPUDB_PGREGRESS_PORT:-55440}"
SOURCE="${GPUDB_PGREGRESS_SOURCE:-auto}"
TARBALL="${GPUDB_PGREGRESS_TARBALL:-}"
CACHE="${GPUDB_PGREGRESS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gpudb/pg_regress}"
KNOWN="${GPUDB_PGREGRESS_KNOWN:-$ROOT/test/pg_regress_suite.known}"
TIMEOUT="${GPUDB_PGREGRESS_TIMEOUT:-600}"
RUN_USER="${GPUDB_PGREGRESS_USER:-postgres}"
DEBSRC_FILE=/etc/apt/sources.list.d/gpudb-deb-src.sources
DEBSRC_LIST=/etc/apt/sources.list.d/gpudb-deb-src.list

say() { echo "pg_regress_suite: $*"; }
die() { say "$*"; say "FAIL (setup), 0 tests"; exit 2; }

case "$SCHEDULE" in parallel|serial) ;; *) die "GPUDB_PGREGRESS_SCHEDULE must be parallel or serial";; esac
case "$DEVICE" in auto|gpu|cpu) ;; *) die "GPUDB_PGREGRESS_DEVICE must be auto, gpu or cpu";; esac
[ -x "$PG_CONFIG" ] || die "no pg_config at $PG_CONFIG"
BINDIR="$("$PG_CONFIG" --bindir)"
PKGLIBDIR="$("$PG_CONFIG" --pkglibdir)"
PG_REGRESS="$PKGLIBDIR/pgxs/src/test/regress/pg_regress"
[ -x "$PG_REGRESS" ] || die "no pg_regress at $PG_REGRESS (install the server development package)"
[ -f "$PKGLIBDIR/gpudb.so" ] || die "gpudb is not installed in $PKGLIBDIR (make install)"
[ -f "$PKGLIBDIR/auto_explain.so" ] || die "auto_explain is not installed in $PKGLIBDIR"

# "PostgreSQL 15.20 (Debian 15.20-0+deb12u1)" -> 15.20, 15, 15.20-0+deb12u1
VERSION_LINE="$("$PG_CONFIG" --version)"
UPSTREAM="$(sed -n 's/^PostgreSQL \([0-9][0-9.]*\).*/\1/p' <<< "$VERSION_LINE")"
MAJOR="${UPSTREAM%%.*}"
DEBVER="$(sed -n 's/.*(Debian \([^)]*\)).*/\1/p' <<< "$VERSION_LINE")"
[ -n "$MAJOR" ] || die "cannot read the server version from '$VERSION_LINE'"
if [ -z "$TARBALL" ]; then
    TARBALL="$(gdb_pg_tarball "$MAJOR")"
    if [ -z "$TARBALL" ]; then      # any version's: the newest in the first folder that has one
        TARBALL="$(while read -r d; do ls "$d"/postgresql-[0-9]*.tar.* 2> /dev/null | sort -V | tail -1; done \
            < <(gdb_tarball_dirs) | head -1)"
    fi
fi
say "$(date -u '+%F %T') UTC, server $VERSION_LINE, PG_CONFIG = $PG_CONFIG, gpudb.device = $DEVICE"

# ---------------------------------------------------------------------------
# The suite's source: sets SRC (a tree holding src/test/regress and
# contrib/spi) and SRC_ORIGIN.
# ---------------------------------------------------------------------------
SRC="" SRC_ORIGIN=""

use_cached() {          # use_cached DIRNAME: the cached extraction, if complete
    [ -f "$CACHE/$1/.complete" ] || return 1
    SRC="$CACHE/$1"
    SRC_ORIGIN="$(cat "$CACHE/$1/.complete") (cached in $SRC)"
}

extract() {             # extract ARCHIVE TOPDIR ORIGIN: regress + spi into the cache
    local tmp
    tmp="$(mktemp -d "$CACHE/extract.XXXXXX")" || return 1
    if tar -xf "$1" -C "$tmp" "$2/src/test/regress" "$2/contrib/spi"; then
        rm -rf "${CACHE:?}/$2"
        mv "$tmp/$2" "$CACHE/$2" && echo "$3" > "$CACHE/$2/.complete"
    fi
    rm -rf "$tmp"
    use_cached "$2"
}

SUDO=()
[ "$(id -u)" = 0 ] || SUDO=(sudo -n)

has_deb_src() {         # (not grep -q: with pipefail, apt-cache's SIGPIPE would count)
    [ "$(apt-cache showsrc "postgresql-$MAJOR" 2> /dev/null | grep -c '^Version:')" -gt 0 ]
}

ensure_deb_src() {      # a deb-src entry for postgresql-MAJOR, added if needed
    has_deb_src && return 0
    if [ -f "$DEBSRC_FILE" ] || [ -f "$DEBSRC_LIST" ]; then
        :
    elif [ -f /etc/apt/sources.list.d/debian.sources ]; then
        # Debian's container images and newer installs (deb822)
        say "adding $DEBSRC_FILE (deb-src twin of debian.sources)"
        { echo "# added by gpudb's test/pg_regress_suite.sh: source packages"
          sed 's/^Types:.*/Types: deb-src/' /etc/apt/sources.list.d/debian.sources
        } | "${SUDO[@]}" tee "$DEBSRC_FILE" > /dev/null || return 1
    elif grep -q '^deb ' /etc/apt/sources.list 2> /dev/null; then
        # the installer's and debootstrap's one-line format
        say "adding $DEBSRC_LIST (deb-src twin of sources.list)"
        { echo "# added by gpudb's test/pg_regress_suite.sh: source packages"
          sed -n 's/^deb /deb-src /p' /etc/apt/sources.list
        } | "${SUDO[@]}" tee "$DEBSRC_LIST" > /dev/null || return 1
    else
        say "no debian.sources or sources.list to mirror as deb-src"; return 1
    fi
    "${SUDO[@]}" apt-get update -qq > /dev/null 2>&1 || say "apt-get update failed"
    has_deb_src
}

debian_source() {
    command -v apt-get > /dev/null || return 1
    ensure_deb_src || { say "no Debian source package postgresql-$MAJOR"; return 1; }
    local versions v up dl
    # the server's own version first, then its upstream's, then newest first
    versions="$(apt-cache showsrc "postgresql-$MAJOR" | awk '/^Version:/ { print $2 }' | sort -u | sort -rV |
        awk -v d="$DEBVER" -v u="$UPSTREAM" '
            { split($0, p, "-"); r = ($0 == d) ? 0 : (p[1] == u) ? 1 : 2; print r, NR, $0 }' |
        sort -k1,1n -k2,2n | cut -d' ' -f3)"
    for v in $versions; do
        up="${v%%-*}"
        use_cached "postgresql-$up" && return 0
        dl="$(mktemp -d "$CACHE/download.XXXXXX")" || return 1
        say "downloading Debian's source postgresql-$MAJOR=$v"
        if (cd "$dl" && apt-get source --download-only -qq "postgresql-$MAJOR=$v" > /dev/null 2>&1) &&
            ls "$dl"/postgresql-"$MAJOR"_"$up".orig.tar.* > /dev/null 2>&1; then
            extract "$(ls "$dl"/postgresql-"$MAJOR"_"$up".orig.tar.* | head -1)" "postgresql-$up" \
                "Debian source package postgresql-$MAJOR $v (upstream tarball; Debian's patches not applied)"
            rm -rf "$dl"
            [ -n "$SRC" ] && return 0
        else
            say "could not download postgresql-$MAJOR=$v"
            rm -rf "$dl"
        fi
    done
    return 1
}

tarball_source() {
    local top
    [ -f "$TARBALL" ] || { say "no tarball${TARBALL:+ at $TARBALL}"; return 1; }
    top="$(basename "$TARBALL")"; top="${top%.tar.*}"
    use_cached "$top" && return 0
    say "extracting $TARBALL"
    extract "$TARBALL" "$top" "tarball $(basename "$TARBALL")"
}

# true when the tarball is the server's own version and the server is not
# Debian's (a source build): its suite, without asking apt
own_tarball() {
    [ -z "$DEBVER" ] && [ -f "$TARBALL" ] && [ "$(basename "$TARBALL" | sed 's/\.tar\..*//')" = "postgresql-$UPSTREAM" ]
}

mkdir -p "$CACHE" || die "cannot create $CACHE"
case "$SOURCE" in
    auto)    use_cached "postgresql-$UPSTREAM" || { own_tarball && tarball_source; } ||
                 debian_source || tarball_source ;;
    debian)  use_cached "postgresql-$UPSTREAM" || debian_source ;;
    tarball) tarball_source ;;
    *)       [ -d "$SOURCE/src/test/regress/sql" ] && SRC="$SOURCE" && SRC_ORIGIN="source tree $SOURCE" ;;
esac
[ -n "$SRC" ] || die "no regression suite source (GPUDB_PGREGRESS_SOURCE=$SOURCE)"
say "suite source: $SRC_ORIGIN"
# the suite's version, from the extracted tree's name (postgresql-15.18,
# postgresql-18.6; a source tree given by path: unknown), against the
# server's (the cache's .complete may describe an older use of the tree)
SUITE_VERSION="$(basename "$SRC" | sed -n 's/^postgresql-\([0-9][0-9a-z.]*\)$/\1/p')"
SUITE_MAJOR="$(sed -n 's/^\([0-9]*\).*/\1/p' <<< "$SUITE_VERSION")"
if [ "$SUITE_VERSION" != "$UPSTREAM" ]; then
    say "note: the suite is ${SUITE_VERSION:-of unknown version}, not the server's exact version ($UPSTREAM); only the two runs are compared"
fi
if [ -z "${GPUDB_PGREGRESS_SKIP+x}" ]; then
    if [ -n "$SUITE_MAJOR" ] && [ "$SUITE_MAJOR" != "$MAJOR" ]; then
        GPUDB_PGREGRESS_SKIP="psql psql_pipeline"
    else
        GPUDB_PGREGRESS_SKIP=""
    fi
fi

# ---------------------------------------------------------------------------
# The work directory, the server user, the suite's C modules.
# ---------------------------------------------------------------------------
WORK="$(mktemp -d /tmp/gpudb-pgregress.XXXXXX)" || die "mktemp failed"
AS=()
if [ "$(id -u)" = 0 ]; then
    if ! id "$RUN_USER" > /dev/null 2>&1; then
        useradd --system --no-create-home --shell /usr/sbin/nologin "$RUN_USER" ||
            die "cannot create the user $RUN_USER"
    fi
    AS=(runuser -u "$RUN_USER" --)
fi
as_user() { "${AS[@]}" "$@"; }

STARTED=()
cleanup() {
    local d
    for d in "${STARTED[@]}"; do
        as_user "$BINDIR/pg_ctl" -D "$d" -m immediate -w stop > /dev/null 2>&1
    done
    if [ "${GPUDB_PGREGRESS_KEEP:-0}" = 1 ]; then
        say "work directory kept: $WORK"
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT

mkdir -p "$WORK/lib" "$WORK/regress"
# The suite without its driver's C files (pg_regress comes from PGXS).
(cd "$SRC/src/test/regress" && cp -r sql expected data parallel_schedule resultmap "$WORK/regress/") ||
    die "cannot copy the suite from $SRC"
[ -d "$SRC/src/test/regress/input" ] && cp -r "$SRC/src/test/regress/input" "$SRC/src/test/regress/output" "$WORK/regress/"
for t in ${GPUDB_PGREGRESS_SKIP:-}; do
    sed -i -E "/^test:/ s/ $t( |\$)/ \1/" "$WORK/regress/parallel_schedule"
    say "skipping test $t"
done
cp "$SRC/src/test/regress/regress.c" "$SRC/contrib/spi/refint.c" "$SRC/contrib/spi/autoinc.c" "$WORK/lib/"
cat > "$WORK/lib/Makefile" <<'EOF'
# the C modules of PostgreSQL's regression suite, built with PGXS
MODULES = regress refint autoinc
PG_CPPFLAGS = -DREFINT_VERBOSE
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)
EOF
for m in regress refint autoinc; do
    if ! make -s -C "$WORK/lib" PG_CONFIG="$PG_CONFIG" "$m.so" > "$WORK/lib/$m.build.log" 2>&1; then
        if [ "$m" != regress ] && [ -f "$PKGLIBDIR/$m.so" ]; then
            cp "$PKGLIBDIR/$m.so" "$WORK/lib/"
            say "$m.so did not build; using $PKGLIBDIR/$m.so"
        else
            say "$m.so did not build (tests using it fail in both runs alike):"
            tail -5 "$WORK/lib/$m.build.log"
        fi
    fi
done
chown -R "$RUN_USER" "$WORK" 2> /dev/null || [ "${#AS[@]}" = 0 ] || die "cannot chown $WORK"

if [ -n "${GPUDB_PGREGRESS_TESTS:-}" ]; then
    # shellcheck disable=SC2206
    WHAT=(test_setup $GPUDB_PGREGRESS_TESTS)
else
    WHAT=(--schedule="$WORK/regress/parallel_schedule")
    if [ "$SCHEDULE" = serial ]; then
        WHAT+=(--max-connections=1)
    else
        WHAT+=(--max-concurrent-tests="$CONCURRENCY")
    fi
fi

# ---------------------------------------------------------------------------
# run_suite LABEL PORT PRELOAD [conf lines...]: a fresh cluster, the suite,
# the cluster stopped.  Sets SECONDS_<LABEL>, REGRESS_LINE_<LABEL>.
# ---------------------------------------------------------------------------
run_suite() {
    local label="$1" port="$2" preload="$3" dir="$WORK/$1" start rc line elapsed
    shift 3
    mkdir -p "$dir" && chown "$RUN_USER" "$dir" 2> /dev/null
    as_user "$BINDIR/initdb" -D "$dir/data" --no-locale -E UTF8 -A trust --no-sync \
        > "$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log"; return 2; }
    {
        echo "# pg_regress_suite.sh ($label)"
        echo "listen_addresses = ''"
        echo "unix_socket_directories = '$WORK'"
        echo "port = $port"
        echo "fsync = off"
        echo "max_prepared_transactions = 2"        # as pg_regress's temp instance
        echo "log_line_prefix = '%m [%p] %a: '"
        echo "shared_preload_libraries = '$preload'"
        echo "auto_explain.log_min_duration = 0"
        echo "auto_explain.log_nested_statements = on"
        printf '%s\n' "$@"
    } >> "$dir/data/postgresql.conf"
    as_user "$BINDIR/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 120 start > /dev/null ||
        { tail -20 "$dir/server.log"; return 2; }
    STARTED+=("$dir/data")
    start=$(date +%s)
    (cd "$dir" && as_user env -u PGOPTIONS -u PGUSER -u PGDATABASE -u PGSERVICE \
        timeout --kill-after=30 "$TIMEOUT" "$PG_REGRESS" \
            --inputdir="$WORK/regress" --outputdir="$dir" --bindir="$BINDIR" \
            --dlpath="$WORK/lib" --host="$WORK" --port="$port" \
            --no-locale --encoding=UTF8 "${WHAT[@]}" > "$dir/pg_regress.log" 2>&1)
    rc=$?
    elapsed=$(( $(date +%s) - start ))
    printf -v "SECONDS_$label" '%s' "$elapsed"
    as_user "$BINDIR/pg_ctl" -D "$dir/data" -m fast -w stop > /dev/null 2>&1
    line="$(grep -E 'tests? (passed|failed)|failed \(ignoring' "$dir/pg_regress.log" | tail -1 | sed 's/^[ =#]*//; s/[ =]*$//')"
    printf -v "REGRESS_LINE_$label" '%s' "${line:-no summary (rc $rc)}"
    say "[$label] ran in ${elapsed}s; against PostgreSQL's expected files: ${line:-no summary}"
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        say "[$label] pg_regress ran past ${TIMEOUT}s"; return 2
    fi
    if [ "$rc" -ge 2 ]; then
        say "[$label] pg_regress failed (rc $rc):"; tail -20 "$dir/pg_regress.log"; return 2
    fi
    if grep -E 'terminated by (signal|exception)|exited with exit code [2-9]' "$dir/server.log" | head -5 | grep .; then
        say "[$label] a server process crashed (above)"; return 3
    fi
    return 0
}

# count_plans LOG: "TOTAL GPU SCAN AGG SORT TESTS JOIN" over auto_explain's
# entries: plans, plans with a Gpudb node, with a GpudbScan, GpudbAgg, GpudbSort,
# the tests (application names) with a Gpu plan, and plans with a GpudbJoin
count_plans() {
    awk '
        function flush() {
            if (inplan) {
                total++
                if (scan || agg || sort || join) { g++; tests[app] = 1 }
                s += scan; a += agg; o += sort; j += join
            }
            inplan = scan = agg = sort = join = 0
        }
        /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9] / {
            flush()
            if ($0 ~ /LOG:  duration: [0-9.]+ ms  plan:/) {
                inplan = 1
                app = $0; sub(/^[^]]*\] /, "", app); sub(/: LOG:.*/, "", app)
            }
            next
        }
        inplan && /Custom Scan \(GpudbScan\)/ { scan = 1 }
        inplan && /Custom Scan \(GpudbAgg\)/ { agg = 1 }
        inplan && /Custom Scan \(GpudbSort\)/ { sort = 1 }
        inplan && /Custom Scan \(GpudbJoin\)/ { join = 1 }
        END { flush(); n = 0; for (t in tests) n++; printf "%d %d %d %d %d %d %d\n", total, g, s, a, o, n, j }
    ' "$1"
}

STATUS=0
say "work directory $WORK, schedule $SCHEDULE"
run_suite vanilla "$PORT" auto_explain || STATUS=$?
SECONDS_vanilla="${SECONDS_vanilla:-0}"
if [ "$STATUS" = 0 ]; then
    run_suite gpudb "$((PORT + 1))" gpudb,auto_explain \
        "gpudb.device = '$DEVICE'" \
        "gpudb.gpu_setup_cost = 0" "gpudb.gpu_tuple_cost = 0" "gpudb.gpu_transfer_cost = 0" \
        "gpudb.explain_hardware = off" || STATUS=$?
fi
[ "$STATUS" = 2 ] && die "a run could not complete"

section() { printf '\n---- %s ----\n' "$1"; }
section "comparison (test/pg_regress_compare.py)"
python3 "$ROOT/test/pg_regress_compare.py" --self-check > "$WORK/self-check.log" 2>&1 ||
    { cat "$WORK/self-check.log"; STATUS=1; }
python3 "$ROOT/test/pg_regress_compare.py" --known "$KNOWN" --suite-major "${SUITE_MAJOR:-unknown}" \
    --diff-lines "${GPUDB_PGREGRESS_DIFF_LINES:-200}" \
    "$WORK/vanilla/results" "$WORK/gpudb/results" | tee "$WORK/compare.log"
[ "${PIPESTATUS[0]}" = 0 ] || STATUS=1
summary="$(tail -1 "$WORK/compare.log" | sed -n 's/^pg_regress_compare: //p')"
summary="${summary:-the comparison failed}"

read -r v_total _ <<< "$(count_plans "$WORK/vanilla/server.log")"
read -r g_total g_gpu g_scan g_agg g_sort g_tests g_join <<< "$(count_plans "$WORK/gpudb/server.log")"
section "plans (auto_explain)"
say "vanilla run: $v_total executed plans; gpudb run: $g_total executed plans, $g_gpu with a Gpudb node" \
    "(GpudbScan in $g_scan, GpudbAgg in $g_agg, GpudbSort in $g_sort, GpudbJoin in $g_join) in $g_tests tests"
say "run times: vanilla ${SECONDS_vanilla}s, gpudb ${SECONDS_gpudb:-?}s"
if [ "${g_gpu:-0}" = 0 ] && [ "$DEVICE" != auto ]; then
    say "no executed plan used a Gpudb node: the nodes were not forced"; STATUS=1
fi
[ "$STATUS" = 3 ] && STATUS=1
[ "$STATUS" = 0 ] && verdict=PASS || verdict=FAIL
say "$verdict, $summary, ${g_gpu:-0} executed plans with a Gpudb node"
exit "$STATUS"
