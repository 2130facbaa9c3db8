/*
 * rmw_nic_sleep: MPI_Rmw with MPI_MODE_PASSIVE_EPOCH_IMPLICIT | MPI_MODE_NOCHECK on an
 * 8-byte counter of a window whose words the network device updates (ib: HCA atomics)
 * completes while the target is asleep in a non-MPI call: no part of it needs the
 * target's CPU.
 *
 * Rank 0 is the target: it exposes one int64 counter in an MPI_Win_create window (memory
 * the origins do not map), enters a barrier, and sleeps (nanosleep, not MPI) for
 * RMW_SLEEP seconds (default 20). Every other rank does RMW_COUNT (default 10000)
 * MPI_RMW_INC on the counter, records when it finished, and then waits in a barrier for
 * the target. Checks:
 *   - every origin finished before the target woke up (clock_gettime(CLOCK_REALTIME);
 *     the processes share the machine's clock);
 *   - each origin's old values strictly increase, and the counter ends at
 *     (size - 1) * RMW_COUNT;
 *   - the origins' old values are all different (no increment was lost or doubled).
 * Then each origin, in a MPI_Win_lock_all(MPI_MODE_NOCHECK) epoch (no message), puts a
 * value of its own into its slot of the target's window (the words after the counter),
 * flushes, gets it back and flushes again, still before the target wakes: contiguous
 * puts and gets on such a window are RDMA writes and reads, which need no target CPU
 * either. The target checks the slots when it wakes.
 * RMW_ALLOC=1 makes the window with MPI_Win_allocate instead: then the origins on the
 * target's node (shm) map its memory and apply the increments through their own device's
 * loopback, which also needs no target CPU. (With MPI_Win_create a node-mate has no ib
 * connection to the target and its increments wait for the target: mm_rma_nic.c.)
 * Over a method without device atomics the increments wait for the target's progress,
 * i.e. for it to wake, and the first check fails: this test is for ib (test/mm/testlist.ib).
 */
#include "mmtest.h"
#include <stdint.h>
#include <time.h>

#ifndef MPI_RMW_INC
#error "mpi.h lacks MPI_Rmw: this test needs the mm device"
#endif

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);

    return v && atoi(v) > 0 ? atoi(v) : dflt;
}

int main(int argc, char **argv)
{
    int rank, size, count = env_int("RMW_COUNT", 10000), nap = env_int("RMW_SLEEP", 20);
    int alloc = env_int("RMW_ALLOC", 0);
    int64_t *counter = NULL, *olds = NULL, *all = NULL;
    double times[2] = { 0, 0 }, *alltimes = NULL;      /* {finished, woke} */
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        printf("rmw_nic_sleep needs at least 2 processes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    /* word 0: the counter; word r: origin r's slot */
    MPI_Aint wsize = rank == 0 ? (MPI_Aint) sizeof(int64_t) * size : 0;
    if (alloc) {
        MPI_Win_allocate(wsize, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win);
    } else {
        counter = rank == 0 ? malloc((size_t) wsize) : NULL;
        MPI_Win_create(counter, wsize, sizeof(int64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    }
    if (rank == 0)
        memset(counter, 0, (size_t) wsize);
    olds = malloc(sizeof(int64_t) * (size_t) count);
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        struct timespec ts = {.tv_sec = nap,.tv_nsec = 0 };
        while (nanosleep(&ts, &ts) != 0);
        times[1] = now();
    } else {
        double t0 = now();
        for (int i = 0; i < count; i++) {
            int rc = MPI_Rmw(NULL, 1, MPI_INT64_T, &olds[i], 0, 0,
                             MPI_MODE_PASSIVE_EPOCH_IMPLICIT | MPI_MODE_NOCHECK, MPI_RMW_INC,
                             win);
            CHECK(rc == MPI_SUCCESS, "MPI_Rmw %d returned %d", i, rc);
            CHECK(i == 0 || olds[i] > olds[i - 1], "old values not increasing at %d: %lld, %lld",
                  i, (long long) olds[i - 1], (long long) olds[i]);
        }
        {
            int64_t mine = 1000 * rank + 7, back = -1;
            MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
            MPI_Put(&mine, 1, MPI_INT64_T, 0, rank, 1, MPI_INT64_T, win);
            MPI_Win_flush(0, win);
            MPI_Get(&back, 1, MPI_INT64_T, 0, rank, 1, MPI_INT64_T, win);
            MPI_Win_flush(0, win);
            times[0] = now();
            CHECK(back == mine, "rank %d: got back %lld from its slot, put %lld", rank,
                  (long long) back, (long long) mine);
            MPI_Win_unlock_all(win);
        }
        printf("rank %d: %d increments, a put and a get in %.3f s while the target slept\n",
               rank, count, times[0] - t0);
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    if (rank == 0) {
        alltimes = malloc(sizeof(double) * 2 * size);
        all = malloc(sizeof(int64_t) * (size_t) count * size);
    }
    MPI_Gather(times, 2, MPI_DOUBLE, alltimes, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gather(olds, count, MPI_INT64_T, all, count, MPI_INT64_T, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int64_t total = (int64_t) (size - 1) * count;
        char *seen = calloc((size_t) total, 1);

        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        CHECK(*counter == total, "counter is %lld, expected %lld", (long long) *counter,
              (long long) total);
        for (int r = 1; r < size; r++)
            CHECK(counter[r] == 1000 * r + 7, "slot %d holds %lld, expected %lld", r,
                  (long long) counter[r], (long long) (1000 * r + 7));
        MPI_Win_unlock(0, win);
        for (int r = 1; r < size; r++) {
            CHECK(alltimes[2 * r] < times[1], "rank %d finished %.3f s after the target woke: "
                  "its increments needed the target's CPU", r, alltimes[2 * r] - times[1]);
            for (int i = 0; i < count; i++) {
                int64_t v = all[(size_t) r * count + i];
                CHECK(v >= 0 && v < total && !seen[v], "rank %d got old value %lld twice or "
                      "out of range", r, (long long) v);
                if (v >= 0 && v < total)
                    seen[v] = 1;
            }
        }
        free(seen);
    }
    MPI_Win_free(&win);
    if (!alloc)
        free(counter);
    free(olds);
    free(all);
    free(alltimes);
    return mmt_finish();
}
