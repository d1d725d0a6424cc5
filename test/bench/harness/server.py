"""The psql client of the benchmark: one-shot statements and scripts, statements
in parallel sessions, the log line, and the paths and start time of the run."""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))     # test/bench
ROOT = os.path.dirname(os.path.dirname(HERE))
PSQL = ["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1"]
T0 = time.time()


def log(msg):
    print("[%6.0f s] %s" % (time.time() - T0, msg), flush=True)


def psql(sql, check=True):
    r = subprocess.run(PSQL + ["-c", sql], capture_output=True, text=True)
    if check and r.returncode != 0:
        sys.exit("bench: psql failed: %s\n%s" % (sql, r.stderr))
    return r.stdout.strip()


def psql_script(script):
    return subprocess.run(PSQL, input=script, capture_output=True, text=True)


def sql_literal(s):
    return "'" + str(s).replace("'", "''") + "'"


def run_parallel(statements, jobs):
    """Runs the statements in up to jobs psql sessions at once."""
    pending, running = list(statements), []
    while pending or running:
        while pending and len(running) < max(1, jobs):
            sql = pending.pop(0)
            running.append((sql, subprocess.Popen(PSQL + ["-c", sql], stdout=subprocess.DEVNULL,
                                                  stderr=subprocess.PIPE, text=True)))
        sql, p = running.pop(0)
        err = p.communicate()[1]
        if p.returncode != 0:
            for _, q in running:
                q.kill()
            sys.exit("bench: failed: %s\n%s" % (sql, err))
