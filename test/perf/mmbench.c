/*
 * mmbench: the benchmarks maint/mm bench runs against mm, Debian's MPICH and Open MPI.
 * Plain MPI: the same source builds with any MPI's mpicc. The MPI_Rmw parts build only
 * where mpi.h defines MPI_RMW_INC.
 *
 *   mmbench TEST [-min BYTES] [-max BYTES] [-rounds N]
 *
 * TEST: latency   ping-pong between ranks 0 and 1, half round trip (us)
 *       bw        rank 0 streams windows of 64 MPI_Isend to rank 1 (MB/s)
 *       bibw      both stream windows of 64 to each other at once (MB/s, both directions)
 *       msgrate   8-byte messages per second in windows of 64
 *       put, get  MPI_Put/MPI_Get of SIZE bytes + MPI_Win_flush, in lock_all (us)
 *       fop, cas  MPI_Fetch_and_op / MPI_Compare_and_swap of one long: "lock" inside
 *                 lock/unlock per operation, "flush" inside one lock_all with a flush (us)
 *       rmw       MPI_Rmw(INC) of one long in each assert mode (us)
 *       acc, gacc MPI_Accumulate / MPI_Get_accumulate (MPI_SUM) of SIZE bytes of MPI_CHAR
 *                 ("char") and of MPI_DOUBLE ("double") + MPI_Win_flush, in lock_all, at
 *                 8 B, 1 KiB, 64 KiB and 1 MiB (us)
 *       allreduce MPI_Allreduce (MPI_SUM) of SIZE bytes of MPI_DOUBLE on all ranks, each
 *                 call followed by a barrier that is not timed; the slowest rank's mean
 *                 time per call, at 8 B, 1 KiB, 64 KiB, 1 MiB and 16 MiB (us)
 *       bcast     MPI_Bcast of SIZE bytes from rank 0, each call followed by a barrier
 *                 that is not timed; the slowest rank's mean time per call, at 8 B,
 *                 1 KiB, 64 KiB, 1 MiB and 16 MiB (us). Variant "stream": calls back to
 *                 back, one barrier after them all, timed; the slowest rank's time per
 *                 call (a root that may return before the others have the data pays for
 *                 it here)
 *       reduce    MPI_Reduce (MPI_SUM) of SIZE bytes of MPI_DOUBLE to rank 0, as allreduce
 *       allgather MPI_Allgather of SIZE bytes per rank, as allreduce
 *
 * Each point is measured in `rounds` rounds (default 15) after 2 warm-up rounds; a round
 * runs enough iterations to last about 20 ms. Printed per point, from rank 0:
 *   TEST VARIANT SIZE median min max   (unit as above)
 * The median is what the comparison uses; min and max show the spread. An RMA test on an
 * MPI that cannot create the window prints "TEST unavailable 0 nan nan nan # reason".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64
#define ROUND_SECONDS 0.02

static int rank, size;
static int rounds = 15;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

/* Run op(iters) in rounds; op returns the value of one round (already per unit). All ranks
 * agree on iters (rank 0 decides from a calibration run). */
typedef double (*bench_fn) (long iters, size_t bytes);

static void measure(const char *test, const char *variant, size_t bytes, bench_fn op)
{
    double *v = malloc(sizeof(double) * rounds);
    long iters = 1;
    double t;

    /* calibrate: double until one round takes ROUND_SECONDS */
    for (;;) {
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        op(iters, bytes);
        t = MPI_Wtime() - t;
        MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (t >= ROUND_SECONDS || iters >= (1L << 24))
            break;
        iters *= 2;
    }
    for (int r = -2; r < rounds; r++) {
        double x;
        MPI_Barrier(MPI_COMM_WORLD);
        x = op(iters, bytes);
        if (r >= 0)
            v[r] = x;
    }
    if (rank == 0) {
        qsort(v, rounds, sizeof(double), cmp_double);
        printf("%s %s %zu %.3f %.3f %.3f\n", test, variant, bytes, v[rounds / 2], v[0],
               v[rounds - 1]);
        fflush(stdout);
    }
    free(v);
}

static char *sbuf, *rbuf;
/* Statuses are not used, but GCC 12 warns (wrongly) when Waitall gets MPI_STATUSES_IGNORE. */
static MPI_Status stats[2 * WINDOW];

static double op_latency(long iters, size_t bytes)
{
    double t = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        if (rank == 0) {
            MPI_Send(sbuf, (int) bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int) bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(rbuf, (int) bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(sbuf, (int) bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t) * 1e6 / (2.0 * iters);
}

static double op_bw(long iters, size_t bytes)
{
    MPI_Request req[WINDOW];
    double t = MPI_Wtime();
    for (long i = 0; i < iters; i++) {
        if (rank == 0) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Isend(sbuf, (int) bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req[w]);
            MPI_Waitall(WINDOW, req, stats);
            MPI_Recv(rbuf, 0, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            for (int w = 0; w < WINDOW; w++)
                MPI_Irecv(rbuf, (int) bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &req[w]);
            MPI_Waitall(WINDOW, req, stats);
            MPI_Send(sbuf, 0, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
        }
    }
    t = MPI_Wtime() - t;
    return (double) bytes * WINDOW * iters / t / 1e6;
}

static double op_bibw(long iters, size_t bytes)
{
    MPI_Request req[2 * WINDOW];
    int peer = rank == 0 ? 1 : 0;
    double t = MPI_Wtime();
    if (rank > 1)
        return 0;
    for (long i = 0; i < iters; i++) {
        for (int w = 0; w < WINDOW; w++)
            MPI_Irecv(rbuf, (int) bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req[w]);
        for (int w = 0; w < WINDOW; w++)
            MPI_Isend(sbuf, (int) bytes, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req[WINDOW + w]);
        MPI_Waitall(2 * WINDOW, req, stats);
    }
    t = MPI_Wtime() - t;
    return 2.0 * bytes * WINDOW * iters / t / 1e6;
}

static double op_msgrate(long iters, size_t bytes)
{
    return op_bw(iters, 8) * 1e6 / 8.0;
}

static char *bcast_buf, *reduce_out;

/* A collective timed call by call, each followed by a barrier that is not timed: the
 * slowest rank's mean time per call (us). */
static double per_call(long iters, size_t bytes, void (*call)(size_t))
{
    double sum = 0, t, worst;
    for (long i = 0; i < iters; i++) {
        t = MPI_Wtime();
        call(bytes);
        sum += MPI_Wtime() - t;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    sum = sum * 1e6 / iters;
    MPI_Allreduce(&sum, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static void call_allreduce(size_t bytes)
{
    MPI_Allreduce(bcast_buf, reduce_out, (int) (bytes / sizeof(double)), MPI_DOUBLE, MPI_SUM,
                  MPI_COMM_WORLD);
}

static void call_bcast(size_t bytes)
{
    MPI_Bcast(bcast_buf, (int) bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
}

static void call_reduce(size_t bytes)
{
    MPI_Reduce(bcast_buf, reduce_out, (int) (bytes / sizeof(double)), MPI_DOUBLE, MPI_SUM, 0,
               MPI_COMM_WORLD);
}

static void call_allgather(size_t bytes)
{
    MPI_Allgather(bcast_buf, (int) bytes, MPI_BYTE, reduce_out, (int) bytes, MPI_BYTE,
                  MPI_COMM_WORLD);
}

static double op_allreduce(long iters, size_t bytes)
{
    return per_call(iters, bytes, call_allreduce);
}

static double op_bcast(long iters, size_t bytes)
{
    return per_call(iters, bytes, call_bcast);
}

static double op_reduce(long iters, size_t bytes)
{
    return per_call(iters, bytes, call_reduce);
}

static double op_allgather(long iters, size_t bytes)
{
    return per_call(iters, bytes, call_allgather);
}

static double op_bcast_stream(long iters, size_t bytes)
{
    double t = MPI_Wtime(), worst;
    for (long i = 0; i < iters; i++)
        call_bcast(bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    t = (MPI_Wtime() - t) * 1e6 / iters;
    MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

static MPI_Win win;
static long *winbuf;
static int rma_mode;    /* 0: lock per op, 1: inside lock_all with flush */

static double op_put(long iters, size_t bytes)
{
    double t = MPI_Wtime();
    if (rank == 0) {
        MPI_Win_lock_all(0, win);
        for (long i = 0; i < iters; i++) {
            MPI_Put(sbuf, (int) bytes, MPI_BYTE, 1, 0, (int) bytes, MPI_BYTE, win);
            MPI_Win_flush(1, win);
        }
        MPI_Win_unlock_all(win);
    }
    return (MPI_Wtime() - t) * 1e6 / iters;
}

static double op_get(long iters, size_t bytes)
{
    double t = MPI_Wtime();
    if (rank == 0) {
        MPI_Win_lock_all(0, win);
        for (long i = 0; i < iters; i++) {
            MPI_Get(rbuf, (int) bytes, MPI_BYTE, 1, 0, (int) bytes, MPI_BYTE, win);
            MPI_Win_flush(1, win);
        }
        MPI_Win_unlock_all(win);
    }
    return (MPI_Wtime() - t) * 1e6 / iters;
}

static double op_atomic(long iters, size_t cas)
{
    long one = 1, old = 0, cmp = 0;
    double t = MPI_Wtime();
    if (rank != 0)
        return 0;
    if (rma_mode == 1)
        MPI_Win_lock_all(0, win);
    for (long i = 0; i < iters; i++) {
        if (rma_mode == 0)
            MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
        if (cas)
            MPI_Compare_and_swap(&one, &cmp, &old, MPI_LONG, 1, 0, win);
        else
            MPI_Fetch_and_op(&one, &old, MPI_LONG, 1, 0, MPI_SUM, win);
        if (rma_mode == 0)
            MPI_Win_unlock(1, win);
        else
            MPI_Win_flush(1, win);
    }
    if (rma_mode == 1)
        MPI_Win_unlock_all(win);
    return (MPI_Wtime() - t) * 1e6 / iters;
}

static double op_fop(long iters, size_t bytes)
{
    return op_atomic(iters, 0);
}

static double op_cas(long iters, size_t bytes)
{
    return op_atomic(iters, 1);
}

static MPI_Datatype acc_type;

static double op_acc(long iters, size_t bytes, int fetch)
{
    int sz, n;
    double t = MPI_Wtime();

    MPI_Type_size(acc_type, &sz);
    n = (int) (bytes / sz);
    if (rank == 0) {
        MPI_Win_lock_all(0, win);
        for (long i = 0; i < iters; i++) {
            if (fetch)
                MPI_Get_accumulate(sbuf, n, acc_type, rbuf, n, acc_type, 1, 0, n, acc_type,
                                   MPI_SUM, win);
            else
                MPI_Accumulate(sbuf, n, acc_type, 1, 0, n, acc_type, MPI_SUM, win);
            MPI_Win_flush(1, win);
        }
        MPI_Win_unlock_all(win);
    }
    return (MPI_Wtime() - t) * 1e6 / iters;
}

static double op_acc_only(long iters, size_t bytes)
{
    return op_acc(iters, bytes, 0);
}

static double op_gacc(long iters, size_t bytes)
{
    return op_acc(iters, bytes, 1);
}

#ifdef MPI_RMW_INC
static int rmw_assert;

static double op_rmw(long iters, size_t bytes)
{
    long old = 0;
    double t = MPI_Wtime();
    if (rank != 0)
        return 0;
    if (!(rmw_assert & MPI_MODE_PASSIVE_EPOCH_IMPLICIT))
        MPI_Win_lock_all(0, win);
    for (long i = 0; i < iters; i++)
        MPI_Rmw(NULL, 1, MPI_LONG, &old, 1, 0, rmw_assert, MPI_RMW_INC, win);
    if (!(rmw_assert & MPI_MODE_PASSIVE_EPOCH_IMPLICIT))
        MPI_Win_unlock_all(win);
    return (MPI_Wtime() - t) * 1e6 / iters;
}
#endif

static void sweep(const char *test, const char *variant, size_t min, size_t max, bench_fn op)
{
    /* Doubling from a min that is not max / 2^k would step past max, and the buffers
     * hold max bytes: the last point is max itself. */
    for (size_t b = min;; b = b ? b * 2 : 1) {
        if (b > max)
            b = max;
        measure(test, variant, b, op);
        if (b >= max)
            break;
    }
}

int main(int argc, char **argv)
{
    const char *test;
    size_t min = 0, max = 4 << 20;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2 || size < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n 2+ mmbench TEST [-min B] [-max B] [-rounds N]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    test = argv[1];
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-min"))
            min = strtoul(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "-max"))
            max = strtoul(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "-rounds"))
            rounds = atoi(argv[i + 1]);
    }
    if (rounds < 1)
        rounds = 1;
    sbuf = malloc(max + 1);
    rbuf = malloc(max + 1);
    memset(sbuf, 1, max + 1);
    memset(rbuf, 0, max + 1);

    if (!strcmp(test, "latency")) {
        sweep(test, "-", min, max, op_latency);
    } else if (!strcmp(test, "bw")) {
        sweep(test, "-", min ? min : 1, max, op_bw);
    } else if (!strcmp(test, "bibw")) {
        sweep(test, "-", min ? min : 1, max, op_bibw);
    } else if (!strcmp(test, "msgrate")) {
        measure(test, "-", 8, op_msgrate);
    } else if (!strcmp(test, "allreduce")) {
        static const size_t sizes[] = { 8, 1024, 65536, 1 << 20, 16 << 20 };
        bcast_buf = calloc(16 << 20, 1);
        reduce_out = calloc(16 << 20, 1);
        for (int i = 0; i < 5; i++)
            measure(test, "-", sizes[i], op_allreduce);
        free(bcast_buf);
        free(reduce_out);
    } else if (!strcmp(test, "bcast")) {
        static const size_t sizes[] = { 8, 1024, 65536, 1 << 20, 16 << 20 };
        bcast_buf = calloc(16 << 20, 1);
        for (int i = 0; i < 5; i++)
            measure(test, "-", sizes[i], op_bcast);
        for (int i = 0; i < 5; i++)
            measure(test, "stream", sizes[i], op_bcast_stream);
        free(bcast_buf);
    } else if (!strcmp(test, "reduce") || !strcmp(test, "allgather")) {
        static const size_t sizes[] = { 8, 1024, 65536, 1 << 20, 16 << 20 };
        int gather = !strcmp(test, "allgather"), np;
        MPI_Comm_size(MPI_COMM_WORLD, &np);
        bcast_buf = calloc(16 << 20, 1);
        reduce_out = calloc((size_t) (gather ? np : 1) * (16 << 20), 1);
        for (int i = 0; i < 5; i++)
            measure(test, "-", sizes[i], gather ? op_allgather : op_reduce);
        free(bcast_buf);
        free(reduce_out);
    } else {
        /* An MPI without RMA (or one whose windows fail here) gets a line saying so, not a
         * crash that would hide the other results of the run. */
        int rc, len;
        char why[MPI_MAX_ERROR_STRING];

        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        rc = MPI_Win_allocate(max > 64 ? max : 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &winbuf,
                              &win);
        if (rc != MPI_SUCCESS) {
            MPI_Error_string(rc, why, &len);
            for (char *c = why; *c; c++)
                if (*c == '\n')
                    *c = ' ';
            if (rank == 0)
                printf("%s unavailable 0 nan nan nan # %s\n", test, why);
            MPI_Finalize();
            return 0;
        }
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        memset(winbuf, 0, max > 64 ? max : 64);
        MPI_Barrier(MPI_COMM_WORLD);
        if (!strcmp(test, "put")) {
            sweep(test, "flush", min ? min : 1, max, op_put);
        } else if (!strcmp(test, "get")) {
            sweep(test, "flush", min ? min : 1, max, op_get);
        } else if (!strcmp(test, "acc") || !strcmp(test, "gacc")) {
            /* sbuf holds bytes of 1: as doubles a small positive number, so sums stay finite */
            static const size_t sizes[] = { 8, 1024, 65536, 1 << 20 };
            bench_fn op = !strcmp(test, "acc") ? op_acc_only : op_gacc;
            for (int k = 0; k < 2; k++) {
                acc_type = k == 0 ? MPI_CHAR : MPI_DOUBLE;
                for (int j = 0; j < 4; j++)
                    if (sizes[j] <= max)
                        measure(test, k == 0 ? "char" : "double", sizes[j], op);
            }
        } else if (!strcmp(test, "fop") || !strcmp(test, "cas")) {
            bench_fn op = !strcmp(test, "fop") ? op_fop : op_cas;
            rma_mode = 0;
            measure(test, "lock", 8, op);
            rma_mode = 1;
            measure(test, "flush", 8, op);
#ifdef MPI_RMW_INC
        } else if (!strcmp(test, "rmw")) {
            rmw_assert = 0;
            measure(test, "in-lock_all", 8, op_rmw);
            rmw_assert = MPI_MODE_PASSIVE_EPOCH_IMPLICIT;
            measure(test, "implicit", 8, op_rmw);
            rmw_assert = MPI_MODE_PASSIVE_EPOCH_IMPLICIT | MPI_MODE_NOCHECK;
            measure(test, "implicit+nocheck", 8, op_rmw);
#endif
        } else if (rank == 0) {
            fprintf(stderr, "mmbench: unknown test '%s'\n", test);
        }
        MPI_Win_free(&win);
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
