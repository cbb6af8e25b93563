#!/usr/bin/env python3
"""Benchmarks of the Python package (docs/performance.md, "Python").

1. hwpc.intel.decode of a TGL recording with RenderBasic into NumPy columns,
   beside its baseline: the same C++ decode (readers, metric_rows' block
   evaluation) feeding a writer that keeps nothing (`hwpc.intel._measure`): the library
   doing the same rows and metrics without text. Interleaved, medians.
2. hwpc.dask on eight captures: a LocalCluster of two worker processes
   beside one (threads_per_worker=1 both), hwpc.dask.summaries and
   read_captures(...).map_partitions(len), medians.

Run with Debian's interpreter and the CMake build's package:
  PYTHONPATH=build/python /usr/bin/python3 bench/python_bench.py --tool build/examples/hwpc \
      --metrics ../shared/data/intel-metrics/oa-tglgt2.xml
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

REPORT_BYTES = 264  # a TGL A32u40_A4u32_B8_C8 recording record (256-byte report + header)


def emulate(tool, metrics, path, mib, seed):
    reports = max(100, int(mib * (1 << 20) / REPORT_BYTES))
    subprocess.run([tool, "emulate", "--platform", "tgl", "--format", "A32u40_A4u32_B8_C8",
                    "--output-kind", "recording", "--metrics", metrics, "--set", "RenderBasic",
                    "--reports", str(reports), "--seed", str(seed), "--out", path],
                   check=True, capture_output=True)
    return os.path.getsize(path)


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def cpu_timed(fn):
    """Wall time, and CPU time (user + system: the page faults count) of this process."""
    r0, t = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    fn()
    w, r1 = time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF)
    return w, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def bench_decode(hwpc, path, metrics, reps):
    base, store, cols, pandas = [], [], [], []
    for _ in range(reps):
        base.append(cpu_timed(lambda: hwpc.intel._measure(path, "discard", metrics=metrics)))
        store.append(cpu_timed(lambda: hwpc.intel._measure(path, "store", metrics=metrics)))
        holder = []
        cols.append(cpu_timed(lambda: holder.append(hwpc.intel.decode(path, metrics=metrics))))
        pandas.append(cpu_timed(lambda: holder[0].to_pandas()))
        n, ncol = len(holder[0]), len(holder[0].columns)
        del holder
    med = lambda xs, i: statistics.median(x[i] for x in xs)  # noqa: E731
    print("decode %d rows x %d columns, %.1f MiB (median of %d):" % (
        n, ncol, os.path.getsize(path) / (1 << 20), reps))
    for i, what in ((1, "CPU"), (0, "wall")):
        b, st, c, p = med(base, i), med(store, i), med(cols, i), med(pandas, i)
        print("  %s: C++ same rows and metrics kept nowhere %.3f s; C++ columns filled, not "
              "handed over %.3f s; to NumPy %.3f s (%.2fx the first, %.2fx the second); "
              "to_pandas %.3f s more; runs: nowhere %s, C++ columns %s, NumPy %s" % (
                  what, b, st, c, c / b, c / st, p, ["%.2f" % x[i] for x in base],
                  ["%.2f" % x[i] for x in store], ["%.2f" % x[i] for x in cols]))


def bench_dask(hwpc_dask, paths, metrics, reps):
    import distributed

    out = {}
    for workers in (1, 2):
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                      host="127.0.0.1", dashboard_address=None,
                                      silence_logs=40) as cluster, \
                distributed.Client(cluster):
            hwpc_dask.summaries(paths[:2], metrics=metrics)  # workers import hwpc
            s = [timed(lambda: hwpc_dask.summaries(paths, metrics=metrics)) for _ in range(reps)]
            r = [timed(lambda: hwpc_dask.read_captures(paths, metrics=metrics)
                       .map_partitions(len).compute()) for _ in range(reps)]
            out[workers] = (statistics.median(s), statistics.median(r), s, r)
    for i, what in ((0, "summaries"), (1, "read_captures + map_partitions(len)")):
        one, two = out[1][i], out[2][i]
        print("dask %s of %d captures: 1 worker %.3f s, 2 workers %.3f s: %.2fx; runs 1: %s 2: %s"
              % (what, len(paths), one, two, one / two, ["%.3f" % x for x in out[1][i + 2]],
                 ["%.3f" % x for x in out[2][i + 2]]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--metrics", required=True)
    ap.add_argument("--mib", type=float, default=256)
    ap.add_argument("--fleet-mib", type=float, default=16, help="size of each of the 8 captures")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", choices=["decode", "dask"])
    a = ap.parse_args()
    import hwpc
    import hwpc.dask

    print("load average before: %.2f %.2f %.2f, %d cores" % (*os.getloadavg(), os.cpu_count()))
    with tempfile.TemporaryDirectory() as d:
        if a.only != "dask":
            big = os.path.join(d, "big.rec")
            emulate(a.tool, a.metrics, big, a.mib, 1)
            bench_decode(hwpc, big, a.metrics, a.reps)
            os.remove(big)
        if a.only != "decode":
            paths = [os.path.join(d, "c%d.rec" % i) for i in range(8)]
            for i, p in enumerate(paths):
                emulate(a.tool, a.metrics, p, a.fleet_mib, i + 1)
            bench_dask(hwpc.dask, paths, a.metrics, a.reps)
    print("load average after: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    sys.exit(main())
