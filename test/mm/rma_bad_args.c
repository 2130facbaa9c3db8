/*
 * rma_bad_args: RMA calls with arguments that do not fit together get an MPI error of the
 * right class from the call (or from the flush that completes the operation) and change
 * nothing in the target; the window stays usable afterwards.
 *   - MPI_Accumulate of 4 ints into a target buffer of 0 ints: MPI_ERR_TRUNCATE
 *   - MPI_Get_accumulate whose result buffer (1 int) is smaller than the target (4 ints):
 *     MPI_ERR_TRUNCATE
 *   - MPI_Accumulate with a struct of an int and a double (no single element type) and
 *     MPI_REPLACE: MPI_ERR_TYPE
 *   - MPI_Win_start with a group holding a process outside the window: MPI_ERR_GROUP
 * Then a correct accumulate must still work. Run with 2+ processes on shm (direct) and
 * tcp (messages).
 */
#include "mmtest.h"

#define N 8

static int call_class(int rc, MPI_Win win, int target)
{
    int cls = MPI_SUCCESS, rc2;

    if (rc == MPI_SUCCESS) {
        rc2 = MPI_Win_flush(target, win);       /* a message-borne op fails here */
        if (rc2 != MPI_SUCCESS)
            rc = rc2;
    }
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

int main(int argc, char **argv)
{
    int rank, size, *base, buf[N], res[N], cls, rc, target;
    MPI_Win win;
    MPI_Datatype mixed;
    int blens[2] = { 1, 1 };
    MPI_Aint disps[2] = { 0, 8 };
    MPI_Datatype types[2] = { MPI_INT, MPI_DOUBLE };

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    target = (rank + 1) % size;
    CHECK_MPI(MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                               &base, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Type_create_struct(2, blens, disps, types, &mixed);
    MPI_Type_commit(&mixed);
    for (int i = 0; i < N; i++) {
        base[i] = 100 + i;
        buf[i] = 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Win_lock_all(0, win);
    rc = MPI_Accumulate(buf, 4, MPI_INT, target, 0, 0, MPI_INT, MPI_SUM, win);
    cls = call_class(rc, win, target);
    CHECK(cls == MPI_ERR_TRUNCATE, "accumulate of 4 ints into 0: class %d, expected "
          "MPI_ERR_TRUNCATE (%d)", cls, MPI_ERR_TRUNCATE);

    rc = MPI_Get_accumulate(buf, 4, MPI_INT, res, 1, MPI_INT, target, 0, 4, MPI_INT, MPI_SUM,
                            win);
    cls = call_class(rc, win, target);
    CHECK(cls == MPI_ERR_TRUNCATE, "get_accumulate with a 1-int result for 4: class %d, "
          "expected MPI_ERR_TRUNCATE (%d)", cls, MPI_ERR_TRUNCATE);

    rc = MPI_Accumulate(buf, 1, mixed, target, 0, 1, mixed, MPI_REPLACE, win);
    cls = call_class(rc, win, target);
    CHECK(cls == MPI_ERR_TYPE, "accumulate of an int+double struct: class %d, expected "
          "MPI_ERR_TYPE (%d)", cls, MPI_ERR_TYPE);

    /* still usable: one good accumulate */
    CHECK_MPI(MPI_Accumulate(buf, N, MPI_INT, target, 0, N, MPI_INT, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(target, win));
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
    for (int i = 0; i < N; i++)
        CHECK(base[i] == 101 + i, "element %d is %d after the bad calls and one good "
              "accumulate, expected %d", i, base[i], 101 + i);
    MPI_Win_unlock(rank, win);

    /* PSCW with a group member outside the window (a window of this process alone) */
    {
        MPI_Win self_win;
        MPI_Group world, pair;
        int *sbase, ranks[2] = { rank, target };

        CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF,
                                   &sbase, &self_win));
        MPI_Win_set_errhandler(self_win, MPI_ERRORS_RETURN);
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, size > 1 ? 2 : 1, ranks, &pair);
        rc = MPI_Win_start(pair, 0, self_win);
        cls = MPI_SUCCESS;
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        if (size > 1)
            CHECK(cls == MPI_ERR_GROUP, "MPI_Win_start with a process outside the window: "
                  "class %d, expected MPI_ERR_GROUP (%d)", cls, MPI_ERR_GROUP);
        else if (rc == MPI_SUCCESS)
            MPI_Win_complete(self_win);
        MPI_Group_free(&pair);
        MPI_Group_free(&world);
        MPI_Win_free(&self_win);
    }
    MPI_Type_free(&mixed);
    MPI_Win_free(&win);
    return mmt_finish();
}
