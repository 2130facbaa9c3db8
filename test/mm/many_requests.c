/*
 * many_requests: ten thousand small nonblocking sends and receives can be
 * outstanding at once between two processes, and MPI_Waitall completes them
 * all with the right data.
 *
 * Both ranks post NREQ MPI_Irecv (one per tag) and NREQ 8-byte MPI_Isend to
 * the peer, then wait for all 2 * NREQ requests. Rank 0 posts its receives
 * first, in reverse tag order; rank 1 posts its sends first, so on rank 1 most
 * messages arrive before their receive is posted. A second round uses one tag
 * for everything, which checks that same-tag messages match in order.
 */
#include <stdint.h>
#include "mmtest.h"

#define NREQ 10000

static int64_t value(int from, int i, int round)
{
    return (int64_t) from * 1000000007 + (int64_t) i * 31 + round;
}

static void round_trip(int rank, int round, int64_t *sbuf, int64_t *rbuf, MPI_Request *reqs)
{
    int peer = 1 - rank, i, bad = 0, idx;
    MPI_Status *sts = mmt_malloc(2 * NREQ * sizeof(MPI_Status));

    for (i = 0; i < NREQ; i++) {
        sbuf[i] = value(rank, i, round);
        rbuf[i] = -1;
    }
    if (rank == 0) {
        for (idx = 0; idx < NREQ; idx++) {
            i = round == 0 ? NREQ - 1 - idx : idx;
            MPI_Irecv(&rbuf[i], 1, MPI_INT64_T, peer, round == 0 ? i : 0, MPI_COMM_WORLD,
                      &reqs[NREQ + i]);
        }
        for (i = 0; i < NREQ; i++)
            MPI_Isend(&sbuf[i], 1, MPI_INT64_T, peer, round == 0 ? i : 0, MPI_COMM_WORLD,
                      &reqs[i]);
    } else {
        for (i = 0; i < NREQ; i++)
            MPI_Isend(&sbuf[i], 1, MPI_INT64_T, peer, round == 0 ? i : 0, MPI_COMM_WORLD,
                      &reqs[i]);
        for (i = 0; i < NREQ; i++)
            MPI_Irecv(&rbuf[i], 1, MPI_INT64_T, peer, round == 0 ? i : 0, MPI_COMM_WORLD,
                      &reqs[NREQ + i]);
    }
    MPI_Waitall(2 * NREQ, reqs, sts);
    for (i = 0; i < NREQ; i++) {
        if (rbuf[i] != value(peer, i, round)) {
            if (bad == 0)
                CHECK(0, "round %d: receive %d holds %lld, expected %lld", round, i,
                      (long long) rbuf[i], (long long) value(peer, i, round));
            bad++;
        }
        if (sts[NREQ + i].MPI_SOURCE != peer || sts[NREQ + i].MPI_TAG != (round == 0 ? i : 0)) {
            if (bad == 0)
                CHECK(0, "round %d: receive %d status source %d tag %d", round, i,
                      sts[NREQ + i].MPI_SOURCE, sts[NREQ + i].MPI_TAG);
            bad++;
        }
    }
    CHECK(bad == 0, "round %d: %d of %d receives wrong", round, bad, NREQ);
    bad = 0;
    for (i = 0; i < 2 * NREQ; i++)
        if (reqs[i] != MPI_REQUEST_NULL)
            bad++;
    CHECK(bad == 0, "round %d: MPI_Waitall left requests that are not MPI_REQUEST_NULL", round);
    free(sts);
}

int main(int argc, char **argv)
{
    int rank, size, round;
    int64_t *sbuf, *rbuf;
    MPI_Request *reqs;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs exactly 2 processes, got %d", size);
    if (size == 2) {
        sbuf = mmt_malloc(NREQ * sizeof(int64_t));
        rbuf = mmt_malloc(NREQ * sizeof(int64_t));
        reqs = mmt_malloc(2 * NREQ * sizeof(MPI_Request));
        for (round = 0; round < 2; round++)
            round_trip(rank, round, sbuf, rbuf, reqs);
        free(sbuf);
        free(rbuf);
        free(reqs);
    }
    return mmt_finish();
}
