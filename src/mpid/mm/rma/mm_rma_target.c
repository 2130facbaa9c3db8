/*
 * mm device: the target side of RMA — applying operations that arrive, and the window
 * lock every origin takes with MPI_Win_lock / MPI_Win_lock_all.
 *
 * Operations are applied by this process's progress engine when their packet is
 * complete, so a target serves them whenever it is inside any MPI call; a target that
 * never calls MPI holds its origins in their flush, unlock or fence (see README).
 *
 * The lock is granted in arrival order from one FIFO queue: a request is granted at once
 * only when nobody waits before it and it is compatible with the holders (shared with
 * shared), so a stream of shared requests cannot starve an exclusive one. (A window whose
 * every member maps every other keeps its locks in shared memory instead and never sends
 * lock requests: mm_rma_lockword.c.)
 */

#include "mm_rma.h"

typedef struct mm_rma_rx {
    mm_car_t car;
    mm_pkt_t pkt;
    char buf[];                 /* the packet's payload: mm_rma_hdr_t, datatype, data */
} mm_rma_rx_t;

/* The window a packet names, and a check that its sender really is that rank. */
static int pkt_window(mm_vc_t * vc, const mm_pkt_t * pkt, MPIR_Win ** win_out)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Win *win = mm_win_lookup(pkt->context_id);

    MPIR_ERR_CHKANDJUMP2(win == NULL, mpi_errno, MPI_ERR_OTHER, "**mm|rmawin",
                         "**mm|rmawin %d %d", vc->lpid, (int) pkt->context_id);
    MPIR_ERR_CHKANDJUMP3(pkt->rank < 0 || pkt->rank >= win->comm_ptr->local_size ||
                         mm_comm_lpid(win->comm_ptr, pkt->rank) != vc->lpid, mpi_errno,
                         MPI_ERR_OTHER, "**mm|badpkt", "**mm|badpkt %d %d %d", vc->lpid,
                         pkt->version, pkt->kind);
    *win_out = win;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Bytes of the window an operation may target: its memory (dynamic: what is attached). */
static uint64_t win_capacity(MPIR_Win * win)
{
    uint64_t sum = 0;

    if (win->create_flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return (uint64_t) win->size;
    for (mm_win_region_t * r = win->dev.regions; r; r = r->next)
        sum += (uint64_t) r->size;
    return sum;
}

int mm_rma_handle_op(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Win *win;
    mm_rma_rx_t *rx;
    uint64_t most;

    mpi_errno = pkt_window(vc, pkt, &win);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERR_CHKANDJUMP3(pkt->data_sz < sizeof(mm_rma_hdr_t), mpi_errno, MPI_ERR_OTHER,
                         "**mm|badpkt", "**mm|badpkt %d %d %d", vc->lpid, pkt->version,
                         pkt->kind);
    /* An operation carries its header, its footprint and at most twice its target buffer
     * (CAS and Rmw2 carry two operands), which lies in the window: anything bigger is not
     * an operation on this window, and is refused before anything is allocated for it.
     * (The envelope check capped data_sz at MM_MSG_MAX: these sums do not wrap.) */
    most = sizeof(mm_rma_hdr_t) + (uint64_t) MM_RMA_NSEG_MAX * sizeof(mm_rma_seg_t) +
        2 * MPL_MIN(win_capacity(win), MM_MSG_MAX);
    MPIR_ERR_CHKANDJUMP3(pkt->data_sz > most, mpi_errno, MPI_ERR_OTHER, "**mm|toolarge",
                         "**mm|toolarge %d %d %L", vc->lpid, (int) pkt->kind,
                         (long long) pkt->data_sz);
    rx = MPL_malloc(sizeof(mm_rma_rx_t) + pkt->data_sz, MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(rx == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "incoming RMA operation");
    memset(&rx->car, 0, sizeof(rx->car));
    rx->pkt = *pkt;
    rx->car.kind = MM_CAR_DATA;
    rx->car.dir = MM_CAR_READ;
    rx->car.done = mm_rma_op_payload_done;
    rx->car.vc = vc;
    mm_buf_init_contig(&rx->car.buf, rx->buf, pkt->data_sz);
    mpi_errno = mm_car_post(&rx->car);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Is t, a handle off the wire, one of the job's predefined datatypes (the same constants in
 * every process), with a size? Anything else must not reach MPICH's datatype macros, which
 * index tables by it and assert. The decoder's view of a predefined type (mm_rma_wire.h). */
static int wire_type_info(int32_t wt, mm_rma_wire_type_t * info)
{
    MPI_Datatype t = (MPI_Datatype) wt;
    MPI_Aint size, extent, true_lb, true_extent;
    int index;

    if (HANDLE_GET_MPI_KIND(t) != MPIR_DATATYPE)
        return 0;
    if (HANDLE_GET_KIND(t) == HANDLE_KIND_BUILTIN)
        index = t & 0xff;
    else if (HANDLE_GET_KIND(t) == HANDLE_KIND_DIRECT && HANDLE_INDEX(t) < MPIR_DATATYPE_PAIRTYPE)
        index = HANDLE_INDEX(t) + MPIR_DATATYPE_N_BUILTIN;
    else
        return 0;
    if (index >= MPIR_DATATYPE_N_PREDEFINED || MPIR_Datatype_index_to_predefined[index] != t)
        return 0;
    MPIR_Datatype_get_size_macro(t, size);
    if (size <= 0)
        return 0;
    MPIR_Datatype_get_extent_macro(t, extent);
    MPIR_Type_get_true_extent_impl(t, &true_lb, &true_extent);
    if (true_lb != 0 || extent < size || true_extent < size)
        return 0;
    info->size = (uint64_t) size;
    info->extent = (uint64_t) extent;
    info->true_extent = (uint64_t) true_extent;
    return 1;
}

/* The error class an answer carries for a decoder's refusal. */
static int wire_errclass(mm_wire_err_t err)
{
    switch (err) {
        case MM_WIRE_OK:
            return 0;
        case MM_WIRE_TYPE:
            return MPI_ERR_TYPE;
        case MM_WIRE_COUNT:
            return MPI_ERR_COUNT;
        case MM_WIRE_TRUNCATE:
            return MPI_ERR_TRUNCATE;
        case MM_WIRE_OP:
            return MPI_ERR_OP;
        default:
            return MPI_ERR_OTHER;
    }
}

/* Where the operation's target buffer starts, and whether [lo, hi) from there is all in the
 * window. The displacement, count and footprint come off the wire: nothing may wrap. */
/* base + off for a signed offset off the wire, or 0 if that leaves the address space. (A
 * footprint below its target address, a vector of negative stride, has lo < 0: an unsigned
 * add of the converted offset always "overflows", which refused every such operation.) */
static int addr_offset(uintptr_t base, int64_t off, uintptr_t * out)
{
    uintptr_t below;

    if (off >= 0)
        return !__builtin_add_overflow(base, (uintptr_t) off, out);
    below = (uintptr_t) 0 - (uintptr_t) off;   /* |off|, INT64_MIN included */
    if (below > base)
        return 0;
    *out = base - below;
    return 1;
}

static int target_addr(MPIR_Win * win, const mm_rma_op_view_t * v, char **addr_out)
{
    uintptr_t base, first, end;
    MPI_Aint off;

    if (win->create_flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        base = (uintptr_t) v->hdr.target_disp;
    } else {
        if (__builtin_mul_overflow((MPI_Aint) v->hdr.target_disp, (MPI_Aint) win->disp_unit,
                                   &off) ||
            __builtin_add_overflow((uintptr_t) win->base, (uintptr_t) off, &base))
            return 0;
    }
    *addr_out = (char *) base;
    if (v->hi <= v->lo)
        return 1;       /* nothing is touched */
    if (!addr_offset(base, v->lo, &first) || !addr_offset(base, v->hi, &end) || end < first)
        return 0;
    return mm_win_range_ok(win, (const char *) first, (MPI_Aint) (end - first));
}

/* The blocks of a footprint at addr, covering its first `bytes` bytes: iovecs the apply
 * loops take. The decoder bounded the number of blocks by the bytes the operation moves. */
static int footprint_iov(char *addr, const mm_rma_op_view_t * v, uint64_t bytes,
                         struct iovec **iov_out, MPI_Aint * niov_out)
{
    int mpi_errno = MPI_SUCCESS;
    size_t n;
    struct iovec *iov;

    iov = MPL_malloc(MPL_MAX(MPL_MIN(v->blocks, bytes), 1) * sizeof(struct iovec), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(iov == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "RMA target blocks");
    n = mm_rma_wire_blocks(v, addr, bytes, iov);
    *iov_out = iov;
    *niov_out = (MPI_Aint) n;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Copy between packed bytes and the blocks: in (packed -> blocks, a put) or out. */
static void blocks_copy(const struct iovec *iov, MPI_Aint niov, char *packed, int in)
{
    for (MPI_Aint i = 0; i < niov; i++) {
        if (in)
            memcpy(iov[i].iov_base, packed, iov[i].iov_len);
        else
            memcpy(packed, iov[i].iov_base, iov[i].iov_len);
        packed += iov[i].iov_len;
    }
}

/* A PUT is a send to the target buffer: as with a receive, a payload shorter than the
 * buffer is fine, one longer than it stores what fits and fails with MPI_ERR_TRUNCATE, and
 * one that ends inside an element stores the whole elements and fails with MPI_ERR_TYPE
 * (what MPIR_Localcopy does on the direct path). */
static int put_apply(const mm_rma_op_view_t * v, char *addr, int *errclass)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint actual = 0, niov;
    uint64_t fits = MPL_MIN(v->hdr.data_len, v->tsize);
    struct iovec *iov = NULL;

    if (v->hdr.nseg == 0) {
        mpi_errno = MPIR_Typerep_unpack(v->data, (MPI_Aint) fits, addr, v->hdr.target_count,
                                        v->hdr.target_type, 0, &actual);
        MPIR_ERR_CHECK(mpi_errno);
    } else {
        if (v->bsize)
            fits -= fits % v->bsize;
        mpi_errno = footprint_iov(addr, v, fits, &iov, &niov);
        MPIR_ERR_CHECK(mpi_errno);
        blocks_copy(iov, niov, (char *) v->data, 1);
        actual = (MPI_Aint) fits;
    }
    if (v->hdr.data_len > v->tsize)
        *errclass = MPI_ERR_TRUNCATE;
    else if ((uint64_t) actual != v->hdr.data_len)
        *errclass = MPI_ERR_TYPE;

  fn_exit:
    MPL_free(iov);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Apply one decoded operation at addr (checked against the window); *result (malloc'ed,
 * result_len bytes) is what the answer carries. */
static int op_apply(MPIR_Win * win, const mm_rma_op_view_t * v, char *addr, void **result,
                    int *errclass)
{
    int mpi_errno = MPI_SUCCESS;
    const mm_rma_hdr_t *hdr = &v->hdr;
    MPI_Datatype type = hdr->target_type, basic = hdr->basic_type;
    MPI_Aint actual, nelem = 0, niov = 0;
    struct iovec *iov = NULL;
    const char *src;
    void *res = NULL;

    if (hdr->result_len > 0) {
        res = MPL_malloc(hdr->result_len, MPL_MEM_RMA);
        MPIR_ERR_CHKANDJUMP1(res == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                             "RMA answer");
    }
    if (v->bsize)
        nelem = (MPI_Aint) ((hdr->op == MM_RMA_RMW2 ? hdr->data_len / 2 :
                             MPL_MAX(hdr->data_len, hdr->result_len)) / v->bsize);
    if (hdr->nseg > 0 && hdr->op != MM_RMA_PUT) {
        mpi_errno = footprint_iov(addr, v, hdr->op == MM_RMA_GET ? hdr->result_len :
                                  (uint64_t) nelem * v->bsize, &iov, &niov);
        MPIR_ERR_CHECK(mpi_errno);
    }
    switch (hdr->op) {
        case MM_RMA_PUT:
            mpi_errno = put_apply(v, addr, errclass);
            break;
        case MM_RMA_GET:
            if (hdr->nseg == 0)
                mpi_errno = MPIR_Typerep_pack(addr, hdr->target_count, type, 0, res,
                                              hdr->result_len, &actual);
            else
                blocks_copy(iov, niov, res, 0);
            break;
        case MM_RMA_ACC:
        case MM_RMA_GET_ACC:
            /* The operand: none for MPI_NO_OP (its origin sends none; NULL, as on the
             * direct path), else one element for each element combined. The kernels read
             * nelem of them, so a shorter operand would be read past the packet's end. */
            src = hdr->acc_op == MPI_NO_OP ? NULL : v->data;
            if (src && hdr->data_len != (uint64_t) nelem * v->bsize) {
                *errclass = MPI_ERR_TRUNCATE;
                break;
            }
            if (hdr->nseg == 0)
                mpi_errno = mm_rma_acc_apply(win, addr, hdr->target_count, type, src, nelem,
                                             basic, hdr->acc_op, res);
            else
                mpi_errno = mm_rma_acc_apply_blocks(win, iov, niov, src, nelem, basic,
                                                    hdr->acc_op, res);
            break;
        case MM_RMA_CAS:
            mpi_errno = mm_rma_cas_apply(win, addr, type, v->data, v->data + hdr->data_len / 2,
                                         res);
            break;
        case MM_RMA_RMW2:
            if (hdr->nseg == 0)
                mpi_errno = mm_rma_rmw2_apply(win, addr, hdr->target_count, type, v->data,
                                              v->data + hdr->data_len / 2, nelem, basic,
                                              hdr->acc_op, res);
            else
                mpi_errno = mm_rma_rmw2_apply_blocks(win, iov, niov, v->data,
                                                     v->data + hdr->data_len / 2, nelem, basic,
                                                     hdr->acc_op, res);
            break;
    }
    if (mpi_errno)
        *errclass = MPIR_ERR_GET_CLASS(mpi_errno);

  fn_exit:
    MPL_free(iov);
    *result = res;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Apply a complete, decoded operation, answer it, and free it. A failure to apply is the
 * origin's error, reported in the answer; the target goes on. */
static int op_execute(MPIR_Win * win, mm_rma_rx_t * rx, const mm_rma_op_view_t * v)
{
    int mpi_errno = MPI_SUCCESS;
    void *result = NULL, *copy = NULL;
    int errclass = 0;
    char *addr;
    mm_rma_op_view_t moved;

    /* The operand sits in the packet after the header and the footprint, 8 bytes past a
     * 16-byte boundary (a 56-byte header, 32-byte segments): right for every type up to
     * double, not for long double and its complex forms, which want 16 (UBSan caught
     * MPICH's MPI_SUM reading one in place). Those are copied out first. */
    if (v->data && v->hdr.data_len > 0 && v->bsize >= 16 && ((uintptr_t) v->data & 15)) {
        copy = MPL_malloc(v->hdr.data_len, MPL_MEM_RMA);
        if (copy == NULL)
            errclass = MPI_ERR_NO_MEM;
        else {
            memcpy(copy, v->data, v->hdr.data_len);
            moved = *v;
            moved.data = copy;
            v = &moved;
        }
    }
    if (errclass == 0) {
        if (!target_addr(win, v, &addr))
            errclass = MPI_ERR_RMA_RANGE;
        else
            (void) op_apply(win, v, addr, &result, &errclass);
    }
    MPL_free(copy);
    mpi_errno = mm_rma_send_resp(win, rx->car.vc, rx->pkt.sreq, errclass, result,
                                 errclass ? 0 : v->hdr.result_len);
    MPL_free(result);
    MPL_free(rx);
    return mpi_errno;
}

static int lock_compatible(MPIR_Win * win, int type);
static int lock_enqueue(MPIR_Win * win, int rank, int type, void *op);

/* Decode a complete operation; one the decoder refuses is answered with its error class. */
static int op_decode(MPIR_Win * win, mm_rma_rx_t * rx, mm_rma_op_view_t * v, int *refused)
{
    mm_wire_err_t err = mm_rma_wire_decode(rx->buf, rx->pkt.data_sz, wire_type_info, v);
    int mpi_errno = MPI_SUCCESS;

    *refused = err != MM_WIRE_OK;
    if (*refused) {
        mpi_errno = mm_rma_send_resp(win, rx->car.vc, rx->pkt.sreq, wire_errclass(err), NULL,
                                     0);
        MPL_free(rx);
    }
    return mpi_errno;
}

int mm_rma_op_payload_done(mm_car_t * car)
{
    mm_rma_rx_t *rx = (mm_rma_rx_t *) ((char *) car - offsetof(mm_rma_rx_t, car));
    MPIR_Win *win = mm_win_lookup(rx->pkt.context_id);
    mm_rma_op_view_t v;
    int mpi_errno, refused;

    /* The window cannot go away while an origin has operations on it unanswered; one that
     * did is a peer's error, answered as such. */
    if (win == NULL) {
        mpi_errno = MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__,
                                             __LINE__, MPI_ERR_OTHER, "**mm|rmawin",
                                             "**mm|rmawin %d %d", car->vc->lpid,
                                             (int) rx->pkt.context_id);
        MPL_free(rx);
        return mpi_errno;
    }
    mpi_errno = op_decode(win, rx, &v, &refused);
    if (refused)
        return mpi_errno;
    /* An implicit epoch (MPI_Rmw) is an exclusive lock request that carries its operation:
     * applied now if the lock is free and nobody waits, else when its turn comes. Either
     * way it holds the lock only while it is applied, so nothing is left to release. */
    if ((v.hdr.flags & MM_RMA_HDR_IMPLICIT_LOCK) &&
        (win->dev.lockq_head != NULL || !lock_compatible(win, MPI_LOCK_EXCLUSIVE)))
        return lock_enqueue(win, rx->pkt.rank, MPI_LOCK_EXCLUSIVE, rx);
    return op_execute(win, rx, &v);
}

/* --- the window lock --- */

static int lock_compatible(MPIR_Win * win, int type)
{
    if (win->dev.lock_excl)
        return 0;
    return type == MPI_LOCK_SHARED || win->dev.lock_shared == 0;
}

static int lock_grant(MPIR_Win * win, int rank, int type)
{
    if (type == MPI_LOCK_EXCLUSIVE)
        win->dev.lock_excl = 1;
    else
        win->dev.lock_shared++;
    return mm_rma_send_ctrl(win, rank, MM_RMA_LOCK_GRANT, (uint64_t) type);
}

/* Grant the queue's head, and those behind it, while they are compatible. */
static int lock_grant_waiters(MPIR_Win * win)
{
    int mpi_errno = MPI_SUCCESS;

    while (win->dev.lockq_head && lock_compatible(win, win->dev.lockq_head->type)) {
        mm_lock_waiter_t *w = win->dev.lockq_head;

        win->dev.lockq_head = w->next;
        if (win->dev.lockq_head == NULL)
            win->dev.lockq_tail = NULL;
        if (w->op) {
            /* Decoded when it arrived; decoding again is cheaper than keeping the view. */
            mm_rma_op_view_t v;
            int refused;

            mpi_errno = op_decode(win, w->op, &v, &refused);
            if (!refused)
                mpi_errno = op_execute(win, w->op, &v);
        } else
            mpi_errno = lock_grant(win, w->rank, w->type);
        MPL_free(w);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int lock_enqueue(MPIR_Win * win, int rank, int type, void *op)
{
    int mpi_errno = MPI_SUCCESS;
    mm_lock_waiter_t *w;

    w = MPL_malloc(sizeof(*w), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(w == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "lock request");
    w->rank = rank;
    w->type = type;
    w->op = op;
    w->next = NULL;
    if (win->dev.lockq_tail)
        win->dev.lockq_tail->next = w;
    else
        win->dev.lockq_head = w;
    win->dev.lockq_tail = w;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int lock_request(MPIR_Win * win, int rank, int type)
{
    if (win->dev.lockq_head == NULL && lock_compatible(win, type))
        return lock_grant(win, rank, type);
    return lock_enqueue(win, rank, type, NULL);
}

static int lock_release(MPIR_Win * win, int rank, int type)
{
    int mpi_errno = MPI_SUCCESS;

    if (type == MPI_LOCK_EXCLUSIVE)
        win->dev.lock_excl = 0;
    else if (win->dev.lock_shared > 0)
        win->dev.lock_shared--;
    mpi_errno = mm_rma_send_ctrl(win, rank, MM_RMA_UNLOCK_ACK, 0);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = lock_grant_waiters(win);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_rma_handle_ctrl(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Win *win;
    mm_win_peer_t *peer;

    mpi_errno = pkt_window(vc, pkt, &win);
    MPIR_ERR_CHECK(mpi_errno);
    peer = &win->dev.peers[pkt->rank];
    switch (pkt->tag) {
        case MM_RMA_LOCK_REQ:
            mpi_errno = lock_request(win, pkt->rank, (int) pkt->sreq);
            break;
        case MM_RMA_UNLOCK:
            mpi_errno = lock_release(win, pkt->rank, (int) pkt->sreq);
            break;
        case MM_RMA_LOCK_GRANT:
            if (peer->lock == MM_PEER_LOCK_WAIT)
                peer->lock = MM_PEER_LOCKED;
            break;
        case MM_RMA_UNLOCK_ACK:
            if (peer->lock == MM_PEER_UNLOCK_WAIT)
                peer->lock = MM_PEER_UNLOCKED;
            break;
        case MM_RMA_POST:
            peer->posts++;
            break;
        case MM_RMA_COMPLETE:
            win->dev.completes++;
            break;
        default:
            MPIR_ERR_SETANDJUMP3(mpi_errno, MPI_ERR_OTHER, "**mm|badpkt",
                                 "**mm|badpkt %d %d %d", vc->lpid, pkt->version, pkt->kind);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
