/*
 * mm device: MPI_Rmw and MPI_Rmw2 — element-wise atomic read-modify-write that returns
 * the old values (../shared/seeds/004 and ARCHITECTURE.md).
 *
 * Three ways to call them, by assert:
 *
 *   0               inside an access epoch that covers the target, like
 *                   MPI_Get_accumulate: MPI_Rmw is one (an MPI op per MPI_RMW_* op,
 *                   MPI_RMW_INC adding ones), MPI_Rmw2 the RMW2 operation; the result is
 *                   in place when the epoch's next synchronization completes it.
 *   IMPLICIT        a whole exclusive-lock epoch: one RMA_OP flagged
 *                   MM_RMA_HDR_IMPLICIT_LOCK; the target applies it when its lock is free
 *                   (queued in the fair lock queue like a LOCK_REQ otherwise) and answers
 *                   with the old values, so lock, operation and unlock cost one round
 *                   trip. On a window whose lock lives in shared memory
 *                   (mm_rma_lockword.c) no message at all: lock, CPU atomic, unlock. The
 *                   call returns with the result in place.
 *   IMPLICIT|NOCHECK  no lock at all: on memory this process maps (a same-node peer of an
 *                   MPI_Win_allocate(_shared) window) the operation is CPU atomics
 *                   (mm_rma_atomic.c) and sends nothing; elsewhere still one round trip.
 *
 * Every path applies the elements under the window's atomicity rule, so MPI_Rmw is
 * atomic per element with respect to MPI_Accumulate, MPI_Get_accumulate,
 * MPI_Fetch_and_op, MPI_Compare_and_swap and other MPI_Rmw calls on the same location.
 */

#include "mm_rma.h"

/* The MPI op an MPI_RMW_* op applies, or MPI_OP_NULL. */
static MPI_Op rmw_mpi_op(int op)
{
    switch (op) {
        case MPI_RMW_INC:
        case MPI_RMW_SUM:
            return MPI_SUM;
        case MPI_RMW_PROD:
            return MPI_PROD;
        case MPI_RMW_LAND:
            return MPI_LAND;
        case MPI_RMW_LOR:
            return MPI_LOR;
        case MPI_RMW_LXOR:
            return MPI_LXOR;
        case MPI_RMW_BAND:
            return MPI_BAND;
        case MPI_RMW_BOR:
            return MPI_BOR;
        case MPI_RMW_BXOR:
            return MPI_BXOR;
        case MPI_RMW_SWAP:
            return MPI_REPLACE;
        default:
            return MPI_OP_NULL;
    }
}

/* MPICH's logical ops accept floating types too; MPI allows them on integer and logical
 * types only, and so does MPI_Rmw. */
static int is_floating(MPI_Datatype t)
{
    return t == MPI_FLOAT || t == MPI_DOUBLE || t == MPI_LONG_DOUBLE ||
        t == MPI_C_FLOAT_COMPLEX || t == MPI_C_DOUBLE_COMPLEX ||
        t == MPI_C_LONG_DOUBLE_COMPLEX || t == MPI_CXX_FLOAT_COMPLEX ||
        t == MPI_CXX_DOUBLE_COMPLEX || t == MPI_CXX_LONG_DOUBLE_COMPLEX;
}

/* n elements of value one of the arithmetic type basic, for MPI_RMW_INC. */
static int ones_alloc(MPI_Datatype basic, MPI_Aint n, void **out)
{
    MPI_Aint sz;
    char *buf, one[32];

    MPIR_Datatype_get_size_macro(basic, sz);
    memset(one, 0, sizeof(one));
    switch (basic) {
#define MM_ONE(mpit, T) case mpit: { T v_ = (T) 1; memcpy(one, &v_, sizeof(T)); } break
            MM_ONE(MPI_CHAR, char);
            MM_ONE(MPI_SIGNED_CHAR, signed char);
            MM_ONE(MPI_UNSIGNED_CHAR, unsigned char);
            MM_ONE(MPI_SHORT, short);
            MM_ONE(MPI_UNSIGNED_SHORT, unsigned short);
            MM_ONE(MPI_INT, int);
            MM_ONE(MPI_UNSIGNED, unsigned);
            MM_ONE(MPI_LONG, long);
            MM_ONE(MPI_UNSIGNED_LONG, unsigned long);
            MM_ONE(MPI_LONG_LONG, long long);
            MM_ONE(MPI_UNSIGNED_LONG_LONG, unsigned long long);
            MM_ONE(MPI_INT8_T, int8_t);
            MM_ONE(MPI_INT16_T, int16_t);
            MM_ONE(MPI_INT32_T, int32_t);
            MM_ONE(MPI_INT64_T, int64_t);
            MM_ONE(MPI_UINT8_T, uint8_t);
            MM_ONE(MPI_UINT16_T, uint16_t);
            MM_ONE(MPI_UINT32_T, uint32_t);
            MM_ONE(MPI_UINT64_T, uint64_t);
            MM_ONE(MPI_AINT, MPI_Aint);
            MM_ONE(MPI_OFFSET, MPI_Offset);
            MM_ONE(MPI_COUNT, MPI_Count);
            MM_ONE(MPI_WCHAR, wchar_t);
            MM_ONE(MPI_FLOAT, float);
            MM_ONE(MPI_DOUBLE, double);
            MM_ONE(MPI_LONG_DOUBLE, long double);
            MM_ONE(MPI_C_FLOAT_COMPLEX, float);     /* real part 1, imaginary 0 */
            MM_ONE(MPI_C_DOUBLE_COMPLEX, double);
            MM_ONE(MPI_C_LONG_DOUBLE_COMPLEX, long double);
#undef MM_ONE
        default:
            return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                        MPI_ERR_OP, "**mm|rmwop", "**mm|rmwop %d %s",
                                        MPI_RMW_INC, "MPI_RMW_INC takes arithmetic types only");
    }
    MPIR_Assert(sz <= (MPI_Aint) sizeof(one));
    buf = MPL_malloc(MPL_MAX(n, 1) * sz, MPL_MEM_RMA);
    if (buf == NULL)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPI_ERR_OTHER, "**nomem", "**nomem %s", "MPI_RMW_INC ones");
    for (MPI_Aint i = 0; i < n; i++)
        memcpy(buf + i * sz, one, sz);
    *out = buf;
    return MPI_SUCCESS;
}

/* Issue a; with an implicit epoch, also wait for its answer. */
static int rmw_issue(MPIR_Win * win, mm_rma_args_t * a, int assert)
{
    int mpi_errno = MPI_SUCCESS;
    int implicit = assert & MPI_MODE_PASSIVE_EPOCH_IMPLICIT;

    MPIR_ERR_CHKANDJUMP1(assert & ~(MPI_MODE_PASSIVE_EPOCH_IMPLICIT | MPI_MODE_NOCHECK),
                         mpi_errno, MPI_ERR_ASSERT, "**mm|rmwassert", "**mm|rmwassert %d",
                         assert);
    MPIR_ERR_CHKANDJUMP1((assert & MPI_MODE_NOCHECK) && !implicit, mpi_errno, MPI_ERR_ASSERT,
                         "**mm|rmwassert", "**mm|rmwassert %d", assert);
    MPIR_ERR_CHKANDJUMP1(a->result == NULL && a->rcount > 0, mpi_errno, MPI_ERR_BUFFER,
                         "**nullptr", "**nullptr %s", "result_addr");
    if (!implicit)
        return mm_rma_issue(win, a, NULL);

    if ((win->dev.access != MM_ACCESS_NONE && win->dev.access != MM_ACCESS_FENCE_OPEN) ||
        win->dev.peers[a->target].lock != MM_PEER_UNLOCKED)
        return mm_rma_sync_error(__func__, "MPI_MODE_PASSIVE_EPOCH_IMPLICIT while this "
                                 "process holds an access epoch on the window");
    a->implicit = 1;
    if (!(assert & MPI_MODE_NOCHECK) && win->dev.peers[a->target].lockword) {
        /* The lock is in shared memory and the target's memory is ours to touch: the
         * whole epoch happens here, without a message. */
        void *lw = win->dev.peers[a->target].lockword;
        int err;

        mpi_errno = mm_rma_lockword_acquire(lw, MPI_LOCK_EXCLUSIVE);
        MPIR_ERR_CHECK(mpi_errno);
        mpi_errno = mm_rma_issue(win, a, NULL);
        err = mm_rma_flush_wait(win, a->target);
        mm_rma_lockword_release(lw, MPI_LOCK_EXCLUSIVE);
        if (mpi_errno == MPI_SUCCESS)
            mpi_errno = err;
        goto fn_exit;
    }
    if (!(assert & MPI_MODE_NOCHECK))
        a->hdr_flags |= MM_RMA_HDR_IMPLICIT_LOCK;
    mpi_errno = mm_rma_issue(win, a, NULL);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = mm_rma_flush_wait(win, a->target);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The size of a C integer type of 4 or 8 bytes (add, and, or, xor and exchange are then
 * one CPU instruction, whatever the signedness), else 0. */
static size_t word_int_size(MPI_Datatype t)
{
    MPI_Aint sz;

    switch (t) {
        case MPI_INT:
        case MPI_UNSIGNED:
        case MPI_LONG:
        case MPI_UNSIGNED_LONG:
        case MPI_LONG_LONG:
        case MPI_UNSIGNED_LONG_LONG:
        case MPI_INT32_T:
        case MPI_UINT32_T:
        case MPI_INT64_T:
        case MPI_UINT64_T:
        case MPI_AINT:
        case MPI_OFFSET:
        case MPI_COUNT:
            MPIR_Datatype_get_size_macro(t, sz);
            return (sz == 4 || sz == 8) ? (size_t) sz : 0;
        default:
            return 0;
    }
}

#define MM_RMW_WORD(T)                                                                   \
    do {                                                                                 \
        T *p_ = (T *) addr, v_ = 1, o_;                                                  \
        if (op != MPI_RMW_INC)                                                           \
            memcpy(&v_, operand_addr, sizeof(T));                                        \
        switch (op) {                                                                    \
            case MPI_RMW_INC: case MPI_RMW_SUM:                                          \
                o_ = __atomic_fetch_add(p_, v_, __ATOMIC_SEQ_CST); break;                \
            case MPI_RMW_BAND: o_ = __atomic_fetch_and(p_, v_, __ATOMIC_SEQ_CST); break; \
            case MPI_RMW_BOR: o_ = __atomic_fetch_or(p_, v_, __ATOMIC_SEQ_CST); break;   \
            case MPI_RMW_BXOR: o_ = __atomic_fetch_xor(p_, v_, __ATOMIC_SEQ_CST); break; \
            default: o_ = __atomic_exchange_n(p_, v_, __ATOMIC_SEQ_CST); break;          \
        }                                                                                \
        memcpy(result_addr, &o_, sizeof(T));                                             \
    } while (0)

/* The same on a window whose words the device updates (mm_rma_nic.c), for a target
 * reached through the device's method: one network fetch-and-add (INC, SUM), or a
 * compare-and-swap loop, done by the target's HCA without its CPU. Returns 1 if it did
 * the operation (its error in *errp). */
static uint64_t rmw_word_new(uint64_t cur, const void *ctx)
{
    const uint64_t *c = ctx;    /* {op, operand} */

    return c[0] == MPI_RMW_BAND ? (cur & c[1]) : c[0] == MPI_RMW_BOR ? (cur | c[1]) :
        c[0] == MPI_RMW_BXOR ? (cur ^ c[1]) : c[1];
}

static int rmw_word_nic(const void *operand_addr, void *result_addr, int target_rank,
                        MPI_Aint target_disp, int op, MPIR_Win * win, int *errp)
{
    uint64_t c[2] = { (uint64_t) op, 1 }, old;
    int done;

    if (op != MPI_RMW_INC)
        memcpy(&c[1], operand_addr, sizeof(c[1]));
    if (op == MPI_RMW_INC || op == MPI_RMW_SUM)
        *errp = mm_rma_nic_remote(win, target_rank, target_disp, MM_ATOMIC_FADD, c[1], 0, &old,
                                  &done);
    else
        *errp = mm_rma_nic_remote_update(win, target_rank, target_disp, rmw_word_new, c, &old,
                                         &done);
    if (*errp == MPI_SUCCESS && done)
        memcpy(result_addr, &old, sizeof(old));
    return *errp != MPI_SUCCESS || done;
}

/* What MPI_MODE_PASSIVE_EPOCH_IMPLICIT | MPI_MODE_NOCHECK exists for: one integer word in
 * a node segment this process maps, updated with one atomic instruction: a reader of the
 * atomicity rule (mm_rma_atomic.c), entered here without the general machinery; or, on a
 * window whose words the device updates, one network atomic (rmw_word_nic).
 * Returns 1 if it did the operation (its error in *errp). */
static int rmw_word_fast(const void *operand_addr, int count, MPI_Datatype datatype,
                         void *result_addr, int target_rank, MPI_Aint target_disp,
                         int assert, int op, MPIR_Win * win, int *errp)
{
    size_t sz;
    char *addr;
    int stripe;

    *errp = MPI_SUCCESS;
    if (assert != (MPI_MODE_PASSIVE_EPOCH_IMPLICIT | MPI_MODE_NOCHECK) || count != 1 ||
        result_addr == NULL || (!mm_win_acc_atomic(win) && win->dev.nic == NULL))
        return 0;
    if (op != MPI_RMW_INC && op != MPI_RMW_SUM && op != MPI_RMW_BAND && op != MPI_RMW_BOR &&
        op != MPI_RMW_BXOR && op != MPI_RMW_SWAP)
        return 0;
    if ((op != MPI_RMW_INC && operand_addr == NULL) || (sz = word_int_size(datatype)) == 0)
        return 0;
    if ((win->dev.access != MM_ACCESS_NONE && win->dev.access != MM_ACCESS_FENCE_OPEN) ||
        win->dev.peers[target_rank].lock != MM_PEER_UNLOCKED)
        return 0;       /* the general path reports the epoch error */
    if (win->dev.nic && sz == 8)
        /* the device's word: never a CPU atomic (a mapped or own target takes the general
         * path, which applies it through the device) */
        return rmw_word_nic(operand_addr, result_addr, target_rank, target_disp, op, win,
                            errp);
    if (!mm_win_acc_atomic(win))
        return 0;
    addr = mm_rma_mapped_range(&win->dev.peers[target_rank], target_disp, (MPI_Aint) sz);
    if (addr == NULL || ((uintptr_t) addr & (sz - 1)) != 0)    /* sz is 4 or 8 */
        return 0;       /* range errors and unaligned words: the general path */
    stripe = mm_acc_reader_enter(win, addr);
    if (sz == 4)
        MM_RMW_WORD(uint32_t);
    else
        MM_RMW_WORD(uint64_t);
    mm_acc_reader_exit(win, stripe);
    return 1;
}

static int rmw_general(const void *operand_addr, int count, MPI_Datatype datatype,
                       void *result_addr, int target_rank, MPI_Aint target_disp, int assert,
                       int op, MPIR_Win * win);

int MPID_Rmw(const void *operand_addr, int count, MPI_Datatype datatype, void *result_addr,
             int target_rank, MPI_Aint target_disp, int assert, int op, MPIR_Win * win)
{
    /* The one-word case first, before any of the general path's setup (an argument
     * block to fill, the op and type lookups): it is the call's reason to exist. */
    int mpi_errno;

    if (rmw_word_fast(operand_addr, count, datatype, result_addr, target_rank, target_disp,
                      assert, op, win, &mpi_errno))
        return mpi_errno ? mpi_errno : mm_rma_direct_tick();
    return rmw_general(operand_addr, count, datatype, result_addr, target_rank, target_disp,
                       assert, op, win);
}

static int rmw_general(const void *operand_addr, int count, MPI_Datatype datatype,
                       void *result_addr, int target_rank, MPI_Aint target_disp, int assert,
                       int op, MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Op mop = rmw_mpi_op(op);
    MPI_Datatype basic = mm_rma_basic_type(datatype);
    void *ones = NULL;
    mm_rma_args_t a = {.op = MM_RMA_GET_ACC,.origin = operand_addr,.ocount = count,
        .otype = datatype,.result = result_addr,.rcount = count,.rtype = datatype,
        .target = target_rank,.tdisp = target_disp,.tcount = count,.ttype = datatype,
        .acc_op = mop
    };

    MPIR_ERR_CHKANDJUMP2(mop == MPI_OP_NULL, mpi_errno, MPI_ERR_OP, "**mm|rmwop",
                         "**mm|rmwop %d %s", op, "not an MPI_RMW_* operation");
    MPIR_ERR_CHKANDJUMP2((op == MPI_RMW_LAND || op == MPI_RMW_LOR || op == MPI_RMW_LXOR) &&
                         is_floating(basic), mpi_errno, MPI_ERR_OP, "**mm|rmwop",
                         "**mm|rmwop %d %s", op,
                         "logical operations take integer and logical types only");
    mpi_errno = (*MPIR_OP_HDL_TO_DTYPE_FN(mop)) (basic);
    MPIR_ERR_CHECK(mpi_errno);
    if (op == MPI_RMW_INC) {
        MPI_Aint size, bsize;

        MPIR_Datatype_get_size_macro(datatype, size);
        MPIR_Datatype_get_size_macro(basic, bsize);
        mpi_errno = ones_alloc(basic, count * size / bsize, &ones);
        MPIR_ERR_CHECK(mpi_errno);
        a.origin = ones;
        a.ocount = count * size / bsize;
        a.otype = basic;
        a.copy_origin = 1;      /* ones goes before the operation completes */
    } else {
        MPIR_ERR_CHKANDJUMP1(operand_addr == NULL && count > 0, mpi_errno, MPI_ERR_BUFFER,
                             "**nullptr", "**nullptr %s", "operand_addr");
    }
    mpi_errno = rmw_issue(win, &a, assert);

  fn_exit:
    MPL_free(ones);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Rmw2(const void *operand_addr, int count, MPI_Datatype datatype,
              const void *operand2_addr, void *result_addr, int target_rank,
              MPI_Aint target_disp, int assert, int op, MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;
    mm_rma_args_t a = {.op = MM_RMA_RMW2,.origin = operand_addr,.ocount = count,
        .otype = datatype,.compare = operand2_addr,.result = result_addr,.rcount = count,
        .rtype = datatype,.target = target_rank,.tdisp = target_disp,.tcount = count,
        .ttype = datatype,.acc_op = op
    };

    mpi_errno = mm_rma_rmw2_check(op, mm_rma_basic_type(datatype));
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERR_CHKANDJUMP1((operand_addr == NULL || operand2_addr == NULL) && count > 0,
                         mpi_errno, MPI_ERR_BUFFER, "**nullptr", "**nullptr %s",
                         operand_addr == NULL ? "operand_addr" : "operand2_addr");
    mpi_errno = rmw_issue(win, &a, assert);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
