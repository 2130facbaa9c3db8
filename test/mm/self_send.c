/*
 * self_send: a process can message itself. MPI_Isend to self followed by
 * MPI_Recv delivers the data for a small (eager-sized) and an 8 MiB message;
 * MPI_Sendrecv and MPI_Sendrecv_replace with self exchange data; MPI_Ssend to
 * self completes when an MPI_Irecv was posted first; messages to self keep
 * their order.
 */
#include <string.h>
#include "mmtest.h"

#define MIB (1024 * 1024)

static unsigned char pat(int i, int salt)
{
    return (unsigned char) (i * 37 + (i >> 8) + salt * 11);
}

static void fill(unsigned char *buf, int n, int salt)
{
    int i;
    for (i = 0; i < n; i++)
        buf[i] = pat(i, salt);
}

static void verify(const unsigned char *buf, int n, int salt, const char *what)
{
    int i, bad = 0;
    for (i = 0; i < n; i++)
        if (buf[i] != pat(i, salt)) {
            if (bad == 0)
                CHECK(0, "%s (%d bytes): first wrong byte at %d", what, n, i);
            bad++;
        }
    CHECK(bad == 0, "%s (%d bytes): %d wrong bytes", what, n, bad);
}

static void check_status(MPI_Status *st, int me, int tag, int n, const char *what)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(st->MPI_SOURCE == me, "%s: status source %d, expected %d", what, st->MPI_SOURCE, me);
    CHECK(st->MPI_TAG == tag, "%s: status tag %d, expected %d", what, st->MPI_TAG, tag);
    CHECK(count == n, "%s: count %d, expected %d", what, count, n);
}

int main(int argc, char **argv)
{
    static const int sizes[] = { 100, 8 * MIB };
    unsigned char *sbuf, *rbuf;
    MPI_Request req;
    MPI_Status st;
    int me, i, k, flag;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    sbuf = mmt_malloc(8 * MIB);
    rbuf = mmt_malloc(8 * MIB);

    for (i = 0; i < 2; i++) {
        int n = sizes[i];

        /* Isend to self, then a blocking Recv, then complete the send */
        fill(sbuf, n, 1 + i);
        memset(rbuf, 0, n);
        MPI_Isend(sbuf, n, MPI_BYTE, me, 10 + i, MPI_COMM_WORLD, &req);
        MPI_Recv(rbuf, n, MPI_BYTE, me, 10 + i, MPI_COMM_WORLD, &st);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        check_status(&st, me, 10 + i, n, "isend+recv to self");
        verify(rbuf, n, 1 + i, "isend+recv to self");

        /* Sendrecv with self */
        fill(sbuf, n, 3 + i);
        memset(rbuf, 0, n);
        MPI_Sendrecv(sbuf, n, MPI_BYTE, me, 20 + i, rbuf, n, MPI_BYTE, me, 20 + i,
                     MPI_COMM_WORLD, &st);
        check_status(&st, me, 20 + i, n, "sendrecv with self");
        verify(rbuf, n, 3 + i, "sendrecv with self");

        /* Sendrecv_replace with self */
        fill(rbuf, n, 5 + i);
        MPI_Sendrecv_replace(rbuf, n, MPI_BYTE, me, 30 + i, me, 30 + i, MPI_COMM_WORLD, &st);
        check_status(&st, me, 30 + i, n, "sendrecv_replace with self");
        verify(rbuf, n, 5 + i, "sendrecv_replace with self");

        /* Ssend to self after a pre-posted Irecv */
        fill(sbuf, n, 7 + i);
        memset(rbuf, 0, n);
        MPI_Irecv(rbuf, n, MPI_BYTE, me, 40 + i, MPI_COMM_WORLD, &req);
        MPI_Ssend(sbuf, n, MPI_BYTE, me, 40 + i, MPI_COMM_WORLD);
        MPI_Wait(&req, &st);
        check_status(&st, me, 40 + i, n, "ssend to self, irecv first");
        verify(rbuf, n, 7 + i, "ssend to self, irecv first");

        /* Issend to self is not complete before the receive is posted */
        fill(sbuf, n, 9 + i);
        MPI_Issend(sbuf, n, MPI_BYTE, me, 50 + i, MPI_COMM_WORLD, &req);
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "issend to self (%d bytes) completed with no receive posted", n);
        memset(rbuf, 0, n);
        MPI_Recv(rbuf, n, MPI_BYTE, me, 50 + i, MPI_COMM_WORLD, &st);
        if (!flag)
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        check_status(&st, me, 50 + i, n, "issend to self");
        verify(rbuf, n, 9 + i, "issend to self");
    }

    /* several messages to self on one tag keep their order, mixed sizes */
    {
        MPI_Request reqs[6];
        MPI_Status sts[6];      /* not MPI_STATUSES_IGNORE: gcc 12 warns on it in MPICH's mpi.h */
        int lens[6] = { 10, 8 * MIB / 4, 10, 100, 8 * MIB / 4, 1 };
        unsigned char *bufs[6];

        for (k = 0; k < 6; k++) {
            bufs[k] = mmt_malloc(lens[k]);
            fill(bufs[k], lens[k], 60 + k);
            MPI_Isend(bufs[k], lens[k], MPI_BYTE, me, 60, MPI_COMM_WORLD, &reqs[k]);
        }
        for (k = 0; k < 6; k++) {
            memset(rbuf, 0, lens[k]);
            MPI_Recv(rbuf, 8 * MIB, MPI_BYTE, MPI_ANY_SOURCE, 60, MPI_COMM_WORLD, &st);
            check_status(&st, me, 60, lens[k], "ordered messages to self");
            verify(rbuf, lens[k], 60 + k, "ordered messages to self");
        }
        MPI_Waitall(6, reqs, sts);
        for (k = 0; k < 6; k++)
            free(bufs[k]);
    }

    free(sbuf);
    free(rbuf);
    return mmt_finish();
}
