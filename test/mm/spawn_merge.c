/*
 * MPI_Comm_spawn end to end: the parents (any number) spawn NCHILD copies of this program,
 * which find them as MPI_COMM_PARENT. Checked on both sides:
 *   - sizes of the intercommunicator, error codes, the parent communicator's name;
 *   - every parent exchanges 8 B and 16 MiB messages with every child, both ways (so every
 *     pair of processes of the two jobs connects, not only the roots), with contents that
 *     depend on both ranks;
 *   - MPI_Intercomm_merge puts the parents first (high = 0 / 1), and an allreduce over the
 *     merged communicator sums the ranks of both jobs;
 *   - MPI_Comm_disconnect, after which both jobs finish on their own.
 */
#include "mmtest.h"
#include <string.h>

#define NCHILD 2
#define BIG (16 << 20)

int main(int argc, char **argv)
{
    MPI_Comm parent, inter, merged;
    int wrank, wsize, rsize, mrank, msize, sum, expect;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_get_parent(&parent);

    if (parent == MPI_COMM_NULL) {
        int errcodes[NCHILD];
        for (int i = 0; i < NCHILD; i++)
            errcodes[i] = -1;
        CHECK_MPI(MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, NCHILD, MPI_INFO_NULL, 0,
                                 MPI_COMM_WORLD, &inter, errcodes));
        for (int i = 0; i < NCHILD; i++)
            CHECK(errcodes[i] == MPI_SUCCESS, "errcodes[%d] = %d", i, errcodes[i]);
        MPI_Comm_remote_size(inter, &rsize);
        CHECK(rsize == NCHILD, "%d children, expected %d", rsize, NCHILD);
        mmt_exchange_all(inter, wrank, 1000, BIG);
        CHECK_MPI(MPI_Intercomm_merge(inter, 0, &merged));
    } else {
        char name[MPI_MAX_OBJECT_NAME];
        int len;
        inter = parent;
        MPI_Comm_get_name(parent, name, &len);
        CHECK(strcmp(name, "MPI_COMM_PARENT") == 0, "parent communicator is named '%s'", name);
        CHECK(wsize == NCHILD, "the children's world has %d processes", wsize);
        MPI_Comm_remote_size(inter, &rsize);
        mmt_exchange_all(inter, 1000 + wrank, 0, BIG);
        CHECK_MPI(MPI_Intercomm_merge(inter, 1, &merged));
    }

    /* parents first, then the children, each in world-rank order */
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK(msize == wsize + rsize, "merged size %d, expected %d", msize, wsize + rsize);
    expect = parent == MPI_COMM_NULL ? wrank : rsize + wrank;
    CHECK(mrank == expect, "merged rank %d, expected %d", mrank, expect);
    MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == msize * (msize - 1) / 2, "allreduce over the merged job gave %d", sum);
    MPI_Comm_free(&merged);
    CHECK_MPI(MPI_Comm_disconnect(&inter));
    CHECK(inter == MPI_COMM_NULL, "the disconnected communicator is not MPI_COMM_NULL");

    /* Each job reports on its own: the children's result is their exit status, which
     * mpiexec folds into the parents'. */
    if (parent != MPI_COMM_NULL) {
        int total = 0;
        MPI_Reduce(&mmt_errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Finalize();
        return total != 0 || mmt_errors != 0;
    }
    return mmt_finish();
}
