/*
 * rma_atomic_stress: atomic RMA operations on one window location stay atomic when
 * every rank hits that location at the same time with different kinds of operation.
 *
 * The location is a 64-bit counter at rank 0, displacement 0. Each rank does N
 * increments (N = argv[1], default 2000, in phase 2 N2 = argv[2], default N/20),
 * cycling through three ways of adding one:
 *   - MPI_Accumulate(MPI_SUM, +1), flushed only every ACC_FLUSH accumulates;
 *   - MPI_Fetch_and_op(MPI_SUM, +1), which returns the value it replaced;
 *   - a compare-and-swap loop: read the counter with MPI_Fetch_and_op(MPI_NO_OP), then
 *     MPI_Compare_and_swap(old -> old + 1), retrying with the returned value until the
 *     swap succeeds.
 * Every increment moves the counter from some v to v + 1 and the fetching ones report
 * that v, so if the operations are atomic with respect to each other:
 *   (a) the final counter is BASE + the number of increments done by all ranks;
 *   (b) the values returned by fetch-and-add and by successful swaps are all distinct
 *       across all ranks (a duplicate means two updates overlapped and one was lost);
 *   (c) they lie in [BASE, final), and each rank sees the counter only grow: every
 *       value returned to it is at least what its previous completed operation left.
 * BASE is above 2^32, so an implementation that loses the upper half of the value
 * fails too. A guard word after the counter must stay untouched.
 *
 * Phase 1 uses an MPI_Win_allocate window in one MPI_Win_lock_all epoch, flushing
 * after each fetching operation, with MPI_INT64_T. Phase 2 uses MPI_Win_create over
 * MPI_Alloc_mem memory with an exclusive MPI_Win_lock/MPI_Win_unlock around each
 * single operation, with MPI_LONG_LONG (so also the NO_OP read and the swap of one
 * compare-and-swap attempt are separate epochs and the swap can still fail).
 *
 * Note that concurrent MPI_SUM, MPI_NO_OP and compare-and-swap on one location go
 * beyond what the default accumulate_ops=same_op_no_op info lets a program assume;
 * the mm device (like MPICH and Open MPI) makes all of them atomic together, and that
 * is what is checked here.
 */
#include "mmtest.h"
#include <stdint.h>
#include <string.h>

#define BASE (5LL << 32)
#define GUARD 0x5a5aa5a5c3c33c3cLL
#define ACC_FLUSH 8
#define MAX_CAS_TRIES 1000000

enum { OP_ACC, OP_FOP, OP_CAS, NUM_OPS };

static int rank, size;

struct phase {
    const char *name;
    MPI_Win win;
    MPI_Datatype type;          /* 64-bit integer type used for all operations */
    int lock_each;              /* exclusive lock per operation, else lock_all + flush */
    long long *vals;            /* values returned by fetch-and-add and successful swaps */
    int nvals;
    long long floor;            /* the counter is at least this (this rank's view) */
    int counts[NUM_OPS];        /* increments done, per kind */
    int cas_retries;
};

static void op_begin(struct phase *ph)
{
    if (ph->lock_each)
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, ph->win);
}

/* End one operation; complete it now if complete is set or in lock_each mode. */
static void op_end(struct phase *ph, int complete)
{
    if (ph->lock_each)
        MPI_Win_unlock(0, ph->win);
    else if (complete)
        MPI_Win_flush(0, ph->win);
}

/* A value v the counter held when an operation of this rank reached it. */
static void saw(struct phase *ph, long long v, const char *what)
{
    CHECK(v >= ph->floor, "%s: %s returned %lld, but the counter was already %lld", ph->name,
          what, v, ph->floor);
    if (v > ph->floor)
        ph->floor = v;
}

/* Record the value an increment replaced. */
static void incremented_from(struct phase *ph, long long v, const char *what)
{
    saw(ph, v, what);
    ph->floor = v + 1;
    ph->vals[ph->nvals++] = v;
}

static void do_cas(struct phase *ph)
{
    long long old, newv, res;
    int tries;

    op_begin(ph);
    MPI_Fetch_and_op(NULL, &old, ph->type, 0, 0, MPI_NO_OP, ph->win);
    op_end(ph, 1);
    saw(ph, old, "fetch_and_op(NO_OP)");
    for (tries = 0; tries < MAX_CAS_TRIES; tries++) {
        newv = old + 1;
        res = -1;
        op_begin(ph);
        MPI_Compare_and_swap(&newv, &old, &res, ph->type, 0, 0, ph->win);
        op_end(ph, 1);
        if (res == old) {
            incremented_from(ph, old, "compare_and_swap");
            ph->counts[OP_CAS]++;
            return;
        }
        /* The counter only grows: a failed swap must have seen a larger value. */
        CHECK(res > old, "%s: compare_and_swap(%lld -> %lld) failed returning %lld, "
              "which is not larger", ph->name, old, newv, res);
        saw(ph, res, "failed compare_and_swap");
        ph->cas_retries++;
        old = res;
    }
    CHECK(0, "%s: compare_and_swap did not succeed in %d tries (last value %lld)", ph->name,
          MAX_CAS_TRIES, old);
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *) a, y = *(const long long *) b;
    return (x > y) - (x < y);
}

/* Run n increments on ph->win (counter at rank 0, displacement 0, already BASE) and
 * check the outcome. Collective. */
static void run_phase(struct phase *ph, int n)
{
    long long one = 1, res, final = -1, guard = 0, mine[NUM_OPS + 1], all[NUM_OPS + 1];
    long long total;
    int i, k, accs = 0, *nv = NULL, *displs = NULL, ntotal = 0;
    long long *allvals = NULL;
    double t0 = MPI_Wtime();

    ph->vals = mmt_malloc(n * sizeof(long long));
    ph->nvals = 0;
    ph->floor = BASE;
    ph->cas_retries = 0;
    memset(ph->counts, 0, sizeof(ph->counts));

    MPI_Barrier(MPI_COMM_WORLD);
    if (!ph->lock_each)
        MPI_Win_lock_all(0, ph->win);
    for (i = 0; i < n; i++) {
        switch ((i + rank) % NUM_OPS) {
            case OP_ACC:
                op_begin(ph);
                MPI_Accumulate(&one, 1, ph->type, 0, 0, 1, ph->type, MPI_SUM, ph->win);
                op_end(ph, ++accs % ACC_FLUSH == 0);
                ph->counts[OP_ACC]++;
                break;
            case OP_FOP:
                res = -1;
                op_begin(ph);
                MPI_Fetch_and_op(&one, &res, ph->type, 0, 0, MPI_SUM, ph->win);
                op_end(ph, 1);
                incremented_from(ph, res, "fetch_and_op(SUM)");
                ph->counts[OP_FOP]++;
                break;
            case OP_CAS:
                do_cas(ph);
                break;
        }
    }
    if (!ph->lock_each)
        MPI_Win_unlock_all(ph->win);

    /* (a) All increments are done: everyone reads the counter and the guard. */
    for (k = 0; k < NUM_OPS; k++)
        mine[k] = ph->counts[k];
    mine[NUM_OPS] = ph->cas_retries;
    MPI_Allreduce(mine, all, NUM_OPS + 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    total = all[OP_ACC] + all[OP_FOP] + all[OP_CAS];
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, ph->win);
    MPI_Fetch_and_op(NULL, &final, ph->type, 0, 0, MPI_NO_OP, ph->win);
    MPI_Get(&guard, 1, ph->type, 0, 1, 1, ph->type, ph->win);
    MPI_Win_unlock(0, ph->win);
    CHECK(final == BASE + total, "%s: final counter %lld, expected %lld + %lld increments "
          "(%lld accumulate, %lld fetch_and_op, %lld compare_and_swap): %lld lost", ph->name,
          final, BASE, total, all[OP_ACC], all[OP_FOP], all[OP_CAS], BASE + total - final);
    CHECK(guard == GUARD, "%s: guard word after the counter is %#llx, expected %#llx",
          ph->name, (unsigned long long) guard, (unsigned long long) GUARD);
    CHECK(total == (long long) n * size, "%s: %lld increments done, expected %lld", ph->name,
          total, (long long) n * size);

    /* (c) on this rank. */
    for (i = 0; i < ph->nvals; i++)
        CHECK(ph->vals[i] >= BASE && ph->vals[i] < final,
              "%s: fetched value %lld outside [%lld, %lld)", ph->name, ph->vals[i], BASE,
              final);

    /* (b) across all ranks. */
    if (rank == 0) {
        nv = mmt_malloc(size * sizeof(int));
        displs = mmt_malloc(size * sizeof(int));
    }
    MPI_Gather(&ph->nvals, 1, MPI_INT, nv, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (i = 0; i < size; i++) {
            displs[i] = ntotal;
            ntotal += nv[i];
        }
        allvals = mmt_malloc(ntotal * sizeof(long long));
    }
    MPI_Gatherv(ph->vals, ph->nvals, MPI_LONG_LONG, allvals, nv, displs, MPI_LONG_LONG, 0,
                MPI_COMM_WORLD);
    if (rank == 0) {
        int dups = 0;

        qsort(allvals, ntotal, sizeof(long long), cmp_ll);
        for (i = 1; i < ntotal; i++) {
            if (allvals[i] == allvals[i - 1]) {
                dups++;
                CHECK(0, "%s: value %lld was returned by two increments (overlapped update)",
                      ph->name, allvals[i]);
            }
        }
        CHECK(ntotal <= total, "%s: %d fetched values for only %lld increments", ph->name,
              ntotal, total);
        if (getenv("MMT_VERBOSE"))
            printf("%s: %lld increments (%lld acc, %lld fop, %lld cas, %lld cas retries), "
                   "%d fetched values, %d duplicates, %.2f s\n", ph->name, total,
                   all[OP_ACC], all[OP_FOP], all[OP_CAS], all[NUM_OPS], ntotal, dups,
                   MPI_Wtime() - t0);
        free(allvals);
        free(displs);
        free(nv);
    }
    free(ph->vals);
    ph->vals = NULL;
}

/* Set rank 0's counter to BASE and its guard word to GUARD, then synchronize. */
static void init_counter(MPI_Win win, long long *base)
{
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        base[0] = BASE;
        base[1] = GUARD;
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int n = 2000, n2, tsize;
    long long *base;
    struct phase ph;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        n = atoi(argv[1]);
    CHECK(n > 0, "bad iteration count %d", n);
    if (n <= 0)
        n = 1;
    n2 = argc > 2 ? atoi(argv[2]) : (n + 19) / 20;
    CHECK(n2 > 0, "bad phase 2 iteration count %d", n2);
    if (n2 <= 0)
        n2 = 1;

    /* The values are held in long long for both phases. */
    MPI_Type_size(MPI_INT64_T, &tsize);
    CHECK(tsize == (int) sizeof(long long) && sizeof(int64_t) == sizeof(long long),
          "MPI_INT64_T has %d bytes, long long %d", tsize, (int) sizeof(long long));

    /* Phase 1: MPI_Win_allocate, lock_all, flushes, MPI_INT64_T. Only rank 0's memory
     * is targeted; the others expose none. */
    memset(&ph, 0, sizeof(ph));
    ph.name = "allocate/lock_all";
    ph.type = MPI_INT64_T;
    ph.lock_each = 0;
    MPI_Win_allocate(rank == 0 ? 2 * sizeof(long long) : 0, sizeof(long long),
                     MPI_INFO_NULL, MPI_COMM_WORLD, &base, &ph.win);
    init_counter(ph.win, base);
    run_phase(&ph, n);
    MPI_Win_free(&ph.win);

    /* Phase 2: MPI_Win_create over MPI_Alloc_mem memory, exclusive lock per operation,
     * MPI_LONG_LONG. Every operation is a lock and unlock round trip that the target
     * must serve while it is busy with its own, so this phase does fewer. */
    memset(&ph, 0, sizeof(ph));
    ph.name = "create/lock_each";
    ph.type = MPI_LONG_LONG;
    ph.lock_each = 1;
    MPI_Alloc_mem(2 * sizeof(long long), MPI_INFO_NULL, &base);
    base[0] = base[1] = -1;
    MPI_Win_create(base, rank == 0 ? 2 * sizeof(long long) : 0, sizeof(long long),
                   MPI_INFO_NULL, MPI_COMM_WORLD, &ph.win);
    init_counter(ph.win, base);
    run_phase(&ph, n2);
    MPI_Win_free(&ph.win);
    MPI_Free_mem(base);

    return mmt_finish();
}
