/*
 * xfer_pipeline: graph xfer blocks (MPIX_Xfer_*, include/mpix_xfer.h) over NP >= 3
 * processes in a chain 0 -> 1 -> ... -> NP-1.
 *
 *  1. chain: rank 0 sends 64 MiB, every middle rank recv_forwards it, the last receives;
 *     every rank checks every byte (a pattern that differs in each 8-byte word). Again
 *     with two chunks and a short tail: the tail arrives first (eager) and must still be
 *     passed on last.
 *  2. reduction: the last rank sends its vector of doubles, each middle rank
 *     recv_mop_forwards (adds its own and passes the sum on), rank 0 recv_mops: it must
 *     hold the sum over all ranks, element by element; the middle ranks hold the partial
 *     sums of the ranks above them.
 *  3. replicate with staging: a binary tree broadcast of a strided (noncontiguous) buffer,
 *     each inner node recv + replicate to its two children; the gaps of every receive
 *     buffer must keep their sentinel.
 *  4. forward: rank 1 passes 3 MiB + 5 bytes from rank 0 to rank 2 without a buffer, and
 *     the block's status counts the bytes it received.
 *  5. bad input under MPI_ERRORS_RETURN: a range beyond the buffer (MPI_ERR_ARG), a
 *     replicate with no receive before it (MPI_ERR_ARG), a second stream to one peer
 *     (MPI_ERR_ARG), an op on a started block
 *     (MPI_ERR_REQUEST), a reduction of a struct of mixed types (MPI_ERR_TYPE); and the
 *     block each error was made on still works afterwards.
 */
#include "mmtest.h"
#include "mpix_xfer.h"
#include <stdint.h>

#define CHAIN_LONG (64L << 20)
#define CHAIN_SHORT_TAIL (2 * 491520L + 100)  /* two default chunks and a tail short enough
                                                 * to go eagerly and overtake them */
#define RED_COUNT (3L << 20)            /* doubles: 24 MiB */
#define TREE_COUNT (1L << 20)           /* ints, every other one of a 2x buffer */
#define FWD_BYTES ((3L << 20) + 5)

static unsigned char pattern(long i)
{
    return (unsigned char) ((i * 2654435761u) >> 13) ^ (unsigned char) (i >> 3);
}

static void test_chain(int rank, int size, long n)
{
    unsigned char *buf = malloc(n);
    MPI_Request x;
    MPI_Status st;
    long bad = 0;
    int count;

    if (rank == 0)
        for (long i = 0; i < n; i++)
            buf[i] = pattern(i);
    else
        memset(buf, 0, n);
    CHECK_MPI(MPIX_Xfer_init(MPI_COMM_WORLD, 11, &x));
    if (rank == 0)
        CHECK_MPI(MPIX_Xfer_send(x, buf, n, MPI_BYTE, 0, MPIX_XFER_END, 1));
    else if (rank < size - 1)
        CHECK_MPI(MPIX_Xfer_recv_forward(x, buf, n, MPI_BYTE, 0, MPIX_XFER_END,
                                         rank - 1, rank + 1));
    else
        CHECK_MPI(MPIX_Xfer_recv(x, buf, n, MPI_BYTE, 0, MPIX_XFER_END, rank - 1));
    CHECK_MPI(MPIX_Xfer_start(x));
    CHECK_MPI(MPI_Wait(&x, &st));
    CHECK(x == MPI_REQUEST_NULL, "chain: the block was not freed by MPI_Wait");
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == (rank == 0 ? 0 : n), "chain: status counts %d bytes", count);
    for (long i = 0; i < n; i++)
        bad += buf[i] != pattern(i);
    CHECK(bad == 0, "chain: %ld of %ld bytes wrong", bad, n);
    free(buf);
}

static double contrib(int r, long i)
{
    return (double) ((r + 1) * (i % 1000) + r);
}

static void test_reduction(int rank, int size)
{
    double *v = malloc(RED_COUNT * sizeof(double));
    MPI_Request x;
    long bad = 0;

    for (long i = 0; i < RED_COUNT; i++)
        v[i] = contrib(rank, i);
    CHECK_MPI(MPIX_Xfer_init(MPI_COMM_WORLD, 12, &x));
    if (rank == size - 1)
        CHECK_MPI(MPIX_Xfer_send(x, v, RED_COUNT, MPI_DOUBLE, 0, MPIX_XFER_END, rank - 1));
    else if (rank > 0)
        CHECK_MPI(MPIX_Xfer_recv_mop_forward(x, v, RED_COUNT, MPI_DOUBLE, 0, MPIX_XFER_END,
                                             MPI_SUM, rank + 1, rank - 1));
    else
        CHECK_MPI(MPIX_Xfer_recv_mop(x, v, RED_COUNT, MPI_DOUBLE, 0, MPIX_XFER_END, MPI_SUM,
                                     1));
    CHECK_MPI(MPIX_Xfer_start(x));
    CHECK_MPI(MPI_Wait(&x, MPI_STATUS_IGNORE));
    for (long i = 0; i < RED_COUNT; i++) {
        double want = 0;
        for (int r = rank; r < size; r++)
            want += contrib(r, i);
        bad += v[i] != want;
    }
    CHECK(bad == 0, "reduction: %ld of %ld partial sums wrong", bad, RED_COUNT);
    free(v);
}

static void test_tree(int rank, int size)
{
    int *buf = malloc(2 * TREE_COUNT * sizeof(int));
    MPI_Datatype strided;
    MPI_Request x;
    long bad = 0;
    int parent = (rank - 1) / 2, kids[2] = { 2 * rank + 1, 2 * rank + 2 };

    MPI_Type_vector(TREE_COUNT, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    for (long i = 0; i < TREE_COUNT; i++) {
        buf[2 * i] = rank == 0 ? (int) (i * 7 + 3) : 0;
        buf[2 * i + 1] = -5;
    }
    CHECK_MPI(MPIX_Xfer_init(MPI_COMM_WORLD, 13, &x));
    if (rank == 0) {
        for (int k = 0; k < 2; k++)
            if (kids[k] < size)
                CHECK_MPI(MPIX_Xfer_send(x, buf, 1, strided, 0, MPIX_XFER_END, kids[k]));
    } else {
        CHECK_MPI(MPIX_Xfer_recv(x, buf, 1, strided, 0, MPIX_XFER_END, parent));
        for (int k = 0; k < 2; k++)
            if (kids[k] < size)
                CHECK_MPI(MPIX_Xfer_replicate(x, kids[k]));
    }
    CHECK_MPI(MPIX_Xfer_start(x));
    CHECK_MPI(MPI_Wait(&x, MPI_STATUS_IGNORE));
    for (long i = 0; i < TREE_COUNT; i++)
        bad += buf[2 * i] != (int) (i * 7 + 3) || buf[2 * i + 1] != -5;
    CHECK(bad == 0, "tree: %ld of %ld elements (or their gaps) wrong", bad, TREE_COUNT);
    MPI_Type_free(&strided);
    free(buf);
}

static void test_forward(int rank)
{
    unsigned char *buf = NULL;
    MPI_Request x;
    MPI_Status st;
    long bad = 0;
    int count;

    if (rank > 2)
        return;
    buf = calloc(FWD_BYTES, 1);
    if (rank == 0)
        for (long i = 0; i < FWD_BYTES; i++)
            buf[i] = pattern(i + 17);
    CHECK_MPI(MPIX_Xfer_init(MPI_COMM_WORLD, 14, &x));
    if (rank == 0)
        CHECK_MPI(MPIX_Xfer_send(x, buf, FWD_BYTES, MPI_BYTE, 0, MPIX_XFER_END, 1));
    else if (rank == 1)
        CHECK_MPI(MPIX_Xfer_forward(x, FWD_BYTES, 0, 2));
    else
        CHECK_MPI(MPIX_Xfer_recv(x, buf, FWD_BYTES, MPI_BYTE, 0, MPIX_XFER_END, 1));
    CHECK_MPI(MPIX_Xfer_start(x));
    CHECK_MPI(MPI_Wait(&x, &st));
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == (rank == 0 ? 0 : FWD_BYTES), "forward: status counts %d bytes", count);
    if (rank != 1) {
        for (long i = 0; i < FWD_BYTES; i++)
            bad += buf[i] != pattern(i + 17);
        CHECK(bad == 0, "forward: %ld of %ld bytes wrong", bad, FWD_BYTES);
    }
    free(buf);
}

static int err_class(int err)
{
    int cls;
    MPI_Error_class(err, &cls);
    return cls;
}

static void test_errors(int rank, int size)
{
    int data[8] = { 0 }, err;
    MPI_Request x;
    MPI_Datatype mixed;
    int blens[2] = { 1, 1 };
    MPI_Aint displs[2] = { 0, 8 };
    MPI_Datatype types[2] = { MPI_INT, MPI_DOUBLE };
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Type_create_struct(2, blens, displs, types, &mixed);
    MPI_Type_commit(&mixed);
    for (int i = 0; i < 4; i++)
        data[i] = rank * 100 + i;
    CHECK_MPI(MPIX_Xfer_init(MPI_COMM_WORLD, 15, &x));
    err = MPIX_Xfer_send(x, data, 8, MPI_INT, 0, 33, next);
    CHECK(err != MPI_SUCCESS && err_class(err) == MPI_ERR_ARG,
          "a range past the buffer: error class %d", err == MPI_SUCCESS ? 0 : err_class(err));
    err = MPIX_Xfer_replicate(x, next);
    CHECK(err != MPI_SUCCESS && err_class(err) == MPI_ERR_ARG,
          "replicate with nothing received: error class %d",
          err == MPI_SUCCESS ? 0 : err_class(err));
    CHECK_MPI(MPIX_Xfer_send(x, data, 4, MPI_INT, 0, MPIX_XFER_END, next));
    err = MPIX_Xfer_send(x, data, 4, MPI_INT, 0, MPIX_XFER_END, next);
    CHECK(err != MPI_SUCCESS && err_class(err) == MPI_ERR_ARG,
          "a second stream to one peer: error class %d",
          err == MPI_SUCCESS ? 0 : err_class(err));
    err = MPIX_Xfer_recv_mop(x, data, 1, mixed, 0, MPIX_XFER_END, MPI_SUM, prev);
    CHECK(err != MPI_SUCCESS && err_class(err) == MPI_ERR_TYPE,
          "reduction of a mixed struct: error class %d",
          err == MPI_SUCCESS ? 0 : err_class(err));
    /* the block is unharmed: the ring exchange of 4 ints its first send began works */
    CHECK_MPI(MPIX_Xfer_recv(x, data + 4, 4, MPI_INT, 0, MPIX_XFER_END, prev));
    CHECK_MPI(MPIX_Xfer_start(x));
    err = MPIX_Xfer_send(x, data, 1, MPI_INT, 0, MPIX_XFER_END, next);
    CHECK(err != MPI_SUCCESS && err_class(err) == MPI_ERR_REQUEST,
          "an op on a started block: error class %d", err == MPI_SUCCESS ? 0 : err_class(err));
    CHECK_MPI(MPI_Wait(&x, MPI_STATUS_IGNORE));
    for (int i = 0; i < 4; i++)
        CHECK(data[4 + i] == prev * 100 + i, "ring after errors: int %d is %d", i,
              data[4 + i]);
    MPI_Type_free(&mixed);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    int rank, size;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 3) {
        if (rank == 0)
            printf("xfer_pipeline needs at least 3 processes\n");
        MPI_Finalize();
        return 1;
    }
    test_chain(rank, size, CHAIN_LONG);
    test_chain(rank, size, CHAIN_SHORT_TAIL);
    test_reduction(rank, size);
    test_tree(rank, size);
    test_forward(rank);
    test_errors(rank, size);
    return mmt_finish();
}
