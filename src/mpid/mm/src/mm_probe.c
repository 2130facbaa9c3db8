/*
 * Probe, matched probe and matched receive: queries of the unexpected queue. A matched
 * probe removes the message from the queue and hands it to the user as the message
 * request itself (kind MPROBE), which MPI_Mrecv/MPI_Imrecv then consume.
 */
#include "mpidimpl.h"

static void probe_status(MPIR_Request * ureq, MPI_Status * status)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    status->MPI_SOURCE = ureq->dev.match_rank;
    status->MPI_TAG = ureq->dev.match_tag;
    MPIR_STATUS_SET_COUNT(*status, ureq->dev.data_sz);
    MPIR_STATUS_SET_CANCEL_BIT(*status, FALSE);
}

/* Look for a matching unexpected message; poll the methods once if there is none yet. */
static int probe_unexp(int source, int tag, MPIR_Comm * comm, int context_offset,
                       int dequeue, MPIR_Request ** ureq_out)
{
    int mpi_errno = MPI_SUCCESS;
    int ctx = comm->recvcontext_id + context_offset;

    *ureq_out = mm_recvq_match_unexp(ctx, source, tag, dequeue);
    if (*ureq_out == NULL) {
        int made_progress = 0;
        mpi_errno = mm_progress_poll(&made_progress);
        MPIR_ERR_CHECK(mpi_errno);
        *ureq_out = mm_recvq_match_unexp(ctx, source, tag, dequeue);
    }
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Iprobe(int source, int tag, MPIR_Comm * comm, int context_offset, int *flag,
                MPI_Status * status)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *ureq;

    if (source == MPI_PROC_NULL) {
        MPIR_Status_set_procnull(status);
        *flag = TRUE;
        goto fn_exit;
    }
    mpi_errno = probe_unexp(source, tag, comm, context_offset, 0, &ureq);
    MPIR_ERR_CHECK(mpi_errno);
    *flag = ureq != NULL;
    if (ureq)
        probe_status(ureq, status);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Probe(int source, int tag, MPIR_Comm * comm, int context_offset, MPI_Status * status)
{
    int mpi_errno = MPI_SUCCESS;
    int flag = 0;
    MPID_Progress_state state;

    MPID_Progress_start(&state);
    for (;;) {
        mpi_errno = MPID_Iprobe(source, tag, comm, context_offset, &flag, status);
        MPIR_ERR_CHECK(mpi_errno);
        if (flag)
            break;
        mpi_errno = MPID_Progress_wait(&state);
        MPIR_ERR_CHECK(mpi_errno);
    }
    MPID_Progress_end(&state);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Improbe(int source, int tag, MPIR_Comm * comm, int context_offset, int *flag,
                 MPIR_Request ** message, MPI_Status * status)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *ureq;

    *message = NULL;
    if (source == MPI_PROC_NULL) {
        MPIR_Status_set_procnull(status);
        *message = MPIR_Request_create_null_recv();
        *flag = TRUE;
        goto fn_exit;
    }
    mpi_errno = probe_unexp(source, tag, comm, context_offset, 1, &ureq);
    MPIR_ERR_CHECK(mpi_errno);
    *flag = ureq != NULL;
    if (ureq) {
        probe_status(ureq, status);
        ureq->kind = MPIR_REQUEST_KIND__MPROBE;
        /* The receive of this message reports its errors (a truncation, say) through the
         * communicator's handler, which MPI_Wait finds in the request. */
        ureq->comm = comm;
        MPIR_Comm_add_ref(comm);
        *message = ureq;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Mprobe(int source, int tag, MPIR_Comm * comm, int context_offset,
                MPIR_Request ** message, MPI_Status * status)
{
    int mpi_errno = MPI_SUCCESS;
    int flag = 0;
    MPID_Progress_state state;

    MPID_Progress_start(&state);
    for (;;) {
        mpi_errno = MPID_Improbe(source, tag, comm, context_offset, &flag, message, status);
        MPIR_ERR_CHECK(mpi_errno);
        if (flag)
            break;
        mpi_errno = MPID_Progress_wait(&state);
        MPIR_ERR_CHECK(mpi_errno);
    }
    MPID_Progress_end(&state);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Imrecv(void *buf, MPI_Aint count, MPI_Datatype datatype, MPIR_Request * message,
                MPIR_Request ** rreqp)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *rreq = NULL;

    MPIR_Assert(message->kind == MPIR_REQUEST_KIND__MPROBE);
    rreq = mm_request_create(MPIR_REQUEST_KIND__RECV, message->comm);
    MPIR_ERR_CHKANDJUMP1(rreq == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm request");
    mpi_errno = xfer_recv_op(rreq, buf, count, datatype, 0, XFER_END,
                             message->dev.match_rank);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = mm_proto_recv_matched(rreq, message);
    MPIR_ERR_CHECK(mpi_errno);
    *rreqp = rreq;

  fn_exit:
    return mpi_errno;
  fn_fail:
    *rreqp = NULL;
    goto fn_exit;
}

int MPID_Mrecv(void *buf, MPI_Aint count, MPI_Datatype datatype, MPIR_Request * message,
               MPI_Status * status, MPIR_Request ** rreqp)
{
    /* The caller waits on the returned request and fills the status from it. */
    return MPID_Imrecv(buf, count, datatype, message, rreqp);
}
