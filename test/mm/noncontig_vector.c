/*
 * noncontig_vector: a strided MPI_Type_vector sent to a contiguous receive
 * delivers exactly the selected elements in order, and a contiguous send
 * received into a vector type scatters them to the right places while the
 * gaps between blocks stay untouched. Both a small case and one carrying
 * about 4 MiB of data (8 MiB extent) are run, in both directions.
 */
#include <string.h>
#include "mmtest.h"

#define GAP_MARK (-777)

struct shape {
    int count, blocklen, stride;
};

static int value(int k, int salt)
{
    return k * 3 + salt * 100003 + 1;
}

/* Index in the strided buffer of element k of the vector's type map. */
static int strided_index(const struct shape *s, int k)
{
    return (k / s->blocklen) * s->stride + k % s->blocklen;
}

static void run_case(const struct shape *s, int rank, int salt)
{
    MPI_Datatype vec;
    MPI_Status st;
    int n = s->count * s->blocklen;                      /* elements carried */
    int extent = (s->count - 1) * s->stride + s->blocklen; /* ints spanned */
    int *strided = mmt_malloc((size_t) extent * sizeof(int));
    int *packed = mmt_malloc((size_t) n * sizeof(int));
    int k, i, bad, count;

    MPI_Type_vector(s->count, s->blocklen, s->stride, MPI_INT, &vec);
    MPI_Type_commit(&vec);

    /* vector send -> contiguous receive, 0 -> 1 */
    if (rank == 0) {
        for (i = 0; i < extent; i++)
            strided[i] = GAP_MARK;
        for (k = 0; k < n; k++)
            strided[strided_index(s, k)] = value(k, salt);
        MPI_Send(strided, 1, vec, 1, salt, MPI_COMM_WORLD);
    } else if (rank == 1) {
        memset(packed, 0, (size_t) n * sizeof(int));
        MPI_Recv(packed, n, MPI_INT, 0, salt, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == n, "vector->contig (%d x %d / %d): count %d, expected %d", s->count,
              s->blocklen, s->stride, count, n);
        for (bad = 0, k = 0; k < n; k++)
            if (packed[k] != value(k, salt)) {
                if (bad == 0)
                    CHECK(0, "vector->contig: element %d is %d, expected %d", k, packed[k],
                          value(k, salt));
                bad++;
            }
        CHECK(bad == 0, "vector->contig (%d x %d / %d): %d wrong elements", s->count,
              s->blocklen, s->stride, bad);
    }

    /* contiguous send -> vector receive, 1 -> 0 */
    if (rank == 1) {
        for (k = 0; k < n; k++)
            packed[k] = value(k, salt + 1);
        MPI_Send(packed, n, MPI_INT, 0, salt + 1, MPI_COMM_WORLD);
    } else if (rank == 0) {
        for (i = 0; i < extent; i++)
            strided[i] = GAP_MARK;
        MPI_Recv(strided, 1, vec, 1, salt + 1, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, vec, &count);
        CHECK(count == 1, "contig->vector: MPI_Get_count in vectors is %d, expected 1", count);
        MPI_Get_elements(&st, MPI_INT, &count);
        CHECK(count == n, "contig->vector: MPI_Get_elements is %d, expected %d", count, n);
        for (bad = 0, k = 0; k < n; k++)
            if (strided[strided_index(s, k)] != value(k, salt + 1)) {
                if (bad == 0)
                    CHECK(0, "contig->vector: element %d is %d, expected %d", k,
                          strided[strided_index(s, k)], value(k, salt + 1));
                bad++;
            }
        CHECK(bad == 0, "contig->vector (%d x %d / %d): %d wrong elements", s->count,
              s->blocklen, s->stride, bad);
        /* the gaps: mark the selected slots, then every other slot must be untouched */
        for (k = 0; k < n; k++)
            strided[strided_index(s, k)] = GAP_MARK;
        for (bad = 0, i = 0; i < extent; i++)
            if (strided[i] != GAP_MARK)
                bad++;
        CHECK(bad == 0, "contig->vector (%d x %d / %d): %d ints in the gaps were written",
              s->count, s->blocklen, s->stride, bad);
    }

    MPI_Type_free(&vec);
    free(strided);
    free(packed);
}

int main(int argc, char **argv)
{
    /* small; ~4 MiB of data in 16-byte blocks; ~4 MiB in odd-sized blocks */
    static const struct shape shapes[] = {
        { 10, 3, 5 },
        { 262144, 4, 8 },
        { 37449, 28, 57 },
    };
    int rank, size, i;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs at least 2 processes, got %d", size);
    if (size >= 2)
        for (i = 0; i < (int) (sizeof(shapes) / sizeof(shapes[0])); i++)
            run_case(&shapes[i], rank, 10 * (i + 1));
    return mmt_finish();
}
