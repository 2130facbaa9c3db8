/*
 * mm device: RMA operations on memory this process maps — a same-node member of an
 * MPI_Win_allocate or MPI_Win_allocate_shared window, or the origin's own part of any
 * window but a dynamic one.
 *
 * Such an operation is a load/store done by the origin: no packet, no answer, nothing
 * for the target's progress engine to do, and it is complete when it returns (so flush
 * has nothing to wait for). The epoch rules are the same as for the messages (checked by
 * the caller), and the lock of MPI_Win_lock still orders our accesses with those of every
 * other origin: granted by the target, or, when every member maps every other, taken in
 * the segment itself (mm_rma_lockword.c).
 *
 * Accumulates go through mm_rma_acc_apply like the ones the target applies for remote
 * origins: on a node segment the CPU-atomic or segment-lock path, chosen per (type, op),
 * so an update made here and one applied there for a tcp peer never race.
 */

#include "mm_rma.h"

unsigned mm_rma_direct_count;

/* Does the target buffer (count x type at displacement tdisp) lie inside the target's
 * memory? Every quantity here comes from the user's arguments (a displacement of 2^62, a
 * count whose extent wraps): the offsets from the segment's base are computed in 64-bit
 * integers with overflow checks, never as pointers that could wrap around the address
 * space and land back inside the segment. */
static int direct_range_ok(const mm_win_peer_t * peer, MPI_Aint tdisp, MPI_Aint count,
                           MPI_Datatype type)
{
    int64_t off, lo, hi, span;
    MPI_Aint size, extent, true_lb, true_extent;

    if (count == 0)
        return 1;
    if (count < 0 || __builtin_mul_overflow((int64_t) tdisp, (int64_t) peer->shm_disp_unit,
                                            &off))
        return 0;
    if (HANDLE_IS_BUILTIN(type)) {
        MPIR_Datatype_get_size_macro(type, size);
        lo = 0;
        if (__builtin_mul_overflow((int64_t) count, (int64_t) size, &hi))
            return 0;
    } else {
        MPIR_Datatype_get_extent_macro(type, extent);
        MPIR_Type_get_true_extent_impl(type, &true_lb, &true_extent);
        if (__builtin_mul_overflow((int64_t) count - 1, (int64_t) extent, &span) ||
            __builtin_add_overflow((int64_t) true_lb, span < 0 ? span : 0, &lo) ||
            __builtin_add_overflow((int64_t) true_lb + true_extent, span > 0 ? span : 0, &hi))
            return 0;
    }
    return !__builtin_add_overflow(off, lo, &lo) && !__builtin_add_overflow(off, hi, &hi) &&
        lo >= 0 && hi <= (int64_t) peer->shm_size;
}

/* The bytes of (buf, count, type) as one contiguous block: the buffer itself when it is
 * contiguous (*tmp = NULL), else a staging buffer of len bytes (*tmp, to free) — packed
 * from the buffer if pack is set (origin data), else to be unpacked into it afterwards
 * (results). */
static int flat_view(const void *buf, MPI_Aint count, MPI_Datatype type, MPI_Aint len,
                     int pack, char **view, void **tmp)
{
    int contig;
    MPI_Aint true_lb, actual;

    *tmp = NULL;
    MPIR_Datatype_is_contig(type, &contig);
    if (contig) {
        MPIR_Datatype_get_true_lb(type, &true_lb);
        *view = (char *) buf + true_lb;
        return MPI_SUCCESS;
    }
    *tmp = MPL_malloc(len, MPL_MEM_RMA);
    if (*tmp == NULL)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPI_ERR_OTHER, "**nomem", "**nomem %s",
                                    "RMA staging buffer");
    *view = *tmp;
    return pack ? MPIR_Typerep_pack(buf, count, type, 0, *tmp, len, &actual) : MPI_SUCCESS;
}

static int packed_view(const void *buf, MPI_Aint count, MPI_Datatype type, MPI_Aint len,
                       const char **view, void **tmp)
{
    return flat_view(buf, count, type, len, 1, (char **) view, tmp);
}

static int result_view(void *buf, MPI_Aint count, MPI_Datatype type, MPI_Aint len,
                       char **view, void **tmp)
{
    return flat_view(buf, count, type, len, 0, view, tmp);
}

int mm_rma_direct(MPIR_Win * win, const mm_rma_args_t * a, MPI_Datatype basic,
                  MPI_Aint data_len, MPI_Aint result_len)
{
    int mpi_errno = MPI_SUCCESS;
    const mm_win_peer_t *peer = &win->dev.peers[a->target];
    char *addr;
    void *src_tmp = NULL, *res = NULL;
    const char *src = NULL;
    char *rview = NULL;
    MPI_Aint basic_size, actual;

    MPIR_ERR_CHKANDJUMP2(!direct_range_ok(peer, a->tdisp, a->tcount, a->ttype), mpi_errno,
                         MPI_ERR_RMA_RANGE, "**mm|rmarange", "**mm|rmarange %d %L",
                         a->target, (long long) a->tdisp);
    addr = (char *) peer->shm_base + a->tdisp * peer->shm_disp_unit;   /* checked above */
    win->dev.acc_unfenced = 1;  /* plain stores, or loads a later flush orders */
    switch (a->op) {
        case MM_RMA_PUT:
            mpi_errno = MPIR_Localcopy(a->origin, a->ocount, a->otype, addr, a->tcount,
                                       a->ttype);
            break;
        case MM_RMA_GET:
            mpi_errno = MPIR_Localcopy(addr, a->tcount, a->ttype, a->result, a->rcount,
                                       a->rtype);
            break;
        case MM_RMA_ACC:
        case MM_RMA_GET_ACC:
            if (data_len > 0) {
                mpi_errno = packed_view(a->origin, a->ocount, a->otype, data_len, &src,
                                        &src_tmp);
                MPIR_ERR_CHECK(mpi_errno);
            }
            if (result_len > 0) {
                mpi_errno = result_view(a->result, a->rcount, a->rtype, result_len, &rview,
                                        &res);
                MPIR_ERR_CHECK(mpi_errno);
            }
            MPIR_Datatype_get_size_macro(basic, basic_size);
            mpi_errno = mm_rma_acc_apply(win, addr, a->tcount, a->ttype, src,
                                         MPL_MAX(data_len, result_len) / basic_size, basic,
                                         a->acc_op, rview);
            MPIR_ERR_CHECK(mpi_errno);
            if (res)
                mpi_errno = MPIR_Typerep_unpack(res, result_len, a->result, a->rcount,
                                                a->rtype, 0, &actual);
            break;
        case MM_RMA_RMW2:
            {
                void *src2_tmp = NULL;
                const char *src2 = NULL;
                MPI_Aint half = data_len / 2;

                mpi_errno = packed_view(a->origin, a->ocount, a->otype, half, &src, &src_tmp);
                MPIR_ERR_CHECK(mpi_errno);
                mpi_errno = packed_view(a->compare, a->ocount, a->otype, half, &src2,
                                        &src2_tmp);
                MPIR_ERR_CHECK(mpi_errno);
                res = MPL_malloc(MPL_MAX(result_len, 1), MPL_MEM_RMA);
                if (res == NULL) {
                    MPL_free(src2_tmp);
                    MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                                         "RMA result staging buffer");
                }
                MPIR_Datatype_get_size_macro(basic, basic_size);
                mpi_errno = mm_rma_rmw2_apply(win, addr, a->tcount, a->ttype, src, src2,
                                              half / basic_size, basic, a->acc_op, res);
                MPL_free(src2_tmp);
                MPIR_ERR_CHECK(mpi_errno);
                mpi_errno = MPIR_Typerep_unpack(res, result_len, a->result, a->rcount,
                                                a->rtype, 0, &actual);
            }
            break;
        case MM_RMA_CAS:
            mpi_errno = mm_rma_cas_apply(win, addr, a->ttype, a->origin, a->compare,
                                         a->result);
            break;
    }
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = mm_rma_direct_tick();

  fn_exit:
    MPL_free(src_tmp);
    MPL_free(res);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The target buffer of count elements of the predefined type at disp, if the fast paths
 * below may take the operation: mapped memory, in range, in an epoch that covers it. */
static char *fast_target(MPIR_Win * win, MPI_Datatype type, MPI_Aint count, int target,
                         MPI_Aint disp)
{
    MPI_Aint esz;
    char *addr;

    if (!HANDLE_IS_BUILTIN(type))
        return NULL;
    MPIR_Datatype_get_size_macro(type, esz);
    if (esz <= 0 || count > MPIR_AINT_MAX / esz)
        return NULL;
    addr = mm_rma_mapped_range(&win->dev.peers[target], disp, count * esz);
    return addr && mm_rma_epoch_allows(win, target) ? addr : NULL;
}

/* The accumulate family in its commonest form: one predefined type for origin, result and
 * target, one count, a target this process maps, inside an epoch that covers it. Nothing
 * here needs the general path's datatype queries, staging buffers or request, so it goes
 * straight to mm_rma_acc_apply; that is most of a small accumulate's cost (issue 18).
 * Returns 1 if it did the operation (its result in *errp), 0 for the general path, which
 * also reports every error of the arguments (range, epoch). */
int mm_rma_acc_direct_fast(MPIR_Win * win, const void *origin, void *result, MPI_Aint count,
                           MPI_Datatype type, int target, MPI_Aint disp, MPI_Op op, int *errp)
{
    char *addr;

    if (count <= 0 || (addr = fast_target(win, type, count, target, disp)) == NULL)
        return 0;
    *errp = mm_rma_acc_apply(win, addr, count, type, op == MPI_NO_OP ? NULL : origin, count,
                             type, op, result);
    if (*errp == MPI_SUCCESS)
        *errp = mm_rma_direct_tick();
    return 1;
}

/* MPI_Compare_and_swap the same way. */
int mm_rma_cas_direct_fast(MPIR_Win * win, const void *origin, const void *compare,
                           void *result, MPI_Datatype type, int target, MPI_Aint disp,
                           int *errp)
{
    char *addr = fast_target(win, type, 1, target, disp);

    if (addr == NULL)
        return 0;
    *errp = mm_rma_cas_apply(win, addr, type, origin, compare, result);
    if (*errp == MPI_SUCCESS)
        *errp = mm_rma_direct_tick();
    return 1;
}
