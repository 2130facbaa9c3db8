/*
 * singleton: a program started without mpiexec (MPI's "singleton init") is a job of one
 * process. MPI_Init must work, and so must everything a job of one can do: messages to
 * itself, collectives, a window. MPI_Comm_spawn needs a process manager this process does
 * not have; it must fail with MPI_ERR_SPAWN instead of waiting forever (singleton.sh runs
 * this program bare, under a time limit).
 */
#include "mmtest.h"

int main(int argc, char **argv)
{
    int rank, size, x = 7, y = 0, flag;
    MPI_Win win;
    int *base;
    MPI_Comm inter = MPI_COMM_NULL;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(rank == 0 && size == 1, "a singleton is rank 0 of 1, not %d of %d", rank, size);

    MPI_Irecv(&y, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &req);
    MPI_Send(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(y == 7, "message to self: got %d, sent 7", y);

    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(y == 7, "allreduce of one process: %d, expected 7", y);

    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    *base = 1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Fetch_and_op(&x, &y, MPI_INT, 0, 0, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    CHECK(y == 1 && *base == 8, "fetch_and_op: old %d new %d, expected 1 and 8", y, *base);
    MPI_Win_free(&win);

    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF,
                            &inter, MPI_ERRCODES_IGNORE);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_SPAWN, "spawn without a process manager: class %d, expected "
          "MPI_ERR_SPAWN (%d)", cls, MPI_ERR_SPAWN);
    CHECK(inter == MPI_COMM_NULL, "a failed spawn returned a communicator");
    MPI_Initialized(&flag);
    CHECK(flag, "MPI is still initialized after the failed spawn");

    return mmt_finish();
}
