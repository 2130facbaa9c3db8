/*
 * rmw_errors: every bad argument of MPI_Rmw / MPI_Rmw2 gives its MPI error class
 * through the window's error handler (MPI_ERRORS_RETURN here), and the window keeps
 * working afterwards.
 */
#include "mmtest.h"
#include <string.h>

static void expect(int rc, int cls, const char *what)
{
    int got = -1;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &got);
    CHECK(got == cls, "%s: error class %d, expected %d", what, got, cls);
}

int main(int argc, char **argv)
{
    int rank, size, target;
    long *base, one = 1, res = 0;
    double d = 1.0, dres;
    const int IMPL = MPI_MODE_PASSIVE_EPOCH_IMPLICIT;
    MPI_Win win;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    target = (rank + 1) % size;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Win_allocate(4 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base,
                     &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    memset(base, 0, 4 * sizeof(long));
    MPI_Barrier(MPI_COMM_WORLD);

    expect(MPI_Rmw(&one, 1, MPI_LONG, &res, target, 0, IMPL, 99, win), MPI_ERR_OP,
           "unknown op");
    expect(MPI_Rmw(&d, 1, MPI_DOUBLE, &dres, target, 0, IMPL, MPI_RMW_BAND, win), MPI_ERR_OP,
           "MPI_RMW_BAND on double");
    expect(MPI_Rmw(&d, 1, MPI_DOUBLE, &dres, target, 0, IMPL, MPI_RMW_LXOR, win), MPI_ERR_OP,
           "MPI_RMW_LXOR on double");
    expect(MPI_Rmw2(&d, 1, MPI_DOUBLE, &d, &dres, target, 0, IMPL, MPI_RMW2_MASK_SWAP, win),
           MPI_ERR_OP, "MPI_RMW2_MASK_SWAP on double");
    expect(MPI_Rmw2(&one, 1, MPI_LONG, &one, &res, target, 0, IMPL, 42, win), MPI_ERR_OP,
           "unknown Rmw2 op");
    expect(MPI_Rmw(&one, 1, MPI_LONG, &res, target, 0, MPI_MODE_NOCHECK, MPI_RMW_SUM, win),
           MPI_ERR_ASSERT, "MPI_MODE_NOCHECK without the implicit epoch");
    expect(MPI_Rmw(&one, 1, MPI_LONG, &res, target, 0, 1, MPI_RMW_SUM, win), MPI_ERR_ASSERT,
           "assert 1");
    expect(MPI_Rmw(&one, 1, MPI_LONG, NULL, target, 0, IMPL, MPI_RMW_SUM, win),
           MPI_ERR_BUFFER, "NULL result buffer");
    expect(MPI_Rmw(NULL, 1, MPI_LONG, &res, target, 0, IMPL, MPI_RMW_SUM, win),
           MPI_ERR_BUFFER, "NULL operand for MPI_RMW_SUM");
    expect(MPI_Rmw(&one, 1, MPI_LONG, &res, size, 0, IMPL, MPI_RMW_SUM, win), MPI_ERR_RANK,
           "target rank == size");
    expect(MPI_Rmw(&one, 1, MPI_DATATYPE_NULL, &res, target, 0, IMPL, MPI_RMW_SUM, win),
           MPI_ERR_TYPE, "MPI_DATATYPE_NULL");
    expect(MPI_Rmw(&one, 1, MPI_LONG, &res, target, 4, IMPL, MPI_RMW_SUM, win),
           MPI_ERR_RMA_RANGE, "displacement past the window (IMPLICIT)");
    expect(MPI_Rmw(&one, 1, MPI_LONG, &res, target, 4, IMPL | MPI_MODE_NOCHECK, MPI_RMW_SUM,
                   win), MPI_ERR_RMA_RANGE, "displacement past the window (NOCHECK)");
    expect(MPI_Rmw(&one, 1, MPI_LONG, &res, target, -1, IMPL, MPI_RMW_SUM, win), MPI_ERR_DISP,
           "negative displacement");
    expect(MPI_Rmw(&one, 1, MPI_LONG, &res, target, 0, 0, MPI_RMW_SUM, win), MPI_ERR_RMA_SYNC,
           "assert 0 outside an epoch");
    MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
    expect(MPI_Rmw(&one, 1, MPI_LONG, &res, target, 0, IMPL, MPI_RMW_SUM, win),
           MPI_ERR_RMA_SYNC, "implicit epoch inside a lock epoch");
    MPI_Win_unlock(target, win);
    expect(MPI_Rmw(&one, 1, MPI_LONG, &res, target, 0, IMPL, MPI_RMW_SUM, MPI_WIN_NULL),
           MPI_ERR_WIN, "MPI_WIN_NULL");

    /* nothing was applied, and the window still works */
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(base[0] == 0, "a failed call changed the target: %ld", base[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_MPI(MPI_Rmw(NULL, 1, MPI_LONG, &res, target, 0, IMPL, MPI_RMW_INC, win));
    CHECK(res == 0, "first increment fetched %ld", res);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(base[0] == 1, "after one increment the counter is %ld", base[0]);
    MPI_Win_free(&win);
    return mmt_finish();
}
