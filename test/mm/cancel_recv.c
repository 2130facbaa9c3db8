/*
 * cancel_recv: a receive that can never match can be cancelled. After
 * MPI_Cancel, MPI_Wait completes it and MPI_Test_cancelled reports true; a
 * cancelled receive does not take a message sent afterwards, which a new
 * receive gets instead. Covers a specific source/tag receive, an
 * MPI_ANY_SOURCE / MPI_ANY_TAG receive, and completion by MPI_Test.
 */
#include "mmtest.h"

static void cancel_one(int source, int tag, int use_test, const char *what)
{
    MPI_Request req;
    MPI_Status st;
    int buf = -1, flag = 0, cancelled = 0;

    MPI_Irecv(&buf, 1, MPI_INT, source, tag, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    if (use_test) {
        double t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < 30.0)
            MPI_Test(&req, &flag, &st);
        CHECK(flag, "%s: MPI_Test did not complete the cancelled receive in 30 s", what);
        if (!flag)
            return;
    } else {
        MPI_Wait(&req, &st);
    }
    CHECK(req == MPI_REQUEST_NULL, "%s: request not freed after completion", what);
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(cancelled, "%s: MPI_Test_cancelled says false", what);
    CHECK(buf == -1, "%s: the receive buffer of a cancelled receive changed to %d", what, buf);
}

int main(int argc, char **argv)
{
    MPI_Request req;
    MPI_Status st;
    int me, val = 1234, buf = -1, cancelled = 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);

    cancel_one(me, 42, 0, "specific source and tag, MPI_Wait");
    cancel_one(MPI_ANY_SOURCE, MPI_ANY_TAG, 0, "MPI_ANY_SOURCE/MPI_ANY_TAG, MPI_Wait");
    cancel_one(me, 43, 1, "specific source and tag, MPI_Test");

    /* a message sent now goes to a new receive, not to the cancelled ones */
    MPI_Isend(&val, 1, MPI_INT, me, 42, MPI_COMM_WORLD, &req);
    MPI_Recv(&buf, 1, MPI_INT, me, 42, MPI_COMM_WORLD, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(buf == val, "receive after the cancellations got %d, expected %d", buf, val);
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(!cancelled, "a completed receive reports cancelled");

    return mmt_finish();
}
