/*
 * The completion queue: where methods report finished CARs, and where an arrived envelope
 * finds its handler. Dispatch happens as the CAR is reported (a method calls mm_cq_complete
 * from its progress or post routine), which is what lets a method learn, before it
 * delivers the next byte of a VC, where the current message's payload goes.
 *
 * Handlers come from a table indexed by packet kind (as Open MPI's BTLs dispatch by tag):
 * the engine's point-to-point protocols fill their kinds (mm_proto_send.c for the
 * sender's side, mm_proto_recv.c for the receiver's), and every other kind belongs to a
 * subsystem above the engine, which registered its handler at init (mm_pkt_register):
 * CANCEL_REQ/RESP (mm_cancel.c), RMA_OP, RMA_RESP and RMA_CTRL (rma/). Subsystems' CARs
 * carry their own done callbacks, which the queue calls instead of its own rules.
 */
#include "mpidimpl.h"

/* Who handles each packet kind: the engine's own protocols, and what the subsystems
 * above it registered at init (mm_pkt_register). */
static mm_pkt_handler_fn pkt_handlers[MM_PKT_KIND_LAST] = {
    [MM_PKT_EAGER] = mm_proto_handle_eager,
    [MM_PKT_EAGER_SYNC] = mm_proto_handle_eager,
    [MM_PKT_RTS] = mm_proto_handle_rts,
    [MM_PKT_CTS] = mm_proto_handle_cts,
    [MM_PKT_DATA] = mm_proto_handle_data,
    [MM_PKT_SYNC_ACK] = mm_proto_handle_sync_ack,
    [MM_PKT_FIN] = mm_proto_handle_fin,
};

void mm_pkt_register(mm_pkt_kind_t kind, mm_pkt_handler_fn fn)
{
    MPIR_Assert(kind > 0 && kind < MM_PKT_KIND_LAST && pkt_handlers[kind] == NULL);
    pkt_handlers[kind] = fn;
}

/* Every method's envelopes meet the same checks here (mm_wire.c); a method only frames
 * the bytes. */
static int envelope_check(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;

    switch (mm_wire_envelope_check(pkt, vc->eager_limit_rx)) {
        case MM_WIRE_OK:
            break;
        case MM_WIRE_TOOLARGE:
            MPIR_ERR_SETANDJUMP3(mpi_errno, MPI_ERR_OTHER, "**mm|toolarge",
                                 "**mm|toolarge %d %d %L", vc->lpid, (int) pkt->kind,
                                 (long long) pkt->data_sz);
        default:
            MPIR_ERR_SETANDJUMP3(mpi_errno, MPI_ERR_OTHER, "**mm|badpkt",
                                 "**mm|badpkt %d %d %d", vc->lpid, pkt->version, pkt->kind);
    }
    /* a kind no subsystem of this build claimed is refused like an unknown one */
    MPIR_ERR_CHKANDJUMP3(pkt_handlers[pkt->kind] == NULL, mpi_errno, MPI_ERR_OTHER,
                         "**mm|badpkt", "**mm|badpkt %d %d %d", vc->lpid, pkt->version,
                         pkt->kind);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int handle_envelope(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = envelope_check(vc, pkt);

    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = pkt_handlers[pkt->kind] (vc, pkt);
    return mpi_errno;
}

static int bad_payload(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                MPI_ERR_OTHER, "**mm|badpkt", "**mm|badpkt %d %d %d", vc->lpid,
                                (int) pkt->version, (int) pkt->kind);
}

int mm_cq_deliver(mm_vc_t * vc, const mm_pkt_t * pkt, const void *data, size_t len)
{
    int mpi_errno;
    mm_car_t *rdata;

    /* A whole eager message: matched and copied in one step, without a READ CAR. */
    if ((pkt->kind == MM_PKT_EAGER || pkt->kind == MM_PKT_EAGER_SYNC) && len == pkt->data_sz) {
        mpi_errno = envelope_check(vc, pkt);
        if (mpi_errno == MPI_SUCCESS)
            mpi_errno = mm_proto_eager_in_hand(vc, pkt, data);
        return mpi_errno;
    }
    /* Anything else: the envelope, then the payload into the CAR the engine posts. */
    vc->rhead.pkt = *pkt;
    vc->rdata = NULL;
    mpi_errno = mm_cq_complete(&vc->rhead);
    if (mpi_errno)
        return mpi_errno;
    rdata = vc->rdata;
    if (len == 0)
        return rdata ? bad_payload(vc, pkt) : MPI_SUCCESS;
    if (rdata == NULL || mm_buf_remaining(&rdata->buf) != len)
        return bad_payload(vc, pkt);
    mm_buf_copy(&rdata->buf, (void *) data, len, 1);
    vc->rdata = NULL;
    return mm_cq_complete(rdata);
}


int mm_cq_complete(mm_car_t * car)
{
    MPIR_Request *req = car->req;

    if (car->done)
        return car->done(car);  /* a subsystem's CAR (mm_car.h) */
    if (car->dir == MM_CAR_WRITE) {
        if (car->flags & MM_CAR_FLAG_FREE)
            mm_car_free(car);
        return req ? mm_request_cc_done(req) : MPI_SUCCESS;
    }
    if (car->kind == MM_CAR_HEAD)
        return handle_envelope(car->vc, &car->pkt);
    if (req->dev.flags & MM_REQ_UNEXPECTED)
        return mm_proto_unexp_data_done(req);
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
