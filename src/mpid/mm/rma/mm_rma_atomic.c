/*
 * mm device: applying accumulates and compare-and-swap under the window's atomicity rule.
 *
 * MPI makes every accumulate atomic per element with respect to every other accumulate
 * on the same location with the same basic type. Every path that updates a window
 * location goes through here.
 *
 * Memory that only its owner process updates (windows of MPI_Win_create and
 * MPI_Win_create_dynamic, and MPI_Win_allocate memory of a process alone on its node)
 * needs nothing more: this process applies the operations one at a time, its own direct
 * ones included, so each is atomic with respect to all others, and a large accumulate
 * runs at the speed of the op's own loop. Memory other processes may update directly
 * (mm_win_acc_atomic: a node segment of MPI_Win_allocate or MPI_Win_allocate_shared)
 * takes one of two paths, fixed per (type, op, location), so the two never meet on one
 * location:
 *
 *   CPU atomics  predefined, non-pair element types of 1, 2, 4 or 8 bytes, at an address
 *                aligned to that size, any predefined op except MAXLOC/MINLOC: one
 *                compare-and-swap loop per element (REPLACE: the new value; NO_OP: a
 *                plain atomic load; every other op: the op's own function computes the
 *                new value from the loaded one). MPI_Compare_and_swap on such an element
 *                is one CPU compare-and-swap.
 *   the lock     everything else — pair types (MPI_DOUBLE_INT with MAXLOC...), long
 *                double and complex types wider than 8 bytes, unaligned elements: the
 *                window's accumulate lock is held around the whole operation. For a
 *                shared-memory window the lock lives in the segment, so every process
 *                that maps the window honours it, and it is striped: MM_ACC_STRIPES spin
 *                locks at the start of the segment, stripe i guarding the segment's
 *                64-byte granules g with g % MM_ACC_STRIPES == i. An operation takes the
 *                stripes of every granule it touches, in increasing order (so two
 *                operations never wait for each other in a cycle), which makes operations
 *                on nearby locations serialize and those on distant ones run in parallel.
 *                Memory only its owner updates has one lock (nobody else takes it).
 */

#include "mm_rma.h"

static void acc_lock(volatile int *l)
{
    unsigned spins = 0;

    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(l, __ATOMIC_RELAXED))
            if (++spins % 64 == 0)
                mm_yield_core();
    }
}

static void acc_unlock(volatile int *l)
{
    __atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

/* The stripes covering niov segments of a window (bit i: stripe i). */
static uint64_t acc_stripes(MPIR_Win * win, const struct iovec *iov, MPI_Aint niov)
{
    uintptr_t base = (uintptr_t) win->dev.acc_lock;
    uint64_t mask = 0;

    if (!mm_win_acc_atomic(win))
        return 1;
    for (MPI_Aint i = 0; i < niov && mask != UINT64_MAX; i++) {
        uintptr_t first, last;
        if (iov[i].iov_len == 0)
            continue;
        first = ((uintptr_t) iov[i].iov_base - base) / MM_ACC_STRIPE_BYTES;
        last = ((uintptr_t) iov[i].iov_base + iov[i].iov_len - 1 - base) / MM_ACC_STRIPE_BYTES;
        if (last - first + 1 >= MM_ACC_STRIPES)
            return UINT64_MAX;
        for (uintptr_t g = first; g <= last; g++)
            mask |= (uint64_t) 1 << (g % MM_ACC_STRIPES);
    }
    return mask;
}

static volatile int *acc_stripe(MPIR_Win * win, int i)
{
    return (volatile int *) ((char *) win->dev.acc_lock + (size_t) i * MM_ACC_STRIPE_BYTES);
}

static void acc_lock_stripes(MPIR_Win * win, uint64_t mask)
{
    for (int i = 0; i < MM_ACC_STRIPES; i++)
        if (mask & ((uint64_t) 1 << i))
            acc_lock(acc_stripe(win, i));
}

static void acc_unlock_stripes(MPIR_Win * win, uint64_t mask)
{
    for (int i = MM_ACC_STRIPES - 1; i >= 0; i--)
        if (mask & ((uint64_t) 1 << i))
            acc_unlock(acc_stripe(win, i));
}

/* Element size if (basic, op) may use CPU atomics, else 0. */
static size_t lockfree_size(MPI_Datatype basic, MPI_Op op)
{
    MPI_Aint size;

    if (!HANDLE_IS_BUILTIN(basic) || op == MPI_MAXLOC || op == MPI_MINLOC)
        return 0;
    MPIR_Datatype_get_size_macro(basic, size);
    return (size == 1 || size == 2 || size == 4 || size == 8) ? (size_t) size : 0;
}

/* One element at p: new = op(src, old), atomically; the old value to *old if asked. */
#define MM_ELEM_RMW(T)                                                                   \
    do {                                                                                 \
        T cur_ = __atomic_load_n((T *) p, __ATOMIC_SEQ_CST), new_;                       \
        if (op != MPI_NO_OP) {                                                           \
            do {                                                                         \
                if (op == MPI_REPLACE) {                                                 \
                    memcpy(&new_, src, sizeof(T));                                       \
                } else {                                                                 \
                    MPI_Aint one_ = 1;                                                   \
                    MPI_Datatype t_ = basic;                                             \
                    new_ = cur_;                                                         \
                    uop((void *) src, &new_, &one_, &t_);                                \
                }                                                                        \
            } while (!__atomic_compare_exchange_n((T *) p, &cur_, new_, 0,               \
                                                  __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));  \
        }                                                                                \
        if (old)                                                                         \
            memcpy(old, &cur_, sizeof(T));                                               \
    } while (0)

static void elem_rmw(char *p, const char *src, size_t sz, MPI_Datatype basic, MPI_Op op,
                     MPIR_op_function * uop, char *old)
{
    switch (sz) {
        case 1:
            MM_ELEM_RMW(uint8_t);
            break;
        case 2:
            MM_ELEM_RMW(uint16_t);
            break;
        case 4:
            MM_ELEM_RMW(uint32_t);
            break;
        case 8:
            MM_ELEM_RMW(uint64_t);
            break;
    }
}

/* The segments of the target buffer, in order, covering at most len bytes. */
static int target_segments(void *addr, MPI_Aint count, MPI_Datatype type, MPI_Aint len,
                           struct iovec **iov_out, MPI_Aint * n_out)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint n, actual_bytes;
    struct iovec *iov;

    mpi_errno = MPIR_Typerep_iov_len(count, type, len, &n);
    MPIR_ERR_CHECK(mpi_errno);
    iov = MPL_malloc(MPL_MAX(n, 1) * sizeof(struct iovec), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(iov == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "accumulate segments");
    mpi_errno = MPIR_Typerep_to_iov(addr, count, type, 0, iov, n, len, n_out, &actual_bytes);
    MPIR_ERR_CHECK(mpi_errno);
    *iov_out = iov;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The target buffer as segments (*iov, *niov: the single *one for a predefined type, else
 * an array to free) and whether each is aligned to, and a whole number of, esz-byte
 * elements: what decides between the CPU-atomic and the locked path, and which stripes
 * the lock takes. */
static int target_view(void *addr, MPI_Aint count, MPI_Datatype type, MPI_Aint len, size_t esz,
                       struct iovec *one, struct iovec **iov, MPI_Aint * niov, int *aligned)
{
    int mpi_errno = MPI_SUCCESS;

    *iov = one;
    *niov = 1;
    if (esz == 0)
        esz = 1;
    if (len == 0 || MPIR_DATATYPE_IS_PREDEFINED(type)) {
        one->iov_base = addr;
        one->iov_len = len;
    } else {
        mpi_errno = target_segments(addr, count, type, len, iov, niov);
        MPIR_ERR_CHECK(mpi_errno);
    }
    *aligned = 1;
    for (MPI_Aint i = 0; i < *niov && *aligned; i++)
        *aligned = ((uintptr_t) (*iov)[i].iov_base % esz) == 0 && (*iov)[i].iov_len % esz == 0;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_rma_acc_apply(MPIR_Win * win, void *addr, MPI_Aint count, MPI_Datatype type,
                     const void *src, MPI_Aint nelem, MPI_Datatype basic, MPI_Op op, void *old)
{
    int mpi_errno = MPI_SUCCESS;
    size_t sz = mm_win_acc_atomic(win) ? lockfree_size(basic, op) : 0;
    MPI_Aint basic_size;
    struct iovec one, *iov = &one;
    MPI_Aint niov = 1;
    int aligned = 0;

    MPIR_Datatype_get_size_macro(basic, basic_size);
    /* Memory only its owner updates needs neither the segments nor stripes. */
    if (mm_win_acc_atomic(win)) {
        mpi_errno = target_view(addr, count, type, nelem * basic_size,
                                sz ? sz : (size_t) basic_size, &one, &iov, &niov, &aligned);
        MPIR_ERR_CHECK(mpi_errno);
    }
    if (sz && aligned) {
        MPIR_op_function *uop = MPIR_OP_HDL_TO_FN(op);
        const char *s = src;
        char *o = old;

        for (MPI_Aint i = 0; i < niov; i++) {
            char *p = iov[i].iov_base;
            for (size_t k = 0; k < iov[i].iov_len; k += sz, p += sz) {
                elem_rmw(p, s, sz, basic, op, uop, o);
                if (s)
                    s += sz;
                if (o)
                    o += sz;
            }
        }
    } else {
        MPI_Aint actual;
        uint64_t stripes = acc_stripes(win, iov, niov);

        acc_lock_stripes(win, stripes);
        if (old)
            mpi_errno = MPIR_Typerep_pack(addr, count, type, 0, old, nelem * basic_size,
                                          &actual);
        if (mpi_errno == MPI_SUCCESS && op != MPI_NO_OP)
            mpi_errno = MPIR_Typerep_op((void *) src, nelem, basic, addr, count, type, op,
                                        true, -1);
        acc_unlock_stripes(win, stripes);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    if (iov != &one)
        MPL_free(iov);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_rma_cas_apply(MPIR_Win * win, void *addr, MPI_Datatype type, const void *newval,
                     const void *compare, void *old)
{
    size_t sz = mm_win_acc_atomic(win) ? lockfree_size(type, MPI_REPLACE) : 0;

    if (sz && ((uintptr_t) addr % sz) == 0) {
        switch (sz) {
#define MM_CAS(T)                                                                        \
            {                                                                            \
                T exp_, new_;                                                            \
                memcpy(&exp_, compare, sizeof(T));                                       \
                memcpy(&new_, newval, sizeof(T));                                        \
                __atomic_compare_exchange_n((T *) addr, &exp_, new_, 0, __ATOMIC_SEQ_CST,\
                                            __ATOMIC_SEQ_CST);                           \
                memcpy(old, &exp_, sizeof(T));                                           \
            }
            case 1:
                MM_CAS(uint8_t);
                break;
            case 2:
                MM_CAS(uint16_t);
                break;
            case 4:
                MM_CAS(uint32_t);
                break;
            case 8:
                MM_CAS(uint64_t);
                break;
#undef MM_CAS
        }
        return MPI_SUCCESS;
    }
    {
        MPI_Aint size;
        struct iovec one;
        uint64_t stripes;

        MPIR_Datatype_get_size_macro(type, size);
        one.iov_base = addr;
        one.iov_len = size;
        stripes = acc_stripes(win, &one, 1);
        acc_lock_stripes(win, stripes);
        memcpy(old, addr, size);
        if (MPIR_Compare_equal(compare, addr, type))
            memcpy(addr, newval, size);
        acc_unlock_stripes(win, stripes);
    }
    return MPI_SUCCESS;
}

/* --- MPI_Rmw2 (mask-swap and the compare-swaps) ---
 *
 * The same two paths: on memory other processes may update, elements of 1, 2, 4 or 8
 * bytes are one compare-and-swap loop each (the new value computed from the loaded one),
 * long double holds the accumulate lock; memory only its owner updates is plain loads and
 * stores. Element types: mask-swap takes the integer types (and MPI_BYTE); COMP_SWAP and
 * _NE any integer or floating type (floating compare, so -0.0 == 0.0); _GT/_GE/_LT/_LE
 * integer and floating types, in the type's own order (signed or unsigned). */

enum { RMW2_SINT = 1, RMW2_UINT, RMW2_FLOAT };

static int rmw2_class(MPI_Datatype t)
{
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
            return RMW2_SINT;
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
            return RMW2_UINT;
        case MPI_FLOAT:
        case MPI_DOUBLE:
        case MPI_LONG_DOUBLE:
            return RMW2_FLOAT;
        default:
            return 0;
    }
}

int mm_rma_rmw2_check(int op, MPI_Datatype basic)
{
    int cls = rmw2_class(basic);
    const char *why = NULL;

    if (op < MPI_RMW2_MASK_SWAP || op > MPI_RMW2_COMP_SWAP_NE)
        why = "not an MPI_RMW2_* operation";
    else if (cls == 0)
        why = "MPI_Rmw2 takes integer and floating types only";
    else if (op == MPI_RMW2_MASK_SWAP && cls == RMW2_FLOAT)
        why = "MPI_RMW2_MASK_SWAP takes integer types only";
    if (why == NULL)
        return MPI_SUCCESS;
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                MPI_ERR_OP, "**mm|rmwop", "**mm|rmwop %d %s", op, why);
}

/* Does the compare-swap op replace old (comparand op old)? */
#define MM_RMW2_COND(a_, o_)                                                             \
    (op == MPI_RMW2_COMP_SWAP ? (a_) == (o_) : op == MPI_RMW2_COMP_SWAP_NE ? (a_) != (o_) : \
     op == MPI_RMW2_COMP_SWAP_GT ? (a_) > (o_) : op == MPI_RMW2_COMP_SWAP_GE ? (a_) >= (o_) : \
     op == MPI_RMW2_COMP_SWAP_LT ? (a_) < (o_) : (a_) <= (o_))

#define MM_RMW2_INT(T)                                                                   \
    do {                                                                                 \
        T o_, a_, b_, n_;                                                                \
        memcpy(&o_, old, sizeof(T));                                                     \
        memcpy(&a_, a, sizeof(T));                                                       \
        memcpy(&b_, b, sizeof(T));                                                       \
        if (op == MPI_RMW2_MASK_SWAP)                                                    \
            n_ = (T) ((o_ & ~a_) | (b_ & a_));                                           \
        else                                                                             \
            n_ = MM_RMW2_COND(a_, o_) ? b_ : o_;                                         \
        memcpy(out, &n_, sizeof(T));                                                     \
    } while (0)

#define MM_RMW2_FLOAT(T)                                                                 \
    do {                                                                                 \
        T o_, a_, b_;                                                                    \
        memcpy(&o_, old, sizeof(T));                                                     \
        memcpy(&a_, a, sizeof(T));                                                       \
        memcpy(&b_, b, sizeof(T));                                                       \
        memcpy(out, MM_RMW2_COND(a_, o_) ? (const void *) b : old, sizeof(T));           \
    } while (0)

/* out = the element's new value, given its old value and the two operands. */
static void rmw2_elem(int op, MPI_Datatype basic, const void *old, const void *a,
                      const void *b, void *out)
{
    int cls = rmw2_class(basic);
    MPI_Aint sz;

    MPIR_Datatype_get_size_macro(basic, sz);
    if (cls == RMW2_FLOAT) {
        if (basic == MPI_FLOAT)
            MM_RMW2_FLOAT(float);
        else if (basic == MPI_DOUBLE)
            MM_RMW2_FLOAT(double);
        else
            MM_RMW2_FLOAT(long double);
    } else if (cls == RMW2_SINT) {
        if (sz == 1)
            MM_RMW2_INT(int8_t);
        else if (sz == 2)
            MM_RMW2_INT(int16_t);
        else if (sz == 4)
            MM_RMW2_INT(int32_t);
        else
            MM_RMW2_INT(int64_t);
    } else {
        if (sz == 1)
            MM_RMW2_INT(uint8_t);
        else if (sz == 2)
            MM_RMW2_INT(uint16_t);
        else if (sz == 4)
            MM_RMW2_INT(uint32_t);
        else
            MM_RMW2_INT(uint64_t);
    }
}

#define MM_RMW2_CAS(T)                                                                   \
    do {                                                                                 \
        T cur_ = __atomic_load_n((T *) p, __ATOMIC_SEQ_CST), new_;                       \
        do {                                                                             \
            rmw2_elem(op, basic, &cur_, a, b, &new_);                                    \
            if (new_ == cur_)                                                            \
                break;          /* nothing to write: the load was the atomic read */     \
        } while (!__atomic_compare_exchange_n((T *) p, &cur_, new_, 0, __ATOMIC_SEQ_CST, \
                                              __ATOMIC_SEQ_CST));                        \
        memcpy(o, &cur_, sizeof(T));                                                     \
    } while (0)

int mm_rma_rmw2_apply(MPIR_Win * win, void *addr, MPI_Aint count, MPI_Datatype type,
                      const void *operand, const void *operand2, MPI_Aint nelem,
                      MPI_Datatype basic, int op, void *old)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint bsz;
    size_t sz;
    struct iovec one, *iov = &one;
    MPI_Aint niov = 1;
    int aligned;
    uint64_t locked = 0;        /* the stripes held */
    const char *a = operand, *b = operand2;
    char *o = old;

    mpi_errno = mm_rma_rmw2_check(op, basic);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_Datatype_get_size_macro(basic, bsz);
    sz = (size_t) bsz;
    mpi_errno = target_view(addr, count, type, nelem * bsz, sz, &one, &iov, &niov, &aligned);
    MPIR_ERR_CHECK(mpi_errno);
    if (!mm_win_acc_atomic(win) || !aligned || lockfree_size(basic, MPI_REPLACE) == 0) {
        locked = acc_stripes(win, iov, niov);
        acc_lock_stripes(win, locked);
    }
    for (MPI_Aint i = 0; i < niov; i++) {
        char *p = iov[i].iov_base;
        for (size_t k = 0; k + sz <= iov[i].iov_len; k += sz, p += sz, a += sz, b += sz, o += sz) {
            if (locked) {
                memcpy(o, p, sz);
                rmw2_elem(op, basic, o, a, b, p);
            } else if (sz == 1) {
                MM_RMW2_CAS(uint8_t);
            } else if (sz == 2) {
                MM_RMW2_CAS(uint16_t);
            } else if (sz == 4) {
                MM_RMW2_CAS(uint32_t);
            } else {
                MM_RMW2_CAS(uint64_t);
            }
        }
    }
    if (locked)
        acc_unlock_stripes(win, locked);

  fn_exit:
    if (iov != &one)
        MPL_free(iov);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
