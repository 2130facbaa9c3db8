/*
 * The completion queue: where methods report finished CARs, and the one place that knows
 * the protocols. Dispatch happens as the CAR is reported (a method calls mm_cq_complete
 * from its progress or post routine), which is what lets a method learn, before it
 * delivers the next byte of a VC, where the current message's payload goes.
 *
 *   EAGER       envelope + payload; matched -> user buffer, else buffered as unexpected
 *   EAGER_SYNC  as EAGER, and SYNC_ACK goes back once a receive matches it (MPI_Ssend)
 *   RTS         envelope only; on match the receiver sends CTS naming its request
 *   CTS         sender posts DATA (envelope + payload) naming the receiver's request
 *   DATA        payload of a rendezvous, straight into the matched receive
 *   SYNC_ACK    the synchronous send may complete
 *   CANCEL_REQ, CANCEL_RESP   withdrawing a send (mm_cancel.c)
 *   RMA_OP, RMA_RESP, RMA_CTRL   one-sided operations and window synchronization (rma/)
 */
#include "mpidimpl.h"

int mm_proto_send_ctrl(mm_vc_t * vc, mm_pkt_kind_t kind, uint64_t sreq_id, uint64_t rreq_id)
{
    int mpi_errno = MPI_SUCCESS;
    mm_car_t *car = mm_car_alloc();

    MPIR_ERR_CHKANDJUMP1(car == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm control CAR");
    car->kind = MM_CAR_HEAD;
    car->dir = MM_CAR_WRITE;
    car->flags = MM_CAR_FLAG_FREE;
    car->vc = vc;
    car->pkt.version = MM_PKT_VERSION;
    car->pkt.kind = kind;
    car->pkt.sreq = sreq_id;
    car->pkt.rreq = rreq_id;
    mpi_errno = vc->method->post_write(car);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static void head_car_prepare(mm_car_t * car, MPIR_Request * req, mm_vc_t * vc,
                             mm_pkt_kind_t kind)
{
    car->kind = MM_CAR_HEAD;
    car->dir = MM_CAR_WRITE;
    car->req = req;
    car->vc = vc;
    car->next = NULL;
    car->pkt.version = MM_PKT_VERSION;
    car->pkt.kind = kind;
    car->pkt.reserved = 0;
    car->pkt.context_id = req->dev.match_ctx;
    car->pkt.rank = req->dev.match_rank;
    car->pkt.tag = req->dev.match_tag;
    car->pkt.data_sz = req->dev.data_sz;
    car->pkt.sreq = 0;
    car->pkt.rreq = 0;
}

int mm_proto_send(MPIR_Request * sreq, int sync)
{
    int mpi_errno = MPI_SUCCESS;
    mm_vc_t *vc = sreq->dev.vc;
    mm_car_t *head = &sreq->dev.head_car;
    size_t data_sz = sreq->dev.data_sz;

    sreq->dev.msg_seq = ++vc->send_seq;
    if (data_sz <= vc->eager_limit) {
        head_car_prepare(head, sreq, vc, sync ? MM_PKT_EAGER_SYNC : MM_PKT_EAGER);
        head->pkt.rreq = sreq->dev.msg_seq;
        if (sync) {
            sreq->dev.flags |= MM_REQ_AWAIT_ACK;
            sreq->dev.id = mm_reqid_register(sreq);
            MPIR_ERR_CHKANDJUMP1(sreq->dev.id == 0, mpi_errno, MPI_ERR_OTHER, "**nomem",
                                 "**nomem %s", "mm request id");
            head->pkt.sreq = sreq->dev.id;
            mm_request_cc_add(sreq, 1);         /* the SYNC_ACK */
        }
        if (data_sz > 0)
            head->next = &sreq->dev.data_car;
        mm_request_cc_add(sreq, data_sz > 0 ? 2 : 1);
    } else {
        /* Rendezvous also gives Ssend its semantics: CTS means the receive matched. */
        head_car_prepare(head, sreq, vc, MM_PKT_RTS);
        head->pkt.rreq = sreq->dev.msg_seq;
        sreq->dev.flags |= MM_REQ_AWAIT_ACK;
        sreq->dev.id = mm_reqid_register(sreq);
        MPIR_ERR_CHKANDJUMP1(sreq->dev.id == 0, mpi_errno, MPI_ERR_OTHER, "**nomem",
                             "**nomem %s", "mm request id");
        head->pkt.sreq = sreq->dev.id;
        mm_request_cc_add(sreq, 2);     /* the RTS CAR and the CTS we wait for */
    }
    mpi_errno = vc->method->post_write(head);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The receive rreq knows its sender and message size: make its DATA CAR point where the
 * payload must land (the user buffer when contiguous and large enough, else a staging
 * buffer unpacked at completion) and hand it to the method. */
static int recv_post_data(MPIR_Request * rreq)
{
    int mpi_errno = MPI_SUCCESS;
    mm_car_t *car = &rreq->dev.data_car;
    size_t data_sz = rreq->dev.data_sz;
    int is_contig;
    MPI_Aint true_lb = 0;

    MPIR_Datatype_is_contig(rreq->dev.datatype, &is_contig);
    car->kind = MM_CAR_DATA;
    car->dir = MM_CAR_READ;
    car->req = rreq;
    car->vc = rreq->dev.vc;
    car->next = NULL;
    if (is_contig && data_sz <= mm_request_capacity(rreq)) {
        MPIR_Datatype_get_true_lb(rreq->dev.datatype, &true_lb);
        mm_buf_init_contig(&car->buf, (char *) rreq->dev.buf + true_lb, data_sz);
    } else {
        rreq->dev.tmpbuf = MPL_malloc(data_sz, MPL_MEM_BUFFER);
        MPIR_ERR_CHKANDJUMP1(rreq->dev.tmpbuf == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                             "**nomem %s", "mm receive staging buffer");
        rreq->dev.flags |= MM_REQ_NEED_UNPACK;
        mm_buf_init_contig(&car->buf, rreq->dev.tmpbuf, data_sz);
    }
    mpi_errno = car->vc->method->post_read(car);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int send_cts(MPIR_Request * rreq)
{
    int mpi_errno = MPI_SUCCESS;

    rreq->dev.id = mm_reqid_register(rreq);
    MPIR_ERR_CHKANDJUMP1(rreq->dev.id == 0, mpi_errno, MPI_ERR_OTHER, "**nomem",
                         "**nomem %s", "mm request id");
    mpi_errno = mm_proto_send_ctrl(rreq->dev.vc, MM_PKT_CTS, rreq->dev.peer_id, rreq->dev.id);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
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
        MPIR_Request_free(ureq);
        mpi_errno = send_cts(rreq);
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

static int handle_eager(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;
    int sync = pkt->kind == MM_PKT_EAGER_SYNC;
    MPIR_Request *rreq = mm_recvq_match_posted(pkt->context_id, pkt->rank, pkt->tag);
    MPIR_Request *ureq;

    if (rreq) {
        recv_set_envelope(rreq, vc, pkt->rank, pkt->tag, pkt->data_sz);
        if (sync) {
            mpi_errno = mm_proto_send_ctrl(vc, MM_PKT_SYNC_ACK, pkt->sreq, 0);
            MPIR_ERR_CHECK(mpi_errno);
        }
        if (pkt->data_sz > 0)
            mpi_errno = recv_post_data(rreq);
        else
            mpi_errno = mm_request_cc_done(rreq);
        goto fn_exit;
    }

    mpi_errno = unexp_create(vc, pkt, &ureq);
    MPIR_ERR_CHECK(mpi_errno);
    if (sync)
        ureq->dev.flags |= MM_REQ_SYNC;
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

static int handle_rts(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *rreq = mm_recvq_match_posted(pkt->context_id, pkt->rank, pkt->tag);
    MPIR_Request *ureq;

    if (rreq) {
        recv_set_envelope(rreq, vc, pkt->rank, pkt->tag, pkt->data_sz);
        rreq->dev.peer_id = pkt->sreq;
        mpi_errno = send_cts(rreq);
    } else {
        mpi_errno = unexp_create(vc, pkt, &ureq);
        MPIR_ERR_CHECK(mpi_errno);
        ureq->dev.flags |= MM_REQ_RNDV;
        mm_recvq_add_unexp(ureq);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Find the request a peer's packet names, or fail with an error naming the peer. */
static int lookup_named(mm_vc_t * vc, const mm_pkt_t * pkt, uint64_t id, const char *what,
                        MPIR_Request ** req_out)
{
    int mpi_errno = MPI_SUCCESS;

    *req_out = mm_reqid_lookup(id);
    MPIR_ERR_CHKANDJUMP3(*req_out == NULL, mpi_errno, MPI_ERR_OTHER, "**mm|badreqid",
                         "**mm|badreqid %d %s %L", vc->lpid, what, (long long) id);
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The CTS or SYNC_ACK a send waited for is here. Its id goes back to the table, unless a
 * cancel is in flight: the answer to that names the request too. */
static void ack_arrived(MPIR_Request * sreq)
{
    sreq->dev.flags &= ~MM_REQ_AWAIT_ACK;
    if (!(sreq->dev.flags & MM_REQ_CANCEL_PENDING)) {
        mm_reqid_release(sreq->dev.id);
        sreq->dev.id = 0;
    }
}

static int handle_cts(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *sreq;
    mm_car_t *head;

    mpi_errno = lookup_named(vc, pkt, pkt->sreq, "CTS", &sreq);
    MPIR_ERR_CHECK(mpi_errno);
    ack_arrived(sreq);

    head = mm_car_alloc();
    MPIR_ERR_CHKANDJUMP1(head == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm DATA CAR");
    head_car_prepare(head, sreq, vc, MM_PKT_DATA);
    head->flags = MM_CAR_FLAG_FREE;
    head->pkt.rreq = pkt->rreq;
    head->next = &sreq->dev.data_car;
    mm_request_cc_add(sreq, 2);
    mpi_errno = vc->method->post_write(head);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = mm_request_cc_done(sreq);       /* the CTS arrived */

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int handle_data(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *rreq;

    mpi_errno = lookup_named(vc, pkt, pkt->rreq, "DATA", &rreq);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERR_CHKANDJUMP3(rreq->dev.vc != vc || pkt->data_sz != rreq->dev.data_sz, mpi_errno,
                         MPI_ERR_OTHER, "**mm|badpkt", "**mm|badpkt %d %d %d", vc->lpid,
                         pkt->version, pkt->kind);
    mpi_errno = recv_post_data(rreq);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int handle_sync_ack(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *sreq;

    mpi_errno = lookup_named(vc, pkt, pkt->sreq, "SYNC_ACK", &sreq);
    MPIR_ERR_CHECK(mpi_errno);
    ack_arrived(sreq);
    mpi_errno = mm_request_cc_done(sreq);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int handle_envelope(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;

    MPIR_ERR_CHKANDJUMP3(pkt->version != MM_PKT_VERSION || pkt->kind == 0 ||
                         pkt->kind >= MM_PKT_KIND_LAST, mpi_errno, MPI_ERR_OTHER,
                         "**mm|badpkt", "**mm|badpkt %d %d %d", vc->lpid, pkt->version,
                         pkt->kind);
    switch ((mm_pkt_kind_t) pkt->kind) {
        case MM_PKT_EAGER:
        case MM_PKT_EAGER_SYNC:
            mpi_errno = handle_eager(vc, pkt);
            break;
        case MM_PKT_RTS:
            mpi_errno = handle_rts(vc, pkt);
            break;
        case MM_PKT_CTS:
            mpi_errno = handle_cts(vc, pkt);
            break;
        case MM_PKT_DATA:
            mpi_errno = handle_data(vc, pkt);
            break;
        case MM_PKT_SYNC_ACK:
            mpi_errno = handle_sync_ack(vc, pkt);
            break;
        case MM_PKT_CANCEL_REQ:
            mpi_errno = mm_cancel_handle_req(vc, pkt);
            break;
        case MM_PKT_CANCEL_RESP:
            mpi_errno = mm_cancel_handle_resp(vc, pkt);
            break;
        case MM_PKT_RMA_OP:
        case MM_PKT_RMA_RESP:
        case MM_PKT_RMA_CTRL:
            mpi_errno = mm_rma_handle_pkt(vc, pkt);
            break;
        case MM_PKT_KIND_LAST:
            MPIR_Assert(0);
            break;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The payload of an unexpected message is complete; if a receive already matched it,
 * that receive completes now. */
static int unexp_data_done(MPIR_Request * ureq)
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

int mm_cq_complete(mm_car_t * car)
{
    MPIR_Request *req = car->req;

    if (car->dir == MM_CAR_WRITE) {
        if (car->flags & MM_CAR_FLAG_RMA)
            return mm_rma_write_done(car);
        if (car->flags & MM_CAR_FLAG_FREE)
            mm_car_free(car);
        return req ? mm_request_cc_done(req) : MPI_SUCCESS;
    }
    if (car->kind == MM_CAR_HEAD)
        return handle_envelope(car->vc, &car->pkt);
    if (car->flags & MM_CAR_FLAG_RMA)
        return mm_rma_payload_done(car);
    if (req->dev.flags & MM_REQ_UNEXPECTED)
        return unexp_data_done(req);
    return mm_request_cc_done(req);
}

int mm_cq_complete_chain(mm_car_t * head)
{
    mm_car_t *data = head->next;
    int mpi_errno = mm_cq_complete(head);

    if (mpi_errno == MPI_SUCCESS && data)
        mpi_errno = mm_cq_complete(data);
    return mpi_errno;
}
