/*
 * bcast_pipeline: MPI_Bcast at the sizes the device takes (coll/mm_bcast.c): on one node
 * through the communicator's node segment from MPIR_CVAR_MM_BCAST_SHM_MIN bytes (packed
 * and unpacked for the noncontiguous types; the largest sizes wrap its ring); across
 * nodes, and for MPI_Ibcast, as an xfer pipeline (a binary tree from
 * MPIR_CVAR_MM_BCAST_PIPELINE_MIN bytes, a chain from MPIR_CVAR_MM_BCAST_CHAIN_MIN); and
 * just below them (MPIR's algorithms), on
 * MPI_COMM_WORLD and on communicators of 1, 2, 3 and NP-1 processes split from it, from
 * every root, with a contiguous type, a strided vector (staged chunks) and a struct of
 * mixed types; counts 0, 1 and odd ones. Every receiver checks every byte of its buffer
 * (and a strided buffer's gaps) against what MPI_Pack/MPI_Unpack of the root's data give
 * locally; each broadcast runs as MPI_Bcast, then as two MPI_Ibcast in flight at once
 * (from this root and the next), which the device also pipelines, each with its own tag.
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

/* What a receiver's buffer must hold after a broadcast from root: the root's bytes where
 * the type has data, the receiver's own (0xee) in its gaps. Made locally with MPI_Pack and
 * MPI_Unpack, which involve no communication. */
static void expected(unsigned char *exp, MPI_Aint bytes, MPI_Datatype type, long count,
                     int root, int round, MPI_Comm comm)
{
    unsigned char *src = malloc(bytes), *packed;
    int psize, pos = 0;

    for (MPI_Aint k = 0; k < bytes; k++) {
        src[k] = fill(k, root, round);
        exp[k] = 0xee;
    }
    MPI_Pack_size((int) count, type, comm, &psize);
    packed = malloc(psize > 0 ? psize : 1);
    MPI_Pack(src, (int) count, type, packed, psize, &pos, comm);
    psize = pos;
    pos = 0;
    MPI_Unpack(packed, psize, &pos, exp, (int) count, type, comm);
    free(packed);
    free(src);
}

/* count elements of type (extent ext) from root, with MPI_Bcast, and with two MPI_Ibcast
 * in flight at once (the second from the next root). */
static void one(MPI_Comm comm, MPI_Datatype type, MPI_Aint ext, long count, int root,
                int round)
{
    int rank, size, root2;
    MPI_Aint bytes = ext * count + 64;
    unsigned char *a = malloc(bytes), *b = malloc(bytes), *c = malloc(bytes);
    unsigned char *ea = malloc(bytes), *ec = malloc(bytes);
    MPI_Request r[2];
    MPI_Status st[2];
    long bad_a = 0, bad_b = 0, bad_c = 0;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    root2 = (root + 1) % size;
    for (MPI_Aint k = 0; k < bytes; k++) {
        a[k] = b[k] = rank == root ? fill(k, root, round) : 0xee;
        c[k] = rank == root2 ? fill(k, root2, round + 1) : 0xee;
    }
    if (rank == root)
        for (MPI_Aint k = 0; k < bytes; k++)
            ea[k] = fill(k, root, round);
    else
        expected(ea, bytes, type, count, root, round, comm);
    if (rank == root2)
        for (MPI_Aint k = 0; k < bytes; k++)
            ec[k] = fill(k, root2, round + 1);
    else
        expected(ec, bytes, type, count, root2, round + 1, comm);

    CHECK_MPI(MPI_Bcast(a, (int) count, type, root, comm));
    CHECK_MPI(MPI_Ibcast(b, (int) count, type, root, comm, &r[0]));
    CHECK_MPI(MPI_Ibcast(c, (int) count, type, root2, comm, &r[1]));
    CHECK_MPI(MPI_Waitall(2, r, st));
    for (MPI_Aint k = 0; k < bytes; k++) {
        bad_a += a[k] != ea[k];
        bad_b += b[k] != ea[k];
        bad_c += c[k] != ec[k];
    }
    CHECK(bad_a == 0, "MPI_Bcast of %ld from root %d (round %d): %ld bytes wrong", count,
          root, round, bad_a);
    CHECK(bad_b == 0, "MPI_Ibcast of %ld from root %d (round %d): %ld bytes wrong", count,
          root, round, bad_b);
    CHECK(bad_c == 0, "second MPI_Ibcast of %ld from root %d (round %d): %ld bytes wrong",
          count, root2, round, bad_c);
    free(a);
    free(b);
    free(c);
    free(ea);
    free(ec);
}

int main(int argc, char **argv)
{
    int wrank, wsize;
    MPI_Datatype vec, mixed, mixed_r;
    long pmin = 65536, cmin = 2097152, smin = 1;
    const char *e;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    if ((e = getenv("MPIR_CVAR_MM_BCAST_PIPELINE_MIN")))
        pmin = atol(e);
    if ((e = getenv("MPIR_CVAR_MM_BCAST_CHAIN_MIN")))
        cmin = atol(e);
    if ((e = getenv("MPIR_CVAR_MM_BCAST_SHM_MIN")))
        smin = atol(e);

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
                491520 + 1000, 5 * 491520 + 100, smin - 1, smin
            };
            for (int s = 0; s < 11; s++) {
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
