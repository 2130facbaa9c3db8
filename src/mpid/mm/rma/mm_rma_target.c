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

int mm_rma_handle_op(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Win *win;
    mm_rma_rx_t *rx;

    mpi_errno = pkt_window(vc, pkt, &win);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERR_CHKANDJUMP3(pkt->data_sz < sizeof(mm_rma_hdr_t), mpi_errno, MPI_ERR_OTHER,
                         "**mm|badpkt", "**mm|badpkt %d %d %d", vc->lpid, pkt->version,
                         pkt->kind);
    rx = MPL_malloc(sizeof(mm_rma_rx_t) + pkt->data_sz, MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(rx == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "incoming RMA operation");
    memset(&rx->car, 0, sizeof(rx->car));
    rx->pkt = *pkt;
    rx->car.kind = MM_CAR_DATA;
    rx->car.dir = MM_CAR_READ;
    rx->car.flags = MM_CAR_FLAG_RMA;
    rx->car.vc = vc;
    mm_buf_init_contig(&rx->car.buf, rx->buf, pkt->data_sz);
    mpi_errno = vc->method->post_read(&rx->car);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Where the operation's target buffer starts, and whether all of it is in the window. */
static int target_addr(MPIR_Win * win, const mm_rma_hdr_t * hdr, MPI_Datatype type,
                       char **addr_out)
{
    MPI_Aint extent, true_lb, true_extent, true_ub, lo, hi;
    char *addr;

    MPI_Aint off, span;

    /* The displacement and count come off the wire: no product may wrap. */
    if (win->create_flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        addr = (char *) (intptr_t) hdr->target_disp;
    } else {
        if (__builtin_mul_overflow((MPI_Aint) hdr->target_disp, (MPI_Aint) win->disp_unit,
                                   &off))
            return 0;
        addr = (char *) win->base + off;
    }
    *addr_out = addr;
    if (hdr->target_count == 0)
        return 1;
    MPIR_Datatype_get_extent_macro(type, extent);
    MPIR_Type_get_true_extent_impl(type, &true_lb, &true_extent);
    true_ub = true_lb + true_extent;
    if (__builtin_mul_overflow((MPI_Aint) (hdr->target_count - 1), extent, &span) ||
        __builtin_add_overflow(true_lb, span, &lo) || __builtin_add_overflow(true_ub, span, &hi))
        return 0;
    lo = MPL_MIN(true_lb, lo);
    hi = MPL_MAX(true_ub, hi);
    return mm_win_range_ok(win, addr + lo, hi - lo);
}

/* A PUT is a send to the target buffer: as with a receive, a payload shorter than the
 * buffer is fine, one longer than it stores what fits and fails with MPI_ERR_TRUNCATE, and
 * one that ends inside an element of the target datatype stores the whole elements and
 * fails with MPI_ERR_TYPE (what MPIR_Localcopy does on the direct path). */
static int put_apply(const mm_rma_hdr_t * hdr, MPI_Datatype type, const char *data, char *addr,
                     int *errclass)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint type_size, actual = 0;
    uint64_t room;

    MPIR_Datatype_get_size_macro(type, type_size);
    room = (uint64_t) type_size * (uint64_t) hdr->target_count;
    mpi_errno = MPIR_Typerep_unpack(data, (MPI_Aint) MPL_MIN(hdr->data_len, room), addr,
                                    hdr->target_count, type, 0, &actual);
    MPIR_ERR_CHECK(mpi_errno);
    if (hdr->data_len > room)
        *errclass = MPI_ERR_TRUNCATE;
    else if ((uint64_t) actual != hdr->data_len)
        *errclass = MPI_ERR_TYPE;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Is t, a handle off the wire, one of the job's predefined datatypes (the same constants in
 * every process), with a size? Anything else must not reach MPICH's datatype macros, which
 * index tables by it and assert. */
static int wire_type_ok(MPI_Datatype t)
{
    int index;
    MPI_Aint size;

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
    return size > 0;
}

/* Do the header's lengths, types and counts describe an operation this target can apply
 * without reading or writing outside the buffers involved? The origin checked the same
 * for its own arguments (mm_rma_issue); a peer's bytes are checked again here. 0 if so,
 * else the error class the answer carries. tsize: bytes of the target buffer. */
static int op_validate(const mm_rma_hdr_t * hdr, MPI_Datatype type, MPI_Aint * tsize)
{
    MPI_Aint type_size, bsize = 0;

    if (hdr->target_count < 0)
        return MPI_ERR_COUNT;
    if (hdr->flat_sz == 0 && !wire_type_ok(type))
        return MPI_ERR_TYPE;
    MPIR_Datatype_get_size_macro(type, type_size);
    if (type_size < 0 || (type_size > 0 && hdr->target_count > MPIR_AINT_MAX / type_size))
        return MPI_ERR_COUNT;
    *tsize = type_size * hdr->target_count;
    if (hdr->result_len > (uint64_t) * tsize)
        return MPI_ERR_TRUNCATE;
    switch (hdr->op) {
        case MM_RMA_PUT:
        case MM_RMA_GET:
            return 0;   /* put_apply stores what fits; the answer is at most tsize */
        case MM_RMA_ACC:
        case MM_RMA_GET_ACC:
        case MM_RMA_RMW2:
            if (!wire_type_ok(hdr->basic_type) || mm_rma_basic_type(type) != hdr->basic_type)
                return MPI_ERR_TYPE;
            MPIR_Datatype_get_size_macro(hdr->basic_type, bsize);
            if (hdr->op == MM_RMA_RMW2 ? hdr->data_len % (2 * bsize) != 0 ||
                hdr->data_len / 2 != (uint64_t) * tsize || hdr->result_len != (uint64_t) * tsize
                : hdr->data_len % bsize != 0 || hdr->data_len > (uint64_t) * tsize ||
                hdr->result_len % bsize != 0)
                return MPI_ERR_TRUNCATE;
            return 0;
        case MM_RMA_CAS:
            if (hdr->flat_sz != 0 || hdr->target_count != 1 ||
                hdr->data_len != 2 * (uint64_t) * tsize || hdr->result_len != (uint64_t) * tsize)
                return MPI_ERR_TYPE;
            return 0;
        default:
            return MPI_ERR_OTHER;
    }
}

/* Apply one operation; *result (malloc'ed, result_len bytes) is what the answer carries. */
static int op_apply(MPIR_Win * win, const mm_rma_hdr_t * hdr, MPI_Datatype type,
                    const char *data, void **result, int *errclass)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint actual, basic_size;
    MPI_Aint tsize = 0;
    char *addr;
    void *res = NULL;

    *errclass = op_validate(hdr, type, &tsize);
    if (*errclass)
        goto fn_exit;
    if (!target_addr(win, hdr, type, &addr)) {
        *errclass = MPI_ERR_RMA_RANGE;
        goto fn_exit;
    }
    if (hdr->result_len > 0) {
        res = MPL_malloc(hdr->result_len, MPL_MEM_RMA);
        MPIR_ERR_CHKANDJUMP1(res == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                             "RMA answer");
    }
    switch (hdr->op) {
        case MM_RMA_PUT:
            mpi_errno = put_apply(hdr, type, data, addr, errclass);
            break;
        case MM_RMA_GET:
            mpi_errno = MPIR_Typerep_pack(addr, hdr->target_count, type, 0, res,
                                          hdr->result_len, &actual);
            break;
        case MM_RMA_ACC:
        case MM_RMA_GET_ACC:
            MPIR_Datatype_get_size_macro(hdr->basic_type, basic_size);
            mpi_errno = mm_rma_acc_apply(win, addr, hdr->target_count, type, data,
                                         (MPI_Aint) MPL_MAX(hdr->data_len, hdr->result_len) /
                                         basic_size, hdr->basic_type, hdr->acc_op, res);
            break;
        case MM_RMA_CAS:
            mpi_errno = mm_rma_cas_apply(win, addr, type, data, data + hdr->data_len / 2, res);
            break;
        case MM_RMA_RMW2:
            MPIR_Datatype_get_size_macro(hdr->basic_type, basic_size);
            mpi_errno = mm_rma_rmw2_apply(win, addr, hdr->target_count, type, data,
                                          data + hdr->data_len / 2,
                                          (MPI_Aint) (hdr->data_len / 2) / basic_size,
                                          hdr->basic_type, hdr->acc_op, res);
            break;
    }
    if (mpi_errno)
        *errclass = MPIR_ERR_GET_CLASS(mpi_errno);

  fn_exit:
    *result = res;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Apply a complete operation, answer it, and free it. */
static int op_execute(MPIR_Win * win, mm_rma_rx_t * rx)
{
    int mpi_errno = MPI_SUCCESS;
    const mm_rma_hdr_t *hdr = (const mm_rma_hdr_t *) rx->buf;
    const char *flat = rx->buf + sizeof(mm_rma_hdr_t);
    MPIR_Datatype *dt = NULL;
    MPI_Datatype type = hdr->target_type;
    void *result = NULL;
    int errclass = 0;

    if (hdr->flat_sz > 0) {
        /* The origin's derived datatype, rebuilt here for the length of the operation. */
        dt = (MPIR_Datatype *) MPIR_Handle_obj_alloc(&MPIR_Datatype_mem);
        MPIR_ERR_CHKANDJUMP1(dt == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                             "RMA target datatype");
        MPIR_Object_set_ref(dt, 1);
        mpi_errno = MPIR_Typerep_unflatten(dt, (void *) flat);
        MPIR_ERR_CHECK(mpi_errno);
        type = dt->handle;
    }
    mpi_errno = op_apply(win, hdr, type, flat + hdr->flat_sz, &result, &errclass);
    /* A failure to apply is the origin's error, reported in the answer; the target goes on. */
    mpi_errno = mm_rma_send_resp(win, rx->car.vc, rx->pkt.sreq, errclass, result,
                                 errclass ? 0 : hdr->result_len);

  fn_exit:
    if (dt)
        MPIR_Datatype_ptr_release(dt);
    MPL_free(result);
    MPL_free(rx);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int lock_compatible(MPIR_Win * win, int type);
static int lock_enqueue(MPIR_Win * win, int rank, int type, void *op);

int mm_rma_op_payload_done(mm_car_t * car)
{
    int mpi_errno = MPI_SUCCESS;
    mm_rma_rx_t *rx = (mm_rma_rx_t *) ((char *) car - offsetof(mm_rma_rx_t, car));
    const mm_rma_hdr_t *hdr = (const mm_rma_hdr_t *) rx->buf;
    MPIR_Win *win = mm_win_lookup(rx->pkt.context_id);

    /* The window cannot go away while an origin has operations on it unanswered. */
    MPIR_Assert(win != NULL);
    if (hdr->op == 0 || hdr->op >= MM_RMA_OP_LAST || hdr->data_len > rx->pkt.data_sz ||
        sizeof(mm_rma_hdr_t) + hdr->flat_sz + hdr->data_len != rx->pkt.data_sz) {
        mpi_errno = MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__,
                                         __LINE__, MPI_ERR_OTHER, "**mm|badpkt",
                                         "**mm|badpkt %d %d %d", car->vc->lpid,
                                         rx->pkt.version, rx->pkt.kind);
        MPL_free(rx);
        return mpi_errno;
    }
    /* An implicit epoch (MPI_Rmw) is an exclusive lock request that carries its operation:
     * applied now if the lock is free and nobody waits, else when its turn comes. Either
     * way it holds the lock only while it is applied, so nothing is left to release. */
    if ((hdr->flags & MM_RMA_HDR_IMPLICIT_LOCK) &&
        (win->dev.lockq_head != NULL || !lock_compatible(win, MPI_LOCK_EXCLUSIVE)))
        return lock_enqueue(win, rx->pkt.rank, MPI_LOCK_EXCLUSIVE, rx);
    return op_execute(win, rx);
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
        if (w->op)
            mpi_errno = op_execute(win, w->op);
        else
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
