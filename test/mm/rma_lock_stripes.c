/*
 * rma_lock_stripes: accumulates that cannot be CPU atomics (long double) take the striped
 * lock of a shared window segment (rma/mm_rma_atomic.c) and still lose no update, whether
 * they touch one location, a few, or every stripe at once.
 *
 * Rank 0 holds NLOC long double counters (16 bytes each, 4 KiB in all: every stripe of
 * the segment's lock guards some of them) in an MPI_Win_allocate window; every rank, in
 * one lock_all epoch:
 *   - adds 1 to each counter K times with single-element MPI_Accumulate, walking the
 *     counters in a rank-specific order, so ranks contend on different stripes at once;
 *   - every BIGEVERY rounds adds 1 to all counters with one MPI_Accumulate of NLOC
 *     elements (all stripes taken together), which overlaps the small ones of others;
 *   - MPI_Get_accumulate(MPI_NO_OP) of a whole counter now and then must never read a
 *     torn value (a non-integer);
 *   - then HOT single adds spread over NHOT hot counters, where ranks running at the same
 *     time really meet on one location (without the lock this loses updates at once).
 * Same-node ranks apply their operations themselves, in the segment; with two fake nodes
 * the others go through rank 0's target handler, which takes the same stripes. At the
 * end every counter must equal nprocs * (K + K / BIGEVERY), plus nprocs * HOT / NHOT for
 * the hot ones.
 */
#include "mmtest.h"

#define NLOC 256
#define K 60
#define BIGEVERY 6
#define HOT 20000       /* single adds to the NHOT hot counters, per rank */
#define NHOT 4
#define HOTLOC(h) ((h) * 67)    /* in different stripes */

int main(int argc, char **argv)
{
    int rank, size;
    /* static: x86's long double uses 10 of its 16 bytes, and no store writes the other 6;
     * static storage starts zeroed, so the padding that travels over tcp is initialised
     * (valgrind reports an automatic one's as uninitialised bytes in sendmsg). */
    static long double one = 1.0L, ones[NLOC];
    long double *base, got;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int j = 0; j < NLOC; j++)
        ones[j] = 1.0L;

    MPI_Win_allocate(rank == 0 ? NLOC * sizeof(long double) : 0, sizeof(long double),
                     MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    if (rank == 0)
        for (int j = 0; j < NLOC; j++)
            base[j] = 0.0L;
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, win);
    for (int k = 0; k < K; k++) {
        for (int i = 0; i < NLOC; i++) {
            int j = (i * (2 * rank + 1) + rank * 37) % NLOC;    /* a permutation per rank */
            MPI_Accumulate(&one, 1, MPI_LONG_DOUBLE, 0, j, 1, MPI_LONG_DOUBLE, MPI_SUM, win);
            if (i % 64 == 0) {
                MPI_Get_accumulate(NULL, 0, MPI_LONG_DOUBLE, &got, 1, MPI_LONG_DOUBLE, 0, j, 1,
                                   MPI_LONG_DOUBLE, MPI_NO_OP, win);
                MPI_Win_flush(0, win);
                CHECK(got == (long double) (long long) got && got >= 0, "counter %d read as %Lg (torn)", j, got);
            }
        }
        if (k % BIGEVERY == BIGEVERY - 1)
            MPI_Accumulate(ones, NLOC, MPI_LONG_DOUBLE, 0, 0, NLOC, MPI_LONG_DOUBLE, MPI_SUM,
                           win);
        MPI_Win_flush(0, win);
    }
    for (int i = 0; i < HOT; i++) {
        MPI_Accumulate(&one, 1, MPI_LONG_DOUBLE, 0, HOTLOC(i % NHOT), 1, MPI_LONG_DOUBLE,
                       MPI_SUM, win);
        if (i % 256 == 255)
            MPI_Win_flush(0, win);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        long double want = (long double) size * (K + K / BIGEVERY);
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        for (int j = 0; j < NLOC; j++) {
            long double w = want;
            for (int h = 0; h < NHOT; h++)
                if (j == HOTLOC(h))
                    w += (long double) size * (HOT / NHOT);
            CHECK(base[j] == w, "counter %d is %Lg, expected %Lg", j, base[j], w);
        }
        MPI_Win_unlock(0, win);
    }
    MPI_Win_free(&win);
    return mmt_finish();
}
