/*
 * ib method, write side: a FIFO of CAR chains per VC, copied into registered send buffers
 * as records (ib_impl.h) and sent with SEND_WITH_IMM, the immediate data crediting back
 * the peer's buffers we have handed on. Whatever is queued when a buffer goes out shares
 * it, so a burst of small messages costs one work request. CARs complete as soon as their
 * bytes are copied: the caller's buffer is free before the send completes.
 */
#include "mpidimpl.h"
#include "ib_impl.h"

static int vc_lost(mm_vc_t * vc, const char *why)
{
    ib_vc(vc)->failed = 1;
    mm_progress_peer_lost(vc->lpid);
    return MPIR_Err_create_code(MM_ERR_LOST_ROOT, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                MPIX_ERR_PROC_FAILED, "**mm|ib_lost", "**mm|ib_lost %d %s",
                                vc->lpid, why);
}

static void set_blocked(ib_conn_t * conn, int blocked)
{
    if (conn->blocked != blocked) {
        conn->blocked = blocked;
        ib_state.nblocked += blocked ? 1 : -1;
    }
}

/* Can conn put one more buffer on the wire now? */
static int can_send(const ib_conn_t * conn)
{
    return conn->credits > 0 && conn->sq_used < ib_sq_depth();
}

/* Send conn's current buffer. Returns an MPI error only when the device refused the work
 * request (the connection is then failed). */
static int flush(ib_conn_t * conn)
{
    ib_sbuf_t *sb = conn->cur;
    struct ibv_sge sge;
    struct ibv_send_wr wr, *bad;
    int rc;

    sge.addr = (uintptr_t) sb->data;
    sge.length = sb->len;
    sge.lkey = ib_state.smr->lkey;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = (uintptr_t) sb | IB_WR_SEND;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND_WITH_IMM;
    wr.send_flags = IBV_SEND_SIGNALED | (sb->len <= ib_state.max_inline ? IBV_SEND_INLINE : 0);
    wr.imm_data = htonl((uint32_t) conn->owed);
    rc = ibv_post_send(conn->qp, &wr, &bad);
    if (rc != 0)
        return ib_conn_fail(conn, MPL_strerror(rc));
    conn->owed = 0;
    conn->credits--;
    conn->sq_used++;
    sb->conn = conn;
    conn->cur = NULL;
    return MPI_SUCCESS;
}

/* The buffer to fill: the current one, or a new one if the connection may send it. */
static ib_sbuf_t *current(ib_conn_t * conn)
{
    ib_sbuf_t *sb = conn->cur;

    if (sb == NULL && can_send(conn) && ib_state.sfree) {
        sb = ib_state.sfree;
        ib_state.sfree = sb->next;
        sb->next = NULL;
        sb->len = 0;
        sb->has_bye = 0;
        conn->cur = sb;
    }
    return sb;
}

static void put_rec(ib_sbuf_t * sb, int kind, uint32_t len, const mm_pkt_t * pkt)
{
    ib_rec_t rec = {.len = len,.kind = (uint16_t) kind };

    memcpy(sb->data + sb->len, &rec, sizeof(rec));
    sb->len += sizeof(rec);
    if (pkt) {
        memcpy(sb->data + sb->len, pkt, sizeof(*pkt));
        sb->len += sizeof(*pkt);
    }
}

static void align_rec(ib_sbuf_t * sb)
{
    sb->len = MPL_MIN((sb->len + IB_REC_ALIGN - 1) & ~(uint32_t) (IB_REC_ALIGN - 1),
                      IB_BUF_SIZE);
}

int ib_post_write(mm_car_t * head)
{
    mm_vc_t *vc = head->vc;
    ib_vc_t *t = ib_vc(vc);

    if (unlikely(t->failed))
        return vc_lost(vc, "write after failure");
    mm_car_fifo_push(&t->wq_head, &t->wq_tail, head);
    if (t->conn)
        return ib_write_progress(vc);
    if (t->attempt == NULL)
        return ib_conn_start(vc);
    return MPI_SUCCESS;
}

int ib_send_inline(mm_vc_t * vc, const mm_pkt_t * pkt, const void *data, size_t len)
{
    ib_vc_t *t = ib_vc(vc);
    ib_conn_t *conn = t->conn;
    ib_sbuf_t *sb;

    if (conn == NULL || conn->state != IB_CONN_OPEN || t->wq_head || len > IB_BUF_SIZE ||
        IB_REC_HDR + len > IB_BUF_SIZE - (conn->cur ? conn->cur->len : 0))
        return 0;
    sb = current(conn);
    if (sb == NULL || !can_send(conn))
        return 0;
    put_rec(sb, IB_REC_MSG, (uint32_t) len, pkt);
    if (len)
        memcpy(sb->data + sb->len, data, len);
    sb->len += len;
    align_rec(sb);
    if (flush(conn) != MPI_SUCCESS) {
        /* The record is lost with the connection: nothing more goes to this peer, and the
         * CARs the engine posts instead find out (ib_post_write). */
        t->failed = 1;
    }
    return 1;
}

/* Copy what is queued on vc into send buffers and send them, as far as credits, send
 * queue room and free buffers allow; progress resumes when they come back. */
int ib_write_progress(mm_vc_t * vc)
{
    int mpi_errno = MPI_SUCCESS;
    ib_vc_t *t = ib_vc(vc);
    ib_conn_t *conn = t->conn;

    if (t->writing || conn == NULL || conn->state != IB_CONN_OPEN)
        return MPI_SUCCESS;
    t->writing = 1;
    while (t->wq_head || t->bye_state == 1) {
        ib_sbuf_t *sb = current(conn);
        mm_car_t *head = t->wq_head, *data;
        size_t room, pay;
        int full = 0;

        if (sb == NULL)
            break;
        room = IB_BUF_SIZE - sb->len;
        data = head ? head->next : NULL;
        pay = data ? mm_buf_remaining(&data->buf) : 0;
        if (head == NULL) {
            /* BYE, after everything else */
            if (room >= sizeof(ib_rec_t)) {
                put_rec(sb, IB_REC_BYE, 0, NULL);
                sb->has_bye = 1;
                t->bye_state = 2;
                conn->bye_posted = 1;
                break;
            }
            full = 1;
        } else if (t->started && sb->len > 0) {
            full = 1;           /* the FIRST record's buffer has not gone yet */
            head = NULL;
        } else if (t->started) {
            /* The rest of a FIRST record's payload: whole buffers of it. */
            size_t n = MPL_MIN(room, pay);

            mm_buf_copy(&data->buf, sb->data + sb->len, n, 0);
            sb->len += n;
            full = 1;
            if (n == pay)
                t->started = 0;
            else
                head = NULL;
        } else if (IB_REC_HDR + pay <= room) {
            put_rec(sb, IB_REC_MSG, (uint32_t) pay, &head->pkt);
            if (pay)
                mm_buf_copy(&data->buf, sb->data + sb->len, pay, 0);
            sb->len += pay;
            align_rec(sb);
        } else if ((IB_REC_HDR + pay <= IB_BUF_SIZE && sb->len > 0) ||
                   room < IB_REC_HDR + IB_MIN_FIRST) {
            /* whole in the next buffer, or too little room here to start it */
            full = 1;
            head = NULL;
        } else {
            size_t n = room - IB_REC_HDR;

            put_rec(sb, IB_REC_FIRST, (uint32_t) n, &head->pkt);
            mm_buf_copy(&data->buf, sb->data + sb->len, n, 0);
            sb->len += n;
            t->started = 1;
            full = 1;
            head = NULL;
        }
        if (head) {
            /* The whole chain is copied out: unlink it before completing, since completion
             * may free the CARs or post new writes on this VC. */
            mm_car_fifo_pop(&t->wq_head, &t->wq_tail);
            mpi_errno = mm_cq_complete_chain(head);
            MPIR_ERR_CHECK(mpi_errno);
            if (t->conn != conn || conn->state != IB_CONN_OPEN)
                goto fn_exit;   /* the connection failed meanwhile */
        }
        if (full) {
            /* The buffer goes now; without room for it on the wire it waits as conn->cur. */
            if (!can_send(conn))
                break;
            mpi_errno = flush(conn);
            MPIR_ERR_CHECK(mpi_errno);
        }
    }
    /* Nothing more to add: what was gathered goes now. */
    if (conn->cur && conn->cur->len > 0 && can_send(conn)) {
        mpi_errno = flush(conn);
        MPIR_ERR_CHECK(mpi_errno);
    }
    set_blocked(conn, t->wq_head != NULL || (conn->cur && conn->cur->len > 0));

  fn_exit:
    t->writing = 0;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* After receives: credit the peer back once half its window is owed, on the next buffer
 * going its way if there is one, else with a send of its own; and start the gets that
 * wait for send queue room. */
int ib_conn_pump(ib_conn_t * conn)
{
    int mpi_errno = MPI_SUCCESS;
    mm_vc_t *vc = conn->vc;

    if (conn->state != IB_CONN_OPEN)
        return MPI_SUCCESS;
    if (conn->blocked) {
        mpi_errno = ib_write_progress(vc);
        MPIR_ERR_CHECK(mpi_errno);
    }
    if (conn->rq_head) {
        mpi_errno = ib_read_pump(conn);
        MPIR_ERR_CHECK(mpi_errno);
    }
    if (conn->aq_head) {
        mpi_errno = ib_atomic_pump(conn);
        MPIR_ERR_CHECK(mpi_errno);
    }
    if (conn->state == IB_CONN_OPEN && !conn->bye_posted &&
        conn->owed >= MPL_MAX(MPIR_CVAR_MM_IB_CREDITS / 2, 1) &&
        conn->sq_used < ib_sq_depth()) {
        struct ibv_send_wr wr, *bad;
        int rc;

        memset(&wr, 0, sizeof(wr));
        wr.wr_id = (uintptr_t) conn | IB_WR_CREDIT;
        wr.opcode = IBV_WR_SEND_WITH_IMM;
        wr.send_flags = IBV_SEND_SIGNALED;
        wr.imm_data = htonl((uint32_t) conn->owed);
        rc = ibv_post_send(conn->qp, &wr, &bad);
        if (rc != 0) {
            mpi_errno = ib_conn_fail(conn, MPL_strerror(rc));
            goto fn_fail;
        }
        conn->owed = 0;
        conn->sq_used++;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* A send buffer's work request completed (in error too: the caller fails the connection). */
int ib_send_done(ib_sbuf_t * sb)
{
    ib_conn_t *conn = sb->conn;

    conn->sq_used--;
    if (sb->has_bye)
        conn->bye_acked = 1;
    sb->conn = NULL;
    sb->next = ib_state.sfree;
    ib_state.sfree = sb;
    return MPI_SUCCESS;
}
