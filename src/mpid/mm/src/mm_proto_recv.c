/*
 * The receiver's side of the point-to-point protocols: an EAGER or RTS envelope meets the
 * posted queue or becomes an unexpected message; a matched receive gets its payload
 * straight into its buffer (or a staging buffer it unpacks), a rendezvous receive sends
 * CTS and waits for the DATA that names it, or, when the RTS offers its payload to a get
 * (RGET, mm_method.h), reads the payload itself and answers FIN. A message longer than
 * the receive buffer is read to the end and completes the receive with MPI_ERR_TRUNCATE:
 * the stream stays in step, and nothing but that receive is affected.
 */
#include "mpidimpl.h"

/* The bytes of a truncated message beyond the receive buffer are read into one scratch
 * area of at most this size, named again and again by the entries of the DATA CAR's
 * iovec: a message far longer than the buffer costs no more memory than this. */
#define MM_RECV_DISCARD_CHUNK ((size_t) 1 << 20)
#define MM_RECV_DISCARD_IOV 4096        /* at most so many entries (4 GiB of 1 MiB chunks) */

/* The receive buffer holds `keep` of the message's data_sz bytes: describe the payload as
 * those bytes (user buffer if contiguous, else staged for unpacking) followed by the rest
 * read into scratch. tmpbuf holds [staged bytes][iovec entries][scratch]. */
static int recv_truncated_view(MPIR_Request * rreq, mm_buf_t * b, int is_contig, size_t keep)
{
    int mpi_errno = MPI_SUCCESS;
    size_t excess = rreq->dev.data_sz - keep;
    size_t chunk = MPL_MIN(excess, MM_RECV_DISCARD_CHUNK);
    size_t nchunks = excess / chunk + (excess % chunk != 0);    /* no wrap for any size */
    size_t staged = is_contig ? 0 : keep;
    size_t iov_off = MPL_ROUND_UP_ALIGN(staged, sizeof(struct iovec));
    size_t niov = (keep > 0) + nchunks;
    size_t scratch_off = iov_off + niov * sizeof(struct iovec);
    struct iovec *iov;
    char *scratch;
    int n = 0;

    if (nchunks > MM_RECV_DISCARD_IOV) {
        /* an absurd length (a peer may claim any): bigger chunks, or no memory for them */
        chunk = excess / MM_RECV_DISCARD_IOV + 1;
        nchunks = excess / chunk + (excess % chunk != 0);
        niov = (keep > 0) + nchunks;
        scratch_off = iov_off + niov * sizeof(struct iovec);
    }
    MPIR_ERR_CHKANDJUMP1(scratch_off + chunk < chunk, mpi_errno, MPI_ERR_OTHER, "**nomem",
                         "**nomem %s", "mm truncated receive scratch");
    rreq->dev.tmpbuf = MPL_malloc(scratch_off + chunk, MPL_MEM_BUFFER);
    MPIR_ERR_CHKANDJUMP1(rreq->dev.tmpbuf == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                         "**nomem %s", "mm truncated receive scratch");
    iov = (struct iovec *) ((char *) rreq->dev.tmpbuf + iov_off);
    scratch = (char *) rreq->dev.tmpbuf + scratch_off;
    if (keep > 0) {
        MPI_Aint true_lb = 0;
        if (is_contig)
            MPIR_Datatype_get_true_lb(rreq->dev.datatype, &true_lb);
        iov[n].iov_base = is_contig ? (char *) rreq->dev.buf + true_lb : rreq->dev.tmpbuf;
        iov[n].iov_len = keep;
        n++;
    }
    for (size_t left = excess; left > 0; left -= MPL_MIN(left, chunk)) {
        iov[n].iov_base = scratch;
        iov[n].iov_len = MPL_MIN(left, chunk);
        n++;
    }
    if (!is_contig)
        rreq->dev.flags |= MM_REQ_NEED_UNPACK;
    b->iov = iov;
    b->iov_count = n;
    b->iov_idx = 0;
    b->iov_off = 0;
    b->len = rreq->dev.data_sz;
    b->done = 0;
    b->mem = NULL;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The receive rreq knows its sender and message size: make its DATA CAR point where the
 * payload must land (the user buffer when contiguous, else a staging buffer unpacked at
 * completion; what does not fit the buffer is read and dropped, and the receive completes
 * with MPI_ERR_TRUNCATE). */
static int recv_data_view(MPIR_Request * rreq)
{
    int mpi_errno = MPI_SUCCESS;
    mm_car_t *car = &rreq->dev.data_car;
    size_t data_sz = rreq->dev.data_sz;
    size_t capacity = mm_request_capacity(rreq);
    int is_contig;
    MPI_Aint true_lb = 0;

    MPIR_Datatype_is_contig(rreq->dev.datatype, &is_contig);
    car->kind = MM_CAR_DATA;
    car->dir = MM_CAR_READ;
    car->req = rreq;
    car->vc = rreq->dev.vc;
    car->next = NULL;
    car->done = NULL;
    if (data_sz > capacity) {
        mpi_errno = recv_truncated_view(rreq, &car->buf, is_contig, capacity);
        MPIR_ERR_CHECK(mpi_errno);
    } else if (is_contig) {
        MPIR_Datatype_get_true_lb(rreq->dev.datatype, &true_lb);
        mm_buf_init_contig(&car->buf, (char *) rreq->dev.buf + true_lb, data_sz);
    } else {
        rreq->dev.tmpbuf = MPL_malloc(data_sz, MPL_MEM_BUFFER);
        MPIR_ERR_CHKANDJUMP1(rreq->dev.tmpbuf == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                             "**nomem %s", "mm receive staging buffer");
        rreq->dev.flags |= MM_REQ_NEED_UNPACK;
        mm_buf_init_contig(&car->buf, rreq->dev.tmpbuf, data_sz);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* ... and hand it to the method, for the payload that follows. */
static int recv_post_data(MPIR_Request * rreq)
{
    int mpi_errno = recv_data_view(rreq);

    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = rreq->dev.vc->method->post_read(&rreq->dev.data_car);
    return mpi_errno;
}

static int send_cts(MPIR_Request * rreq)
{
    int mpi_errno = MPI_SUCCESS;

    rreq->dev.id = mm_reqid_register(rreq);
    MPIR_ERR_CHKANDJUMP1(rreq->dev.id == 0, mpi_errno, MPI_ERR_OTHER, "**nomem",
                         "**nomem %s", "mm request id");
    rreq->dev.flags |= MM_REQ_AWAIT_DATA;
    mpi_errno = mm_proto_send_ctrl(rreq->dev.vc, MM_PKT_CTS, rreq->dev.peer_id, rreq->dev.id);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* RGET: the receive has read the payload with the method's get(); the sender may have its
 * buffer back. */
static int rget_done(mm_car_t * car)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *rreq = car->req;

    car->done = NULL;
    rreq->dev.flags &= ~MM_REQ_RGET;
    mpi_errno = mm_proto_send_ctrl(rreq->dev.vc, MM_PKT_FIN, rreq->dev.peer_id, 0);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = mm_request_cc_done(rreq);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* RGET: a matched receive holds the sender's rendezvous data; read the payload. */
static int rget_start(MPIR_Request * rreq)
{
    int mpi_errno = MPI_SUCCESS;
    mm_car_t *car = &rreq->dev.data_car;
    int refused = 0;

    mpi_errno = recv_data_view(rreq);
    MPIR_ERR_CHECK(mpi_errno);
    car->done = rget_done;
    mpi_errno = rreq->dev.vc->method->get(car, rreq->dev.rndv, rreq->dev.rndv_len, &refused);
    MPIR_ERR_CHECK(mpi_errno);
    if (refused) {
        /* Ask for the payload instead; its DATA builds the view again. */
        car->done = NULL;
        MPL_free(rreq->dev.tmpbuf);
        rreq->dev.tmpbuf = NULL;
        rreq->dev.flags &= ~(MM_REQ_NEED_UNPACK | MM_REQ_RGET);
        mpi_errno = send_cts(rreq);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* RGET: the rendezvous data an RTS carried is in req->dev.rndv. A matched receive reads the
 * payload now; an unexpected message joins the queue only now, complete, so a receive
 * never matches an offer it cannot read yet (nothing else of its VC arrives meanwhile). */
static int rndv_arrived(mm_car_t * car)
{
    MPIR_Request *req = car->req;

    car->done = NULL;
    req->dev.flags |= MM_REQ_RGET;
    if (req->dev.flags & MM_REQ_UNEXPECTED) {
        mm_recvq_add_unexp(req);
        return MPI_SUCCESS;
    }
    return rget_start(req);
}

/* Read the aux_sz bytes of rendezvous data that follow an RTS into req. */
static int rndv_read(MPIR_Request * req, mm_vc_t * vc, size_t aux_sz)
{
    mm_car_t *car = &req->dev.data_car;

    car->kind = MM_CAR_DATA;
    car->dir = MM_CAR_READ;
    car->flags = 0;
    car->req = req;
    car->vc = vc;
    car->next = NULL;
    car->done = rndv_arrived;
    req->dev.rndv_len = (uint16_t) aux_sz;
    mm_buf_init_contig(&car->buf, req->dev.rndv, aux_sz);
    return vc->method->post_read(car);
}

static void recv_set_envelope(MPIR_Request * rreq, mm_vc_t * vc, int rank, int tag,
                              size_t data_sz)
{
    rreq->status.MPI_SOURCE = rank;
    rreq->status.MPI_TAG = tag;
    rreq->dev.vc = vc;
    rreq->dev.data_sz = data_sz;
}

int mm_proto_recv_matched(MPIR_Request * rreq, MPIR_Request * ureq)
{
    int mpi_errno = MPI_SUCCESS;

    recv_set_envelope(rreq, ureq->dev.vc, ureq->dev.match_rank, ureq->dev.match_tag,
                      ureq->dev.data_sz);
    if (ureq->dev.flags & MM_REQ_RNDV) {
        rreq->dev.peer_id = ureq->dev.peer_id;
        if (ureq->dev.flags & MM_REQ_RGET) {
            rreq->dev.flags |= MM_REQ_RGET;
            rreq->dev.rndv_len = ureq->dev.rndv_len;
            memcpy(rreq->dev.rndv, ureq->dev.rndv, ureq->dev.rndv_len);
            MPIR_Request_free(ureq);
            mpi_errno = rget_start(rreq);
        } else {
            MPIR_Request_free(ureq);
            mpi_errno = send_cts(rreq);
        }
        MPIR_ERR_CHECK(mpi_errno);
        goto fn_exit;
    }
    if ((ureq->dev.flags & MM_REQ_SYNC) && !(ureq->dev.flags & MM_REQ_SYNC_ACKED)) {
        ureq->dev.flags |= MM_REQ_SYNC_ACKED;
        mpi_errno = mm_proto_send_ctrl(ureq->dev.vc, MM_PKT_SYNC_ACK, ureq->dev.peer_id, 0);
        MPIR_ERR_CHECK(mpi_errno);
    }
    if (ureq->dev.flags & MM_REQ_DATA_DONE) {
        /* The payload waits in the unexpected buffer: the receive takes it over. */
        rreq->dev.tmpbuf = ureq->dev.tmpbuf;
        ureq->dev.tmpbuf = NULL;
        if (rreq->dev.data_sz > 0)
            rreq->dev.flags |= MM_REQ_NEED_UNPACK;
        MPIR_Request_free(ureq);
        mpi_errno = mm_request_cc_done(rreq);
    } else {
        /* Still arriving: the unexpected request finishes rreq when its DATA CAR does. */
        ureq->dev.partner = rreq;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int unexp_create(mm_vc_t * vc, const mm_pkt_t * pkt, MPIR_Request ** ureq_out)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *ureq = MPIR_Request_create(MPIR_REQUEST_KIND__RECV);

    MPIR_ERR_CHKANDJUMP1(ureq == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm unexpected message");
    ureq->dev.flags = MM_REQ_UNEXPECTED;
    ureq->dev.match_ctx = pkt->context_id;
    ureq->dev.match_rank = pkt->rank;
    ureq->dev.match_tag = pkt->tag;
    ureq->dev.data_sz = pkt->data_sz;
    ureq->dev.vc = vc;
    ureq->dev.peer_id = pkt->sreq;
    ureq->dev.msg_seq = pkt->rreq;
    *ureq_out = ureq;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* An EAGER or EAGER_SYNC envelope arrived, its payload read later or already in hand: a
 * posted receive it matches takes its envelope (and EAGER_SYNC's answer goes out), or
 * *ureq_out is a new unexpected message for it (not queued yet; EAGER_SYNC's answer waits
 * for the receive that matches it). */
static int eager_arrived(mm_vc_t * vc, const mm_pkt_t * pkt, MPIR_Request ** rreq_out,
                         MPIR_Request ** ureq_out)
{
    int mpi_errno = MPI_SUCCESS;
    int sync = pkt->kind == MM_PKT_EAGER_SYNC;
    MPIR_Request *rreq = mm_recvq_match_posted(pkt->context_id, pkt->rank, pkt->tag);

    *rreq_out = rreq;
    *ureq_out = NULL;
    if (rreq) {
        recv_set_envelope(rreq, vc, pkt->rank, pkt->tag, pkt->data_sz);
        if (sync)
            mpi_errno = mm_proto_send_ctrl(vc, MM_PKT_SYNC_ACK, pkt->sreq, 0);
        return mpi_errno;
    }
    mpi_errno = unexp_create(vc, pkt, ureq_out);
    if (mpi_errno == MPI_SUCCESS && sync)
        (*ureq_out)->dev.flags |= MM_REQ_SYNC;
    return mpi_errno;
}

int mm_proto_handle_eager(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *rreq, *ureq;

    mpi_errno = eager_arrived(vc, pkt, &rreq, &ureq);
    MPIR_ERR_CHECK(mpi_errno);
    if (rreq) {
        if (pkt->data_sz > 0)
            mpi_errno = recv_post_data(rreq);
        else
            mpi_errno = mm_request_cc_done(rreq);
        goto fn_exit;
    }

    /* Queue first: a receive posted while the payload streams in must still find it. */
    mm_recvq_add_unexp(ureq);
    if (pkt->data_sz == 0) {
        ureq->dev.flags |= MM_REQ_DATA_DONE;
        goto fn_exit;
    }
    ureq->dev.tmpbuf = MPL_malloc(pkt->data_sz, MPL_MEM_BUFFER);
    MPIR_ERR_CHKANDJUMP1(ureq->dev.tmpbuf == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                         "**nomem %s", "mm unexpected message buffer");
    ureq->dev.data_car.kind = MM_CAR_DATA;
    ureq->dev.data_car.dir = MM_CAR_READ;
    ureq->dev.data_car.req = ureq;
    ureq->dev.data_car.vc = vc;
    mm_buf_init_contig(&ureq->dev.data_car.buf, ureq->dev.tmpbuf, pkt->data_sz);
    mpi_errno = vc->method->post_read(&ureq->dev.data_car);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_proto_eager_in_hand(mm_vc_t * vc, const mm_pkt_t * pkt, const void *data)
{
    int mpi_errno = MPI_SUCCESS;
    size_t len = pkt->data_sz;
    MPIR_Request *rreq, *ureq;

    mpi_errno = eager_arrived(vc, pkt, &rreq, &ureq);
    MPIR_ERR_CHECK(mpi_errno);
    if (rreq) {
        MPI_Aint true_lb;
        int is_contig;

        if (len > 0) {
            MPIR_Datatype_is_contig(rreq->dev.datatype, &is_contig);
            if (is_contig && len <= mm_request_capacity(rreq)) {
                /* the common case: one copy into the user's buffer */
                MPIR_Datatype_get_true_lb(rreq->dev.datatype, &true_lb);
                memcpy((char *) rreq->dev.buf + true_lb, data, len);
            } else {
                mpi_errno = recv_data_view(rreq);
                MPIR_ERR_CHECK(mpi_errno);
                mm_buf_copy(&rreq->dev.data_car.buf, (void *) data, len, 1);
            }
        }
        mpi_errno = mm_request_cc_done(rreq);
        goto fn_exit;
    }

    ureq->dev.flags |= MM_REQ_DATA_DONE;
    if (len > 0) {
        ureq->dev.tmpbuf = MPL_malloc(len, MPL_MEM_BUFFER);
        if (ureq->dev.tmpbuf == NULL) {
            MPIR_Request_free(ureq);
            MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                                 "mm unexpected message buffer");
        }
        memcpy(ureq->dev.tmpbuf, data, len);
    }
    mm_recvq_add_unexp(ureq);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_proto_handle_rts(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *rreq = mm_recvq_match_posted(pkt->context_id, pkt->rank, pkt->tag);
    MPIR_Request *ureq;

    if (rreq) {
        recv_set_envelope(rreq, vc, pkt->rank, pkt->tag, pkt->data_sz);
        rreq->dev.peer_id = pkt->sreq;
        mpi_errno = pkt->aux_sz ? rndv_read(rreq, vc, pkt->aux_sz) : send_cts(rreq);
    } else {
        mpi_errno = unexp_create(vc, pkt, &ureq);
        MPIR_ERR_CHECK(mpi_errno);
        ureq->dev.flags |= MM_REQ_RNDV;
        if (pkt->aux_sz)
            mpi_errno = rndv_read(ureq, vc, pkt->aux_sz);       /* queued once it is in */
        else
            mm_recvq_add_unexp(ureq);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_proto_handle_data(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *rreq;

    mpi_errno = mm_reqid_lookup_named(vc, pkt->rreq, MPIR_REQUEST_KIND__RECV,
                                      MM_REQ_AWAIT_DATA, MM_REQ_UNEXPECTED, "DATA", &rreq);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERR_CHKANDJUMP3(pkt->data_sz != rreq->dev.data_sz, mpi_errno, MPI_ERR_OTHER,
                         "**mm|badpkt", "**mm|badpkt %d %d %d", vc->lpid, pkt->version,
                         pkt->kind);
    rreq->dev.flags &= ~MM_REQ_AWAIT_DATA;
    mpi_errno = recv_post_data(rreq);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The payload of an unexpected message is complete; if a receive already matched it,
 * that receive completes now. */
int mm_proto_unexp_data_done(MPIR_Request * ureq)
{
    MPIR_Request *rreq = ureq->dev.partner;

    ureq->dev.flags |= MM_REQ_DATA_DONE;
    if (ureq->dev.flags & MM_REQ_CANCELLED) {
        /* Its sender withdrew it while the payload was still on the way. */
        MPIR_Request_free(ureq);
        return MPI_SUCCESS;
    }
    if (rreq == NULL)
        return MPI_SUCCESS;
    rreq->dev.tmpbuf = ureq->dev.tmpbuf;
    ureq->dev.tmpbuf = NULL;
    rreq->dev.flags |= MM_REQ_NEED_UNPACK;
    MPIR_Request_free(ureq);
    return mm_request_cc_done(rreq);
}
