/*
 * rma_lock_fair: MPI_Win_lock(MPI_LOCK_EXCLUSIVE) gives mutual exclusion, and every
 * lock request is eventually granted while all ranks compete for the same target.
 *
 * An int counter lives at rank 0, displacement 0. Every rank, rank 0 included (it
 * locks its own window), does M rounds (M = argv[1], default 200) of
 *     lock exclusive 0; get counter; flush; put counter + 1; flush; get again; unlock
 * This read-modify-write is only correct under mutual exclusion: if two epochs
 * overlap, both read the same value and one increment is lost. Checks:
 *   - the value read back before unlock is the one this rank wrote (nobody wrote in
 *     the middle of an exclusive epoch);
 *   - the final counter equals the number of exclusive epochs of all ranks;
 *   - the values read at the start of the exclusive epochs, gathered from all ranks,
 *     are exactly 0 .. total-1, each once (each epoch saw all earlier ones complete);
 *   - each rank saw the counter only grow: an epoch reads at least what this rank's
 *     previous epoch wrote;
 *   - every rank got its M exclusive locks (a request that is never granted hangs the
 *     program, and the harness's timeout reports it).
 * Odd ranks also take a shared lock on odd rounds and only read the counter, so shared
 * and exclusive requests queue up together; such a read must lie between what this
 * rank last wrote and the largest possible total.
 */
#include "mmtest.h"

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *) a, y = *(const int *) b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int rank, size, m = 200, r, i;
    int *base, *seen, got_excl = 0, got_shared = 0, written = 0, final = -1;
    int sums[2], totals[2], *all_got = NULL, *all_seen = NULL;
    MPI_Win win;
    double t0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        m = atoi(argv[1]);
    CHECK(m > 0, "bad round count %d", m);
    if (m <= 0)
        m = 1;
    seen = mmt_malloc(m * sizeof(int));

    MPI_Win_allocate(rank == 0 ? sizeof(int) : 0, sizeof(int), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base, &win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        base[0] = 0;
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();

    for (r = 0; r < m; r++) {
        int v = -1, nv, check = -1;

        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        got_excl++;
        MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        seen[r] = v;
        CHECK(v >= written && v < size * m,
              "round %d: exclusive epoch read %d, expected [%d, %d)", r, v, written, size * m);
        nv = v + 1;
        MPI_Put(&nv, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_flush(0, win);
        MPI_Get(&check, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
        MPI_Win_unlock(0, win);
        CHECK(check == nv, "round %d: wrote %d under the exclusive lock, read back %d", r, nv,
              check);
        written = nv;

        if (rank % 2 == 1 && r % 2 == 1) {
            v = -1;
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
            got_shared++;
            MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
            MPI_Win_unlock(0, win);
            CHECK(v >= written && v <= size * m,
                  "round %d: shared epoch read %d, expected [%d, %d]", r, v, written, size * m);
        }
    }

    /* Everyone is done: read the final value. */
    sums[0] = got_excl;
    sums[1] = got_shared;
    MPI_Allreduce(sums, totals, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Get(&final, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
    CHECK(final == totals[0], "final counter %d, expected %d exclusive increments (%d lost)",
          final, totals[0], totals[0] - final);
    CHECK(got_excl == m, "got %d exclusive locks, expected %d", got_excl, m);

    if (rank == 0) {
        all_got = mmt_malloc(size * sizeof(int));
        all_seen = mmt_malloc((size_t) size * m * sizeof(int));
    }
    MPI_Gather(&got_excl, 1, MPI_INT, all_got, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gather(seen, m, MPI_INT, all_seen, m, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int n = size * m, missing = 0;

        for (i = 0; i < size; i++)
            CHECK(all_got[i] == m, "rank %d got %d exclusive locks, expected %d", i,
                  all_got[i], m);
        qsort(all_seen, n, sizeof(int), cmp_int);
        for (i = 0; i < n; i++) {
            if (all_seen[i] != i) {
                missing++;
                CHECK(0, "sorted exclusive reads: position %d holds %d (a value read twice "
                      "means overlapping exclusive epochs)", i, all_seen[i]);
                if (missing >= 5)
                    break;
            }
        }
        if (getenv("MMT_VERBOSE"))
            printf("%d exclusive and %d shared epochs in %.2f s\n", totals[0], totals[1],
                   MPI_Wtime() - t0);
        free(all_seen);
        free(all_got);
    }

    MPI_Win_free(&win);
    free(seen);
    return mmt_finish();
}
