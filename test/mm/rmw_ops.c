/*
 * rmw_ops: MPI_Rmw and MPI_Rmw2 against a sequential model, for every op, every
 * applicable predefined type (C integer, floating, complex, MPI_C_BOOL, MPI_BYTE, and
 * MPI_CHAR/MPI_WCHAR with swap), counts 1, 7 and 1000,
 * every window flavor (create, allocate, allocate_shared, dynamic) and every assert mode
 * (0 inside an exclusive lock epoch, MPI_MODE_PASSIVE_EPOCH_IMPLICIT, and that with
 * MPI_MODE_NOCHECK).
 *
 * Each rank is the origin for target (rank + 1) % size, in its own slot of the target's
 * window (so origins never touch the same elements). For one case the target fills the
 * slot with known values, a barrier opens the case, the origin applies one call and
 * checks the old values it got back, and after a second barrier the target checks its
 * memory holds what the model says. Values stay small so every type holds them exactly.
 * With MPI_COMM_WORLD's size all on one node this runs over shm (direct access for the
 * allocate flavors), with MPIR_CVAR_MM_METHODS=self,tcp over tcp.
 */
#include "mmtest.h"
#include <stdint.h>
#include <string.h>

#ifndef MPI_RMW_INC
#error "mpi.h lacks MPI_Rmw: this test needs the mm device"
#endif

#define MAXCOUNT 1000
enum { SINT, UINT, FLT, BYTE, BOOL, CHR };

static const struct {
    MPI_Datatype t;
    const char *name;
    int cls;
} types[] = {
    {MPI_SIGNED_CHAR, "signed char", SINT}, {MPI_UNSIGNED_CHAR, "unsigned char", UINT},
    {MPI_SHORT, "short", SINT}, {MPI_UNSIGNED_SHORT, "unsigned short", UINT},
    {MPI_INT, "int", SINT}, {MPI_UNSIGNED, "unsigned", UINT}, {MPI_LONG, "long", SINT},
    {MPI_UNSIGNED_LONG, "unsigned long", UINT}, {MPI_LONG_LONG, "long long", SINT},
    {MPI_UNSIGNED_LONG_LONG, "unsigned long long", UINT},
    {MPI_INT8_T, "int8", SINT}, {MPI_UINT8_T, "uint8", UINT}, {MPI_INT16_T, "int16", SINT},
    {MPI_UINT16_T, "uint16", UINT}, {MPI_INT32_T, "int32", SINT},
    {MPI_UINT32_T, "uint32", UINT}, {MPI_INT64_T, "int64", SINT},
    {MPI_UINT64_T, "uint64", UINT}, {MPI_AINT, "aint", SINT}, {MPI_OFFSET, "offset", SINT},
    {MPI_COUNT, "count", SINT}, {MPI_FLOAT, "float", FLT}, {MPI_DOUBLE, "double", FLT},
    {MPI_LONG_DOUBLE, "long double", FLT}, {MPI_BYTE, "byte", BYTE},
    {MPI_C_BOOL, "bool", BOOL}, {MPI_CHAR, "char", CHR}, {MPI_WCHAR, "wchar", CHR}
};
#define NTYPES ((int) (sizeof(types) / sizeof(types[0])))

static const int rmw_ops[] = { MPI_RMW_INC, MPI_RMW_PROD, MPI_RMW_SUM, MPI_RMW_LAND,
    MPI_RMW_LOR, MPI_RMW_LXOR, MPI_RMW_BAND, MPI_RMW_BOR, MPI_RMW_BXOR, MPI_RMW_SWAP
};
static const int rmw2_ops[] = { MPI_RMW2_MASK_SWAP, MPI_RMW2_COMP_SWAP, MPI_RMW2_COMP_SWAP_GT,
    MPI_RMW2_COMP_SWAP_GE, MPI_RMW2_COMP_SWAP_LT, MPI_RMW2_COMP_SWAP_LE, MPI_RMW2_COMP_SWAP_NE
};

/* Element i of buf, of type k, as a number (the values used are small integers). */
static int64_t get(int k, const void *buf, int i)
{
    int sz;
    MPI_Type_size(types[k].t, &sz);
    if (types[k].cls == FLT) {
        if (types[k].t == MPI_FLOAT) return (int64_t) ((const float *) buf)[i];
        if (types[k].t == MPI_DOUBLE) return (int64_t) ((const double *) buf)[i];
        return (int64_t) ((const long double *) buf)[i];
    }
    if (types[k].cls == SINT || types[k].cls == CHR) {
        if (sz == 1) return ((const int8_t *) buf)[i];
        if (sz == 2) return ((const int16_t *) buf)[i];
        if (sz == 4) return ((const int32_t *) buf)[i];
        return ((const int64_t *) buf)[i];
    }
    if (sz == 1) return ((const uint8_t *) buf)[i];
    if (sz == 2) return ((const uint16_t *) buf)[i];
    if (sz == 4) return ((const uint32_t *) buf)[i];
    return (int64_t) ((const uint64_t *) buf)[i];
}

static void set(int k, void *buf, int i, int64_t v)
{
    int sz;
    MPI_Type_size(types[k].t, &sz);
    if (types[k].cls == FLT) {
        if (types[k].t == MPI_FLOAT) ((float *) buf)[i] = (float) v;
        else if (types[k].t == MPI_DOUBLE) ((double *) buf)[i] = (double) v;
        else ((long double *) buf)[i] = (long double) v;
    } else if (types[k].cls == BOOL) {
        ((uint8_t *) buf)[i] = (uint8_t) (v & 1);
    } else if (sz == 1) {
        ((uint8_t *) buf)[i] = (uint8_t) v;
    } else if (sz == 2) {
        ((uint16_t *) buf)[i] = (uint16_t) v;
    } else if (sz == 4) {
        ((uint32_t *) buf)[i] = (uint32_t) v;
    } else {
        ((uint64_t *) buf)[i] = (uint64_t) v;
    }
}

/* What an element of type k keeps of v. */
static int64_t norm(int k, int64_t v)
{
    char tmp[sizeof(long double)];
    set(k, tmp, 0, v);
    return get(k, tmp, 0);
}

/* May op (rmw2: an MPI_RMW2_* op) be applied to type class cls? */
static int applicable(int rmw2, int op, int cls)
{
    /* MPI_C_BOOL: logical ops and swap; MPI_CHAR, MPI_WCHAR: swap (MPI_REPLACE) only */
    if (cls == BOOL)
        return !rmw2 && (op == MPI_RMW_LAND || op == MPI_RMW_LOR || op == MPI_RMW_LXOR ||
                         op == MPI_RMW_SWAP);
    if (cls == CHR)
        return !rmw2 && op == MPI_RMW_SWAP;
    if (rmw2)
        return op == MPI_RMW2_MASK_SWAP ? cls != FLT : 1;
    switch (op) {
        case MPI_RMW_INC: case MPI_RMW_PROD: case MPI_RMW_SUM:
            return cls != BYTE;
        case MPI_RMW_LAND: case MPI_RMW_LOR: case MPI_RMW_LXOR:
            return cls == SINT || cls == UINT;
        case MPI_RMW_BAND: case MPI_RMW_BOR: case MPI_RMW_BXOR:
            return cls != FLT;
        default:
            return 1;
    }
}

/* The model: the new value of an element. */
static int64_t model(int rmw2, int op, int64_t old, int64_t a, int64_t b)
{
    if (rmw2) {
        switch (op) {
            case MPI_RMW2_MASK_SWAP: return (old & ~a) | (b & a);
            case MPI_RMW2_COMP_SWAP: return a == old ? b : old;
            case MPI_RMW2_COMP_SWAP_GT: return a > old ? b : old;
            case MPI_RMW2_COMP_SWAP_GE: return a >= old ? b : old;
            case MPI_RMW2_COMP_SWAP_LT: return a < old ? b : old;
            case MPI_RMW2_COMP_SWAP_LE: return a <= old ? b : old;
            default: return a != old ? b : old;
        }
    }
    switch (op) {
        case MPI_RMW_INC: return old + 1;
        case MPI_RMW_PROD: return old * a;
        case MPI_RMW_SUM: return old + a;
        case MPI_RMW_LAND: return (old && a);
        case MPI_RMW_LOR: return (old || a);
        case MPI_RMW_LXOR: return (!old != !a);
        case MPI_RMW_BAND: return old & a;
        case MPI_RMW_BOR: return old | a;
        case MPI_RMW_BXOR: return old ^ a;
        default: return a;
    }
}

static int64_t init_val(int target, int i) { return (i * 7 + target * 3) % 6; }   /* 0..5 */
static int64_t opnd_a(int origin, int i) { return (i * 5 + origin) % 6; }         /* 0..5 */
static int64_t opnd_b(int i) { return (i * 3 + 1) % 7 + 1; }                     /* 1..7 */

/* The complex types: MPI_RMW_INC, _SUM, _PROD and _SWAP (MPI_Rmw2's ops take no complex
 * type), element (re, im) with small integer parts, checked like the others. */
static const struct {
    MPI_Datatype t;
    const char *name;
    int which;                  /* 0 float, 1 double, 2 long double */
} ctypes[] = {
    {MPI_C_FLOAT_COMPLEX, "float complex", 0}, {MPI_C_DOUBLE_COMPLEX, "double complex", 1},
    {MPI_C_LONG_DOUBLE_COMPLEX, "long double complex", 2}
};

static void cget(int w, const void *buf, int i, int64_t * re, int64_t * im)
{
    if (w == 0) {
        const float *p = (const float *) buf + 2 * i;
        *re = (int64_t) p[0], *im = (int64_t) p[1];
    } else if (w == 1) {
        const double *p = (const double *) buf + 2 * i;
        *re = (int64_t) p[0], *im = (int64_t) p[1];
    } else {
        const long double *p = (const long double *) buf + 2 * i;
        *re = (int64_t) p[0], *im = (int64_t) p[1];
    }
}

static void cset(int w, void *buf, int i, int64_t re, int64_t im)
{
    if (w == 0) {
        float *p = (float *) buf + 2 * i;
        p[0] = (float) re, p[1] = (float) im;
    } else if (w == 1) {
        double *p = (double *) buf + 2 * i;
        p[0] = (double) re, p[1] = (double) im;
    } else {
        long double *p = (long double *) buf + 2 * i;
        p[0] = (long double) re, p[1] = (long double) im;
    }
}

static int run_complex(MPI_Win win, char *mem, MPI_Aint disp, int rank, int target,
                       int origin, const char *fname, const int *counts, const int *asserts,
                       char *a, char *res, size_t slot)
{
    static const int cops[] = { MPI_RMW_INC, MPI_RMW_SUM, MPI_RMW_PROD, MPI_RMW_SWAP };
    int cases = 0;

    for (int k = 0; k < 3; k++)
        for (int o = 0; o < 4; o++)
            for (int c = 0; c < 3; c++)
                for (int s = 0; s < 3; s++) {
                    int n = counts[c], op = cops[o], w = ctypes[k].which, bad = 0;
                    int esz = w == 0 ? 8 : w == 1 ? 16 : 2 * (int) sizeof(long double);

                    if ((size_t) n * esz > slot)
                        n = (int) (slot / esz);
                    for (int i = 0; i < n; i++) {
                        cset(w, mem, i, init_val(rank, i), (i + rank) % 3);
                        cset(w, a, i, opnd_a(rank, i), (i + rank) % 2);
                    }
                    MPI_Barrier(MPI_COMM_WORLD);
                    if (asserts[s] == 0)
                        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
                    CHECK_MPI(MPI_Rmw(op == MPI_RMW_INC ? NULL : a, n, ctypes[k].t, res, target,
                                      disp, asserts[s], op, win));
                    if (asserts[s] == 0)
                        MPI_Win_unlock(target, win);
                    for (int i = 0; i < n && !bad; i++) {
                        int64_t re, im;
                        cget(w, res, i, &re, &im);
                        if (re != init_val(target, i) || im != (i + target) % 3) {
                            bad = 1;
                            CHECK(0, "%s %s op %d count %d assert %d: old[%d] = (%lld, %lld)",
                                  fname, ctypes[k].name, op, n, asserts[s], i, (long long) re,
                                  (long long) im);
                        }
                    }
                    MPI_Barrier(MPI_COMM_WORLD);
                    for (int i = 0; i < n && !bad; i++) {
                        int64_t ore = init_val(rank, i), oim = (i + rank) % 3;
                        int64_t are = opnd_a(origin, i), aim = (i + origin) % 2, wre, wim, re, im;
                        if (op == MPI_RMW_INC)
                            wre = ore + 1, wim = oim;
                        else if (op == MPI_RMW_SUM)
                            wre = ore + are, wim = oim + aim;
                        else if (op == MPI_RMW_PROD)
                            wre = ore * are - oim * aim, wim = ore * aim + oim * are;
                        else
                            wre = are, wim = aim;
                        cget(w, mem, i, &re, &im);
                        if (re != wre || im != wim) {
                            bad = 1;
                            CHECK(0, "%s %s op %d count %d assert %d: new[%d] = (%lld, %lld), "
                                  "expected (%lld, %lld)", fname, ctypes[k].name, op, n,
                                  asserts[s], i, (long long) re, (long long) im,
                                  (long long) wre, (long long) wim);
                        }
                    }
                    cases++;
                }
    return cases;
}

int main(int argc, char **argv)
{
    static const int counts[] = { 1, 7, MAXCOUNT };
    const int flavors[] = { MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE,
        MPI_WIN_FLAVOR_SHARED, MPI_WIN_FLAVOR_DYNAMIC };
    const char *fnames[] = { "create", "allocate", "allocate_shared", "dynamic" };
    const int asserts[] = { 0, MPI_MODE_PASSIVE_EPOCH_IMPLICIT,
        MPI_MODE_PASSIVE_EPOCH_IMPLICIT | MPI_MODE_NOCHECK };
    int rank, size, target, origin, cases = 0;
    size_t slot = MAXCOUNT * 2 * sizeof(long double);     /* room for complex elements */
    char *a, *b, *res;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    target = (rank + 1) % size;
    origin = (rank + size - 1) % size;
    /* calloc: a long double (complex) element has 6 bytes of padding per long double that
     * no store writes; zeroed once, the bytes that travel are all initialised (valgrind
     * reports them in sendmsg over tcp, and in the complex ops' loads, otherwise). */
    a = calloc(1, slot);
    b = calloc(1, slot);
    res = calloc(1, slot);

    for (int f = 0; f < 4; f++) {
        MPI_Win win;
        char *mem = NULL;
        MPI_Aint disp = 0;
        MPI_Comm shmcomm = MPI_COMM_NULL;

        if (flavors[f] == MPI_WIN_FLAVOR_CREATE) {
            mem = calloc(1, slot);
            MPI_Win_create(mem, slot, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        } else if (flavors[f] == MPI_WIN_FLAVOR_ALLOCATE) {
            MPI_Win_allocate(slot, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
        } else if (flavors[f] == MPI_WIN_FLAVOR_SHARED) {
            /* allocate_shared needs one node: skip it when the ranks are not */
            int nsize;
            MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                &shmcomm);
            MPI_Comm_size(shmcomm, &nsize);
            int all_one_node = nsize == size, ok;
            MPI_Allreduce(&all_one_node, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
            if (!ok) {
                MPI_Comm_free(&shmcomm);
                continue;
            }
            MPI_Win_allocate_shared(slot, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
        } else {
            MPI_Aint mine;
            mem = calloc(1, slot);
            MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
            MPI_Win_attach(win, mem, slot);
            MPI_Get_address(mem, &mine);
            /* the displacement the origin uses is the target's address */
            MPI_Sendrecv(&mine, 1, MPI_AINT, origin, 0, &disp, 1, MPI_AINT, target, 0,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }

        for (int k = 0; k < NTYPES; k++)
            for (int rmw2 = 0; rmw2 < 2; rmw2++)
                for (int o = 0; o < (rmw2 ? 7 : 10); o++) {
                    int op = rmw2 ? rmw2_ops[o] : rmw_ops[o];
                    if (!applicable(rmw2, op, types[k].cls))
                        continue;
                    for (int c = 0; c < 3; c++)
                        for (int s = 0; s < 3; s++) {
                            int n = counts[c], rc;
                            MPI_Datatype t = types[k].t;

                            for (int i = 0; i < n; i++) {
                                set(k, mem, i, init_val(rank, i));
                                set(k, a, i, opnd_a(rank, i));
                                set(k, b, i, opnd_b(i));
                            }
                            memset(res, 0xee, slot);
                            MPI_Barrier(MPI_COMM_WORLD);
                            if (asserts[s] == 0)
                                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
                            if (rmw2)
                                rc = MPI_Rmw2(a, n, t, b, res, target, disp, asserts[s], op,
                                              win);
                            else
                                rc = MPI_Rmw(op == MPI_RMW_INC ? NULL : a, n, t, res, target,
                                             disp, asserts[s], op, win);
                            if (asserts[s] == 0)
                                MPI_Win_unlock(target, win);
                            CHECK(rc == MPI_SUCCESS, "%s %s op %d count %d assert %d: rc %d",
                                  fnames[f], types[k].name, op, n, asserts[s], rc);
                            int bad = 0;
                            for (int i = 0; i < n && !bad; i++)
                                if (get(k, res, i) != norm(k, init_val(target, i))) {
                                    bad = 1;
                                    CHECK(0, "%s %s %s op %d count %d assert %d: old[%d] = %lld, "
                                          "expected %lld", fnames[f], types[k].name,
                                          rmw2 ? "Rmw2" : "Rmw", op, n, asserts[s], i,
                                          (long long) get(k, res, i),
                                          (long long) norm(k, init_val(target, i)));
                                }
                            MPI_Barrier(MPI_COMM_WORLD);
                            if (flavors[f] == MPI_WIN_FLAVOR_SHARED ||
                                flavors[f] == MPI_WIN_FLAVOR_ALLOCATE)
                                MPI_Win_sync(win);      /* (no epoch needed in unified model) */
                            for (int i = 0; i < n && !bad; i++) {
                                int64_t want = norm(k, model(rmw2, op, norm(k, init_val(rank, i)),
                                                             norm(k, opnd_a(origin, i)),
                                                             norm(k, opnd_b(i))));
                                if (get(k, mem, i) != want) {
                                    bad = 1;
                                    CHECK(0, "%s %s %s op %d count %d assert %d: new[%d] = %lld, "
                                          "expected %lld", fnames[f], types[k].name,
                                          rmw2 ? "Rmw2" : "Rmw", op, n, asserts[s], i,
                                          (long long) get(k, mem, i), (long long) want);
                                }
                            }
                            cases++;
                        }
                }

        cases += run_complex(win, mem, disp, rank, target, origin, fnames[f], counts, asserts,
                             a, res, slot);

        if (flavors[f] == MPI_WIN_FLAVOR_DYNAMIC)
            MPI_Win_detach(win, mem);
        MPI_Win_free(&win);
        if (flavors[f] == MPI_WIN_FLAVOR_CREATE || flavors[f] == MPI_WIN_FLAVOR_DYNAMIC)
            free(mem);
        if (shmcomm != MPI_COMM_NULL)
            MPI_Comm_free(&shmcomm);
    }
    if (rank == 0)
        printf("rmw_ops: %d cases per rank\n", cases);
    free(a);
    free(b);
    free(res);
    return mmt_finish();
}
