/*
 * mm device: the loops that apply an accumulate's predefined op to a block of elements.
 *
 * MPICH's op functions (MPIR_SUM and friends) are written for any pair of buffers, so the
 * compiler must assume the input and the target overlap and keeps them scalar: a 1 MiB
 * MPI_CHAR accumulate is a million byte-at-a-time iterations. Under the atomicity rule
 * (mm_rma_atomic.c) the target block is ours alone while the loop runs, and the input is
 * the origin's data, so the two never overlap (the caller checks): the loops here say so
 * with restrict, and run in blocks of MM_KERNEL_BLOCK elements, a trip count the compiler
 * knows, which GCC's default (-O2, "very cheap") vectorizer turns into whole-vector code
 * without a scalar epilogue. Each kernel is built twice, for AVX2 and for the baseline
 * x86-64 (target_clones: the loader picks one for the CPU it runs on).
 *
 * Covered: the integer types of 1, 2, 4 and 8 bytes with SUM, PROD, MAX, MIN, BAND, BOR,
 * BXOR, LAND, LOR, LXOR, and float and double with SUM, PROD, MAX, MIN; REPLACE is a
 * memcpy for every type. Everything else (complex, long double, pair types, user ops)
 * returns NULL from mm_rma_kernel and the caller uses MPICH's op function.
 *
 * Integer SUM and PROD run on the unsigned type of the same size: the same bits as the
 * signed operation in two's complement, without signed overflow being undefined. MAX and
 * MIN keep the operands' signedness. Float MAX/MIN use the comparison MPICH's functions
 * use (a > b ? a : b), so NaNs come out the same.
 */

#include "mm_rma.h"

#define MM_KERNEL_BLOCK 64

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define MM_KERNEL_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MM_KERNEL_CLONES
#endif

/* kernel NAME over element type T: dst[i] = EXPR(src[i], dst[i]) */
#define MM_KERNEL(NAME, T, EXPR)                                                         \
    static inline void NAME##_loop(T * restrict d, const T * restrict s, size_t n)       \
    {                                                                                    \
        for (size_t i = 0; i < n; i++) {                                                 \
            T a_ = s[i], b_ = d[i];                                                      \
            d[i] = (T) (EXPR);                                                           \
        }                                                                                \
    }                                                                                    \
    MM_KERNEL_CLONES static void NAME(void *dst, const void *src, size_t len)            \
    {                                                                                    \
        T *restrict d = dst;                                                             \
        const T *restrict s = src;                                                       \
        size_t i = 0, n = len / sizeof(T);                                               \
        for (; i + MM_KERNEL_BLOCK <= n; i += MM_KERNEL_BLOCK)                           \
            NAME##_loop(d + i, s + i, MM_KERNEL_BLOCK);                                  \
        NAME##_loop(d + i, s + i, n - i);                                                \
    }

#define MM_SUM(a, b) ((a) + (b))
#define MM_PROD(a, b) ((a) * (b))
#define MM_MAX(a, b) ((a) > (b) ? (a) : (b))
#define MM_MIN(a, b) ((a) < (b) ? (a) : (b))
#define MM_BAND(a, b) ((a) & (b))
#define MM_BOR(a, b) ((a) | (b))
#define MM_BXOR(a, b) ((a) ^ (b))
#define MM_LAND(a, b) (((a) != 0) & ((b) != 0))
#define MM_LOR(a, b) (((a) != 0) | ((b) != 0))
#define MM_LXOR(a, b) (((a) != 0) ^ ((b) != 0))

/* The ops that do not care about signedness, on the unsigned type of each size. */
#define MM_KERNELS_BITS(SFX, T)                                                          \
    MM_KERNEL(k_sum_##SFX, T, MM_SUM(a_, b_))                                            \
    MM_KERNEL(k_prod_##SFX, T, MM_PROD(a_, b_))                                          \
    MM_KERNEL(k_band_##SFX, T, MM_BAND(a_, b_))                                          \
    MM_KERNEL(k_bor_##SFX, T, MM_BOR(a_, b_))                                            \
    MM_KERNEL(k_bxor_##SFX, T, MM_BXOR(a_, b_))                                          \
    MM_KERNEL(k_land_##SFX, T, MM_LAND(a_, b_))                                          \
    MM_KERNEL(k_lor_##SFX, T, MM_LOR(a_, b_))                                            \
    MM_KERNEL(k_lxor_##SFX, T, MM_LXOR(a_, b_))
/* Ordered ops, per signedness (and for the floating types). */
#define MM_KERNELS_ORDER(SFX, T)                                                         \
    MM_KERNEL(k_max_##SFX, T, MM_MAX(a_, b_))                                            \
    MM_KERNEL(k_min_##SFX, T, MM_MIN(a_, b_))

/* *INDENT-OFF* */
MM_KERNELS_BITS(u8, uint8_t)
MM_KERNELS_BITS(u16, uint16_t)
MM_KERNELS_BITS(u32, uint32_t)
MM_KERNELS_BITS(u64, uint64_t)
MM_KERNELS_ORDER(s8, int8_t)
MM_KERNELS_ORDER(s16, int16_t)
MM_KERNELS_ORDER(s32, int32_t)
MM_KERNELS_ORDER(s64, int64_t)
MM_KERNELS_ORDER(u8, uint8_t)
MM_KERNELS_ORDER(u16, uint16_t)
MM_KERNELS_ORDER(u32, uint32_t)
MM_KERNELS_ORDER(u64, uint64_t)
MM_KERNELS_ORDER(f32, float)
MM_KERNELS_ORDER(f64, double)
MM_KERNEL(k_sum_f32, float, MM_SUM(a_, b_))
MM_KERNEL(k_prod_f32, float, MM_PROD(a_, b_))
MM_KERNEL(k_sum_f64, double, MM_SUM(a_, b_))
MM_KERNEL(k_prod_f64, double, MM_PROD(a_, b_))
/* *INDENT-ON* */

static void k_replace(void *dst, const void *src, size_t len)
{
    memcpy(dst, src, len);
}

/* Row: the kernels of one element kind, indexed by op (MM_KOP_*); NULL: none. */
enum { MM_KOP_SUM, MM_KOP_PROD, MM_KOP_MAX, MM_KOP_MIN, MM_KOP_BAND, MM_KOP_BOR, MM_KOP_BXOR,
    MM_KOP_LAND, MM_KOP_LOR, MM_KOP_LXOR, MM_KOP_N
};

#define MM_INT_ROW(U, S)                                                                 \
    { k_sum_##U, k_prod_##U, k_max_##S, k_min_##S, k_band_##U, k_bor_##U, k_bxor_##U,    \
      k_land_##U, k_lor_##U, k_lxor_##U }

static mm_rma_kernel_fn *const kernels[][MM_KOP_N] = {
    [MM_ELEM_SINT8] = MM_INT_ROW(u8, s8),
    [MM_ELEM_SINT16] = MM_INT_ROW(u16, s16),
    [MM_ELEM_SINT32] = MM_INT_ROW(u32, s32),
    [MM_ELEM_SINT64] = MM_INT_ROW(u64, s64),
    [MM_ELEM_UINT8] = MM_INT_ROW(u8, u8),
    [MM_ELEM_UINT16] = MM_INT_ROW(u16, u16),
    [MM_ELEM_UINT32] = MM_INT_ROW(u32, u32),
    [MM_ELEM_UINT64] = MM_INT_ROW(u64, u64),
    [MM_ELEM_FLOAT] = {k_sum_f32, k_prod_f32, k_max_f32, k_min_f32},
    [MM_ELEM_DOUBLE] = {k_sum_f64, k_prod_f64, k_max_f64, k_min_f64},
};

int mm_rma_elem_class(MPI_Datatype t)
{
    MPI_Aint sz;
    int sgn;

    switch (t) {
        case MPI_CHAR:
        case MPI_SIGNED_CHAR:
        case MPI_SHORT:
        case MPI_INT:
        case MPI_LONG:
        case MPI_LONG_LONG:
        case MPI_INT8_T:
        case MPI_INT16_T:
        case MPI_INT32_T:
        case MPI_INT64_T:
        case MPI_AINT:
        case MPI_OFFSET:
        case MPI_COUNT:
        case MPI_WCHAR:
            sgn = 1;
            break;
        case MPI_BYTE:
        case MPI_UNSIGNED_CHAR:
        case MPI_UNSIGNED_SHORT:
        case MPI_UNSIGNED:
        case MPI_UNSIGNED_LONG:
        case MPI_UNSIGNED_LONG_LONG:
        case MPI_UINT8_T:
        case MPI_UINT16_T:
        case MPI_UINT32_T:
        case MPI_UINT64_T:
        case MPI_C_BOOL:
            sgn = 0;
            break;
        case MPI_FLOAT:
            return MM_ELEM_FLOAT;
        case MPI_DOUBLE:
            return MM_ELEM_DOUBLE;
        default:
            return MM_ELEM_OTHER;
    }
    MPIR_Datatype_get_size_macro(t, sz);
    switch (sz) {
        case 1:
            return sgn ? MM_ELEM_SINT8 : MM_ELEM_UINT8;
        case 2:
            return sgn ? MM_ELEM_SINT16 : MM_ELEM_UINT16;
        case 4:
            return sgn ? MM_ELEM_SINT32 : MM_ELEM_UINT32;
        case 8:
            return sgn ? MM_ELEM_SINT64 : MM_ELEM_UINT64;
        default:
            return MM_ELEM_OTHER;
    }
}

mm_rma_kernel_fn *mm_rma_kernel(MPI_Datatype basic, MPI_Op op)
{
    int cls, kop;

    if (op == MPI_REPLACE)
        return k_replace;
    cls = mm_rma_elem_class(basic);
    if (cls == MM_ELEM_OTHER)
        return NULL;
    switch (op) {
        case MPI_SUM:
            kop = MM_KOP_SUM;
            break;
        case MPI_PROD:
            kop = MM_KOP_PROD;
            break;
        case MPI_MAX:
            kop = MM_KOP_MAX;
            break;
        case MPI_MIN:
            kop = MM_KOP_MIN;
            break;
        case MPI_BAND:
            kop = MM_KOP_BAND;
            break;
        case MPI_BOR:
            kop = MM_KOP_BOR;
            break;
        case MPI_BXOR:
            kop = MM_KOP_BXOR;
            break;
        case MPI_LAND:
            kop = MM_KOP_LAND;
            break;
        case MPI_LOR:
            kop = MM_KOP_LOR;
            break;
        case MPI_LXOR:
            kop = MM_KOP_LXOR;
            break;
        default:
            return NULL;
    }
    return kernels[cls][kop];
}
