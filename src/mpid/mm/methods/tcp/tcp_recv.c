/*
 * tcp method, read side: parse the stream of an OPEN connection into envelopes and
 * payloads. Small messages come out of the connection's buffer (one recv() can hold many);
 * a payload too big for the buffer is read straight into the place the engine posted for it.
 * Every envelope is checked before the engine sees it: a peer, or anything else that got a
 * connection, must not make this process crash or allocate what it says.
 */
#include "mpidimpl.h"
#include "tcp_impl.h"
#include <errno.h>
#include <sys/socket.h>
#include <sys/uio.h>

/* recv() calls per connection per progress pass: a peer that keeps sending must not keep
 * this process from its other connections and methods. */
#define TCP_READ_BATCH 16

int tcp_post_read(mm_car_t * car)
{
    car->vc->rdata = car;
    return MPI_SUCCESS;
}

/* The framing tcp needs before handing an envelope to the engine, which checks the rest
 * (mm_wire_envelope_check): the version, and the method's own BYE, after which the peer
 * sends nothing. */
static int pkt_valid(const tcp_conn_t * conn, const mm_pkt_t * pkt)
{
    if (pkt->version != MM_PKT_VERSION || conn->got_bye)
        return 0;
    if (pkt->kind == TCP_PKT_BYE)
        return pkt->data_sz == 0 && pkt->aux_sz == 0;
    return 1;
}

/* The connection broke or delivered garbage: close it, and fail the VC unless the peer
 * had said goodbye (or we are finalizing and it is simply gone). */
static int conn_fail(tcp_conn_t * conn, int mpi_errno_in)
{
    mm_vc_t *vc = conn->vc;
    int clean = conn->got_bye && vc->rdata == NULL && conn->rpos == conn->rend;

    tcp_conn_kill(conn);
    if (mpi_errno_in == MPI_SUCCESS && (clean || tcp_state.finalizing))
        return MPI_SUCCESS;
    tcp_vc(vc)->failed = 1;
    return mpi_errno_in;
}

static int bad_packet(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                MPI_ERR_OTHER, "**mm|badpkt", "**mm|badpkt %d %d %d", vc->lpid,
                                (int) pkt->version, (int) pkt->kind);
}

static int deliver_envelope(tcp_conn_t * conn, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;
    mm_vc_t *vc = conn->vc;

    if (!pkt_valid(conn, pkt))
        return conn_fail(conn, bad_packet(vc, pkt));
    if (pkt->kind == TCP_PKT_BYE) {
        conn->got_bye = 1;
        return MPI_SUCCESS;
    }
    vc->rhead.pkt = *pkt;
    vc->rdata = NULL;
    /* The engine says how long the payload is by the READ DATA CAR it posts, if any: the
     * stream's next bytes fill it (tcp_read_progress), then the next envelope follows. */
    mpi_errno = mm_cq_complete(&vc->rhead);
    if (mpi_errno)
        /* The engine refused the envelope: its payload, if any, is still in the stream,
         * and nothing after it can be framed. */
        return conn_fail(conn, mpi_errno);

    return mpi_errno;
}

/* Move buffered bytes into the payload in flight; complete it when full. */
static int drain_buffer_into(tcp_conn_t * conn, mm_vc_t * vc)
{
    mm_car_t *rdata = vc->rdata;
    size_t avail = conn->rend - conn->rpos;

    if (avail > 0) {
        size_t n = MPL_MIN(avail, mm_buf_remaining(&rdata->buf));
        mm_buf_copy(&rdata->buf, conn->rbuf + conn->rpos, n, 1);
        conn->rpos += n;
    }
    if (mm_buf_remaining(&rdata->buf) == 0) {
        vc->rdata = NULL;
        return mm_cq_complete(rdata);
    }
    return MPI_SUCCESS;
}

int tcp_read_progress(tcp_conn_t * conn)
{
    int mpi_errno = MPI_SUCCESS;
    mm_vc_t *vc = conn->vc;
    int calls = 0;

    while (conn->state == TCP_CONN_OPEN) {
        ssize_t n;

        if (vc->rdata) {
            mpi_errno = drain_buffer_into(conn, vc);
            MPIR_ERR_CHECK(mpi_errno);
            if (vc->rdata == NULL)
                continue;
            conn->rpos = conn->rend = 0;
            if (mm_buf_remaining(&vc->rdata->buf) >= TCP_RBUF_SIZE / 2) {
                /* Large payload: no bounce through the buffer. */
                struct iovec iov[TCP_MAX_IOV];
                int cnt = mm_buf_to_iov(&vc->rdata->buf, iov, TCP_MAX_IOV);

                if (calls++ == TCP_READ_BATCH)
                    break;
                n = readv(conn->fd, iov, cnt);
                if (n > 0) {
                    mm_buf_advance(&vc->rdata->buf, n);
                    continue;
                }
                goto read_done;
            }
        } else if (conn->rend - conn->rpos >= sizeof(mm_pkt_t)) {
            mm_pkt_t pkt;

            memcpy(&pkt, conn->rbuf + conn->rpos, sizeof(pkt));
            conn->rpos += sizeof(pkt);
            mpi_errno = deliver_envelope(conn, &pkt);
            MPIR_ERR_CHECK(mpi_errno);
            continue;
        }

        /* Need more bytes in the buffer. */
        if (conn->rpos == conn->rend) {
            conn->rpos = conn->rend = 0;
        } else if (conn->rpos > 0) {
            memmove(conn->rbuf, conn->rbuf + conn->rpos, conn->rend - conn->rpos);
            conn->rend -= conn->rpos;
            conn->rpos = 0;
        }
        if (calls++ == TCP_READ_BATCH)
            break;
        n = recv(conn->fd, conn->rbuf + conn->rend, TCP_RBUF_SIZE - conn->rend, MSG_DONTWAIT);
        if (n > 0) {
            conn->rend += n;
            continue;
        }

      read_done:
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        /* End of stream (n == 0) or a broken connection. */
        if (n == 0 && conn->got_bye && vc->rdata == NULL && conn->rpos == conn->rend) {
            /* The peer is done; we may not be: keep the connection for our own queue and
             * BYE (tcp_close ends it), unless that is already out. */
            conn->got_eof = 1;
            if (tcp_vc(vc)->bye_state == 2)
                tcp_conn_kill(conn);
            else
                tcp_conn_set_events(conn, conn->events);
            break;
        }
        if (tcp_state.finalizing) {
            tcp_conn_kill(conn);
            break;
        }
        mpi_errno = MPIR_Err_create_code(MM_ERR_LOST_ROOT, MPIR_ERR_RECOVERABLE, __func__,
                                         __LINE__, MPIX_ERR_PROC_FAILED, "**mm|tcp_lost",
                                         "**mm|tcp_lost %d %s", vc->lpid, n == 0 ?
                                         "end of stream without goodbye" : MPL_strerror(errno));
        mm_progress_peer_lost(vc->lpid);
        mpi_errno = conn_fail(conn, mpi_errno);
        goto fn_fail;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
