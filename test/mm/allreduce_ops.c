/*
 * allreduce_ops: MPI_Allreduce, MPI_Reduce to the first and the last rank, and
 * MPI_Reduce_scatter_block and MPI_Reduce_scatter (uneven blocks, some empty; not in place,
 * see check_rs's caller) of about the same vector, against a reference every process computes itself (a reduce's non-roots
 * check that their receive buffer was left alone), for
 * every predefined op on the types it applies to, a non-commutative user op on a derived
 * type, counts 0, 1, odd, around 64 KiB and large (over 1 MiB: several rounds through
 * the node segment, whose area holds 4 MiB / 2p bytes of each process per round), with
 * and without MPI_IN_PLACE, on several communicator shapes (world, its halves, a third of
 * it, a reversed-rank copy, MPI_COMM_SELF). On one node every count from 1 takes the node
 * segment (MPIR_CVAR_MM_REDUCE_SHM_MIN); testlist runs switch it off or raise it to
 * cover the algorithm by reads (MPIR_CVAR_MM_ALLREDUCE_GET_MIN, per process: 32 KiB slices
 * by default, lowered so that every count from p elements on takes it) and MPIR's, and
 * run it on fake nodes (MPIR_CVAR_NUM_CLIQUES) and over tcp.
 *
 * Rank r's element i is a small integer f(r, i), so sums and products are exact in every
 * type and the reference is bitwise the result: x_0 op (x_1 op (... op x_{p-1})),
 * computed with MPI_Reduce_local from the highest rank down (the order MPI requires for
 * a non-commutative op; any order for the others). Large sums of small values are exact
 * in float as long as they stay below 2^24, which p * 2 does.
 */
#include "mmtest.h"
#include <stdint.h>

enum kind { SIGNED, UNSIGNED, FLOATING, BYTE, PAIR, MAT };

typedef struct {
    MPI_Datatype dt;
    const char *name;
    enum kind kind;
} type_t;

/* Rank r's element i, from -1..1 for products (they stay small), else 0..3. */
static int value(int r, long i, int for_prod)
{
    if (for_prod)
        return (int) ((r * 7 + i * 3) % 3) - 1;
    return (int) ((r * 5 + i * 3) % 4);
}

static void fill(const type_t * t, void *buf, long n, int r, int for_prod)
{
    for (long i = 0; i < n; i++) {
        int v = value(r, i, for_prod);
        if (t->dt == MPI_INT) ((int *) buf)[i] = v;
        else if (t->dt == MPI_LONG) ((long *) buf)[i] = v;
        else if (t->dt == MPI_SHORT) ((short *) buf)[i] = (short) v;
        else if (t->dt == MPI_SIGNED_CHAR) ((signed char *) buf)[i] = (signed char) v;
        else if (t->dt == MPI_UNSIGNED) ((unsigned *) buf)[i] = (unsigned) (v + 1);
        else if (t->dt == MPI_UINT64_T) ((uint64_t *) buf)[i] = (uint64_t) (v + 1);
        else if (t->dt == MPI_FLOAT) ((float *) buf)[i] = (float) v;
        else if (t->dt == MPI_DOUBLE) ((double *) buf)[i] = v;
        else if (t->dt == MPI_LONG_DOUBLE) {
            long double *p = (long double *) buf + i;
            memset(p, 0, sizeof(*p));   /* padding bytes compare too */
            *p = v;
        } else if (t->dt == MPI_BYTE) ((unsigned char *) buf)[i] = (unsigned char) (v * 37 + r);
        else if (t->dt == MPI_2INT) {
            ((int *) buf)[2 * i] = (int) ((r * 11 + i) % 5);
            ((int *) buf)[2 * i + 1] = r;
        } else if (t->dt == MPI_DOUBLE_INT) {
            struct { double d; int k; } *p = (void *) ((char *) buf + i * 16);
            memset(p, 0, 16);
            p->d = (double) ((r * 11 + i) % 5);
            p->k = r;
        } else {        /* MAT: 2x2 integer matrices */
            int *m = (int *) buf + 4 * i;
            m[0] = (r + (int) i) % 5 + 1;
            m[1] = r % 3;
            m[2] = (int) (i % 7);
            m[3] = 1;
        }
    }
}

/* A non-commutative op: 2x2 matrix product modulo 97, inout = in * inout. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype * dt)
{
    int *a = in, *b = inout;
    for (int e = 0; e < *len; e++, a += 4, b += 4) {
        int c0 = (a[0] * b[0] + a[1] * b[2]) % 97, c1 = (a[0] * b[1] + a[1] * b[3]) % 97;
        int c2 = (a[2] * b[0] + a[3] * b[2]) % 97, c3 = (a[2] * b[1] + a[3] * b[3]) % 97;
        b[0] = c0; b[1] = c1; b[2] = c2; b[3] = c3;
    }
}

/* Does result element o differ from reference element r? Only the bytes that hold
 * data count: MPI_DOUBLE_INT's 12 of its 16, and long double's value (its padding is
 * garbage). */
static int elem_differs(const type_t * t, const char *o, const char *r, MPI_Aint extent)
{
    if (t->kind == PAIR && t->dt == MPI_DOUBLE_INT)
        return memcmp(o, r, 12) != 0;
    if (t->dt == MPI_LONG_DOUBLE)
        return *(const long double *) o != *(const long double *) r;
    return memcmp(o, r, (size_t) extent) != 0;
}

/* MPI_Allreduce (root < 0) or MPI_Reduce to root; with MPI_IN_PLACE where the result
 * goes (a reduce's non-roots pass their input as usual). */
static int check_one(MPI_Comm comm, const type_t * t, MPI_Op op, const char *opname,
                     long count, int in_place, int root)
{
    int rank, size;
    MPI_Aint lb, extent;
    int for_prod = op == MPI_PROD;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Type_get_extent(t->dt, &lb, &extent);
    size_t bytes = (size_t) extent * (size_t) count;
    char *in = malloc(bytes + 1), *out = malloc(bytes + 1), *ref = malloc(bytes + 1);
    char *x = malloc(bytes + 1);

    fill(t, in, count, rank, for_prod);
    memset(out, 0x5a, bytes + 1);
    if (root >= 0) {
        if (in_place && rank == root) {
            memcpy(out, in, bytes);
            MPI_Reduce(MPI_IN_PLACE, out, (int) count, t->dt, op, root, comm);
        } else {
            MPI_Reduce(in, out, (int) count, t->dt, op, root, comm);
        }
        if (rank != root) {     /* nothing to compare; the buffer must be untouched */
            int touched = 0;
            for (size_t k = 0; k <= bytes; k++)
                touched |= ((unsigned char *) out)[k] != 0x5a;
            CHECK(!touched, "comm of %d, %s %s, count %ld: MPI_Reduce to %d wrote into a "
                  "non-root's receive buffer", size, t->name, opname, count, root);
            free(in);
            free(out);
            free(ref);
            free(x);
            return !touched;
        }
    } else if (in_place) {
        memcpy(out, in, bytes);
        MPI_Allreduce(MPI_IN_PLACE, out, (int) count, t->dt, op, comm);
    } else {
        MPI_Allreduce(in, out, (int) count, t->dt, op, comm);
    }
    /* The reference, from the highest rank down. */
    fill(t, ref, count, size - 1, for_prod);
    for (int j = size - 2; j >= 0; j--) {
        fill(t, x, count, j, for_prod);
        MPI_Reduce_local(x, ref, (int) count, t->dt, op);
    }
    int bad = -1;
    for (long i = 0; i < count && bad < 0; i++)
        if (elem_differs(t, out + i * extent, ref + i * extent, extent))
            bad = (int) i;
    CHECK(bad < 0, "comm of %d, %s %s, count %ld%s%s: element %d differs from the reference",
          size, t->name, opname, count, in_place ? " (in place)" : "",
          root >= 0 ? " (MPI_Reduce)" : "", bad);
    CHECK(((unsigned char *) out)[bytes] == 0x5a, "comm of %d, %s %s, count %ld: wrote past "
          "the end of the receive buffer", size, t->name, opname, count);
    free(in);
    free(out);
    free(ref);
    free(x);
    return bad < 0;
}

/* MPI_Reduce_scatter_block (uneven == 0: count elements each) or MPI_Reduce_scatter
 * (uneven: rank i gets count + i % 3 - 1 elements, at least 0), against the same
 * reference over the whole vector. */
static int check_rs(MPI_Comm comm, const type_t * t, MPI_Op op, const char *opname,
                    long count, int in_place, int uneven)
{
    int rank, size, for_prod = op == MPI_PROD, bad = -1;
    MPI_Aint lb, extent;
    long total = 0, lo = 0;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Type_get_extent(t->dt, &lb, &extent);
    int *counts = malloc(size * sizeof(int));
    for (int i = 0; i < size; i++) {
        counts[i] = (int) (uneven ? (count + i % 3 - 1 > 0 ? count + i % 3 - 1 : 0) : count);
        if (i == rank)
            lo = total;
        total += counts[i];
    }
    size_t bytes = (size_t) extent * (size_t) total, mine = (size_t) extent * counts[rank];
    char *in = malloc(bytes + 1), *out = malloc(bytes + 1), *ref = malloc(bytes + 1);
    char *x = malloc(bytes + 1);

    fill(t, in, total, rank, for_prod);
    memset(out, 0x5a, bytes + 1);
    if (in_place)
        memcpy(out, in, bytes);
    if (uneven)
        MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : in, out, counts, t->dt, op, comm);
    else
        MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : in, out, (int) count, t->dt, op,
                                 comm);
    fill(t, ref, total, size - 1, for_prod);
    for (int j = size - 2; j >= 0; j--) {
        fill(t, x, total, j, for_prod);
        MPI_Reduce_local(x, ref, (int) total, t->dt, op);
    }
    for (long i = 0; i < counts[rank] && bad < 0; i++)
        if (elem_differs(t, out + i * extent, ref + (lo + i) * extent, extent))
            bad = (int) i;
    CHECK(bad < 0, "comm of %d, %s %s, %s of %ld%s: element %d of my block differs from the "
          "reference", size, t->name, opname, uneven ? "MPI_Reduce_scatter" :
          "MPI_Reduce_scatter_block", count, in_place ? " (in place)" : "", bad);
    if (!in_place)
        CHECK(((unsigned char *) out)[mine] == 0x5a, "comm of %d, %s %s, reduce-scatter of "
              "%ld: wrote past the end of the block", size, t->name, opname, count);
    free(counts);
    free(in);
    free(out);
    free(ref);
    free(x);
    return bad < 0;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Datatype mat;
    MPI_Op matop;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Type_contiguous(4, MPI_INT, &mat);
    MPI_Type_commit(&mat);
    MPI_Op_create(matmul, 0, &matop);

    type_t types[] = {
        {MPI_INT, "int", SIGNED}, {MPI_LONG, "long", SIGNED}, {MPI_SHORT, "short", SIGNED},
        {MPI_SIGNED_CHAR, "signed char", SIGNED}, {MPI_UNSIGNED, "unsigned", UNSIGNED},
        {MPI_UINT64_T, "uint64_t", UNSIGNED}, {MPI_FLOAT, "float", FLOATING},
        {MPI_DOUBLE, "double", FLOATING}, {MPI_LONG_DOUBLE, "long double", FLOATING},
        {MPI_BYTE, "byte", BYTE}, {MPI_2INT, "2int", PAIR}, {MPI_DOUBLE_INT, "double_int", PAIR},
        {mat, "2x2 int matrix", MAT},
    };
    struct { MPI_Op op; const char *name; unsigned kinds; } ops[] = {
        {MPI_SUM, "sum", 1 << SIGNED | 1 << UNSIGNED | 1 << FLOATING},
        {MPI_PROD, "prod", 1 << SIGNED | 1 << FLOATING},
        {MPI_MAX, "max", 1 << SIGNED | 1 << UNSIGNED | 1 << FLOATING},
        {MPI_MIN, "min", 1 << SIGNED | 1 << FLOATING},
        {MPI_LAND, "land", 1 << SIGNED}, {MPI_LOR, "lor", 1 << UNSIGNED},
        {MPI_LXOR, "lxor", 1 << SIGNED},
        {MPI_BAND, "band", 1 << UNSIGNED | 1 << BYTE}, {MPI_BOR, "bor", 1 << BYTE},
        {MPI_BXOR, "bxor", 1 << SIGNED | 1 << BYTE},
        {MPI_MAXLOC, "maxloc", 1 << PAIR}, {MPI_MINLOC, "minloc", 1 << PAIR},
        {matop, "matmul (non-commutative)", 1 << MAT},
    };

    /* Communicators: world, halves, thirds, world with ranks reversed, self. */
    MPI_Comm comms[5];
    int ncomms = 0;
    comms[ncomms++] = MPI_COMM_WORLD;
    MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &comms[ncomms++]);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 3, rank, &comms[ncomms++]);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &comms[ncomms++]);
    comms[ncomms++] = MPI_COMM_SELF;

    for (int c = 0; c < ncomms; c++) {
        for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++) {
            MPI_Aint lb, extent;
            MPI_Type_get_extent(types[t].dt, &lb, &extent);
            /* 0, 1, odd, just under and over the 64 KiB threshold, large */
            long counts[] = { 0, 1, 17, 65536 / extent - 1, 65536 / extent + 3,
                              (1 << 20) / extent + 7 };
            for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
                if (!(ops[o].kinds & (1u << types[t].kind)))
                    continue;
                for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++)
                    for (int ip = 0; ip < 2; ip++) {
                        int csize;
                        MPI_Comm_size(comms[c], &csize);
                        check_one(comms[c], &types[t], ops[o].op, ops[o].name, counts[k], ip,
                                  -1);
                        /* MPI_Reduce to the first and to the last rank */
                        check_one(comms[c], &types[t], ops[o].op, ops[o].name, counts[k], ip,
                                  0);
                        check_one(comms[c], &types[t], ops[o].op, ops[o].name, counts[k], ip,
                                  csize - 1);
                        /* the same count per process, scattered */
                        if (counts[k] * csize < (4 << 20) / extent) {
                            check_rs(comms[c], &types[t], ops[o].op, ops[o].name,
                                     counts[k] / csize + 1, ip, 0);
                            /* Not in place with uneven blocks: MPICH 4.0.2's own
                             * algorithms then copy a block onto an overlapping one with
                             * memcpy and assert (ch3 alike), and they run wherever the
                             * device does not take the call. */
                            if (!ip)
                                check_rs(comms[c], &types[t], ops[o].op, ops[o].name,
                                         counts[k] / csize + 1, ip, 1);
                        }
                    }
            }
        }
    }
    for (int c = 1; c < ncomms - 1; c++)
        MPI_Comm_free(&comms[c]);
    MPI_Op_free(&matop);
    MPI_Type_free(&mat);
    return mmt_finish();
}
