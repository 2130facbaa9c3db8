/*
 * rma_split: RMA operations whose target datatype has more irregular blocks than one
 * packet may describe (MM_RMA_NSEG_MAX, 2^20 runs), which the origin sends as several
 * packets of whole blocks (rma/mm_rma_ops.c, issue_blocks).
 *
 * The target datatype: NBLK blocks of MPI_INT, block i of 1 + i % 2 ints at int 4 * i, so
 * no two neighbouring blocks have the same length and none merge into a run: 1.5 M runs,
 * two packets. Each rank works on the window of the next rank, inside MPI_Win_lock_all:
 *   - MPI_Put from a contiguous buffer (the large-origin path, sent from the user's
 *     buffer at each part's offset); the target checks every int of the footprint and
 *     that the gaps still hold their sentinel;
 *   - MPI_Get into a contiguous buffer (each part's answer lands at its offset);
 *   - MPI_Accumulate(MPI_SUM) from a strided origin (packed at each part's offset);
 *   - MPI_Rget_accumulate(MPI_SUM): the one request completes when both parts have, and
 *     its result holds the old values;
 *   - MPI_Rget into a strided buffer (answers staged and unpacked at each offset).
 */
#include "mmtest.h"
#include <stdint.h>

#define NBLK ((1 << 20) + (1 << 19))        /* blocks of the target datatype */
#define SENTINEL -7

static int blk_len(int i)
{
    return 1 + i % 2;
}

/* The value a put stores in int j of the footprint (j counts footprint ints in order). */
static int put_value(long j, int rank)
{
    return (int) ((j * 7 + rank) % 100003);
}

int main(int argc, char **argv)
{
    int rank, size, next, prev, *blens, *displs, *winbuf, *flat, *strided, *result;
    long nints = 0, span = 4L * NBLK;
    MPI_Datatype ttype, stype;
    MPI_Win win;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;

    blens = malloc(NBLK * sizeof(int));
    displs = malloc(NBLK * sizeof(int));
    for (int i = 0; i < NBLK; i++) {
        blens[i] = blk_len(i);
        displs[i] = 4 * i;
        nints += blens[i];
    }
    MPI_Type_indexed(NBLK, blens, displs, MPI_INT, &ttype);
    MPI_Type_commit(&ttype);
    MPI_Type_vector((int) nints, 1, 2, MPI_INT, &stype);        /* every other int */
    MPI_Type_commit(&stype);

    MPI_Alloc_mem(span * sizeof(int), MPI_INFO_NULL, &winbuf);
    for (long k = 0; k < span; k++)
        winbuf[k] = SENTINEL;
    flat = malloc(nints * sizeof(int));
    result = malloc(nints * sizeof(int));
    strided = malloc(2 * nints * sizeof(int));
    MPI_Win_create(winbuf, span * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                   &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    /* put */
    for (long j = 0; j < nints; j++)
        flat[j] = put_value(j, rank);
    MPI_Win_lock_all(0, win);
    CHECK_MPI(MPI_Put(flat, (int) nints, MPI_INT, next, 0, 1, ttype, win));
    CHECK_MPI(MPI_Win_flush_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_sync(win);
    {
        long j = 0, bad = 0, pos = 0;
        for (int i = 0; i < NBLK; i++) {
            for (; pos < displs[i]; pos++)
                bad += winbuf[pos] != SENTINEL;
            for (int b = 0; b < blens[i]; b++, pos++)
                bad += winbuf[pos] != put_value(j++, prev);
        }
        for (; pos < span; pos++)
            bad += winbuf[pos] != SENTINEL;
        CHECK(bad == 0, "put from rank %d: %ld ints of the window wrong", prev, bad);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* get back what this rank put */
    memset(flat, 0, nints * sizeof(int));
    CHECK_MPI(MPI_Get(flat, (int) nints, MPI_INT, next, 0, 1, ttype, win));
    CHECK_MPI(MPI_Win_flush(next, win));
    {
        long bad = 0;
        for (long j = 0; j < nints; j++)
            bad += flat[j] != put_value(j, rank);
        CHECK(bad == 0, "get: %ld of %ld ints wrong", bad, nints);
    }

    /* accumulate from a strided origin: footprint int j gains j % 11 + 1 */
    for (long j = 0; j < nints; j++) {
        strided[2 * j] = (int) (j % 11 + 1);
        strided[2 * j + 1] = -1;
    }
    CHECK_MPI(MPI_Accumulate(strided, 1, stype, next, 0, 1, ttype, MPI_SUM, win));
    CHECK_MPI(MPI_Win_flush(next, win));

    /* get_accumulate with a request: the old values come back, each gains 1 more */
    for (long j = 0; j < nints; j++)
        flat[j] = 1;
    CHECK_MPI(MPI_Rget_accumulate(flat, (int) nints, MPI_INT, result, (int) nints, MPI_INT,
                                  next, 0, 1, ttype, MPI_SUM, win, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    {
        long bad = 0;
        for (long j = 0; j < nints; j++)
            bad += result[j] != put_value(j, rank) + (int) (j % 11 + 1);
        CHECK(bad == 0, "get_accumulate: %ld of %ld old values wrong", bad, nints);
    }

    /* rget into a strided buffer */
    for (long k = 0; k < 2 * nints; k++)
        strided[k] = -3;
    CHECK_MPI(MPI_Rget(strided, 1, stype, next, 0, 1, ttype, win, &req));
    CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    {
        long bad = 0;
        for (long j = 0; j < nints; j++)
            bad += strided[2 * j] != put_value(j, rank) + (int) (j % 11 + 2) ||
                strided[2 * j + 1] != -3;
        CHECK(bad == 0, "rget: %ld of %ld ints wrong", bad, nints);
    }
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);
    {
        /* the gaps are still untouched after all of it */
        long bad = 0, pos = 0;
        for (int i = 0; i < NBLK; i++) {
            for (; pos < displs[i]; pos++)
                bad += winbuf[pos] != SENTINEL;
            pos += blens[i];
        }
        CHECK(bad == 0, "%ld ints between the blocks changed", bad);
    }

    MPI_Win_free(&win);
    MPI_Free_mem(winbuf);
    MPI_Type_free(&ttype);
    MPI_Type_free(&stype);
    free(blens);
    free(displs);
    free(flat);
    free(result);
    free(strided);
    return mmt_finish();
}
