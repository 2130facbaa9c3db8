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
 *                window's accumulate lock (win->dev.acc_lock) is held around the whole
 *                operation. For a shared-memory window the lock lives in the segment,
 *                so every process that maps the window honours it.
 */

#include "mm_rma.h"
#include <sched.h>

static void acc_lock(volatile int *l)
{
    unsigned spins = 0;

    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(l, __ATOMIC_RELAXED))
            if (++spins % 64 == 0)
                sched_yield();
    }
}

static void acc_unlock(volatile int *l)
{
    __atomic_store_n(l, 0, __ATOMIC_RELEASE);
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

int mm_rma_acc_apply(MPIR_Win * win, void *addr, MPI_Aint count, MPI_Datatype type,
                     const void *src, MPI_Aint nelem, MPI_Datatype basic, MPI_Op op, void *old)
{
    int mpi_errno = MPI_SUCCESS;
    size_t sz = mm_win_acc_atomic(win) ? lockfree_size(basic, op) : 0;
    MPI_Aint len;
    struct iovec one, *iov = &one;
    MPI_Aint niov = 1;
    int aligned = 1;

    if (sz) {
        len = nelem * (MPI_Aint) sz;
        if (MPIR_DATATYPE_IS_PREDEFINED(type)) {
            one.iov_base = addr;
            one.iov_len = len;
        } else {
            mpi_errno = target_segments(addr, count, type, len, &iov, &niov);
            MPIR_ERR_CHECK(mpi_errno);
        }
        for (MPI_Aint i = 0; i < niov && aligned; i++)
            aligned = ((uintptr_t) iov[i].iov_base % sz) == 0 && iov[i].iov_len % sz == 0;
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
        MPI_Aint basic_size, actual;

        MPIR_Datatype_get_size_macro(basic, basic_size);
        acc_lock(win->dev.acc_lock);
        if (old)
            mpi_errno = MPIR_Typerep_pack(addr, count, type, 0, old, nelem * basic_size,
                                          &actual);
        if (mpi_errno == MPI_SUCCESS && op != MPI_NO_OP)
            mpi_errno = MPIR_Typerep_op((void *) src, nelem, basic, addr, count, type, op,
                                        true, -1);
        acc_unlock(win->dev.acc_lock);
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
        MPIR_Datatype_get_size_macro(type, size);
        acc_lock(win->dev.acc_lock);
        memcpy(old, addr, size);
        if (MPIR_Compare_equal(compare, addr, type))
            memcpy(addr, newval, size);
        acc_unlock(win->dev.acc_lock);
    }
    return MPI_SUCCESS;
}
