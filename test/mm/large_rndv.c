/*
 * large_rndv: contiguous messages of every size class arrive intact, in both
 * directions, with blocking, simultaneous and synchronous sends; a receive
 * into a larger buffer reports the true count and leaves the rest of the
 * buffer alone; a receive into a too-small buffer fails with MPI_ERR_TRUNCATE
 * (under MPI_ERRORS_RETURN) and the pair keeps working afterwards.
 *
 * Sizes straddle the usual eager/rendezvous limits: 1, 1000, 64 KiB - 1,
 * 64 KiB + 1, 1 MiB and 16 MiB.
 */
#include <string.h>
#include "mmtest.h"

#define KIB 1024
#define MIB (1024 * 1024)
#define BIG (16 * MIB)

static const int sizes[] = { 1, 1000, 64 * KIB - 1, 64 * KIB + 1, MIB, BIG };
#define NSIZES ((int) (sizeof(sizes) / sizeof(sizes[0])))

static unsigned char pat(int i, int n, int salt)
{
    /* the i >> 8 term keeps a shift by a multiple of 256 from going unnoticed */
    return (unsigned char) (i * 131 + (i >> 8) + n * 7 + salt * 13);
}

static void fill(unsigned char *buf, int n, int salt)
{
    int i;
    for (i = 0; i < n; i++)
        buf[i] = pat(i, n, salt);
}

/* Number of wrong bytes among the first n; reports the first one. */
static int verify(const unsigned char *buf, int n, int salt, const char *what)
{
    int i, bad = 0;
    for (i = 0; i < n; i++) {
        if (buf[i] != pat(i, n, salt)) {
            if (bad == 0)
                CHECK(0, "%s, %d bytes: first wrong byte at %d (0x%02x, expected 0x%02x)", what, n,
                      i, buf[i], pat(i, n, salt));
            bad++;
        }
    }
    CHECK(bad == 0, "%s, %d bytes: %d wrong bytes", what, n, bad);
    return bad;
}

static void check_count(MPI_Status *st, int expect, const char *what)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(count == expect, "%s: MPI_Get_count says %d, expected %d", what, count, expect);
}

/* One direction at a time: sender fills and sends, receiver checks. */
static void one_way(unsigned char *buf, int n, int sender, int salt, int rank)
{
    MPI_Status st;
    int peer = 1 - rank;

    if (rank == sender) {
        fill(buf, n, salt);
        MPI_Send(buf, n, MPI_BYTE, peer, salt, MPI_COMM_WORLD);
    } else {
        memset(buf, 0, n);
        MPI_Recv(buf, n, MPI_BYTE, peer, salt, MPI_COMM_WORLD, &st);
        check_count(&st, n, sender == 0 ? "send 0->1" : "send 1->0");
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == salt, "send: status source %d tag %d",
              st.MPI_SOURCE, st.MPI_TAG);
        verify(buf, n, salt, sender == 0 ? "send 0->1" : "send 1->0");
    }
}

/* Both directions at once with MPI_Sendrecv. */
static void exchange(unsigned char *sbuf, unsigned char *rbuf, int n, int rank)
{
    MPI_Status st;
    int peer = 1 - rank;

    fill(sbuf, n, 40 + rank);
    memset(rbuf, 0, n);
    MPI_Sendrecv(sbuf, n, MPI_BYTE, peer, 3, rbuf, n, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &st);
    check_count(&st, n, "sendrecv exchange");
    verify(rbuf, n, 40 + peer, "sendrecv exchange");
}

/*
 * Synchronous send: rank 0 starts MPI_Issend, which must stay incomplete
 * while rank 1 has provably not posted the matching receive (rank 1 waits for
 * a go message first), then completes once rank 1 receives.
 */
static void synchronous(unsigned char *buf, int n, int rank)
{
    MPI_Request req;
    MPI_Status st;
    int go = 1, flag = 0;
    double t0;

    if (rank == 0) {
        fill(buf, n, 60);
        MPI_Issend(buf, n, MPI_BYTE, 1, 60, MPI_COMM_WORLD, &req);
        t0 = MPI_Wtime();
        while (!flag && MPI_Wtime() - t0 < 0.05)
            MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag, "MPI_Issend of %d bytes completed before the receive was posted", n);
        MPI_Send(&go, 1, MPI_INT, 1, 61, MPI_COMM_WORLD);
        if (!flag)
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        /* and a plain blocking MPI_Ssend */
        MPI_Ssend(buf, n, MPI_BYTE, 1, 62, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&go, 1, MPI_INT, 0, 61, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        memset(buf, 0, n);
        MPI_Recv(buf, n, MPI_BYTE, 0, 60, MPI_COMM_WORLD, &st);
        check_count(&st, n, "issend");
        verify(buf, n, 60, "issend");
        memset(buf, 0, n);
        MPI_Recv(buf, n, MPI_BYTE, 0, 62, MPI_COMM_WORLD, &st);
        check_count(&st, n, "ssend");
        verify(buf, n, 60, "ssend");
    }
}

/* A receive buffer larger than the message: true count, rest untouched. */
static void larger_buffer(unsigned char *buf, int n, int rank)
{
    MPI_Status st;
    int i, bad = 0, room = 2 * n + 100;

    if (rank == 0) {
        fill(buf, n, 70);
        MPI_Send(buf, n, MPI_BYTE, 1, 70, MPI_COMM_WORLD);
    } else {
        memset(buf, 0x5a, room);
        MPI_Recv(buf, room, MPI_BYTE, 0, 70, MPI_COMM_WORLD, &st);
        check_count(&st, n, "larger receive buffer");
        verify(buf, n, 70, "larger receive buffer");
        for (i = n; i < room; i++)
            if (buf[i] != 0x5a)
                bad++;
        CHECK(bad == 0, "larger receive buffer: %d bytes past the message (%d bytes) changed",
              bad, n);
    }
}

/*
 * Truncation: a message longer than the posted buffer makes MPI_Recv return
 * an error of class MPI_ERR_TRUNCATE; the next message between the same pair
 * on the same communicator still arrives intact.
 */
static void truncation(MPI_Comm comm, unsigned char *buf, int n, int room, int rank)
{
    MPI_Status st;
    int rc, cls = -1;

    if (rank == 0) {
        fill(buf, n, 80);
        rc = MPI_Send(buf, n, MPI_BYTE, 1, 80, comm);
        CHECK(rc == MPI_SUCCESS, "truncation: sender of the %d-byte message got error %d", n, rc);
        fill(buf, n, 81);
        MPI_Send(buf, n, MPI_BYTE, 1, 81, comm);
    } else {
        memset(buf, 0, n);
        rc = MPI_Recv(buf, room, MPI_BYTE, 0, 80, comm, &st);
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_TRUNCATE,
              "truncation: %d bytes into %d: rc %d class %d, expected MPI_ERR_TRUNCATE (%d)", n,
              room, rc, cls, MPI_ERR_TRUNCATE);
        memset(buf, 0, n);
        rc = MPI_Recv(buf, n, MPI_BYTE, 0, 81, comm, &st);
        CHECK(rc == MPI_SUCCESS, "truncation: the message after it failed with %d", rc);
        if (rc == MPI_SUCCESS) {
            check_count(&st, n, "message after a truncated one");
            verify(buf, n, 81, "message after a truncated one");
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size, i;
    unsigned char *a, *b;
    MPI_Comm comm;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            printf("large_rndv needs exactly 2 processes, got %d\n", size);
        MPI_Finalize();
        return 1;
    }
    a = mmt_malloc(2 * BIG + 100);
    b = mmt_malloc(2 * BIG + 100);

    for (i = 0; i < NSIZES; i++) {
        one_way(a, sizes[i], 0, 10 + i, rank);
        one_way(a, sizes[i], 1, 20 + i, rank);
        exchange(a, b, sizes[i], rank);
    }
    synchronous(a, 100, rank);
    synchronous(a, 4 * MIB, rank);
    larger_buffer(a, 1000, rank);
    larger_buffer(a, MIB, rank);

    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    truncation(comm, a, 1000, 100, rank);
    truncation(comm, a, MIB, 64 * KIB, rank);
    MPI_Comm_free(&comm);

    free(a);
    free(b);
    return mmt_finish();
}
