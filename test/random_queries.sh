#!/bin/bash
# random_queries.sh -- run test/random_queries.py in a throwaway cluster.
#
# usage: bash test/random_queries.sh [random_queries.py options...]
#   e.g. bash test/random_queries.sh --seed 7 --queries 1000 --min-gpu 50
#
# Starts a throwaway cluster of PG_CONFIG's PostgreSQL (gdb_with_cluster in
# test/pg_lib.sh: pg_virtualenv for Debian's, initdb/pg_ctl for a source
# build) with shared_preload_libraries = gpudb and gpudb.device =
# $GPUDB_TEST_DEVICE, runs the harness's
# --self-check (the comparison must catch planted differences) and then the
# random differential run with the given options.  Uses the gpudb that is
# already installed (make install first); builds and installs nothing.
#
# Environment:
#   GPUDB_TEST_DEVICE  auto, gpu or cpu; default gpu when nvidia-smi lists a
#                      GPU, else cpu (as test/run_tests.sh)
#   PG_CONFIG          the PostgreSQL (default Debian's 15,
#                      /usr/lib/postgresql/15/bin/pg_config)
# Exits non-zero when the self-check or the run fails.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
GDB_ROOT="$ROOT"
# shellcheck source=test/pg_lib.sh
source "$ROOT/test/pg_lib.sh"
if [ "${1:-}" = "--inside" ]; then
    shift
    python3 "$ROOT/test/random_queries.py" --self-check \
        --setup-sql "SET gpudb.device = $GPUDB_TEST_DEVICE" || exit 1
    exec python3 "$ROOT/test/random_queries.py" \
        --setup-sql "SET gpudb.device = $GPUDB_TEST_DEVICE" "$@"
fi

if [ -z "${GPUDB_TEST_DEVICE:-}" ]; then
    if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
        GPUDB_TEST_DEVICE=gpu
    else
        GPUDB_TEST_DEVICE=cpu
    fi
fi
export GPUDB_TEST_DEVICE
gdb_sane_env
export PG_CONFIG="${PG_CONFIG:-$(gdb_debian_pg_config "$GDB_DEBIAN_PGMAJOR")}"
gdb_with_cluster 3600 shared_preload_libraries=gpudb "gpudb.device=$GPUDB_TEST_DEVICE" -- \
    bash "$ROOT/test/random_queries.sh" --inside "$@"
