/*
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) groups the processes that share memory, and
 * those are the processes the device reaches over shm: one communicator per node.
 *
 * The number of nodes the run spans is given by MMT_NODES (default 1; the testlist sets
 * it to 2 with MPIR_CVAR_NUM_CLIQUES=2). Checked:
 *   - the shared communicators partition MPI_COMM_WORLD into exactly MMT_NODES parts;
 *   - the key orders the members (key = -world rank reverses them);
 *   - a caller passing MPI_UNDEFINED gets MPI_COMM_NULL while the others still split;
 *   - memory from MPI_Win_allocate_shared on the result is reachable by loads and
 *     stores from every member (what a shared-memory communicator is for).
 */
#include "mmtest.h"
#include <string.h>

int main(int argc, char **argv)
{
    int wrank, wsize, srank, ssize, nodes, expect, leader, i;
    const char *env = getenv("MMT_NODES");
    MPI_Comm shared, part;
    MPI_Win win;
    MPI_Aint wsz;
    int disp, *mine, *other;
    int *wranks;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    expect = env ? atoi(env) : 1;

    /* Partition and key order. */
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, -wrank, MPI_INFO_NULL,
                                  &shared));
    MPI_Comm_rank(shared, &srank);
    MPI_Comm_size(shared, &ssize);
    leader = (srank == 0);
    MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(nodes == expect, "%d shared-memory communicators, expected %d (MMT_NODES)", nodes,
          expect);
    CHECK(expect != 1 || ssize == wsize, "one node but the shared communicator has %d of %d",
          ssize, wsize);
    wranks = mmt_malloc(ssize * sizeof(int));
    MPI_Allgather(&wrank, 1, MPI_INT, wranks, 1, MPI_INT, shared);
    for (i = 1; i < ssize; i++)
        CHECK(wranks[i - 1] > wranks[i], "key -rank: member %d is world %d after world %d",
              i, wranks[i], wranks[i - 1]);
    {
        /* every process counts itself once: the sizes seen by the node leaders add up */
        int lsize = leader ? ssize : 0, total;
        MPI_Allreduce(&lsize, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(total == wsize, "node communicators hold %d processes of %d", total, wsize);
    }

    /* Loads and stores through a shared window: each member writes its world rank in its
     * own slot and reads every other member's slot directly. */
    CHECK_MPI(MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, shared, &mine,
                                      &win));
    MPI_Win_lock_all(0, win);
    *mine = wrank;
    MPI_Win_sync(win);
    MPI_Barrier(shared);
    MPI_Win_sync(win);
    for (i = 0; i < ssize; i++) {
        CHECK_MPI(MPI_Win_shared_query(win, i, &wsz, &disp, &other));
        CHECK(wsz == sizeof(int) && disp == sizeof(int), "member %d: size %ld disp %d", i,
              (long) wsz, disp);
        CHECK(*other == wranks[i], "member %d's slot holds %d, expected %d", i, *other,
              wranks[i]);
    }
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);

    /* MPI_UNDEFINED: world rank 1 stays out. */
    CHECK_MPI(MPI_Comm_split_type(MPI_COMM_WORLD, wrank == 1 ? MPI_UNDEFINED :
                                  MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &part));
    if (wrank == 1) {
        CHECK(part == MPI_COMM_NULL, "MPI_UNDEFINED caller got a communicator");
    } else {
        int psize, expect_size = ssize;
        for (i = 0; i < ssize; i++)
            if (wranks[i] == 1)
                expect_size--;
        CHECK(part != MPI_COMM_NULL, "a MPI_COMM_TYPE_SHARED caller got MPI_COMM_NULL");
        if (part != MPI_COMM_NULL) {
            MPI_Comm_size(part, &psize);
            CHECK(psize == expect_size, "without world rank 1 the node has %d, expected %d",
                  psize, expect_size);
            MPI_Comm_free(&part);
        }
    }

    free(wranks);
    MPI_Comm_free(&shared);
    return mmt_finish();
}
