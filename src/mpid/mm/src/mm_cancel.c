/*
 * Cancel. A receive still in the posted queue is withdrawn and completes as cancelled.
 * Withdrawing a send needs a round trip to the receiver's unexpected queue, which the
 * engine does not do yet: MPI_Cancel on a send therefore never succeeds, and
 * MPI_Test_cancelled truthfully reports false once the send completes normally.
 */
#include "mpidimpl.h"

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
    return MPI_SUCCESS;
}
