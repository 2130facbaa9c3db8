/*
 * huge_msg: one 3 GiB message each way at once between two ranks (MPI_Sendrecv_c), then one
 * 3 GiB message sent as 3 elements of a 1 GiB contiguous type with the classic count API.
 * Sizes past 2^31 and 2^32 bytes must survive every int and every 32-bit length on the way
 * (envelopes, cells, CMA descriptors and chunks, tcp's framing, the status): the data is
 * checked word by word and the counts with MPI_Get_count_c / MPI_Get_elements_x.
 *
 * Run on shm (CMA), on cells (MPIR_CVAR_MM_SHM_CMA=0) and on tcp. Needs about 13 GiB of
 * memory; a rank that cannot allocate reports it, and the test fails rather than swaps.
 */
#include <stdint.h>
#include "mmtest.h"

#define GIB ((MPI_Count) 1 << 30)
#define BYTES (3 * GIB)
#define WORDS (BYTES / 8)

static uint64_t pat(uint64_t i, int salt)
{
    return i * 0x9e3779b97f4a7c15ull ^ ((uint64_t) salt << 56);
}

static void fill(uint64_t * buf, int salt)
{
    for (MPI_Count i = 0; i < WORDS; i++)
        buf[i] = pat(i, salt);
}

static void verify(const uint64_t * buf, int salt, const char *what)
{
    MPI_Count bad = 0, first = -1;

    for (MPI_Count i = 0; i < WORDS; i++)
        if (buf[i] != pat(i, salt)) {
            if (first < 0)
                first = i;
            bad++;
        }
    CHECK(bad == 0, "%s: %lld of %lld words wrong, the first at byte %lld", what,
          (long long) bad, (long long) WORDS, (long long) first * 8);
}

int main(int argc, char **argv)
{
    int rank, size, peer;
    uint64_t *sbuf, *rbuf;
    MPI_Status st;
    MPI_Count n;
    MPI_Datatype gib;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        CHECK(0, "needs 2 processes, not %d", size);
        return mmt_finish();
    }
    peer = 1 - rank;
    sbuf = malloc(BYTES);
    rbuf = malloc(BYTES);
    CHECK(sbuf && rbuf, "cannot allocate 2 x %lld bytes", (long long) BYTES);
    if (!sbuf || !rbuf)
        MPI_Abort(MPI_COMM_WORLD, 1);

    /* Both directions at once. */
    fill(sbuf, rank);
    memset(rbuf, 0, BYTES);
    CHECK_MPI(MPI_Sendrecv_c(sbuf, BYTES, MPI_BYTE, peer, 1, rbuf, BYTES, MPI_BYTE, peer, 1,
                             MPI_COMM_WORLD, &st));
    verify(rbuf, peer, "Sendrecv_c");
    CHECK_MPI(MPI_Get_count_c(&st, MPI_BYTE, &n));
    CHECK(n == BYTES, "Sendrecv_c: count %lld, expected %lld", (long long) n, (long long) BYTES);

    /* 0 -> 1 as 3 x 1 GiB with int counts. */
    MPI_Type_contiguous_c(GIB, MPI_BYTE, &gib);
    MPI_Type_commit(&gib);
    if (rank == 0) {
        fill(sbuf, 7);
        CHECK_MPI(MPI_Send(sbuf, 3, gib, 1, 2, MPI_COMM_WORLD));
    } else {
        memset(rbuf, 0, BYTES);
        CHECK_MPI(MPI_Recv(rbuf, 3, gib, 0, 2, MPI_COMM_WORLD, &st));
        verify(rbuf, 7, "Recv of 3 x 1 GiB");
        CHECK_MPI(MPI_Get_elements_x(&st, MPI_BYTE, &n));
        CHECK(n == BYTES, "Recv of 3 x 1 GiB: %lld bytes, expected %lld", (long long) n,
              (long long) BYTES);
    }
    MPI_Type_free(&gib);
    free(sbuf);
    free(rbuf);
    return mmt_finish();
}
