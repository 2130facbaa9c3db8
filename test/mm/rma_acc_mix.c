/*
 * rma_acc_mix: whole-array accumulates and single-element atomics on the same memory.
 *
 * The window's atomicity rule (rma/mm_rma_atomic.c) applies large accumulates with a plain
 * loop under stripe locks and single elements with CPU atomics. This test makes them meet:
 * on a region of N 64-bit integers at rank 0,
 *   - "bulk" ranks (even ranks) issue R accumulates of the whole region (1 MiB, MPI_SUM of
 *     ones), the last one as an MPI_Get_accumulate, inside a lock_all epoch with flushes;
 *   - "hammer" ranks (odd ranks) add 1 to single elements, alternating MPI_Fetch_and_op
 *     (in a lock_all epoch, flushed) and MPI_Rmw(MPI_RMW_INC) with
 *     MPI_MODE_PASSIVE_EPOCH_IMPLICIT | MPI_MODE_NOCHECK, on elements spread over the
 *     whole region, so that every stripe sees both kinds at once.
 * Checks: every value a hammer fetched from an element is greater than the one it fetched
 * from that element before (it added 1 in between, and all updates are increments); every
 * old value of the bulk rank's get_accumulate is at least what that rank itself had added
 * and at the end every element equals (bulk ranks x R) + the number of single
 * increments made on it (counted by the hammers and summed) — a lost or torn update in
 * either direction changes some element.
 * A second, "hot" phase makes the two kinds collide as often as they can: for HOT_SECONDS
 * the bulk ranks accumulate ones over the first HOT elements (4 KiB) again and again while
 * the hammers increment single elements among them with MPI_Rmw(INC, IMPLICIT|NOCHECK)
 * (on a same-node window a CPU atomic with no message), and every element must end at
 * (accumulates issued by all bulk ranks) + (its single increments). The bulk ranks pause
 * after every 8 accumulates, so the stripes change hands between the two kinds thousands
 * of times. With the writers' wait for readers removed from mm_rma_atomic.c this phase
 * reports lost updates; with only the membarrier removed, often.
 * Run on an MPI_Win_allocate window (same-node ranks update each other's memory directly)
 * and on an MPI_Win_create window (rank 0 applies everything it receives, others by
 * message); the testlist adds tcp-only and two-fake-node runs.
 */
#include "mmtest.h"
#include <stdint.h>

#define N (1 << 17)             /* 1 MiB of int64 */
#define R 8                     /* bulk accumulates per bulk rank */
#define K 3000                  /* single increments per hammer rank */
#define HOT 512                 /* elements of the hot phase */
#define HOT_SECONDS 0.5
#define GAP_SECONDS 50e-6       /* the bulk ranks' pause after every 8 hot accumulates */

/* bytes of zeros at rank 0 (none elsewhere), from MPI_Win_allocate or, with use_create,
 * MPI_Alloc_mem + MPI_Win_create (free *base with MPI_Free_mem after the window). */
static MPI_Win make_window(int use_create, int rank, MPI_Aint bytes, int64_t ** base)
{
    MPI_Win win;

    if (use_create) {
        if (rank == 0)
            MPI_Alloc_mem(bytes, MPI_INFO_NULL, base);
        MPI_Win_create(*base, bytes, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    } else {
        MPI_Win_allocate(bytes, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, base, &win);
    }
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        memset(*base, 0, bytes);
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return win;
}

static void run(int use_create, int rank, int size)
{
    int64_t *base = NULL, *ones, *old, *counts, *total = NULL, *last;
    int bulk = rank % 2 == 0, nbulk = (size + 1) / 2;
    MPI_Aint bytes = rank == 0 ? (MPI_Aint) N * sizeof(int64_t) : 0;
    MPI_Win win;

    ones = malloc(N * sizeof(int64_t));
    old = malloc(N * sizeof(int64_t));
    counts = calloc(N, sizeof(int64_t));
    last = malloc(N * sizeof(int64_t));
    for (int i = 0; i < N; i++) {
        ones[i] = 1;
        last[i] = -1;
    }
    win = make_window(use_create, rank, bytes, &base);

    if (bulk) {
        MPI_Win_lock_all(0, win);
        for (int r = 0; r < R; r++) {
            if (r == R - 1)
                CHECK_MPI(MPI_Get_accumulate(ones, N, MPI_INT64_T, old, N, MPI_INT64_T, 0, 0,
                                             N, MPI_INT64_T, MPI_SUM, win));
            else
                CHECK_MPI(MPI_Accumulate(ones, N, MPI_INT64_T, 0, 0, N, MPI_INT64_T,
                                         MPI_SUM, win));
            CHECK_MPI(MPI_Win_flush(0, win));
        }
        MPI_Win_unlock_all(win);
        for (int i = 0, bad = 0; i < N && bad < 5; i++)
            if (old[i] < R - 1) {
                CHECK(0, "get_accumulate saw element %d = %lld, below this rank's own %d adds",
                      i, (long long) old[i], R - 1);
                bad++;
            }
    } else {
        unsigned x = 12345u + 977u * (unsigned) rank;
        for (int k = 0; k < K; k++) {
            int64_t one = 1, got = -1;
            int i;

            x = x * 1103515245u + 12345u;
            i = (int) ((x >> 8) % N);
            if (k % 2 == 0) {
                MPI_Win_lock_all(0, win);
                CHECK_MPI(MPI_Fetch_and_op(&one, &got, MPI_INT64_T, 0, i, MPI_SUM, win));
                CHECK_MPI(MPI_Win_flush(0, win));
                MPI_Win_unlock_all(win);
            } else {
                CHECK_MPI(MPI_Rmw(NULL, 1, MPI_INT64_T, &got, 0, i,
                                  MPI_MODE_PASSIVE_EPOCH_IMPLICIT | MPI_MODE_NOCHECK,
                                  MPI_RMW_INC, win));
            }
            CHECK(got > last[i], "element %d: fetched %lld after %lld (an update was lost)",
                  i, (long long) got, (long long) last[i]);
            last[i] = got;
            counts[i]++;
        }
    }

    if (rank == 0)
        total = malloc(N * sizeof(int64_t));
    MPI_Reduce(counts, total, N, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int bad = 0;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        for (int i = 0; i < N && bad < 5; i++) {
            int64_t want = (int64_t) nbulk * R + total[i];
            if (base[i] != want) {
                CHECK(0, "%s: element %d = %lld, expected %lld",
                      use_create ? "Win_create" : "Win_allocate", i, (long long) base[i],
                      (long long) want);
                bad++;
            }
        }
        MPI_Win_unlock(0, win);
        free(total);
    }
    MPI_Win_free(&win);
    if (use_create && rank == 0)
        MPI_Free_mem(base);
    free(ones);
    free(old);
    free(counts);
    free(last);
}

static void run_hot(int use_create, int rank, int size)
{
    int64_t *base = NULL, ones[HOT], counts[HOT] = { 0 }, total[HOT], nacc = 0, nacc_all = 0;
    int bulk = rank % 2 == 0;
    MPI_Aint bytes = rank == 0 ? (MPI_Aint) HOT * sizeof(int64_t) : 0;
    double deadline;
    MPI_Win win;

    for (int i = 0; i < HOT; i++)
        ones[i] = 1;
    win = make_window(use_create, rank, bytes, &base);
    deadline = MPI_Wtime() + HOT_SECONDS;
    if (bulk) {
        MPI_Win_lock_all(0, win);
        while (MPI_Wtime() < deadline) {
            CHECK_MPI(MPI_Accumulate(ones, HOT, MPI_INT64_T, 0, 0, HOT, MPI_INT64_T, MPI_SUM,
                                     win));
            CHECK_MPI(MPI_Win_flush(0, win));
            /* Bursts with pauses: in a pause the hammers' atomics go lock-free again, so
             * the next burst's first accumulate takes the stripes back from them (the
             * handshake the rule's argument is about) many times a second. */
            if (++nacc % 8 == 0) {
                double until = MPI_Wtime() + GAP_SECONDS;
                while (MPI_Wtime() < until);
            }
        }
        MPI_Win_unlock_all(win);
    } else {
        for (unsigned k = 0; MPI_Wtime() < deadline; k++) {
            int i = (int) ((k * 37u + (unsigned) rank) % HOT);
            int64_t got;
            for (int j = 0; j < 64; j++) {
                CHECK_MPI(MPI_Rmw(NULL, 1, MPI_INT64_T, &got, 0, i,
                                  MPI_MODE_PASSIVE_EPOCH_IMPLICIT | MPI_MODE_NOCHECK,
                                  MPI_RMW_INC, win));
                counts[i]++;
            }
        }
    }
    MPI_Reduce(counts, total, HOT, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&nacc, &nacc_all, 1, MPI_INT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int bad = 0, first = 0;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        for (int i = 0; i < HOT; i++)
            if (base[i] != nacc_all + total[i] && bad++ == 0)
                first = i;
        CHECK(bad == 0, "%s hot phase: %d of %d elements lost updates (%lld accumulates, "
              "e.g. element %d = %lld, expected %lld)", use_create ? "Win_create" :
              "Win_allocate", bad, HOT, (long long) nacc_all, first, (long long) base[first],
              (long long) (nacc_all + total[first]));
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    if (use_create && rank == 0)
        MPI_Free_mem(base);
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(size >= 2, "needs at least 2 processes, has %d", size);
    if (size >= 2) {
        run(0, rank, size);
        run(1, rank, size);
        run_hot(0, rank, size);
        run_hot(1, rank, size);
    }
    return mmt_finish();
}
