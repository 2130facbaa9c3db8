#!/usr/bin/env python3
"""maint/bench.py: run test/perf/mmbench.c on mm, Debian's MPICH and Debian's Open MPI,
interleaved, and write a table of medians with mm/peer ratios and a plot.

Called by `maint/mm bench` (which builds mm and installs the Debian packages first):

    maint/bench.py --mm-prefix DIR --out DIR [--reps N] [--rounds N] [--quick]
                   [--tests NAME,NAME...] [--baseline LIBDIR]

--baseline LIBDIR adds a fourth column, "mm-base": the same mm binary run with
LD_LIBRARY_PATH=LIBDIR, a directory holding an earlier build's libmpich.so.12, so that a
change to the device is measured against the code before it in the same run.

Every (test, process count) runs REPS times per MPI, in the order mm, mpich, openmpi, mm,
mpich, ... so that whatever else the machine does hits all three alike. Each run prints,
per point, the median of ROUNDS timed rounds (after warm-up); the figure reported for a
point is the median of its REPS run medians, and the spread column is the range of those
run medians. All three MPIs get the same placement: bound to cores while there are as many
cores as processes, unbound (oversubscribed) beyond.

Outputs in --out: raw/ (every run's output), results.tsv (every point), table.md (the
summary the README carries), bench.png (latency and bandwidth against message size).
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(REPO, "test", "perf", "mmbench.c")

# (test, processes, extra arguments); sizes are swept by mmbench itself.
TESTS = [
    ("latency", 2, ["-min", "0", "-max", str(4 << 20)]),
    ("bw", 2, ["-min", "1", "-max", str(4 << 20)]),
    ("bibw", 2, ["-min", "1", "-max", str(4 << 20)]),
    ("msgrate", 2, []),
    ("put", 2, ["-min", "8", "-max", str(1 << 20)]),
    ("get", 2, ["-min", "8", "-max", str(1 << 20)]),
    ("fop", 2, []),
    ("cas", 2, []),
    ("rmw", 2, []),
    ("acc", 2, ["-max", str(1 << 20)]),
    ("gacc", 2, ["-max", str(1 << 20)]),
    ("allreduce", 2, []),
    ("allreduce", 4, []),
    ("allreduce", 8, []),
    ("bcast", 4, []),
    ("bcast", 8, []),
    ("reduce", 4, []),
    ("reduce", 8, []),
    ("allgather", 4, []),
    ("allgather", 8, []),
]
COLL_TESTS = ("allreduce", "bcast", "reduce", "allgather")
QUICK_TESTS = [t for t in TESTS if t[0] in ("latency", "bw", "fop", "allreduce")]

# Sizes that go into table.md (results.tsv has all of them).
TABLE_SIZES = {0, 8, 64, 1024, 8192, 65536, 262144, 1 << 20, 4 << 20}
HIGHER_IS_BETTER = {"bw", "bibw", "msgrate"}
UNITS = {"latency": "us", "bw": "MB/s", "bibw": "MB/s", "msgrate": "msg/s", "put": "us",
         "get": "us", "fop": "us", "cas": "us", "rmw": "us", "acc": "us", "gacc": "us",
         "allreduce": "us", "bcast": "us", "reduce": "us", "allgather": "us"}


def log(msg):
    print("[bench %s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr, flush=True)


def impls(mm_prefix, hosts=None):
    ncores = os.cpu_count() or 1
    if hosts:
        return hosts_impls(mm_prefix, hosts)

    # Every MPI bound to cores, also beyond one process per core (hydra then puts several
    # on a core; Open MPI has to be told it may): an unbound run of one MPI against a bound
    # run of another is no comparison.
    def hydra(mpiexec):
        def cmd(np):
            return [mpiexec, "-n", str(np), "-bind-to", "core"]
        return cmd

    def ompi(np):
        return ["mpiexec.openmpi", "--allow-run-as-root", "--oversubscribe", "-n", str(np),
                "--bind-to", "core" if np <= ncores else "core:overload-allowed"]

    return [
        ("mm", os.path.join(mm_prefix, "bin", "mpicc"),
         hydra(os.path.join(mm_prefix, "bin", "mpiexec")), {}),
        ("mpich", "mpicc.mpich", hydra("mpiexec.mpich"), {}),
        # Containers often forbid the ptrace-style access CMA needs; let vader fall back.
        ("openmpi", "mpicc.openmpi", ompi, {"OMPI_MCA_btl_vader_single_copy_mechanism": "none"}
         if os.environ.get("MM_BENCH_OMPI_NO_CMA") else {}),
    ]


def hosts_impls(mm_prefix, hosts):
    """Launchers for a job spread over the two namespaces of maint/netns-hosts, half the
    processes in each: mpiexec runs inside the first host (the proxies reach it over the
    link). Each host has a core of its own (MM_HOSTS_CORES=1: everything of host i runs
    on core i), which binds every process of every MPI alike; the MPIs' own binding stays
    off, because it ignores that confinement and would put both hosts on core 0."""
    h0, h1, launch, launch_sh = hosts

    def in_h0(cmd):
        return ["taskset", "-c", "0", "ip", "netns", "exec", h0, "unshare", "--uts", "sh",
                "-c", 'hostname %s && exec "$0" "$@"' % h0] + cmd

    def hydra(mpiexec):
        def cmd(np):
            return in_h0([mpiexec, "-launcher", "rsh", "-launcher-exec", launch, "-hosts",
                          "%s:%d,%s:%d" % (h0, np // 2, h1, np - np // 2), "-n", str(np),
                          "-bind-to", "none"])
        return cmd

    # Open MPI counts a host's slots, not its cores, so it would not yield while it polls
    # with two processes on a host's one core (as it does on an oversubscribed node), and
    # a waiting process would keep the one it waits for off the core: tell it.
    def ompi(np):
        return in_h0(["mpiexec.openmpi", "--allow-run-as-root", "--oversubscribe",
                      "--mca", "plm_rsh_agent", launch_sh, "--mca", "mpi_yield_when_idle", "1",
                      "--host", "%s:%d,%s:%d" % (h0, np // 2, h1, np - np // 2), "-n", str(np),
                      "--bind-to", "none"])

    return [
        ("mm", os.path.join(mm_prefix, "bin", "mpicc"),
         hydra(os.path.join(mm_prefix, "bin", "mpiexec")), {}),
        ("mpich", "mpicc.mpich", hydra("mpiexec.mpich"), {}),
        ("openmpi", "mpicc.openmpi", ompi, {}),
    ]


def start_hosts():
    """maint/netns-hosts, kept running until the returned process's stdin closes."""
    p = subprocess.Popen([os.path.join(REPO, "maint", "netns-hosts")], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True, env=dict(os.environ,
                                                                     MM_HOSTS_CORES="1"))
    line = p.stdout.readline().split()
    if len(line) != 5 or line[0] != "HOSTS":
        p.stdin.close()
        p.wait()
        sys.exit("maint/netns-hosts could not make two hosts: %s" % " ".join(line))
    return p, line[1:]


def build(out, mpis):
    bins = {}
    for name, cc, _, _ in mpis:
        if name == "mm-base":
            bins[name] = bins["mm"]     # same program, the earlier library underneath
            continue
        exe = os.path.join(out, "mmbench." + name)
        subprocess.run([cc, "-O2", "-o", exe, SRC], check=True)
        bins[name] = exe
    return bins


def run_one(out, name, launcher, env_extra, exe, test, np, args, rounds, rep):
    cmd = launcher(np) + [exe, test] + args + ["-rounds", str(rounds)]
    env = dict(os.environ, **env_extra)
    raw = os.path.join(out, "raw", "%s.%s.%d.%d.txt" % (name, test, np, rep))
    t0 = time.time()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=600)
    with open(raw, "w") as f:
        f.write("$ %s\n%s" % (" ".join(cmd), p.stdout))
    points = []
    for line in p.stdout.splitlines():
        f = line.split()
        if len(f) >= 6 and f[0] == test:
            try:
                points.append((f[1], int(f[2]), float(f[3])))
            except ValueError:
                pass
    if p.returncode != 0:
        log("%s %s -n %d exited %d (see %s)" % (name, test, np, p.returncode, raw))
    return points, time.time() - t0


def fmt(v):
    if v != v:      # nan
        return "n/a"
    if v >= 1e5:
        return "%.3g" % v
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    return "%.2f" % v


def ratio(test, mm, peer):
    if mm != mm or peer != peer or peer == 0:
        return "n/a"
    return "%.2f" % (mm / peer)


def size_label(b):
    if b >= 1 << 20 and b % (1 << 20) == 0:
        return "%dM" % (b >> 20)
    if b >= 1024 and b % 1024 == 0:
        return "%dK" % (b >> 10)
    return str(b)


def plot(out, res, names):
    gp = shutil.which("gnuplot")
    if gp is None:
        log("gnuplot not found: no plot")
        return
    for test in ("latency", "bw"):
        with open(os.path.join(out, "plot_%s.dat" % test), "w") as f:
            sizes = sorted({k[3] for k in res if k[0] == test and k[2] == 2})
            for s in sizes:
                vals = [res.get((test, "-", 2, s), {}).get(n, float("nan")) for n in names]
                f.write("%d %s\n" % (max(s, 1), " ".join("%g" % v for v in vals)))
    script = """
set terminal pngcairo size 1400,560 font ",11"
set output '{out}/bench.png'
set multiplot layout 1,2 title "mmbench, 2 processes on one node ({date})"
set logscale xy
set grid
set key top left
set xlabel "message size (bytes; 0 plotted at 1)"
set ylabel "one-way latency (us)"
set title "ping-pong latency (lower is better)"
plot {lat}
set key bottom right
set ylabel "MB/s"
set title "bandwidth, window of 64 (higher is better)"
plot {bw}
unset multiplot
""".format(out=out, date=time.strftime("%Y-%m-%d"),
           lat=", ".join("'%s/plot_latency.dat' u 1:%d w lp t '%s'" % (out, i + 2, n)
                         for i, n in enumerate(names)),
           bw=", ".join("'%s/plot_bw.dat' u 1:%d w lp t '%s'" % (out, i + 2, n)
                        for i, n in enumerate(names)))
    p = subprocess.run([gp], input=script, text=True, capture_output=True)
    if p.returncode != 0:
        log("gnuplot failed: " + p.stderr.strip())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mm-prefix", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--quick", action="store_true", help="a subset, for trying things out")
    ap.add_argument("--baseline", help="LIBDIR of an earlier mm build's libmpich.so.12, "
                    "run as a fourth MPI (mm-base) in the same interleaving")
    ap.add_argument("--tests", help="only these benchmarks (comma-separated names: latency, "
                    "bw, bibw, msgrate, put, get, fop, cas, rmw, acc, gacc, allreduce, bcast)")
    ap.add_argument("--hosts", type=int, choices=(1, 2), default=1,
                    help="2: the collectives on two hosts (network namespaces, "
                    "maint/netns-hosts) joined by tcp, half the processes in each")
    a = ap.parse_args()

    out = os.path.abspath(a.out)
    shutil.rmtree(os.path.join(out, "raw"), ignore_errors=True)
    os.makedirs(os.path.join(out, "raw"), exist_ok=True)
    hosts_proc, hosts = (start_hosts() if a.hosts == 2 else (None, None))
    mpis = impls(os.path.abspath(a.mm_prefix), hosts)
    if a.baseline:
        base = os.path.abspath(a.baseline)
        mm = mpis[0]
        mpis.insert(1, ("mm-base", mm[1], mm[2], {"LD_LIBRARY_PATH": base}))
    names = [m[0] for m in mpis]
    bins = build(out, mpis)
    tests = QUICK_TESTS if a.quick else TESTS
    if a.tests:
        want = a.tests.split(",")
        unknown = set(want) - {t[0] for t in TESTS}
        if unknown:
            ap.error("unknown benchmark(s): " + ", ".join(sorted(unknown)))
        tests = [t for t in tests if t[0] in want]
    if hosts:
        tests = [t for t in tests if t[0] in COLL_TESTS and t[1] >= 4]

    runs = {}       # (test, variant, np, size) -> name -> [run medians]
    start = time.time()
    for test, np, args in tests:
        for rep in range(a.reps):
            for name, _, launcher, env_extra in mpis:
                points, secs = run_one(out, name, launcher, env_extra, bins[name], test, np,
                                       args, a.rounds, rep)
                for variant, size, med in points:
                    if hosts:
                        variant = "2 hosts" if variant == "-" else variant + ", 2 hosts"
                    runs.setdefault((test, variant, np, size), {}).setdefault(name, []).append(med)
        log("%s -n %d done (%.0f s so far)" % (test, np, time.time() - start))

    if hosts_proc:
        hosts_proc.stdin.close()
        hosts_proc.wait()
    res = {k: {n: statistics.median(v) for n, v in d.items()} for k, d in runs.items()}
    with open(os.path.join(out, "results.tsv"), "w") as f:
        f.write("test\tvariant\tnp\tsize\tmpi\tmedian\tmin_run\tmax_run\truns\n")
        for k in sorted(runs):
            for n in names:
                v = runs[k].get(n)
                if v:
                    f.write("%s\t%s\t%d\t%d\t%s\t%g\t%g\t%g\t%d\n" % (k + (n, statistics.median(v),
                                                                    min(v), max(v), len(v))))

    extra = ["mm-base"] if "mm-base" in names else []
    lines = ["| test | variant | np | size | unit | " + " | ".join(names) +
             " | mm/mpich | mm/openmpi |" + "".join(" mm/%s |" % e for e in extra),
             "|---|---|---|---|---|" + "---|" * (len(names) + len(extra)) + "---|---|"]
    unavailable = sorted({(k[0], n) for k, d in runs.items() if k[1] == "unavailable"
                          for n in d})
    for k in sorted(res, key=lambda k: ([t[0] for t in TESTS].index(k[0]), k[2], k[1], k[3])):
        test, variant, np, size = k
        if variant == "unavailable":
            continue    # said once, in the note below
        if test in ("latency", "bw", "bibw", "put", "get") and size not in TABLE_SIZES:
            continue
        r = res[k]
        nan = float("nan")
        lines.append("| %s | %s | %d | %s | %s | %s | %s | %s |" % (
            test, variant, np, size_label(size), UNITS.get(test, ""),
            " | ".join(fmt(r.get(n, nan)) for n in names),
            ratio(test, r.get("mm", nan), r.get("mpich", nan)),
            ratio(test, r.get("mm", nan), r.get("openmpi", nan))) +
            "".join(" %s |" % ratio(test, r.get("mm", nan), r.get(e, nan)) for e in extra))
    note = ("Ratios are mm/peer: below 1 is better for times (us), above 1 for rates "
            "(MB/s, msg/s). Median of %d interleaved runs per MPI, each the median of %d "
            "rounds; %s; %d s in all." % (a.reps, a.rounds, time.strftime("%Y-%m-%d %H:%M"),
                                        time.time() - start))
    if unavailable:
        note += " Not measurable (the MPI could not create the window): " + ", ".join(
            "%s on %s" % (t, n) for t, n in unavailable) + "."
    missing = sorted({(k[0], n) for k, d in res.items() for n in names
                      if n not in d and k[1] != "unavailable" and
                      not any(u == (k[0], n) for u in unavailable)})
    if missing:
        note += " No result (the run failed; see raw/): " + ", ".join(
            "%s on %s" % (t, n) for t, n in missing) + "."
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n\n" + note + "\n")
    print("\n".join(lines))
    print("\n" + note)

    # The targets, stated from the figures just measured.
    def get(test, variant, np, size, n):
        return res.get((test, variant, np, size), {}).get(n, float("nan"))

    def best_peer(test, variant, size, higher):
        v = [get(test, variant, 2, size, n) for n in names if n not in ("mm", "mm-base")]
        v = [x for x in v if x == x]
        if not v:
            return float("nan")
        return max(v) if higher else min(v)

    print("\nTargets (2 processes, one node):")
    lat, bl = get("latency", "-", 2, 8, "mm"), best_peer("latency", "-", 8, False)
    print("  8 B latency: mm %s us, best peer %s us: %s" % (
        fmt(lat), fmt(bl), "met" if lat <= bl else "NOT met"))
    for s in (1 << 20, 4 << 20):
        b, bp = get("bw", "-", 2, s, "mm"), best_peer("bw", "-", s, True)
        print("  bandwidth %s: mm %s MB/s, best peer %s MB/s, ratio %s (target >= 1.2): %s" % (
            size_label(s), fmt(b), fmt(bp), ratio("bw", b, bp),
            "met" if b == b and bp == bp and b >= 1.2 * bp else "NOT met"))
    rmw = get("rmw", "implicit+nocheck", 2, 8, "mm")
    fops = [get("fop", "lock", 2, 8, n) for n in names if n not in ("mm", "mm-base")]
    fops = [x for x in fops if x == x]
    if rmw == rmw and fops:
        print("  MPI_Rmw(INC) implicit+nocheck %s us vs lock+fop+unlock best peer %s us: "
              "%.1fx (target >= 5x)" % (fmt(rmw), fmt(min(fops)), min(fops) / rmw))
    else:
        print("  MPI_Rmw: not measured (mm has no RMA yet)")
    for test in ("acc", "gacc"):
        for variant in ("char", "double"):
            for s in (8, 1024, 1 << 20):
                m, o = get(test, variant, 2, s, "mm"), get(test, variant, 2, s, "openmpi")
                if m != m or o != o:
                    continue
                limit = 1.0 if s == 8 else 1.5
                print("  %s %s %s: mm %s us, Open MPI %s us, ratio %s (target <= %.1f): %s" % (
                    test, variant, size_label(s), fmt(m), fmt(o), ratio(test, m, o), limit,
                    "met" if m <= limit * o else "NOT met"))
    if extra:
        print("  against the baseline build (mm/mm-base, below 1 is faster now):")
        for k in sorted(res):
            if k[0] in ("fop", "cas", "rmw") and "mm-base" in res[k]:
                print("    %s %s: mm %s us, mm-base %s us, ratio %s" % (
                    k[0], k[1], fmt(res[k].get("mm", float("nan"))), fmt(res[k]["mm-base"]),
                    ratio(k[0], res[k].get("mm", float("nan")), res[k]["mm-base"])))
    plot(out, res, names)
    log("wrote %s/table.md, results.tsv, bench.png" % out)


if __name__ == "__main__":
    main()
