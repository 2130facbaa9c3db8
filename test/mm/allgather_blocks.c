/*
 * allgather_blocks: MPI_Allgather against the blocks every process can compute itself,
 * on the paths the device takes (coll/mm_allgather.c): through the communicator's node
 * segment on one node (from MPIR_CVAR_MM_ALLGATHER_SHM_MIN bytes per process; blocks
 * larger than the segment's region per process go in several rounds), MPIR's algorithm
 * elsewhere (testlist runs it on fake nodes and over tcp). Types: MPI_INT, a strided
 * vector (packed into and unpacked from the segment), and a send type that differs from
 * the receive type with the same signature; with and without MPI_IN_PLACE; block sizes 0,
 * 1, odd, and large; communicators: world, its halves, a reversed-rank copy, MPI_COMM_SELF.
 * Every byte of the receive buffer is checked, gaps of the strided type included (they
 * must keep the receiver's own bytes).
 */
#include "mmtest.h"

static int val(int rank, long i)
{
    return (int) (rank * 1000003 + i * 7 + 1);
}

/* One allgather of n ints per process. mode 0: MPI_INT both sides; 1: the strided vector
 * (2 ints of every 3) both sides; 2: MPI_INT sent, a contiguous type of 1 int received as
 * n; in_place: MPI_IN_PLACE (modes 0 and 1). */
static void one(MPI_Comm comm, long n, int mode, int in_place, MPI_Datatype vec)
{
    int rank, size;
    long stride = mode == 1 ? 3 : 1;   /* ints of buffer per 2 or 1 data ints */
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    /* the vector type covers 2 ints of data in an extent of 3 ints (last gap included) */
    long per_block = mode == 1 ? (n / 2) * 3 : n;       /* ints of buffer per process */
    long elems = mode == 1 ? n / 2 : n;                 /* count of the type */
    long total = per_block * size;
    int *send = malloc((per_block + 1) * sizeof(int));
    int *recv = malloc((total + 1) * sizeof(int));
    long bad = 0;

    for (long i = 0; i < per_block; i++)
        send[i] = val(rank, i);
    for (long i = 0; i < total + 1; i++)
        recv[i] = -7;
    if (in_place)
        memcpy(recv + rank * per_block, send, per_block * sizeof(int));
    if (mode == 1)
        CHECK_MPI(MPI_Allgather(in_place ? MPI_IN_PLACE : send, (int) elems, vec, recv,
                                (int) elems, vec, comm));
    else if (mode == 2) {
        MPI_Datatype one_int;
        MPI_Type_contiguous(1, MPI_INT, &one_int);
        MPI_Type_commit(&one_int);
        CHECK_MPI(MPI_Allgather(send, (int) n, MPI_INT, recv, (int) n, one_int, comm));
        MPI_Type_free(&one_int);
    } else
        CHECK_MPI(MPI_Allgather(in_place ? MPI_IN_PLACE : send, (int) n, MPI_INT, recv,
                                (int) n, MPI_INT, comm));
    for (int q = 0; q < size; q++)
        for (long i = 0; i < per_block; i++) {
            int want = (mode == 1 && i % stride == 2) ? -7 : val(q, i);
            if (in_place && q == rank)
                want = val(q, i);       /* our own block is left as it was */
            bad += recv[q * per_block + i] != want;
        }
    bad += recv[total] != -7;
    CHECK(bad == 0, "comm of %d, %ld ints per process, mode %d%s: %ld ints wrong", size, n,
          mode, in_place ? " (in place)" : "", bad);
    free(send);
    free(recv);
}

int main(int argc, char **argv)
{
    int wrank, wsize, ncomms = 0;
    MPI_Comm comms[4];
    MPI_Datatype vec;
    long counts[] = { 0, 1, 2, 17, 1000, 16384 + 6, 300000 };

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Type_vector(1, 2, 3, MPI_INT, &vec);
    {
        MPI_Datatype v;
        MPI_Type_create_resized(vec, 0, 3 * sizeof(int), &v);
        MPI_Type_free(&vec);
        vec = v;
    }
    MPI_Type_commit(&vec);
    comms[ncomms++] = MPI_COMM_WORLD;
    MPI_Comm_split(MPI_COMM_WORLD, wrank < wsize / 2, wrank, &comms[ncomms++]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &comms[ncomms++]);
    comms[ncomms++] = MPI_COMM_SELF;
    for (int c = 0; c < ncomms; c++)
        for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
            for (int mode = 0; mode < 3; mode++)
                for (int ip = 0; ip < (mode == 2 ? 1 : 2); ip++)
                    one(comms[c], counts[k], mode, ip, vec);
    for (int c = 1; c < ncomms - 1; c++)
        MPI_Comm_free(&comms[c]);
    MPI_Type_free(&vec);
    return mmt_finish();
}
