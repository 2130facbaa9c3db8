/*
 * rmw_contend: MPI_Rmw under contention.
 *
 * 1. Counter: every rank applies K MPI_RMW_INC with MPI_MODE_PASSIVE_EPOCH_IMPLICIT |
 *    MPI_MODE_NOCHECK to one 64-bit counter at rank 0 (K = argv[1], default 2000). The
 *    old values all ranks fetched, gathered, must be exactly 0 .. N*K-1, each once: any
 *    lost or doubled update shows up as a duplicate or a gap. Run on an MPI_Win_allocate
 *    window, so same-node ranks use CPU atomics while tcp peers (in a two-fake-node job)
 *    go through rank 0's handler on the same location.
 * 2. Mixed with MPI_Accumulate: every rank alternates MPI_Rmw(SUM, 1, IMPLICIT) and
 *    MPI_Accumulate(SUM, 1) inside a lock_all epoch with flushes (the implicit epochs are
 *    taken outside it); the final counter must be BASE + 2*N*K2.
 * 3. A spin lock made of MPI_Rmw2(COMP_SWAP, 0 -> rank+1, IMPLICIT) and released with
 *    MPI_Rmw(SWAP, 0, IMPLICIT) protects a critical section that increments a second
 *    counter with a plain MPI_Get and MPI_Put (each in its own shared-lock epoch, so only
 *    the spin lock keeps them together). The final value must be N*K3, and every release
 *    must find the lock held by the releasing rank.
 */
#include "mmtest.h"
#include <stdint.h>
#include <string.h>

static int cmp64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *) x, b = *(const int64_t *) y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
    int rank, size, k = argc > 1 ? atoi(argv[1]) : 2000, k2, k3;
    int64_t *base, *mine, *all = NULL, one = 1, zero = 0, old, v;
    const int64_t BASE = 5000000000LL;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    k2 = k / 4;
    k3 = k / 20 + 1;
    MPI_Win_allocate(rank == 0 ? 4 * sizeof(int64_t) : 0, sizeof(int64_t), MPI_INFO_NULL,
                     MPI_COMM_WORLD, &base, &win);
    if (rank == 0)
        memset(base, 0, 4 * sizeof(int64_t));
    MPI_Barrier(MPI_COMM_WORLD);

    /* 1. the counter */
    mine = malloc(k * sizeof(int64_t));
    for (int i = 0; i < k; i++)
        CHECK_MPI(MPI_Rmw(NULL, 1, MPI_INT64_T, &mine[i], 0, 0,
                          MPI_MODE_PASSIVE_EPOCH_IMPLICIT | MPI_MODE_NOCHECK, MPI_RMW_INC,
                          win));
    for (int i = 1; i < k; i++)
        CHECK(mine[i] > mine[i - 1], "counter went from %lld to %lld", (long long) mine[i - 1],
              (long long) mine[i]);
    if (rank == 0)
        all = malloc((size_t) size * k * sizeof(int64_t));
    MPI_Gather(mine, k, MPI_INT64_T, all, k, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int bad = 0;
        qsort(all, (size_t) size * k, sizeof(int64_t), cmp64);
        for (int64_t i = 0; i < (int64_t) size * k && !bad; i++)
            if (all[i] != i) {
                bad = 1;
                CHECK(0, "fetched values are not 0..%lld: position %lld holds %lld",
                      (long long) size * k - 1, (long long) i, (long long) all[i]);
            }
        CHECK(base[0] == (int64_t) size * k, "counter %lld, expected %lld",
              (long long) base[0], (long long) size * k);
        base[1] = BASE;
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2. Rmw mixed with MPI_Accumulate on one location */
    for (int i = 0; i < k2; i++) {
        CHECK_MPI(MPI_Rmw(&one, 1, MPI_INT64_T, &old, 0, 1, MPI_MODE_PASSIVE_EPOCH_IMPLICIT,
                          MPI_RMW_SUM, win));
        CHECK(old >= BASE && old < BASE + 2 * (int64_t) size * k2, "mixed: fetched %lld",
              (long long) old);
        MPI_Win_lock_all(0, win);
        MPI_Accumulate(&one, 1, MPI_INT64_T, 0, 1, 1, MPI_INT64_T, MPI_SUM, win);
        MPI_Win_flush(0, win);
        MPI_Win_unlock_all(win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(base[1] == BASE + 2 * (int64_t) size * k2, "mixed: counter %lld, expected %lld",
              (long long) base[1], (long long) (BASE + 2 * (int64_t) size * k2));

    /* 3. a spin lock on COMP_SWAP */
    for (int i = 0; i < k3; i++) {
        int64_t me = rank + 1;
        do {
            CHECK_MPI(MPI_Rmw2(&zero, 1, MPI_INT64_T, &me, &old, 0, 2,
                               MPI_MODE_PASSIVE_EPOCH_IMPLICIT, MPI_RMW2_COMP_SWAP, win));
        } while (old != 0);
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Get(&v, 1, MPI_INT64_T, 0, 3, 1, MPI_INT64_T, win);
        MPI_Win_unlock(0, win);
        v++;
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
        MPI_Put(&v, 1, MPI_INT64_T, 0, 3, 1, MPI_INT64_T, win);
        MPI_Win_unlock(0, win);
        CHECK_MPI(MPI_Rmw(&zero, 1, MPI_INT64_T, &old, 0, 2, MPI_MODE_PASSIVE_EPOCH_IMPLICIT,
                          MPI_RMW_SWAP, win));
        CHECK(old == me, "spin lock held by %lld at release by %lld", (long long) old,
              (long long) me);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK(base[3] == (int64_t) size * k3, "spin-locked counter %lld, expected %lld",
              (long long) base[3], (long long) size * k3);

    MPI_Win_free(&win);
    free(mine);
    free(all);
    return mmt_finish();
}
