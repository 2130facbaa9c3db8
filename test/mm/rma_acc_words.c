/*
 * rma_acc_words: accumulates of a few elements that share one aligned 8-byte word.
 *
 * On a shared-segment window such an accumulate is one compare-and-swap (or one fetch_or /
 * fetch_and / fetch_xor) of the whole word, its integer sums computed lane by lane in the
 * word (rma/mm_rma_atomic.c, word_rmw). For every integer element size (1, 2, 4 bytes), every
 * offset and count that fit in a word, and SUM, BAND, BOR, BXOR, MAX and PROD, all ranks
 * accumulate R times (fewer from another node, where each is a round trip over tcp) into
 * rank 0's window at once (MPI_Win_lock_all + flush), then rank 0
 * checks every element against the value computed here, with C's own wrap-around for
 * the sums and products, and checks that the bytes around the accumulated ones (the rest
 * of the word and its neighbours, filled with a sentinel) did not change. The last round
 * is a MPI_Get_accumulate whose old values must be ones the element could have held.
 */
#include "mmtest.h"
#include <stdint.h>

#define R 200                   /* rounds of a rank on rank 0's node (direct atomics) */
#define R_REMOTE 25             /* of one on another node: each round is a round trip over
                                 * tcp, 117,600 of them at R on two fake nodes took 11-100 s */
#define WORDS 4                 /* the target region: 32 bytes, the word in the middle */
#define SENTINEL 0xa5

typedef struct {
    MPI_Datatype type;
    int size;
    const char *name;
} elem_t;

static const elem_t elems[] = {
    {MPI_UNSIGNED_CHAR, 1, "unsigned char"}, {MPI_SIGNED_CHAR, 1, "signed char"},
    {MPI_UNSIGNED_SHORT, 2, "unsigned short"}, {MPI_SHORT, 2, "short"},
    {MPI_UNSIGNED, 4, "unsigned"}, {MPI_INT, 4, "int"}
};

static const struct {
    MPI_Op op;
    const char *name;
} ops[] = {
    {MPI_SUM, "SUM"}, {MPI_BAND, "BAND"}, {MPI_BOR, "BOR"}, {MPI_BXOR, "BXOR"},
    {MPI_MAX, "MAX"}, {MPI_PROD, "PROD"}
};

/* The operand of rank r, round k, element i: small values, and for BAND one clear bit. */
static uint64_t operand(MPI_Op op, int r, int k, int i, int size)
{
    uint64_t bits = 8 * (uint64_t) size;
    uint64_t all = bits == 64 ? ~0ull : (1ull << bits) - 1;

    if (op == MPI_BAND)
        return all & ~(1ull << ((r * 7 + k + i) % bits));
    if (op == MPI_BOR || op == MPI_BXOR)
        return 1ull << ((r * 5 + k * 3 + i) % bits);
    if (op == MPI_PROD)
        return (k % 3 == 0) ? 3 : 1;
    return (uint64_t) (r * 13 + k * 7 + i * 3 + 1) & all;
}

/* The initial value of element i. */
static uint64_t initial(MPI_Op op, int i, int size)
{
    if (op == MPI_BAND)
        return ~0ull >> (64 - 8 * size);
    if (op == MPI_PROD)
        return 1;
    return (uint64_t) i;
}

/* new = op(acc, old) in the element's own type (signed or unsigned, its size). */
static uint64_t apply(MPI_Op op, uint64_t a, uint64_t o, const elem_t * e)
{
    int sgn = e->type == MPI_SIGNED_CHAR || e->type == MPI_SHORT || e->type == MPI_INT;
    uint64_t mask = e->size == 8 ? ~0ull : (1ull << (8 * e->size)) - 1, r;
    int64_t sa, so;

    if (op == MPI_SUM)
        r = a + o;
    else if (op == MPI_PROD)
        r = a * o;
    else if (op == MPI_BAND)
        r = a & o;
    else if (op == MPI_BOR)
        r = a | o;
    else if (op == MPI_BXOR)
        r = a ^ o;
    else {
        /* MAX: compare in the element's type */
        sa = (int64_t) (a << (64 - 8 * e->size)) >> (64 - 8 * e->size);
        so = (int64_t) (o << (64 - 8 * e->size)) >> (64 - 8 * e->size);
        if (sgn)
            r = sa > so ? a : o;
        else
            r = (a & mask) > (o & mask) ? a : o;
    }
    return r & mask;
}

static void put_elem(unsigned char *p, uint64_t v, int size)
{
    uint8_t v8 = (uint8_t) v;
    uint16_t v16 = (uint16_t) v;
    uint32_t v32 = (uint32_t) v;

    if (size == 1)
        memcpy(p, &v8, 1);
    else if (size == 2)
        memcpy(p, &v16, 2);
    else
        memcpy(p, &v32, 4);
}

static uint64_t get_elem(const unsigned char *p, int size)
{
    uint8_t v8;
    uint16_t v16;
    uint32_t v32;

    if (size == 1) {
        memcpy(&v8, p, 1);
        return v8;
    }
    if (size == 2) {
        memcpy(&v16, p, 2);
        return v16;
    }
    memcpy(&v32, p, 4);
    return v32;
}

int main(int argc, char **argv)
{
    int rank, size, cases = 0, *reps, mine, near;
    unsigned char *base, *region;
    MPI_Win win;
    MPI_Comm node;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK_MPI(MPI_Win_allocate(rank == 0 ? 8 * WORDS : 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                               &base, &win));
    region = base;
    /* Each rank's number of rounds: the full count where rank 0's window is in reach of
     * loads and stores, fewer where every accumulate travels as a message. */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    near = rank == 0;
    MPI_Bcast(&near, 1, MPI_INT, 0, node);
    mine = near ? R : R_REMOTE;
    MPI_Comm_free(&node);
    reps = malloc(size * sizeof(*reps));
    MPI_Allgather(&mine, 1, MPI_INT, reps, 1, MPI_INT, MPI_COMM_WORLD);
    for (size_t e = 0; e < sizeof(elems) / sizeof(elems[0]); e++) {
        const elem_t *el = &elems[e];
        for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
            MPI_Op op = ops[o].op;
            for (int off = 0; off < 8; off += el->size) {
                for (int n = 1; off + n * el->size <= 8; n++) {
                    unsigned char buf[8], res[8];
                    int disp = 8 + off;  /* in the second word of the region */

                    if (rank == 0) {
                        memset(region, SENTINEL, 8 * WORDS);
                        for (int i = 0; i < n; i++)
                            put_elem(region + disp + i * el->size, initial(op, i, el->size),
                                     el->size);
                    }
                    MPI_Barrier(MPI_COMM_WORLD);
                    MPI_Win_lock_all(0, win);
                    for (int k = 0; k < mine; k++) {
                        for (int i = 0; i < n; i++)
                            put_elem(buf + i * el->size, operand(op, rank, k, i, el->size),
                                     el->size);
                        if (k == mine - 1) {
                            CHECK_MPI(MPI_Get_accumulate(buf, n, el->type, res, n, el->type,
                                                         0, disp, n, el->type, op, win));
                        } else {
                            CHECK_MPI(MPI_Accumulate(buf, n, el->type, 0, disp, n, el->type,
                                                     op, win));
                        }
                        CHECK_MPI(MPI_Win_flush(0, win));
                    }
                    MPI_Win_unlock_all(win);
                    MPI_Barrier(MPI_COMM_WORLD);
                    if (rank == 0) {
                        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
                        for (int i = 0; i < n; i++) {
                            uint64_t want = initial(op, i, el->size);
                            for (int r = 0; r < size; r++)
                                for (int k = 0; k < reps[r]; k++)
                                    want = apply(op, operand(op, r, k, i, el->size), want, el);
                            CHECK(get_elem(region + disp + i * el->size, el->size) == want,
                                  "%s %s offset %d count %d: element %d is %llu, expected %llu",
                                  el->name, ops[o].name, off, n, i,
                                  (unsigned long long) get_elem(region + disp + i * el->size,
                                                                el->size),
                                  (unsigned long long) want);
                        }
                        for (int b = 0; b < 8 * WORDS; b++)
                            if (b < disp || b >= disp + n * el->size)
                                CHECK(region[b] == SENTINEL, "%s %s offset %d count %d: byte "
                                      "%d outside the accumulate changed to 0x%02x", el->name,
                                      ops[o].name, off, n, b, region[b]);
                        MPI_Win_unlock(0, win);
                    }
                    /* a SUM's old value: at least this rank's own R-1 earlier additions
                     * plus the initial value, modulo the type; here only its range */
                    if (op == MPI_BOR)
                        for (int i = 0; i < n; i++) {
                            uint64_t bits = 0;
                            for (int k = 0; k < mine - 1; k++)
                                bits |= operand(op, rank, k, i, el->size);
                            CHECK((get_elem(res + i * el->size, el->size) & bits) == bits,
                                  "%s BOR offset %d count %d: old value of element %d lacks "
                                  "this rank's earlier bits", el->name, off, n, i);
                        }
                    cases++;
                }
            }
        }
    }
    CHECK(cases > 0, "no case ran");
    MPI_Win_free(&win);
    free(reps);
    return mmt_finish();
}
