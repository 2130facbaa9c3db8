/*
 * Point-to-point entry points: each is one xfer block (init, op, start). Sends and receives
 * involving MPI_PROC_NULL complete at once, as MPI requires.
 */
#include "mpidimpl.h"

static int isend_mode(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest,
                      int tag, MPIR_Comm * comm, int context_offset, unsigned flags,
                      MPIR_Request ** request)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *sreq = NULL;

    if (unlikely(dest == MPI_PROC_NULL)) {
        *request = MPIR_Request_create_complete(MPIR_REQUEST_KIND__SEND);
        goto fn_exit;
    }
    mpi_errno = xfer_init(tag, comm, context_offset, MPIR_REQUEST_KIND__SEND, &sreq);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = xfer_send_op(sreq, buf, count, datatype, 0, XFER_END, dest, flags);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = xfer_start(sreq);
    MPIR_ERR_CHECK(mpi_errno);
    *request = sreq;

  fn_exit:
    return mpi_errno;
  fn_fail:
    if (sreq) {
        /* drop both the engine's and the caller's reference */
        MPIR_Request_free(sreq);
        MPIR_Request_free(sreq);
    }
    *request = NULL;
    goto fn_exit;
}

int MPID_Isend(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
               MPIR_Comm * comm, int context_offset, MPIR_Request ** request)
{
    int mpi_errno;
    MPIR_FUNC_ENTER;
    mpi_errno = isend_mode(buf, count, datatype, dest, tag, comm, context_offset, 0, request);
    MPIR_FUNC_EXIT;
    return mpi_errno;
}

/* A blocking send whose message is already out (small messages usually are, by the time
 * post_write returns) hands back no request at all: MPI_Send then returns at once instead
 * of entering a wait on a completed request and freeing it, which is a visible share of
 * a ping-pong's latency. A request that carries an error is handed back as usual. */
static void send_done_early(MPIR_Request ** request)
{
    MPIR_Request *req = *request;

    if (req && MPIR_Request_is_complete(req) && req->status.MPI_ERROR == MPI_SUCCESS) {
        MPIR_Request_free(req);
        *request = NULL;
    }
}

int MPID_Send(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
              MPIR_Comm * comm, int context_offset, MPIR_Request ** request)
{
    int mpi_errno = MPID_Isend(buf, count, datatype, dest, tag, comm, context_offset, request);

    if (mpi_errno == MPI_SUCCESS)
        send_done_early(request);
    return mpi_errno;
}

/* A ready send may be sent as a standard one: the receive is posted by contract. */
int MPID_Irsend(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
                MPIR_Comm * comm, int context_offset, MPIR_Request ** request)
{
    return MPID_Isend(buf, count, datatype, dest, tag, comm, context_offset, request);
}

int MPID_Rsend(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
               MPIR_Comm * comm, int context_offset, MPIR_Request ** request)
{
    return MPID_Send(buf, count, datatype, dest, tag, comm, context_offset, request);
}

int MPID_Issend(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
                MPIR_Comm * comm, int context_offset, MPIR_Request ** request)
{
    int mpi_errno;
    MPIR_FUNC_ENTER;
    mpi_errno = isend_mode(buf, count, datatype, dest, tag, comm, context_offset,
                           XFER_SEND_SYNC, request);
    MPIR_FUNC_EXIT;
    return mpi_errno;
}

int MPID_Ssend(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
               MPIR_Comm * comm, int context_offset, MPIR_Request ** request)
{
    return MPID_Issend(buf, count, datatype, dest, tag, comm, context_offset, request);
}

/* Collectives pass their error state to the peer in the tag's error bits. */
static int coll_tag(int tag, MPIR_Errflag_t * errflag)
{
    switch (*errflag) {
        case MPIR_ERR_NONE:
            break;
        case MPIR_ERR_PROC_FAILED:
            MPIR_TAG_SET_PROC_FAILURE_BIT(tag);
            break;
        default:
            MPIR_TAG_SET_ERROR_BIT(tag);
    }
    return tag;
}

int MPID_Send_coll(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
                   MPIR_Comm * comm, int context_offset, MPIR_Request ** request,
                   MPIR_Errflag_t * errflag)
{
    return MPID_Isend(buf, count, datatype, dest, coll_tag(tag, errflag), comm,
                      context_offset, request);
}

int MPID_Isend_coll(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
                    MPIR_Comm * comm, int context_offset, MPIR_Request ** request,
                    MPIR_Errflag_t * errflag)
{
    return MPID_Isend(buf, count, datatype, dest, coll_tag(tag, errflag), comm,
                      context_offset, request);
}

int MPID_Irecv(void *buf, MPI_Aint count, MPI_Datatype datatype, int source, int tag,
               MPIR_Comm * comm, int context_offset, MPIR_Request ** request)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *rreq = NULL;

    MPIR_FUNC_ENTER;
    if (unlikely(source == MPI_PROC_NULL)) {
        *request = MPIR_Request_create_null_recv();
        goto fn_exit;
    }
    mpi_errno = xfer_init(tag, comm, context_offset, MPIR_REQUEST_KIND__RECV, &rreq);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = xfer_recv_op(rreq, buf, count, datatype, 0, XFER_END, source);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = xfer_start(rreq);
    MPIR_ERR_CHECK(mpi_errno);
    *request = rreq;

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    *request = NULL;
    goto fn_exit;
}

int MPID_Recv(void *buf, MPI_Aint count, MPI_Datatype datatype, int source, int tag,
              MPIR_Comm * comm, int context_offset, MPI_Status * status,
              MPIR_Request ** request)
{
    /* The caller waits on the request and fills status from it. */
    return MPID_Irecv(buf, count, datatype, source, tag, comm, context_offset, request);
}
