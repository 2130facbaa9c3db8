/*
 * Point-to-point entry points: each is one xfer block (init, op, start), except a small
 * contiguous send its VC's method takes whole at once (send_inline). Sends and receives
 * involving MPI_PROC_NULL complete at once, as MPI requires.
 */
#include "mpidimpl.h"
#include "mm_vc_table.h"

/* The fast path of a send: a small contiguous message to a bound VC whose method can take
 * it whole at once (send_inline, mm_method.h) goes out without CARs, numbered like any
 * other message of the VC (*vc_out and *seq_out name it, for a cancel). Returns whether it
 * went. The general path (xfer_* below) costs about as much again as the message itself
 * for an 8-byte message (perf, 2026-12-07: eight calls across five files, a completion
 * counter counted up and down, two CARs completed). */
static inline int send_inline(const void *buf, MPI_Aint count, MPI_Datatype datatype,
                              int dest, int tag, MPIR_Comm * comm, int context_offset,
                              mm_vc_t ** vc_out, uint64_t * seq_out)
{
    mm_vc_t *vc = mm_vc_lookup_fast(mm_comm_lpid(comm, dest));
    MPI_Aint type_size, true_lb = 0;
    size_t data_sz = 0;
    mm_pkt_t pkt;

    if (unlikely(vc->state != MM_VC_STATE_BOUND) || vc->method->send_inline == NULL)
        return 0;
    if (count > 0) {
        int is_contig;

        MPIR_Datatype_get_size_macro(datatype, type_size);
        data_sz = (size_t) type_size *(size_t) count;
        if (data_sz > vc->eager_limit)
            return 0;
        MPIR_Datatype_is_contig(datatype, &is_contig);
        if (!is_contig)
            return 0;
        MPIR_Datatype_get_true_lb(datatype, &true_lb);
    }
    pkt.version = MM_PKT_VERSION;
    pkt.kind = MM_PKT_EAGER;
    pkt.aux_sz = 0;
    pkt.context_id = comm->context_id + context_offset;
    pkt.rank = comm->rank;
    pkt.tag = tag;
    pkt.data_sz = data_sz;
    pkt.sreq = 0;
    pkt.rreq = vc->send_seq + 1;
    if (!vc->method->send_inline(vc, &pkt, (const char *) buf + true_lb, data_sz))
        return 0;
    *seq_out = ++vc->send_seq;
    *vc_out = vc;
    return 1;
}

/* A send request for a message send_inline put out: complete already, with the user's
 * reference only, and naming the message so that MPI_Cancel can still try to withdraw it
 * (mm_cancel.c reopens it for that). */
static int sent_request(MPIR_Comm * comm, mm_vc_t * vc, uint64_t seq, MPIR_Request ** request)
{
    MPIR_Request *sreq = MPIR_Request_create(MPIR_REQUEST_KIND__SEND);

    if (unlikely(sreq == NULL)) {
        *request = NULL;
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPI_ERR_OTHER, "**nomem", "**nomem %s", "mm request");
    }
    MPIR_cc_set(&sreq->cc, 0);
    sreq->comm = comm;
    MPIR_Comm_add_ref(comm);
    sreq->dev.vc = vc;
    sreq->dev.msg_seq = seq;
    *request = sreq;
    return MPI_SUCCESS;
}



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
    mm_vc_t *vc;
    uint64_t seq;

    if (likely(dest != MPI_PROC_NULL) &&
        send_inline(buf, count, datatype, dest, tag, comm, context_offset, &vc, &seq))
        return sent_request(comm, vc, seq, request);
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
    int mpi_errno;
    mm_vc_t *vc;
    uint64_t seq;

    /* No request at all: a blocking send cannot be cancelled. */
    if (likely(dest != MPI_PROC_NULL) &&
        send_inline(buf, count, datatype, dest, tag, comm, context_offset, &vc, &seq)) {
        *request = NULL;
        return MPI_SUCCESS;
    }
    mpi_errno = MPID_Isend(buf, count, datatype, dest, tag, comm, context_offset, request);

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

/* MPIR's blocking collective steps (MPIC_Send) take no request as "already done". */
int MPID_Send_coll(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
                   MPIR_Comm * comm, int context_offset, MPIR_Request ** request,
                   MPIR_Errflag_t * errflag)
{
    return MPID_Send(buf, count, datatype, dest, coll_tag(tag, errflag), comm,
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
    /* A message block's own init, op and start, without the xfer API's dispatch (which
     * only chooses between message and graph blocks): this is every receive's path. */
    mpi_errno = mm_msg_init(tag, comm, context_offset, MPIR_REQUEST_KIND__RECV, &rreq);
    MPIR_ERR_CHECK(mpi_errno);
    mm_msg_recv(rreq, buf, count, datatype, source);
    mpi_errno = mm_msg_start(rreq);
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
    int mpi_errno;

    /* The caller fills status from the request, and waits on it when it is not complete:
     * a receive from a named peer is waited for here, by targeted polling. */
    mpi_errno = MPID_Irecv(buf, count, datatype, source, tag, comm, context_offset, request);
    if (mpi_errno == MPI_SUCCESS && source >= 0 && !MPIR_Request_is_complete(*request))
        mpi_errno = mm_progress_wait_from(mm_vc_lookup_fast(mm_comm_lpid(comm, source)),
                                          *request);
    return mpi_errno;
}
