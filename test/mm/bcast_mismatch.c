/*
 * bcast_mismatch: an erroneous MPI_Bcast whose root sends more or fewer bytes than the
 * others receive, through the node segment (coll/mm_bcast.c), must not hang or crash:
 * the receivers get an error (MPI_ERR_TRUNCATE when the root sent more, another class
 * when it sent less) with what fit in their buffer, and the communicator's next,
 * correct broadcasts still deliver the right bytes (the ring stays in step).
 * Errors are returned (MPI_ERRORS_RETURN on the communicator). One node only: across
 * nodes the pipeline (xfer blocks) takes MPI_Bcast, and a mismatched stream there still
 * leaves chunks that the next broadcast matches.
 */
#include "mmtest.h"

static void fill(unsigned char *b, long n, int seed)
{
    for (long i = 0; i < n; i++)
        b[i] = (unsigned char) (i * 13 + seed);
}

static long wrong(const unsigned char *b, long n, int seed)
{
    long bad = 0;
    for (long i = 0; i < n; i++)
        bad += b[i] != (unsigned char) (i * 13 + seed);
    return bad;
}

int main(int argc, char **argv)
{
    int rank, size, rc, cls;
    long big = 200000, small = 70000;   /* several chunks of the ring each */
    unsigned char *buf;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    buf = malloc(big);

    for (int round = 0; round < 2; round++) {
        /* round 0: the root sends more than the others take; round 1: fewer */
        long send = round == 0 ? big : small, take = round == 0 ? small : big;
        memset(buf, 0, big);
        if (rank == 0)
            fill(buf, send, round);
        rc = MPI_Bcast(buf, (int) (rank == 0 ? send : take), MPI_BYTE, 0, MPI_COMM_WORLD);
        if (rank != 0) {
            MPI_Error_class(rc, &cls);
            CHECK(rc != MPI_SUCCESS, "round %d: a mismatched MPI_Bcast returned success",
                  round);
            CHECK(round != 0 || cls == MPI_ERR_TRUNCATE, "round 0: error class %d, not "
                  "MPI_ERR_TRUNCATE", cls);
            CHECK(wrong(buf, small, round) == 0, "round %d: the bytes that fit are wrong",
                  round);
        }
        /* A correct broadcast after it. */
        memset(buf, 0, big);
        if (rank == 0)
            fill(buf, big, 7 + round);
        CHECK_MPI(MPI_Bcast(buf, (int) big, MPI_BYTE, 0, MPI_COMM_WORLD));
        CHECK(wrong(buf, big, 7 + round) == 0, "round %d: the broadcast after the "
              "mismatch delivered wrong bytes", round);
    }
    free(buf);
    return mmt_finish();
}
