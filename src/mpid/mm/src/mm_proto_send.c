/*
 * The sender's side of the point-to-point protocols: the eager or rendezvous choice for a
 * message, and the packets that answer a send (CTS, SYNC_ACK).
 *
 *   EAGER       envelope + payload, when data_sz fits the VC's eager limit
 *   EAGER_SYNC  as EAGER, and the receiver answers SYNC_ACK once a receive matches it
 *   RTS         envelope only, above the eager limit (and for every MPI_Ssend beyond it):
 *               the receiver answers CTS naming its request once a receive matched
 *   DATA        after the CTS: envelope + payload, naming the receiver's request
 *   RTS + rndv  (RGET) where the VC's method can get(): the RTS carries the rendezvous data
 *               of the registered send buffer, the receiver reads the payload itself once
 *               a receive matched and answers FIN; or CTS, if its method could not read
 *               it, and the payload comes as DATA after all
 *
 * A send request counts in its completion counter each CAR it posted and each answer it
 * awaits; it completes when the last is in.
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
    mpi_errno = mm_car_post(car);

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
    car->pkt.aux_sz = 0;
    car->pkt.context_id = req->dev.match_ctx;
    car->pkt.rank = req->dev.match_rank;
    car->pkt.tag = req->dev.match_tag;
    car->pkt.data_sz = req->dev.data_sz;
    car->pkt.sreq = 0;
    car->pkt.rreq = 0;
}

/* RGET: offer sreq's payload to the receiver's get(), by registering it with the method
 * and attaching its rendezvous data to the RTS head as a payload. Nothing happens when the
 * method has no get, or declines this buffer (*offered stays 0). */
static int rget_offer(MPIR_Request * sreq, mm_car_t * head)
{
    int mpi_errno = MPI_SUCCESS;
    mm_vc_t *vc = sreq->dev.vc;
    mm_car_t *car;
    size_t len = 0;

    if (!(vc->method->caps & MM_METHOD_CAP_GET))
        goto fn_exit;
    mpi_errno = vc->method->mem_register(vc, &sreq->dev.data_car.buf, sreq->dev.rndv, &len);
    MPIR_ERR_CHECK(mpi_errno);
    if (len == 0)
        goto fn_exit;
    MPIR_Assert(len <= MM_RNDV_DATA_MAX);
    car = mm_car_alloc();
    if (car == NULL) {
        /* no CAR for the offer: send the payload ourselves */
        vc->method->mem_deregister(vc, &sreq->dev.data_car.buf);
        goto fn_exit;
    }
    sreq->dev.rndv_len = (uint16_t) len;
    sreq->dev.flags |= MM_REQ_RGET;
    car->kind = MM_CAR_DATA;
    car->dir = MM_CAR_WRITE;
    car->flags = MM_CAR_FLAG_FREE;
    car->req = sreq;
    car->vc = vc;
    mm_buf_init_contig(&car->buf, sreq->dev.rndv, len);
    head->pkt.aux_sz = (uint16_t) len;
    head->next = car;
    mm_request_cc_add(sreq, 1);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

void mm_proto_send_unoffer(MPIR_Request * sreq)
{
    if (sreq->dev.flags & MM_REQ_RGET) {
        sreq->dev.flags &= ~MM_REQ_RGET;
        sreq->dev.vc->method->mem_deregister(sreq->dev.vc, &sreq->dev.data_car.buf);
    }
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
        sreq->dev.flags |= MM_REQ_AWAIT_ACK | MM_REQ_RNDV;
        sreq->dev.id = mm_reqid_register(sreq);
        MPIR_ERR_CHKANDJUMP1(sreq->dev.id == 0, mpi_errno, MPI_ERR_OTHER, "**nomem",
                             "**nomem %s", "mm request id");
        head->pkt.sreq = sreq->dev.id;
        mm_request_cc_add(sreq, 2);     /* the RTS CAR and the CTS (or FIN) we wait for */
        mpi_errno = rget_offer(sreq, head);
        MPIR_ERR_CHECK(mpi_errno);
    }
    mpi_errno = vc->method->post_write(head);

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

int mm_proto_handle_cts(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *sreq;
    mm_car_t *head;

    mpi_errno = mm_reqid_lookup_named(vc, pkt->sreq, MPIR_REQUEST_KIND__SEND,
                                      MM_REQ_AWAIT_ACK | MM_REQ_RNDV, 0, "CTS", &sreq);
    MPIR_ERR_CHECK(mpi_errno);
    ack_arrived(sreq);
    /* An offered get the receiver could not make: it wants the payload sent after all. */
    mm_proto_send_unoffer(sreq);

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

int mm_proto_handle_fin(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *sreq;

    mpi_errno = mm_reqid_lookup_named(vc, pkt->sreq, MPIR_REQUEST_KIND__SEND,
                                      MM_REQ_AWAIT_ACK | MM_REQ_RNDV | MM_REQ_RGET, 0, "FIN",
                                      &sreq);
    MPIR_ERR_CHECK(mpi_errno);
    ack_arrived(sreq);
    /* The receiver has read the payload: the buffer is the user's again. */
    mm_proto_send_unoffer(sreq);
    mpi_errno = mm_request_cc_done(sreq);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_proto_handle_sync_ack(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *sreq;

    mpi_errno = mm_reqid_lookup_named(vc, pkt->sreq, MPIR_REQUEST_KIND__SEND,
                                      MM_REQ_AWAIT_ACK, MM_REQ_RNDV, "SYNC_ACK", &sreq);
    MPIR_ERR_CHECK(mpi_errno);
    ack_arrived(sreq);
    mpi_errno = mm_request_cc_done(sreq);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
