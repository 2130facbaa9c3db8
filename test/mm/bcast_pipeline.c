/*
 * bcast_pipeline: MPI_Bcast at the sizes the device runs as an xfer pipeline
 * (coll/mm_bcast.c: a binary tree from MPIR_CVAR_MM_BCAST_PIPELINE_MIN bytes, a chain from
 * MPIR_CVAR_MM_BCAST_CHAIN_MIN), and just below them (MPIR's algorithms), on
 * MPI_COMM_WORLD and on communicators of 1, 2, 3 and NP-1 processes split from it, from
 * every root, with a contiguous type, a strided vector (staged chunks) and a struct of
 * mixed types; counts 0, 1 and odd ones. Every receiver checks every byte of its buffer
 * (and a strided buffer's gaps), and each broadcast is compared with the same one run
 * through MPI_Ibcast (MPIR's schedule, never the device pipeline).
 */
#include "mmtest.h"
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int i;
    double d;
    char c;
} mixed_t;

static unsigned char fill(long k, int root, int round)
{
    return (unsigned char) (k * 131 + root * 17 + round * 7 + 1);
}

/* One broadcast of count elements of type (extent ext, packed size tsize) from root. */
static void one(MPI_Comm comm, MPI_Datatype type, MPI_Aint ext, long count, int root,
                int round)
{
    int rank;
    MPI_Aint bytes = ext * count + 64;
    unsigned char *a = malloc(bytes), *b = malloc(bytes);
    MPI_Request r;
    long bad = 0;

    MPI_Comm_rank(comm, &rank);
    for (MPI_Aint k = 0; k < bytes; k++)
        a[k] = b[k] = rank == root ? fill(k, root, round) : 0xee;
    CHECK_MPI(MPI_Bcast(a, (int) count, type, root, comm));
    CHECK_MPI(MPI_Ibcast(b, (int) count, type, root, comm, &r));
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    /* The bytes the type covers come from the root; the gaps keep what was there, the
     * same with both calls. */
    for (MPI_Aint k = 0; k < bytes; k++)
        bad += a[k] != b[k];
    CHECK(bad == 0, "bcast of %ld from root %d (round %d): %ld bytes differ from MPI_Ibcast",
          count, root, round, bad);
    if (rank != root && count > 0) {
        /* at least the first byte of the first element is the root's */
        CHECK(a[0] == fill(0, root, round), "bcast of %ld from root %d: first byte %d",
              count, root, a[0]);
    }
    free(a);
    free(b);
}

int main(int argc, char **argv)
{
    int wrank, wsize;
    MPI_Datatype vec, mixed, mixed_r;
    long pmin = 65536, cmin = 2097152;
    const char *e;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if ((e = getenv("MPIR_CVAR_MM_BCAST_PIPELINE_MIN")))
        pmin = atol(e);
    if ((e = getenv("MPIR_CVAR_MM_BCAST_CHAIN_MIN")))
        cmin = atol(e);

    MPI_Type_vector(3, 2, 5, MPI_INT, &vec);   /* 24 bytes over an extent of 52 */
    MPI_Type_commit(&vec);
    {
        int bl[3] = { 1, 1, 1 };
        MPI_Aint dp[3] = { offsetof(mixed_t, i), offsetof(mixed_t, d), offsetof(mixed_t, c) };
        MPI_Datatype ty[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR };
        MPI_Type_create_struct(3, bl, dp, ty, &mixed);
        MPI_Type_create_resized(mixed, 0, sizeof(mixed_t), &mixed_r);
        MPI_Type_commit(&mixed_r);
    }

    for (int shape = 0; shape < 5; shape++) {
        MPI_Comm comm;
        int want = shape == 0 ? wsize : shape == 4 ? wsize - 1 : shape, size;
        if (want < 1 || want > wsize)
            continue;
        MPI_Comm_split(MPI_COMM_WORLD, wrank < want ? 0 : MPI_UNDEFINED, wrank, &comm);
        if (comm == MPI_COMM_NULL)
            continue;
        MPI_Comm_size(comm, &size);
        for (int root = 0; root < size; root++) {
            int round = shape * 100 + root;
            /* bytes: 0, 1, just below and at the pipeline, odd sizes in the tree, the
             * chain; and streams whose last chunk is short enough to go eagerly and
             * overtake the rendezvous chunk before it (forwarders must keep the order) */
            long sizes[] = { 0, 1, pmin - 1, pmin, pmin + 4097, 3 * pmin + 1, cmin + 12345,
                491520 + 1000, 5 * 491520 + 100
            };
            for (int s = 0; s < 9; s++) {
                if (sizes[s] < 0)
                    continue;
                one(comm, MPI_BYTE, 1, sizes[s], root, round + s);
                one(comm, vec, 52, sizes[s] / 24 + (s & 1), root, round + s);
                one(comm, mixed_r, sizeof(mixed_t), sizes[s] / 13 + 1, root, round + s);
            }
        }
        MPI_Comm_free(&comm);
    }
    MPI_Type_free(&vec);
    MPI_Type_free(&mixed);
    MPI_Type_free(&mixed_r);
    return mmt_finish();
}
