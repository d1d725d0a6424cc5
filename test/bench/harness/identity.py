"""What names a run's results (bench.py, tpch.py, tpch22.py): the device, gpudb's
active path, the commit and the date."""
import datetime
import os
import subprocess

from harness.server import ROOT, psql


def run_identity():
    """(device name, gpudb's active path, commit, date) that name a run's results:
    the commit is $BENCH_COMMIT, else the checkout's (-dirty where tracked files
    changed), else nocommit."""
    device = psql("SELECT coalesce(max(name), 'CPU') FROM gpu_devices()").replace(" ", "_")
    path = psql("SELECT gpu_active_path()")
    commit = os.environ.get("BENCH_COMMIT", "")
    if not commit:
        try:
            commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                    text=True).stdout.strip()
            if commit and subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                                         capture_output=True, text=True).stdout.strip():
                commit += "-dirty"
        except OSError:
            commit = ""
    return device, path, commit or "nocommit", datetime.date.today().isoformat()
