#!/bin/bash
# random_queries.sh -- run test/random_queries.py in a throwaway cluster.
#
# usage: bash test/random_queries.sh [random_queries.py options...]
#   e.g. bash test/random_queries.sh --seed 7 --queries 1000 --min-gpu 50
#
# Starts a pg_virtualenv cluster (PostgreSQL 15) with shared_preload_libraries
# = gpudb and gpudb.device = $GPUDB_TEST_DEVICE, runs the harness's
# --self-check (the comparison must catch planted differences) and then the
# random differential run with the given options.  Uses the gpudb that is
# already installed (make install first); builds and installs nothing.
#
# Environment:
#   GPUDB_TEST_DEVICE  auto, gpu or cpu; default gpu when nvidia-smi lists a
#                      GPU, else cpu (as test/run_tests.sh)
#   PGMAJOR            default 15
# Exits non-zero when the self-check or the run fails.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
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
exec pg_virtualenv -t -v "${PGMAJOR:-15}" -o shared_preload_libraries=gpudb \
    -o "gpudb.device=$GPUDB_TEST_DEVICE" bash "$ROOT/test/random_queries.sh" --inside "$@" </dev/null
