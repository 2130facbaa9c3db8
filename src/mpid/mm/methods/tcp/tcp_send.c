/*
 * tcp method, write side: a FIFO of CAR chains per VC, written with one sendmsg() that
 * gathers as many queued envelopes and payloads as fit TCP_MAX_IOV entries, so a burst of
 * small messages costs one system call. CARs complete once the kernel holds their bytes.
 */
#include "mpidimpl.h"
#include "tcp_impl.h"
#include <errno.h>
#include <sys/epoll.h>
#include <sys/socket.h>

static const mm_pkt_t tcp_bye_pkt = {.version = MM_PKT_VERSION,.kind = TCP_PKT_BYE };

static int vc_lost(mm_vc_t * vc, const char *why)
{
    tcp_vc_t *t = tcp_vc(vc);

    t->failed = 1;
    if (t->conn)
        tcp_conn_kill(t->conn);
    mm_progress_peer_lost(vc->lpid);
    return MPIR_Err_create_code(MM_ERR_LOST_ROOT, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                MPIX_ERR_PROC_FAILED, "**mm|tcp_lost", "**mm|tcp_lost %d %s",
                                vc->lpid, why);
}

int tcp_post_write(mm_car_t * head)
{
    int mpi_errno = MPI_SUCCESS;
    mm_vc_t *vc = head->vc;
    tcp_vc_t *t = tcp_vc(vc);

    if (unlikely(t->failed))
        return vc_lost(vc, "write after failure");
    mm_car_fifo_push(&t->wq_head, &t->wq_tail, head);

    if (t->conn)
        mpi_errno = tcp_write_progress(vc);
    else if (t->attempt == NULL)
        mpi_errno = tcp_conn_start(vc);
    return mpi_errno;
}

/* Describe the queue's unwritten bytes, oldest first. */
static int gather(tcp_vc_t * t, struct iovec *iov)
{
    int n = 0;
    uint32_t hdr_off = t->hdr_off;

    for (mm_car_t * c = t->wq_head; c && n < TCP_MAX_IOV; c = c->qnext) {
        if (hdr_off < sizeof(mm_pkt_t)) {
            iov[n].iov_base = (char *) &c->pkt + hdr_off;
            iov[n].iov_len = sizeof(mm_pkt_t) - hdr_off;
            n++;
        }
        if (c->next && n < TCP_MAX_IOV)
            n += mm_buf_to_iov(&c->next->buf, iov + n, TCP_MAX_IOV - n);
        hdr_off = 0;
    }
    if (t->wq_head == NULL && t->bye_state == 1) {
        iov[0].iov_base = (char *) &tcp_bye_pkt + t->bye_off;
        iov[0].iov_len = sizeof(tcp_bye_pkt) - t->bye_off;
        n = 1;
    }
    return n;
}

/* Account n written bytes to the queue; completes the CARs that are fully out. */
static int consume(mm_vc_t * vc, size_t n)
{
    int mpi_errno = MPI_SUCCESS;
    tcp_vc_t *t = tcp_vc(vc);

    if (t->wq_head == NULL) {
        t->bye_off += n;
        if (t->bye_off == sizeof(tcp_bye_pkt))
            t->bye_state = 2;
        return MPI_SUCCESS;
    }
    while (t->wq_head) {
        mm_car_t *head = t->wq_head, *data = head->next;
        size_t h = sizeof(mm_pkt_t) - t->hdr_off;

        if (h > 0) {
            size_t step = MPL_MIN(h, n);
            t->hdr_off += step;
            n -= step;
            if (step < h)
                break;
        }
        if (data) {
            size_t step = MPL_MIN(mm_buf_remaining(&data->buf), n);
            mm_buf_advance(&data->buf, step);
            n -= step;
            if (mm_buf_remaining(&data->buf) > 0)
                break;
        }
        /* The whole chain is out: unlink it before completing, since completion may
         * free the CARs or post new writes on this VC. */
        mm_car_fifo_pop(&t->wq_head, &t->wq_tail);
        t->hdr_off = 0;
        mpi_errno = mm_cq_complete_chain(head);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int tcp_write_progress(mm_vc_t * vc)
{
    int mpi_errno = MPI_SUCCESS;
    tcp_vc_t *t = tcp_vc(vc);
    tcp_conn_t *conn = t->conn;

    if (t->writing || conn == NULL)
        return MPI_SUCCESS;
    t->writing = 1;
    for (;;) {
        struct iovec iov[TCP_MAX_IOV];
        struct msghdr msg;
        ssize_t n;

        memset(&msg, 0, sizeof(msg));
        msg.msg_iov = iov;
        msg.msg_iovlen = gather(t, iov);
        if (msg.msg_iovlen == 0)
            break;
        n = sendmsg(conn->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            /* The kernel buffer is full: resume when the socket drains. */
            tcp_conn_set_events(conn, EPOLLIN | EPOLLOUT);
            goto fn_exit;
        }
        if (n < 0) {
            mpi_errno = vc_lost(vc, MPL_strerror(errno));
            goto fn_fail;
        }
        mpi_errno = consume(vc, (size_t) n);
        MPIR_ERR_CHECK(mpi_errno);
        if (t->conn != conn)
            goto fn_exit;       /* completion handling found the connection dead */
    }
    tcp_conn_set_events(conn, EPOLLIN);

  fn_exit:
    t->writing = 0;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
