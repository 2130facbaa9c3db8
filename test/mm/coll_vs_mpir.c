/*
 * coll_vs_mpir: every collective the device implements itself (include/mpid_coll.h,
 * coll/) against MPIR's result for the same call in the same run (issue 22).
 *
 * The device picks its path by CVARs it reads at every call; this test switches them
 * with MPI_T between calls (they are MPI_T_SCOPE_ALL_EQ: every process of a
 * communicator writes the same values at the same point of its sequence of calls) and
 * reads every write back. Configurations (-1 switches an int CVAR's path off, as the
 * code in coll/ reads it: "CVAR >= 0 && bytes >= CVAR"; MPIR_CVAR_MM_BARRIER_SHM is a
 * boolean):
 *   mpir    every device path off: MPIR_CVAR_MM_BCAST_SHM_MIN, _BCAST_PIPELINE_MIN,
 *           _ALLREDUCE_GET_MIN, _REDUCE_SHM_MIN and _ALLGATHER_SHM_MIN -1,
 *           _BARRIER_SHM false; the device then calls MPIR_<Coll>_impl for every call.
 *           This is the reference.
 *   dev     the values read at the start (the defaults, or what the environment set):
 *           on one node the node segment for MPI_Bcast, MPI_Allreduce, MPI_Reduce,
 *           MPI_Reduce_scatter(_block), MPI_Allgather and MPI_Barrier; across nodes the
 *           xfer pipeline (MPI_Bcast from 64 KiB) and the reads (MPI_Allreduce from
 *           32 KiB a process). Restored at the end.
 *   tree    (MPI_Bcast, MPI_Ibcast) the segment off, the pipeline for every size
 *           (empty broadcasts included), as a binary tree;
 *   chain   (MPI_Bcast, MPI_Ibcast) the same as a chain;
 *   get     (MPI_Allreduce) the segment off, the slice-owner algorithm by single-copy
 *           reads for every count >= p (where every peer offers reads; else it agrees
 *           to fall back to MPIR, which this also compares).
 * Every case runs under mpir first, then under each device configuration that applies,
 * and the outputs are compared bitwise: the whole buffer (slack after it included) for
 * MPI_Bcast, MPI_Ibcast (two in flight, from two roots) and MPI_Allgather; the bytes of
 * each result element that hold data (not long double's or the pair types' padding, nor
 * a strided type's gaps) for the reductions, plus the slack after the buffer, and every
 * reduction's result also against a reference computed locally with MPI_Reduce_local
 * from the highest rank down (x_0 op (x_1 op (...))), the order MPI requires for a
 * non-commutative op. Data are small integers, so float and complex sums and products
 * are exact in any order, and chosen so that no -0.0 arises (its sign can depend on the
 * order of a complex product, which MPI leaves to the implementation for predefined
 * ops); MAXLOC/MINLOC data have ties.
 *
 * Coverage: MPI_Bcast and MPI_Ibcast (roots first, middle, last), MPI_Reduce (the same
 * roots; MPI_IN_PLACE at the root), MPI_Allreduce and MPI_Reduce_scatter_block (with and
 * without MPI_IN_PLACE; in place only the standard-defined first block is compared: MPIR
 * leaves partial results in the rest, the device other bytes), MPI_Reduce_scatter
 * (uneven blocks, some empty; not in place: MPICH 4.0.2's algorithms assert there, see
 * allreduce_ops.c), MPI_Allgather (with and without MPI_IN_PLACE, and a strided send type
 * against a plain receive type), MPI_Barrier (completes); every predefined op on every
 * predefined C type it applies to (MPI-4.0 section 6.9.2: C integer incl. the
 * multi-language MPI_AINT/OFFSET/COUNT, MPI_CHAR as MPICH allows it, floating point,
 * C complex for SUM and PROD, MPI_C_BOOL for the logical ops, MPI_BYTE for the bitwise
 * ones, the pair types for MAXLOC/MINLOC), a commutative user op (on MPI_INT, a strided
 * vector type, a type whose one int sits at byte 8 (true lower bound 8, size = extent:
 * MPIR takes it: see below), and a contiguous type of 40000 ints (one to three elements
 * a round of the segment's area)) and a non-commutative one (2x2 matrix product on a
 * contiguous derived type; the node segment takes it too); Bcast/Allgather on basic,
 * contiguous derived, strided vector, struct, lower-bound-8 and empty (size 0) types.
 * Counts 0, 1, 37, 1283 (past the segment's 4 KiB "small round" for types of 4 bytes and
 * more) and a large one (over 1.25 MiB: several rounds of the segment's area, a wrapped
 * broadcast ring, a chain) for SUM/MAX on int and double, the user ops, and 3
 * Bcast/Allgather types; no count over 8 MiB of the big type. Communicators:
 * MPI_COMM_WORLD, MPI_COMM_SELF, blocks of 2 and of 3 consecutive ranks, the even and the
 * odd ranks, world with its ranks reversed, and with fake nodes one communicator per node
 * (MPI_Comm_split_type SHARED; MMT_NODES, when set, is how many there must be) unless
 * one of the others has its group.
 *
 * What it found when it was written (2026-12-07, fixed the same day): the lower-bound-8
 * type with the user sum through the node segment (MPI_Allreduce, MPI_Reduce,
 * MPI_Reduce_scatter(_block), every count from 1) gave wrong results and wrote 8 bytes
 * past the receive buffer: reduce_seg() in coll/mm_allreduce.c handed MPIR_Reduce_local
 * pointers to the data (buffer + true lb), which applies the true lb again. Such types
 * now go to MPIR, as on the path by reads.
 *
 * CVM_COMMS=name,name,... (world self blocks2 blocks3 parity reversed node) restricts the
 * communicators (testlist's 7-process run), CVM_LARGE=0 drops the large counts,
 * CVM_COUNTS=n,n,... replaces 0,1,37,1283 (up to 16, for exploring boundaries), and
 * CVM_VERBOSE=1 prints each communicator's time.
 */
#include "mmtest.h"
#include <complex.h>
#include <float.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SLACK 64                /* bytes after every output buffer, must stay untouched */

/* ---- the device's CVARs ---- */

enum { CV_BCAST_SHM, CV_BCAST_PIPE, CV_BCAST_CHAIN, CV_AR_GET, CV_RED_SHM, CV_AG_SHM,
    CV_BARRIER, NCV
};
static const char *cv_names[NCV] = {
    "MPIR_CVAR_MM_BCAST_SHM_MIN", "MPIR_CVAR_MM_BCAST_PIPELINE_MIN",
    "MPIR_CVAR_MM_BCAST_CHAIN_MIN", "MPIR_CVAR_MM_ALLREDUCE_GET_MIN",
    "MPIR_CVAR_MM_REDUCE_SHM_MIN", "MPIR_CVAR_MM_ALLGATHER_SHM_MIN", "MPIR_CVAR_MM_BARRIER_SHM"
};
static MPI_T_cvar_handle cv_handle[NCV];

enum { CFG_MPIR, CFG_DEV, CFG_TREE, CFG_CHAIN, CFG_GET, NCFG };
static const char *cfg_names[NCFG] = { "mpir", "dev", "tree", "chain", "get" };
static int cfg_val[NCFG][NCV];
static int cfg_now = -1;

static void cvars_init(void)
{
    int provided;

    CHECK_MPI(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    for (int v = 0; v < NCV; v++) {
        int idx, n, val = 0;
        MPI_Datatype dt;
        char name[128], desc[8];
        int nlen = sizeof(name), dlen = sizeof(desc), verb, bind, scope;
        MPI_T_enum en;

        if (MPI_T_cvar_get_index(cv_names[v], &idx) != MPI_SUCCESS) {
            CHECK(0, "no CVAR %s: cannot switch the device's paths", cv_names[v]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        CHECK_MPI(MPI_T_cvar_get_info(idx, name, &nlen, &verb, &dt, &en, desc, &dlen, &bind,
                                      &scope));
        CHECK(dt == MPI_INT && bind == MPI_T_BIND_NO_OBJECT && scope == MPI_T_SCOPE_ALL_EQ,
              "CVAR %s: not an int of scope ALL_EQ bound to no object", cv_names[v]);
        CHECK_MPI(MPI_T_cvar_handle_alloc(idx, NULL, &cv_handle[v], &n));
        CHECK(n == 1, "CVAR %s has %d values", cv_names[v], n);
        CHECK_MPI(MPI_T_cvar_read(cv_handle[v], &val));
        cfg_val[CFG_DEV][v] = val;
    }
    /* mpir: every path off; the chain threshold matters only with the pipeline on */
    memcpy(cfg_val[CFG_MPIR], cfg_val[CFG_DEV], sizeof(cfg_val[0]));
    cfg_val[CFG_MPIR][CV_BCAST_SHM] = -1;
    cfg_val[CFG_MPIR][CV_BCAST_PIPE] = -1;
    cfg_val[CFG_MPIR][CV_AR_GET] = -1;
    cfg_val[CFG_MPIR][CV_RED_SHM] = -1;
    cfg_val[CFG_MPIR][CV_AG_SHM] = -1;
    cfg_val[CFG_MPIR][CV_BARRIER] = 0;
    /* tree, chain: every broadcast through the pipeline */
    memcpy(cfg_val[CFG_TREE], cfg_val[CFG_MPIR], sizeof(cfg_val[0]));
    cfg_val[CFG_TREE][CV_BCAST_PIPE] = 0;
    cfg_val[CFG_TREE][CV_BCAST_CHAIN] = INT_MAX;
    memcpy(cfg_val[CFG_CHAIN], cfg_val[CFG_TREE], sizeof(cfg_val[0]));
    cfg_val[CFG_CHAIN][CV_BCAST_CHAIN] = 0;
    /* get: every allreduce of count >= p by reads */
    memcpy(cfg_val[CFG_GET], cfg_val[CFG_MPIR], sizeof(cfg_val[0]));
    cfg_val[CFG_GET][CV_AR_GET] = 0;
}

/* Switch to configuration c (every process of the communicator at the same point). */
static void cfg_set(int c)
{
    if (c == cfg_now)
        return;
    for (int v = 0; v < NCV; v++) {
        int val = cfg_val[c][v], back = ~val;

        CHECK_MPI(MPI_T_cvar_write(cv_handle[v], &val));
        CHECK_MPI(MPI_T_cvar_read(cv_handle[v], &back));
        if (back != val) {
            CHECK(0, "configuration %s: wrote %d into %s, read back %d", cfg_names[c], val,
                  cv_names[v], back);
            MPI_Abort(MPI_COMM_WORLD, 1);       /* comparing would prove nothing */
        }
    }
    cfg_now = c;
}

static void cvars_finish(void)
{
    cfg_set(CFG_DEV);
    for (int v = 0; v < NCV; v++)
        MPI_T_cvar_handle_free(&cv_handle[v]);
    MPI_T_finalize();
}

/* ---- types ---- */

enum repr { R_INT, R_FLOAT, R_DOUBLE, R_LDOUBLE, R_CFLOAT, R_CDOUBLE, R_CLDOUBLE, R_BOOL,
    R_BYTE, R_FLOAT_INT, R_DOUBLE_INT, R_LONG_INT, R_2INT, R_SHORT_INT, R_LDOUBLE_INT, R_MAT,
    R_VEC, R_INTS
};
enum group { G_INT, G_REAL, G_COMPLEX, G_BOOL, G_BYTE, G_PAIR, G_MAT, G_USER };

typedef struct {
    MPI_Datatype dt;
    const char *name;
    enum repr repr;
    enum group group;
    int sgn;                    /* R_INT: a signed type */
    MPI_Aint size, extent, tlb; /* set at the start; tlb: true lower bound, where an
                                 * element's data begin (buffers are passed as
                                 * data - tlb) */
    int nsig;                   /* the bytes of an element that hold data */
    MPI_Aint sig_off[2], sig_len[2];
} type_t;

typedef struct { float v; int i; } float_int_t;
typedef struct { double v; int i; } double_int_t;
typedef struct { long v; int i; } long_int_t;
typedef struct { short v; int i; } short_int_t;
typedef struct { long double v; int i; } ldouble_int_t;
typedef struct { int i; double d; char c; } mixed_t;

/* Bytes of a long double that hold its value: x87's 80 bits in 16, else all. */
static MPI_Aint ld_bytes(void)
{
    return LDBL_MANT_DIG == 64 ? 10 : (MPI_Aint) sizeof(long double);
}

static void type_setup(type_t * t)
{
    MPI_Aint lb;

    MPI_Type_get_extent(t->dt, &lb, &t->extent);
    {
        MPI_Aint text;
        MPI_Type_get_true_extent(t->dt, &t->tlb, &text);
    }
    {
        int sz;
        MPI_Type_size(t->dt, &sz);
        t->size = sz;
    }
    t->nsig = 1;
    t->sig_off[0] = 0;
    t->sig_len[0] = t->size;
#define PAIR_SIG(st, vlen)                                                      \
    do {                                                                        \
        t->nsig = 2;                                                            \
        t->sig_len[0] = (vlen);                                                 \
        t->sig_off[1] = offsetof(st, i);                                        \
        t->sig_len[1] = sizeof(int);                                            \
        CHECK(t->extent == sizeof(st), "%s: extent %ld, expected %zu", t->name, \
              (long) t->extent, sizeof(st));                                    \
    } while (0)
    switch (t->repr) {
    case R_LDOUBLE:
        t->sig_len[0] = ld_bytes();
        break;
    case R_CLDOUBLE:
        t->nsig = 2;
        t->sig_len[0] = t->sig_len[1] = ld_bytes();
        t->sig_off[1] = sizeof(long double);
        break;
    case R_FLOAT_INT:
        PAIR_SIG(float_int_t, sizeof(float));
        break;
    case R_DOUBLE_INT:
        PAIR_SIG(double_int_t, sizeof(double));
        break;
    case R_LONG_INT:
        PAIR_SIG(long_int_t, sizeof(long));
        break;
    case R_SHORT_INT:
        PAIR_SIG(short_int_t, sizeof(short));
        break;
    case R_LDOUBLE_INT:
        PAIR_SIG(ldouble_int_t, ld_bytes());
        break;
    case R_2INT:
        t->nsig = 2;
        t->sig_len[0] = t->sig_len[1] = t->sig_off[1] = sizeof(int);
        break;
    case R_VEC:
        t->sig_len[0] = 2 * sizeof(int);
        break;
    default:
        break;
    }
#undef PAIR_SIG
}

/* ---- ops ---- */

enum opk { K_SUM, K_PROD, K_MAXMIN, K_LOG, K_BIT, K_LOC, K_MAT, K_USER };

typedef struct {
    MPI_Op op;
    const char *name;
    unsigned groups;
    enum opk kind;
} op_t;

static MPI_Datatype vec_type;   /* 2 ints of every 3 */

/* A commutative user op: elementwise sum of the ints every element of the types it is
 * used with holds in its first size bytes from its true lower bound (MPI_INT, the
 * vector type's two ints before its gap, the shifted type's one int at byte 8, the big
 * contiguous type's ints). */
static void usum(void *in, void *inout, int *len, MPI_Datatype * dt)
{
    MPI_Aint lb, ext, tlb, text;
    int per;

    MPI_Type_size(*dt, &per);
    per /= (int) sizeof(int);
    MPI_Type_get_extent(*dt, &lb, &ext);
    MPI_Type_get_true_extent(*dt, &tlb, &text);
    for (int e = 0; e < *len; e++)
        for (int k = 0; k < per; k++) {
            int x, y;
            memcpy(&x, (char *) in + tlb + e * ext + k * sizeof(int), sizeof(int));
            memcpy(&y, (char *) inout + tlb + e * ext + k * sizeof(int), sizeof(int));
            y += x;
            memcpy((char *) inout + tlb + e * ext + k * sizeof(int), &y, sizeof(int));
        }
}

/* A non-commutative user op: 2x2 integer matrix product modulo 97, inout = in * inout. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype * dt)
{
    int *a = in, *b = inout;

    (void) dt;
    for (int e = 0; e < *len; e++, a += 4, b += 4) {
        int c0 = (a[0] * b[0] + a[1] * b[2]) % 97, c1 = (a[0] * b[1] + a[1] * b[3]) % 97;
        int c2 = (a[2] * b[0] + a[3] * b[2]) % 97, c3 = (a[2] * b[1] + a[3] * b[3]) % 97;
        b[0] = c0;
        b[1] = c1;
        b[2] = c2;
        b[3] = c3;
    }
}

/* ---- data ---- */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static uint64_t hv(int r, long i, int salt)
{
    return mix(((uint64_t) (unsigned) r << 48) ^ ((uint64_t) i << 8) ^ (uint64_t) salt);
}

static long long pick(uint64_t h, int lo, int hi)
{
    return lo + (long long) (h % (uint64_t) (hi - lo + 1));
}

static void put_int(char *p, MPI_Aint size, long long v)
{
    switch (size) {
    case 1: { int8_t x = (int8_t) v; memcpy(p, &x, 1); break; }
    case 2: { int16_t x = (int16_t) v; memcpy(p, &x, 2); break; }
    case 4: { int32_t x = (int32_t) v; memcpy(p, &x, 4); break; }
    default: { int64_t x = (int64_t) v; memcpy(p, &x, 8); break; }
    }
}

/* An integer-valued real for op kind k: exact in every type and every order. */
static double real_value(enum opk k, uint64_t h)
{
    static const int prod[8] = { 1, 1, -1, -1, 1, -1, 2, 0 };

    if (k == K_SUM)
        return (double) pick(h, 0, 3);
    if (k == K_PROD)
        return prod[h % 8];
    return (double) pick(h, -100, 100);        /* MAX, MIN: no -0.0 */
}

/* Rank r's element i of type t for an op of kind k; padding and gaps zeroed, except a
 * strided vector's gap, which holds junk of r's own. */
static void fill_elem(const type_t * t, char *p, int r, long i, enum opk k)
{
    uint64_t h = hv(r, i, (int) k), h2 = hv(r, i, (int) k + 100);

    memset(p, 0, (size_t) t->extent);
    switch (t->repr) {
    case R_INT: {
        long long v;
        if (t->group == G_USER)
            v = pick(h, 0, 1000);
        else if (k == K_SUM)
            v = pick(h, 0, 3);
        else if (k == K_PROD) {
            /* |product| <= 2^p, and no 2 for 1-byte types (it could overflow int8) */
            static const int sprod[8] = { 1, 1, -1, -1, 1, -1, 2, 0 };
            static const int uprod[8] = { 1, 1, 1, 2, 1, 2, 1, 0 };
            v = t->sgn ? sprod[h % 8] : uprod[h % 8];
            if (v == 2 && t->size == 1 && t->sgn)
                v = 1;
        } else if (k == K_LOG)
            v = pick(h, 0, 2);
        else    /* K_MAXMIN, K_BIT: any bits */
            v = (long long) h;
        put_int(p, t->size, v);
        break;
    }
    case R_FLOAT: { float x = (float) real_value(k, h); memcpy(p, &x, sizeof(x)); break; }
    case R_DOUBLE: { double x = real_value(k, h); memcpy(p, &x, sizeof(x)); break; }
    case R_LDOUBLE: { long double x = real_value(k, h); memcpy(p, &x, ld_bytes()); break; }
    case R_CFLOAT: case R_CDOUBLE: case R_CLDOUBLE: {
        /* PROD: re 5 or 6, im -1..1: every partial product of up to 7 factors keeps
         * a positive real part (arg < 7 * 11.4 degrees) and parts below 2^24, so no
         * -0.0 arises in any order (a product of two purely imaginary partial
         * products, possible in a tree order, can have one) and all is exact */
        double re = k == K_PROD ? (double) pick(h, 5, 6) : (double) pick(h, 0, 3);
        double im = k == K_PROD ? (double) pick(h2, -1, 1) : (double) pick(h2, 0, 3);
        if (t->repr == R_CFLOAT) {
            float x[2] = { (float) re, (float) im };
            memcpy(p, x, sizeof(x));
        } else if (t->repr == R_CDOUBLE) {
            double x[2] = { re, im };
            memcpy(p, x, sizeof(x));
        } else {
            long double a = re, b = im;
            memcpy(p, &a, ld_bytes());
            memcpy(p + sizeof(long double), &b, ld_bytes());
        }
        break;
    }
    case R_BOOL: { bool b = (h & 1) != 0; memcpy(p, &b, sizeof(b)); break; }
    case R_BYTE: *(unsigned char *) p = (unsigned char) h; break;
    case R_FLOAT_INT: case R_DOUBLE_INT: case R_LONG_INT: case R_2INT: case R_SHORT_INT:
    case R_LDOUBLE_INT: {
        /* few values and few indices: ties, where MAXLOC/MINLOC take the lower index */
        int v = (int) pick(h, 0, 4), idx = (int) pick(h2, 0, 9);
        /* the value (its bytes, without padding), then the index */
        float f = (float) v;
        double d = v;
        long l = v;
        short sh = (short) v;
        long double ld = v;
        switch (t->repr) {
        case R_FLOAT_INT: memcpy(p, &f, sizeof(f)); break;
        case R_DOUBLE_INT: memcpy(p, &d, sizeof(d)); break;
        case R_LONG_INT: memcpy(p, &l, sizeof(l)); break;
        case R_SHORT_INT: memcpy(p, &sh, sizeof(sh)); break;
        case R_2INT: memcpy(p, &v, sizeof(v)); break;
        default: memcpy(p, &ld, ld_bytes()); break;
        }
        memcpy(p + t->sig_off[1], &idx, sizeof(int));
        break;
    }
    case R_MAT: {
        int m[4] = { (int) pick(h, 1, 5), (int) pick(h >> 8, 0, 2), (int) pick(h >> 16, 0, 6),
            1
        };
        memcpy(p, m, sizeof(m));
        break;
    }
    case R_VEC: {
        int m[3] = { (int) pick(h, 0, 1000), (int) pick(h2, 0, 1000), 0x5a5a0000 + r };
        memcpy(p, m, sizeof(m));
        break;
    }
    case R_INTS:
        for (MPI_Aint k = 0; k < t->size / (MPI_Aint) sizeof(int); k++) {
            int x = (int) ((h >> (k % 48)) % 1001);
            memcpy(p + k * sizeof(int), &x, sizeof(int));
        }
        break;
    }
}

static void fill(const type_t * t, char *buf, long n, int r, enum opk k)
{
    for (long i = 0; i < n; i++)
        fill_elem(t, buf + i * t->extent, r, i, k);
}

/* Bytes an output buffer holds before a call: the same in every configuration. */
static void prefill(unsigned char *buf, size_t n, int rank, int salt)
{
    for (size_t k = 0; k < n; k++)
        buf[k] = (unsigned char) (0xa0 + rank * 7 + salt * 3 + (k % 11));
}

/* ---- reporting ---- */

static const char *cname;       /* the communicator under test, for reports */
static int crank, csize;

static void hex(char *s, size_t cap, const unsigned char *p, size_t n)
{
    size_t o = 0;
    for (size_t k = 0; k < n && k < 16 && o + 3 < cap; k++)
        o += snprintf(s + o, cap - o, "%02x", p[k]);
    if (n > 16 && o + 4 < cap)
        snprintf(s + o, cap - o, "..");
}

/* First byte where a and b differ within n bytes, or -1. */
static long first_diff(const unsigned char *a, const unsigned char *b, size_t n)
{
    if (memcmp(a, b, n) == 0)
        return -1;
    for (size_t k = 0; k < n; k++)
        if (a[k] != b[k])
            return (long) k;
    return -1;
}

/* First element of n (stride ext, from element 0 of a and b) whose data bytes differ. */
static long first_elem_diff(const type_t * t, const char *a, const char *b, long n)
{
    for (long e = 0; e < n; e++)
        for (int s = 0; s < t->nsig; s++)
            if (memcmp(a + e * t->extent + t->sig_off[s], b + e * t->extent + t->sig_off[s],
                       (size_t) t->sig_len[s]) != 0)
                return e;
    return -1;
}

/* ---- movement collectives: MPI_Bcast, MPI_Ibcast, MPI_Allgather ---- */

typedef struct {
    const char *name;
    MPI_Datatype st, rt;        /* send (broadcast) type, receive type */
    int rmul;                   /* receive count = count * rmul */
    int large;                  /* also at the large count */
} mtype_t;

enum coll { C_BCAST, C_IBCAST, C_ALLGATHER, C_ALLREDUCE, C_REDUCE, C_RSB, C_RS, C_BARRIER };
static const char *coll_names[] = { "MPI_Bcast", "MPI_Ibcast", "MPI_Allgather",
    "MPI_Allreduce", "MPI_Reduce", "MPI_Reduce_scatter_block", "MPI_Reduce_scatter",
    "MPI_Barrier"
};

/* Run one movement call in the current configuration; out gets the bytes to compare. */
static size_t run_move(MPI_Comm comm, int coll, const mtype_t * m, long count, int root,
                       int in_place, unsigned char **out)
{
    MPI_Aint lb, sext, rext, stlb, rtlb, text;
    size_t n, sbytes;
    unsigned char *buf;

    MPI_Type_get_extent(m->st, &lb, &sext);
    MPI_Type_get_extent(m->rt, &lb, &rext);
    MPI_Type_get_true_extent(m->st, &stlb, &text);
    MPI_Type_get_true_extent(m->rt, &rtlb, &text);
    sbytes = (size_t) sext * count;
    if (coll == C_BCAST || coll == C_IBCAST) {
        size_t one = sbytes + SLACK;
        int root2 = (root + 1) % csize;
        n = coll == C_IBCAST ? 2 * one : one;
        buf = mmt_malloc(n);
        prefill(buf, n, crank, 1);
        if (crank == root)
            for (size_t k = 0; k < sbytes; k++)
                buf[k] = (unsigned char) mix(k * 1000 + root);
        if (coll == C_BCAST)
            CHECK_MPI(MPI_Bcast(buf - stlb, (int) count, m->st, root, comm));
        else {
            MPI_Request r[2];
            MPI_Status st[2];
            if (crank == root2)
                for (size_t k = 0; k < sbytes; k++)
                    buf[one + k] = (unsigned char) mix(k * 1000 + root2 + 500);
            CHECK_MPI(MPI_Ibcast(buf - stlb, (int) count, m->st, root, comm, &r[0]));
            CHECK_MPI(MPI_Ibcast(buf + one - stlb, (int) count, m->st, root2, comm, &r[1]));
            CHECK_MPI(MPI_Waitall(2, r, st));
        }
    } else {
        long rcount = count * m->rmul;
        size_t block = (size_t) rext * rcount;
        unsigned char *send = mmt_malloc(sbytes);

        n = block * csize + SLACK;
        buf = mmt_malloc(n);
        prefill(buf, n, crank, 2);
        for (size_t k = 0; k < sbytes; k++)
            send[k] = (unsigned char) mix(k * 1000 + crank + 7);
        if (in_place) {         /* st == rt: this process's block is its send buffer */
            memcpy(buf + block * crank, send, sbytes);
            CHECK_MPI(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf - rtlb, (int) rcount,
                                    m->rt, comm));
        } else
            CHECK_MPI(MPI_Allgather(send - stlb, (int) count, m->st, buf - rtlb, (int) rcount,
                                    m->rt, comm));
        free(send);
    }
    *out = buf;
    return n;
}

static int configs_for(int coll, int *cfgs)
{
    int n = 0;
    cfgs[n++] = CFG_DEV;
    if (coll == C_BCAST || coll == C_IBCAST) {
        cfgs[n++] = CFG_TREE;
        cfgs[n++] = CFG_CHAIN;
    } else if (coll == C_ALLREDUCE)
        cfgs[n++] = CFG_GET;
    return n;
}

static void case_move(MPI_Comm comm, int coll, const mtype_t * m, long count, int root,
                      int in_place)
{
    unsigned char *ref, *out;
    size_t n, n2;
    int cfgs[4], ncfg = configs_for(coll, cfgs);
    MPI_Aint lb, ext;

    MPI_Type_get_extent(coll == C_ALLGATHER ? m->rt : m->st, &lb, &ext);
    cfg_set(CFG_MPIR);
    n = run_move(comm, coll, m, count, root, in_place, &ref);
    for (int c = 0; c < ncfg; c++) {
        long d;
        cfg_set(cfgs[c]);
        n2 = run_move(comm, coll, m, count, root, in_place, &out);
        d = n2 == n ? first_diff(out, ref, n) : 0;
        if (d >= 0) {
            char hd[40], hr[40], where[32] = "";
            long e = ext > 0 ? (long) (d / ext) : d;
            hex(hd, sizeof(hd), out + e * ext, (size_t) ext);
            hex(hr, sizeof(hr), ref + e * ext, (size_t) ext);
            if (coll != C_ALLGATHER)
                snprintf(where, sizeof(where), " from root %d", root);
            CHECK(0, "%s %s count %ld%s%s, comm %s (%d of %d), config %s: differs from mpir "
                  "at byte %ld (element %ld of the buffer: %s, mpir %s)", coll_names[coll],
                  m->name, count, in_place ? " in place" : "", where, cname, crank, csize,
                  cfg_names[cfgs[c]], d, e, hd, hr);
        }
        free(out);
    }
    free(ref);
}

/* ---- reductions ---- */

typedef struct {
    int coll, root, in_place;
    long count;                 /* MPI_Allreduce, MPI_Reduce: elements; scatters: a block */
    const type_t *t;
    const op_t *op;
    int *rcounts;               /* the scatters' blocks */
    long total, lo, mine;       /* elements reduced, this process's part: [lo, lo + mine) */
    size_t inbytes, outbytes;   /* outbytes without the slack */
    int has_result;             /* a result to compare here */
} rcase_t;

static void rcase_setup(rcase_t * c)
{
    MPI_Aint ext = c->t->extent;

    c->rcounts = mmt_malloc(sizeof(int) * csize);
    c->total = c->count;
    c->lo = 0;
    c->mine = c->count;
    if (c->coll == C_RSB || c->coll == C_RS) {
        c->total = 0;
        for (int i = 0; i < csize; i++) {
            /* MPI_Reduce_scatter: uneven, every third block empty (all for count 0) */
            c->rcounts[i] = c->coll == C_RSB || c->count == 0 ? (int) c->count :
                i % 3 == 1 ? 0 : (int) c->count + i;
            if (i == crank)
                c->lo = c->total;
            c->total += c->rcounts[i];
        }
        c->mine = c->rcounts[crank];
    }
    c->inbytes = (size_t) ext * c->total;
    c->outbytes = (c->coll == C_RSB || c->coll == C_RS) && !c->in_place ?
        (size_t) ext * c->mine : c->inbytes;
    c->has_result = c->coll != C_REDUCE || crank == c->root;
}

static unsigned char *run_red(MPI_Comm comm, const rcase_t * c)
{
    size_t n = c->outbytes + SLACK;
    char *in = mmt_malloc(c->inbytes);
    unsigned char *out = mmt_malloc(n);
    const void *sb = in - c->t->tlb;
    void *rb = out - c->t->tlb;
    int cnt = (int) c->count;

    fill(c->t, in, c->total, crank, c->op->kind);
    prefill(out, n, crank, 3);
    if (c->in_place && (c->coll != C_REDUCE || crank == c->root)) {
        /* the input goes where the result comes (with its zeroed padding, and the
         * strided type's gaps of its own) */
        memcpy(out, in, c->inbytes);
        sb = MPI_IN_PLACE;
    }
    switch (c->coll) {
    case C_ALLREDUCE:
        CHECK_MPI(MPI_Allreduce(sb, rb, cnt, c->t->dt, c->op->op, comm));
        break;
    case C_REDUCE:
        CHECK_MPI(MPI_Reduce(sb, rb, cnt, c->t->dt, c->op->op, c->root, comm));
        break;
    case C_RSB:
        CHECK_MPI(MPI_Reduce_scatter_block(sb, rb, cnt, c->t->dt, c->op->op, comm));
        break;
    case C_RS:
        CHECK_MPI(MPI_Reduce_scatter(sb, rb, c->rcounts, c->t->dt, c->op->op, comm));
        break;
    }
    free(in);
    return out;
}

/* The result computed locally: x_0 op (x_1 op (... op x_{p-1})), elements [lo, lo+mine). */
static char *reference(const rcase_t * c)
{
    size_t bytes = (size_t) c->t->extent * c->total;
    char *ref = mmt_malloc(bytes), *x = mmt_malloc(bytes);

    fill(c->t, ref, c->total, csize - 1, c->op->kind);
    for (int j = csize - 2; j >= 0; j--) {
        fill(c->t, x, c->total, j, c->op->kind);
        CHECK_MPI(MPI_Reduce_local(x - c->t->tlb, ref - c->t->tlb, (int) c->total, c->t->dt,
                                   c->op->op));
    }
    free(x);
    return ref;
}

static void report_red(const rcase_t * c, const char *cfg, const char *what, long e,
                       const char *got, const char *want)
{
    char hg[40], hw[40];
    hex(hg, sizeof(hg), (const unsigned char *) got, (size_t) c->t->extent);
    hex(hw, sizeof(hw), (const unsigned char *) want, (size_t) c->t->extent);
    CHECK(0, "%s %s %s count %ld%s%s, comm %s (%d of %d), config %s: element %ld of the "
          "result (%ld of the vector) differs from %s: %s, expected %s",
          coll_names[c->coll], c->op->name, c->t->name, c->count,
          c->in_place ? " in place" : "", c->coll == C_REDUCE ? (c->root == 0 ? " root first" :
                                                                  c->root == csize - 1 ?
                                                                  " root last" : " root middle")
          : "", cname, crank, csize, cfg, e, c->lo + e, what, hg, hw);
}

static void case_red(MPI_Comm comm, rcase_t * c)
{
    unsigned char *ref, *out;
    char *local = NULL;
    int cfgs[4], ncfg;

    rcase_setup(c);
    ncfg = configs_for(c->coll, cfgs);
    cfg_set(CFG_MPIR);
    ref = run_red(comm, c);
    if (c->has_result) {
        long e;
        local = reference(c);
        e = first_elem_diff(c->t, (char *) ref, local + c->lo * c->t->extent, c->mine);
        if (e >= 0)
            report_red(c, "mpir", "the local reference", e, (char *) ref + e * c->t->extent,
                       local + (c->lo + e) * c->t->extent);
    }
    for (int k = 0; k < ncfg; k++) {
        cfg_set(cfgs[k]);
        out = run_red(comm, c);
        if (c->has_result) {
            long e = first_elem_diff(c->t, (char *) out, (char *) ref, c->mine);
            if (e >= 0)
                report_red(c, cfg_names[cfgs[k]], "mpir's", e, (char *) out + e * c->t->extent,
                           (char *) ref + e * c->t->extent);
            e = first_elem_diff(c->t, (char *) out, local + c->lo * c->t->extent, c->mine);
            if (e >= 0)
                report_red(c, cfg_names[cfgs[k]], "the local reference", e,
                           (char *) out + e * c->t->extent, local + (c->lo + e) * c->t->extent);
        }
        /* nothing written past the buffer (a reduce's non-root: nowhere at all is not
         * required, the slack is) */
        {
            long d = first_diff(out + c->outbytes, ref + c->outbytes, SLACK);
            CHECK(d < 0, "%s %s %s count %ld%s, comm %s (%d of %d), config %s: byte %ld "
                  "after the receive buffer changed", coll_names[c->coll], c->op->name,
                  c->t->name, c->count, c->in_place ? " in place" : "", cname, crank, csize,
                  cfg_names[cfgs[k]], d);
        }
        free(out);
    }
    free(ref);
    free(local);
    free(c->rcounts);
}

/* ---- the driver ---- */

static long large_count(MPI_Aint size)
{
    return (5L << 18) / size + 1;       /* 1.25 MiB and one element, odd */
}

static int comm_wanted(const char *name)
{
    const char *sel = getenv("CVM_COMMS");
    size_t len = strlen(name);

    if (sel == NULL || *sel == 0)
        return 1;
    for (const char *p = sel; (p = strstr(p, name)) != NULL; p += len)
        if ((p == sel || p[-1] == ',') && (p[len] == 0 || p[len] == ','))
            return 1;
    return 0;
}

static void run_comm(MPI_Comm comm, const char *name, type_t * types, int ntypes, op_t * ops,
                     int nops, mtype_t * mtypes, int nmtypes, int with_large)
{
    long base_counts[16] = { 0, 1, 37, 1283 };
    int nbase = 4, roots[3], nroots = 0;
    const char *env = getenv("CVM_COUNTS");

    if (env && *env) {          /* other counts, for exploring */
        char *end;
        for (nbase = 0; nbase < 16 && *env; env = *end ? end + 1 : end) {
            base_counts[nbase++] = strtol(env, &end, 10);
            if (end == env)
                break;
        }
    }
    double t0 = MPI_Wtime();

    cname = name;
    MPI_Comm_rank(comm, &crank);
    MPI_Comm_size(comm, &csize);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    {
        int cand[3] = { 0, csize / 2, csize - 1 };
        for (int i = 0; i < 3; i++) {
            int dup = 0;
            for (int j = 0; j < nroots; j++)
                dup |= roots[j] == cand[i];
            if (!dup)
                roots[nroots++] = cand[i];
        }
    }

    /* MPI_Barrier: completes in every configuration */
    for (int c = 0; c < NCFG; c++) {
        cfg_set(c);
        CHECK_MPI(MPI_Barrier(comm));
        CHECK_MPI(MPI_Barrier(comm));
    }

    for (int mi = 0; mi < nmtypes; mi++) {
        const mtype_t *m = &mtypes[mi];
        MPI_Aint lb, ext;
        int sz;
        MPI_Type_get_extent(m->st, &lb, &ext);
        MPI_Type_size(m->st, &sz);
        for (int k = 0; k < nbase + 1; k++) {
            long count;
            if (k == nbase && !(with_large && m->large))
                continue;
            count = k < nbase ? base_counts[k] : large_count(sz);
            if (m->rmul == 1)
                for (int r = 0; r < nroots; r++) {
                    case_move(comm, C_BCAST, m, count, roots[r], 0);
                    case_move(comm, C_IBCAST, m, count, roots[r], 0);
                }
            case_move(comm, C_ALLGATHER, m, count, 0, 0);
            if (m->st == m->rt)
                case_move(comm, C_ALLGATHER, m, count, 0, 1);
        }
    }

    for (int ti = 0; ti < ntypes; ti++) {
        for (int oi = 0; oi < nops; oi++) {
            const type_t *t = &types[ti];
            const op_t *op = &ops[oi];
            int large_pair;
            if (!(op->groups & (1u << t->group)))
                continue;
            large_pair = with_large &&
                (op->kind == K_MAT || op->kind == K_USER ||
                 ((t->dt == MPI_INT || t->dt == MPI_DOUBLE) && t->group != G_USER &&
                  (op->op == MPI_SUM || op->op == MPI_MAX)));
            for (int k = 0; k < nbase + 1; k++) {
                long count = k < nbase ? base_counts[k] : large_count(t->size);
                if (k == nbase && !large_pair)
                    continue;
                if (k < nbase && (double) count * t->extent > 8 << 20)
                    continue;   /* the big type: 0, 1 and 37 elements */
                for (int ip = 0; ip < 2; ip++) {
                    rcase_t c = { C_ALLREDUCE, 0, ip, count, t, op };
                    case_red(comm, &c);
                }
                for (int r = 0; r < nroots; r++)
                    for (int ip = 0; ip < 2; ip++) {
                        /* in place only at the middle root (the first one for p <= 2) */
                        if (ip && r != nroots / 2)
                            continue;
                        rcase_t c = { C_REDUCE, roots[r], ip, count, t, op };
                        case_red(comm, &c);
                    }
                /* the scatters: blocks of about count / p elements */
                for (int ip = 0; ip < 2; ip++) {
                    rcase_t c = { C_RSB, 0, ip, count / csize + (count > 0), t, op };
                    case_red(comm, &c);
                }
                {
                    rcase_t c = { C_RS, 0, 0, count / csize + (count > 0), t, op };
                    case_red(comm, &c);
                }
            }
        }
    }
    if (crank == 0 && getenv("CVM_VERBOSE"))
        printf("comm %s of %d: %.1f s\n", name, csize, MPI_Wtime() - t0);
}

int main(int argc, char **argv)
{
    int wrank, wsize, nodes = 1, with_large = 1;
    MPI_Datatype mat, mixed, mixed_r, vec, shifted, big, empty;
    MPI_Op matop, usumop;
    const char *e;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    if ((e = getenv("CVM_LARGE")) && atoi(e) == 0)
        with_large = 0;
    cvars_init();

    MPI_Type_contiguous(4, MPI_INT, &mat);
    MPI_Type_commit(&mat);
    /* elements of 160000 bytes: one to three a round of the segment's area */
    MPI_Type_contiguous(40000, MPI_INT, &big);
    MPI_Type_commit(&big);
    /* size 0: a broadcast of count > 0 that moves nothing (the pipeline takes it in the
     * tree and chain configurations) */
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    MPI_Type_vector(1, 2, 3, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, 3 * sizeof(int), &vec_type);
    MPI_Type_free(&vec);
    MPI_Type_commit(&vec_type);
    {
        /* one int at byte 8: lower bound 8, size = extent = 4, contiguous */
        int bl = 1;
        MPI_Aint dp = 8;
        MPI_Datatype ty = MPI_INT;
        MPI_Type_create_struct(1, &bl, &dp, &ty, &shifted);
        MPI_Type_commit(&shifted);
    }
    {
        int bl[3] = { 1, 1, 1 };
        MPI_Aint dp[3] = { offsetof(mixed_t, i), offsetof(mixed_t, d), offsetof(mixed_t, c) };
        MPI_Datatype ty[3] = { MPI_INT, MPI_DOUBLE, MPI_CHAR };
        MPI_Type_create_struct(3, bl, dp, ty, &mixed);
        MPI_Type_create_resized(mixed, 0, sizeof(mixed_t), &mixed_r);
        MPI_Type_commit(&mixed_r);
    }
    MPI_Op_create(matmul, 0, &matop);
    MPI_Op_create(usum, 1, &usumop);

    type_t types[] = {
        {MPI_CHAR, "char", R_INT, G_INT, CHAR_MIN < 0},  /* MPICH allows it */
        {MPI_SIGNED_CHAR, "signed char", R_INT, G_INT, 1},
        {MPI_UNSIGNED_CHAR, "unsigned char", R_INT, G_INT, 0},
        {MPI_SHORT, "short", R_INT, G_INT, 1},
        {MPI_UNSIGNED_SHORT, "unsigned short", R_INT, G_INT, 0},
        {MPI_INT, "int", R_INT, G_INT, 1},
        {MPI_UNSIGNED, "unsigned", R_INT, G_INT, 0},
        {MPI_LONG, "long", R_INT, G_INT, 1},
        {MPI_UNSIGNED_LONG, "unsigned long", R_INT, G_INT, 0},
        {MPI_LONG_LONG, "long long", R_INT, G_INT, 1},
        {MPI_UNSIGNED_LONG_LONG, "unsigned long long", R_INT, G_INT, 0},
        {MPI_INT8_T, "int8_t", R_INT, G_INT, 1},
        {MPI_INT16_T, "int16_t", R_INT, G_INT, 1},
        {MPI_INT32_T, "int32_t", R_INT, G_INT, 1},
        {MPI_INT64_T, "int64_t", R_INT, G_INT, 1},
        {MPI_UINT8_T, "uint8_t", R_INT, G_INT, 0},
        {MPI_UINT16_T, "uint16_t", R_INT, G_INT, 0},
        {MPI_UINT32_T, "uint32_t", R_INT, G_INT, 0},
        {MPI_UINT64_T, "uint64_t", R_INT, G_INT, 0},
        {MPI_AINT, "MPI_Aint", R_INT, G_INT, 1},
        {MPI_OFFSET, "MPI_Offset", R_INT, G_INT, 1},
        {MPI_COUNT, "MPI_Count", R_INT, G_INT, 1},
        {MPI_FLOAT, "float", R_FLOAT, G_REAL},
        {MPI_DOUBLE, "double", R_DOUBLE, G_REAL},
        {MPI_LONG_DOUBLE, "long double", R_LDOUBLE, G_REAL},
        {MPI_C_FLOAT_COMPLEX, "float _Complex", R_CFLOAT, G_COMPLEX},
        {MPI_C_DOUBLE_COMPLEX, "double _Complex", R_CDOUBLE, G_COMPLEX},
        {MPI_C_LONG_DOUBLE_COMPLEX, "long double _Complex", R_CLDOUBLE, G_COMPLEX},
        {MPI_C_BOOL, "_Bool", R_BOOL, G_BOOL},
        {MPI_BYTE, "byte", R_BYTE, G_BYTE},
        {MPI_FLOAT_INT, "float_int", R_FLOAT_INT, G_PAIR},
        {MPI_DOUBLE_INT, "double_int", R_DOUBLE_INT, G_PAIR},
        {MPI_LONG_INT, "long_int", R_LONG_INT, G_PAIR},
        {MPI_2INT, "2int", R_2INT, G_PAIR},
        {MPI_SHORT_INT, "short_int", R_SHORT_INT, G_PAIR},
        {MPI_LONG_DOUBLE_INT, "long_double_int", R_LDOUBLE_INT, G_PAIR},
        {mat, "2x2 int matrix (contiguous)", R_MAT, G_MAT},
        {MPI_INT, "int", R_INT, G_USER, 1},
        {vec_type, "2-of-3 int vector", R_VEC, G_USER},
        {shifted, "int at byte 8 (lb 8)", R_INT, G_USER, 1},
        {big, "40000 contiguous ints", R_INTS, G_USER},
    };
    const unsigned ints = 1u << G_INT;
    op_t ops[] = {
        {MPI_SUM, "MPI_SUM", ints | 1u << G_REAL | 1u << G_COMPLEX, K_SUM},
        {MPI_PROD, "MPI_PROD", ints | 1u << G_REAL | 1u << G_COMPLEX, K_PROD},
        {MPI_MAX, "MPI_MAX", ints | 1u << G_REAL, K_MAXMIN},
        {MPI_MIN, "MPI_MIN", ints | 1u << G_REAL, K_MAXMIN},
        {MPI_LAND, "MPI_LAND", ints | 1u << G_BOOL, K_LOG},
        {MPI_LOR, "MPI_LOR", ints | 1u << G_BOOL, K_LOG},
        {MPI_LXOR, "MPI_LXOR", ints | 1u << G_BOOL, K_LOG},
        {MPI_BAND, "MPI_BAND", ints | 1u << G_BYTE, K_BIT},
        {MPI_BOR, "MPI_BOR", ints | 1u << G_BYTE, K_BIT},
        {MPI_BXOR, "MPI_BXOR", ints | 1u << G_BYTE, K_BIT},
        {MPI_MAXLOC, "MPI_MAXLOC", 1u << G_PAIR, K_LOC},
        {MPI_MINLOC, "MPI_MINLOC", 1u << G_PAIR, K_LOC},
        {usumop, "user sum (commutative)", 1u << G_USER, K_USER},
        {matop, "user matmul (non-commutative)", 1u << G_MAT, K_MAT},
    };
    mtype_t mtypes[] = {
        {"byte", MPI_BYTE, MPI_BYTE, 1, 0},
        {"int", MPI_INT, MPI_INT, 1, 1},
        {"double", MPI_DOUBLE, MPI_DOUBLE, 1, 0},
        {"long double", MPI_LONG_DOUBLE, MPI_LONG_DOUBLE, 1, 0},
        {"double_int", MPI_DOUBLE_INT, MPI_DOUBLE_INT, 1, 0},
        {"2x2 int matrix (contiguous)", mat, mat, 1, 0},
        {"2-of-3 int vector", vec_type, vec_type, 1, 1},
        {"int at byte 8 (lb 8)", shifted, shifted, 1, 0},
        {"struct {int, double, char}", mixed_r, mixed_r, 1, 1},
        {"2-of-3 int vector sent, int received", vec_type, MPI_INT, 2, 0},
        {"empty type (0 ints)", empty, empty, 1, 0},
    };
    int ntypes = sizeof(types) / sizeof(types[0]), nops = sizeof(ops) / sizeof(ops[0]);
    int nmtypes = sizeof(mtypes) / sizeof(mtypes[0]);
    for (int t = 0; t < ntypes; t++)
        type_setup(&types[t]);

    /* Fake nodes: one shared-memory communicator per node. */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, wrank, MPI_INFO_NULL, &node);
    {
        int nrank, leader;
        MPI_Comm_rank(node, &nrank);
        leader = nrank == 0;
        MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if ((e = getenv("MMT_NODES")))
            CHECK(nodes == atoi(e), "%d nodes, MMT_NODES says %s", nodes, e);
    }
    if (wrank == 0) {
        printf("coll_vs_mpir: %d processes, %d node(s); configurations (", wsize, nodes);
        for (int v = 0; v < NCV; v++)
            printf("%s%s", v ? " " : "", cv_names[v] + strlen("MPIR_CVAR_MM_"));
        printf("):\n");
        for (int c = 0; c < NCFG; c++) {
            printf("  %-5s", cfg_names[c]);
            for (int v = 0; v < NCV; v++)
                printf(" %d", cfg_val[c][v]);
            printf("\n");
        }
        fflush(stdout);
    }

    struct { const char *name; MPI_Comm comm; } comms[8];
    int ncomms = 0;
    comms[ncomms].name = "world";
    comms[ncomms++].comm = MPI_COMM_WORLD;
    comms[ncomms].name = "self";
    comms[ncomms++].comm = MPI_COMM_SELF;
    comms[ncomms].name = "blocks2";
    MPI_Comm_split(MPI_COMM_WORLD, wrank / 2, wrank, &comms[ncomms++].comm);
    comms[ncomms].name = "blocks3";
    MPI_Comm_split(MPI_COMM_WORLD, wrank / 3, wrank, &comms[ncomms++].comm);
    comms[ncomms].name = "parity";
    MPI_Comm_split(MPI_COMM_WORLD, wrank % 2, wrank, &comms[ncomms++].comm);
    comms[ncomms].name = "reversed";
    MPI_Comm_split(MPI_COMM_WORLD, 0, wsize - wrank, &comms[ncomms++].comm);
    if (nodes > 1) {
        /* unless one of the above is the same group (the parity split on 2 fake nodes) */
        int same = 0;
        for (int c = 0; c < ncomms; c++) {
            int res;
            MPI_Comm_compare(node, comms[c].comm, &res);
            same |= res == MPI_CONGRUENT;
        }
        MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
        if (!same) {
            comms[ncomms].name = "node";
            comms[ncomms++].comm = node;
        }
    }
    for (int c = 0; c < ncomms; c++)
        if (comm_wanted(comms[c].name))
            run_comm(comms[c].comm, comms[c].name, types, ntypes, ops, nops, mtypes, nmtypes,
                     with_large);

    for (int c = 2; c < ncomms; c++)
        if (comms[c].comm != node)
            MPI_Comm_free(&comms[c].comm);
    MPI_Comm_free(&node);
    cvars_finish();
    MPI_Op_free(&matop);
    MPI_Op_free(&usumop);
    MPI_Type_free(&mat);
    MPI_Type_free(&vec_type);
    MPI_Type_free(&shifted);
    MPI_Type_free(&big);
    MPI_Type_free(&empty);
    MPI_Type_free(&mixed);
    MPI_Type_free(&mixed_r);
    return mmt_finish();
}
