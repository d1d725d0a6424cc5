# test/session_lib.sh — helpers shared by the multi-session test scripts
# (concurrent_cache.sh, faults.sh, load_pgbench.sh).  Sourced, not run.
#
# gdb_require_loopback NAME: refuse any PGHOST but a unix socket or loopback.
# gdb_find_pgbench NAME:     set PGBENCH (PG_CONFIG's bindir, else pg_config's,
#                            else PATH's).
# Sessions (need WORK, DB and `declare -A S_FD=() S_SEQ=() S_PID=()`): a
# session is a psql reading a fifo; each command is followed by an \echo
# marker, so the caller can wait for and read exactly its output.
#   s_start NAME        start session NAME
#   s_send NAME SQL     send SQL, then a marker (not in a subshell: it
#                       advances the marker counter)
#   s_output NAME       print what came before NAME's last marker; waits up to
#                       60 s, else prints "TIMEOUT: ..." and returns 1

gdb_require_loopback() {
    case "${PGHOST:-}" in
        ''|/*|localhost|127.0.0.1|::1) ;;
        *) echo "$1: PGHOST=$PGHOST is neither a unix socket nor loopback; refusing" >&2; exit 2 ;;
    esac
}

gdb_find_pgbench() {
    # the server's own pgbench: $PG_CONFIG's (run_tests.sh exports it), else
    # the pg_config on PATH's, else any pgbench on PATH
    if [ -z "${PGBENCH:-}" ]; then
        PGBENCH="$("${PG_CONFIG:-pg_config}" --bindir 2>/dev/null)/pgbench"
        [ -x "$PGBENCH" ] || PGBENCH="$(command -v pgbench || true)"
    fi
    [ -x "$PGBENCH" ] || { echo "$1: no pgbench at $PGBENCH" >&2; exit 2; }
}

s_start() {
    local fd
    mkfifo "$WORK/$1.in"
    # (the child closes the other sessions' fifos, so that each session sees
    # EOF when its own writer closes)
    (
        for fd in "${S_FD[@]}"; do exec {fd}>&-; done
        exec stdbuf -oL -eL psql -X -q -At -v ON_ERROR_STOP=0 -d "$DB" <"$WORK/$1.in" >"$WORK/$1.out" 2>&1
    ) &
    S_PID[$1]=$!
    exec {fd}>"$WORK/$1.in"
    S_FD[$1]=$fd
    S_SEQ[$1]=0
    printf '\\echo __mark_%s_0__\n' "$1" >&"$fd"
}

s_send() {
    S_SEQ[$1]=$(( ${S_SEQ[$1]} + 1 ))
    printf '%s\n\\echo __mark_%s_%s__\n' "$2" "$1" "${S_SEQ[$1]}" >&"${S_FD[$1]}"
}

s_output() {
    local n="${S_SEQ[$1]}" tries=0
    local m="__mark_$1_${n}__" p="__mark_$1_$((n - 1))__"
    until grep -qx "$m" "$WORK/$1.out"; do
        sleep 0.05
        tries=$((tries + 1))
        if [ "$tries" -gt 1200 ]; then
            echo "TIMEOUT: session $1 did not answer within 60 s"
            return 1
        fi
    done
    awk -v p="$p" -v m="$m" '$0 == p { on = 1; next } $0 == m { exit } on' "$WORK/$1.out"
}

# gdb_server_logfile EXPLICIT DB: the cluster's server log, readable: EXPLICIT
# when given, else pg_current_logfile() (asked of DB), else the log file
# pg_lsclusters gives for this cluster's port; prints nothing when none is
# found.
gdb_server_logfile() {
    local f port
    if [ -n "$1" ]; then echo "$1"; return; fi
    f="$(psql -X -q -At -d "$2" -c "SELECT CASE WHEN pg_current_logfile() LIKE '/%' THEN pg_current_logfile()
                          ELSE current_setting('data_directory') || '/' || pg_current_logfile() END" 2>/dev/null)"
    if [ -n "$f" ] && [ -r "$f" ]; then echo "$f"; return; fi
    if command -v pg_lsclusters >/dev/null; then
        port="$(psql -X -q -At -d "$2" -c 'SHOW port' 2>/dev/null)"
        f="$(pg_lsclusters -h 2>/dev/null | awk -v p="$port" '$3 == p { print $7 }' | head -1)"
        if [ -n "$f" ] && [ -r "$f" ]; then echo "$f"; fi
    fi
}
