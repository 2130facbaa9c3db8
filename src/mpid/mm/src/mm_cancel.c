/*
 * Cancel.
 *
 * A receive still in the posted queue is withdrawn and completes as cancelled.
 *
 * A send is withdrawn from the receiver's unexpected queue, which takes a round trip: the
 * sender posts CANCEL_REQ naming the message by its number on the VC (mm_pkt_t.rreq of
 * its EAGER/RTS), the receiver dequeues that message if no receive or probe has taken it
 * yet and answers CANCEL_RESP (withdrawn or not). Until the answer arrives the send
 * request holds one more unit in its completion counter, so MPI_Wait returns only once
 * MPI_Test_cancelled can tell the truth. This also works on a send that already
 * completed locally (an eager message sits in the receiver's memory): the request is
 * reopened for the round trip, with the engine's reference taken again.
 *
 * A withdrawn message never reaches a receive, so the SYNC_ACK or CTS the send was
 * waiting for will never come: its unit is released with the answer. A message whose
 * payload is still arriving is unlinked at once and dropped when its payload is complete.
 */
#include "mpidimpl.h"
#include "mm_subsys.h"

int MPID_Cancel_recv(MPIR_Request * rreq)
{
    if (mm_recvq_remove_posted(rreq)) {
        MPIR_STATUS_SET_CANCEL_BIT(rreq->status, TRUE);
        return mm_request_cc_done(rreq);
    }
    return MPI_SUCCESS;
}

int MPID_Cancel_send(MPIR_Request * sreq)
{
    int mpi_errno = MPI_SUCCESS;
    int was_incomplete;

    /* Nothing went out (MPI_PROC_NULL), an answer is already awaited, or the message
     * belongs to the device's own traffic (a partitioned transfer, whose completion a
     * subsystem awaits; a collective's schedule), which is not the user's to withdraw. */
    if (sreq->dev.vc == NULL || sreq->dev.msg_seq == 0 ||
        (sreq->dev.flags & MM_REQ_CANCEL_PENDING) || sreq->dev.on_complete != NULL ||
        sreq->completion_notification != NULL || MPIR_STATUS_GET_CANCEL_BIT(sreq->status))
        goto fn_exit;

    if (sreq->dev.id == 0) {
        sreq->dev.id = mm_reqid_register(sreq);
        MPIR_ERR_CHKANDJUMP1(sreq->dev.id == 0, mpi_errno, MPI_ERR_OTHER, "**nomem",
                             "**nomem %s", "mm request id");
    }
    sreq->dev.flags |= MM_REQ_CANCEL_PENDING;
    MPIR_cc_incr(sreq->cc_ptr, &was_incomplete);
    if (!was_incomplete)
        MPIR_Request_add_ref(sreq);     /* the engine's reference, dropped at completion */
    mpi_errno = mm_proto_send_ctrl(sreq->dev.vc, MM_PKT_CANCEL_REQ, sreq->dev.id,
                                   sreq->dev.msg_seq);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Receiver: withdraw message pkt->rreq of vc if it is still unexpected. */
static int handle_req(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    MPIR_Request *ureq = mm_recvq_take_unexp_seq(vc, pkt->rreq);

    if (ureq) {
        if ((ureq->dev.flags & MM_REQ_RNDV) || (ureq->dev.flags & MM_REQ_DATA_DONE))
            MPIR_Request_free(ureq);    /* its staging buffer goes with it */
        else
            ureq->dev.flags |= MM_REQ_CANCELLED;        /* the payload's CAR frees it */
    }
    return mm_proto_send_ctrl(vc, MM_PKT_CANCEL_RESP, pkt->sreq, ureq != NULL);
}

/* Sender: the answer to our CANCEL_REQ. */
static int handle_resp(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *sreq = mm_reqid_lookup(pkt->sreq);

    MPIR_ERR_CHKANDJUMP3(sreq == NULL || sreq->kind != MPIR_REQUEST_KIND__SEND ||
                         !(sreq->dev.flags & MM_REQ_CANCEL_PENDING) || sreq->dev.vc != vc,
                         mpi_errno, MPI_ERR_OTHER, "**mm|badreqid",
                         "**mm|badreqid %d %s %L", vc->lpid, "CANCEL_RESP",
                         (long long) pkt->sreq);
    sreq->dev.flags &= ~MM_REQ_CANCEL_PENDING;
    if (pkt->rreq) {
        MPIR_STATUS_SET_CANCEL_BIT(sreq->status, TRUE);
        if (sreq->dev.flags & MM_REQ_AWAIT_ACK) {
            /* No receive will ever answer the withdrawn message, nor read its payload. */
            sreq->dev.flags &= ~MM_REQ_AWAIT_ACK;
            mm_proto_send_unoffer(sreq);
            mpi_errno = mm_request_cc_done(sreq);
            MPIR_ERR_CHECK(mpi_errno);
        }
    }
    if (!(sreq->dev.flags & MM_REQ_AWAIT_ACK)) {
        mm_reqid_release(sreq->dev.id);
        sreq->dev.id = 0;
    }
    mpi_errno = mm_request_cc_done(sreq);       /* the answer itself */

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

void mm_cancel_init(void)
{
    mm_pkt_register(MM_PKT_CANCEL_REQ, handle_req);
    mm_pkt_register(MM_PKT_CANCEL_RESP, handle_resp);
}
