/*
 * ib method, progress: the completion queue (receives of the shared receive queue, and
 * the sends and READs of every connection, told apart by the tag in the low bits of the
 * work request id), RDMA-CM's events, writers waiting for resources, and teardown.
 */
#include "mpidimpl.h"
#include "ib_impl.h"
#include <time.h>

static int one_completion(const struct ibv_wc *wc)
{
    int ok = wc->status == IBV_WC_SUCCESS;
    void *ptr = (void *) (uintptr_t) (wc->wr_id & ~(uint64_t) IB_WR_TAGS);
    ib_conn_t *conn;
    int mpi_errno = MPI_SUCCESS;

    /* Only wr_id, status and qp_num mean anything in a completion in error. */
    switch (wc->wr_id & IB_WR_TAGS) {
        case 0:        /* a receive buffer of the SRQ */
            conn = ib_conn_by_qpn(wc->qp_num);
            if (conn == NULL || !ok) {
                /* a connection already gone (or a receive in error, which only a broken
                 * device gives): the buffer simply goes back */
                mpi_errno = ib_srq_post((uint32_t) (wc->wr_id >> 3));
                if (conn && mpi_errno == MPI_SUCCESS)
                    mpi_errno = ib_conn_fail(conn, ibv_wc_status_str(wc->status));
                return mpi_errno;
            }
            return ib_recv_done(conn, (uint32_t) (wc->wr_id >> 3), wc->byte_len,
                                (wc->wc_flags & IBV_WC_WITH_IMM) ? ntohl(wc->imm_data) : 0);
        case IB_WR_SEND:
            conn = ((ib_sbuf_t *) ptr)->conn;
            ib_send_done(ptr);
            break;
        case IB_WR_CREDIT:
            conn = ptr;
            conn->sq_used--;
            break;
        case IB_WR_READ:
            conn = ((ib_read_t *) ptr)->conn;
            mpi_errno = ib_read_done(ptr, ok);
            break;
        case IB_WR_ATOMIC:
            mpi_errno = ib_atomic_done(ptr, ok, &conn);
            break;
        default:
            return MPI_SUCCESS;
    }
    if (!ok && mpi_errno == MPI_SUCCESS)
        /* retries exhausted (the peer is gone), or flushed after an earlier failure */
        mpi_errno = ib_conn_fail(conn, ibv_wc_status_str(wc->status));
    else if (ok && mpi_errno == MPI_SUCCESS)
        mpi_errno = ib_conn_pump(conn);
    return mpi_errno;
}

int ib_poll_cq(int *made_progress)
{
    int mpi_errno = MPI_SUCCESS;
    struct ibv_wc wc[IB_CQ_POLL];
    int n;

    do {
        n = ibv_poll_cq(ib_state.cq, IB_CQ_POLL, wc);
        for (int i = 0; i < n; i++) {
            int err = one_completion(&wc[i]);
            /* the first error is reported; the other completions are still handled, so
             * no buffer or work request is lost */
            if (mpi_errno == MPI_SUCCESS)
                mpi_errno = err;
        }
        if (n > 0)
            *made_progress = 1;
    } while (n == IB_CQ_POLL);
    return mpi_errno;
}

int ib_progress(int *made_progress)
{
    int mpi_errno;

    if (!ib_state.up)
        return MPI_SUCCESS;
    mpi_errno = ib_poll_cq(made_progress);
    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = ib_cm_progress(made_progress);
    if (mpi_errno == MPI_SUCCESS && ib_state.nblocked > 0) {
        for (ib_conn_t * conn = ib_state.conns; conn && mpi_errno == MPI_SUCCESS;
             conn = conn->next)
            if (conn->blocked && conn->state == IB_CONN_OPEN)
                mpi_errno = ib_write_progress(conn->vc);
    }
    ib_conn_reap();
    return mpi_errno;
}

static int any_open(void)
{
    for (ib_conn_t * conn = ib_state.conns; conn; conn = conn->next)
        if (conn->state != IB_CONN_DEAD || conn->sq_used > 0)
            return 1;
    return 0;
}

/* Finalize, after this process has closed every VC (its BYEs are out): wait until each
 * peer's BYE has come too, so that destroying our QPs fails nothing a peer still sends.
 * Bounded by MPIR_CVAR_MM_IB_CLOSE_TIMEOUT, since a peer that died must not hang us. */
int ib_wait_closed(void)
{
    int mpi_errno = MPI_SUCCESS;
    struct timespec start, now;

    ib_state.finalizing = 1;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (any_open()) {
        int made_progress = 0;

        mpi_errno = ib_progress(&made_progress);
        MPIR_ERR_CHECK(mpi_errno);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec >= MPIR_CVAR_MM_IB_CLOSE_TIMEOUT)
            break;
        if (!made_progress)
            mm_yield_core();
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
