/*
 * Message blocks: an xfer block of one send or recv of a whole buffer, the request being
 * the message's own (a request, its op, and the CARs that carry it). MPID_Isend and
 * MPID_Irecv are these, through the xfer API (mm_xfer.c); graph blocks (mm_xfer_graph.c)
 * send each chunk as one.
 */
#include "mpidimpl.h"

int mm_msg_init(int tag, MPIR_Comm * comm, int context_offset, MPIR_Request_kind_t kind,
                MPIR_Request ** req_out)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *req = mm_request_create(kind, comm);

    MPIR_ERR_CHKANDJUMP1(req == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm request");
    req->dev.match_tag = tag;
    /* Sends carry the context the peer receives on; receives match on our own. */
    if (kind == MPIR_REQUEST_KIND__SEND) {
        req->dev.match_ctx = comm->context_id + context_offset;
        req->dev.match_rank = comm->rank;
    } else {
        req->dev.match_ctx = comm->recvcontext_id + context_offset;
    }
    *req_out = req;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Zero elements are zero bytes whatever the type: MPI lets such calls name
 * MPI_DATATYPE_NULL, which has no size, lower bound or layout to ask about. */
static MPI_Datatype msg_type(MPI_Aint count, MPI_Datatype datatype)
{
    return count == 0 ? MPI_BYTE : datatype;
}

int mm_msg_send(MPIR_Request * req, const void *buf, MPI_Aint count, MPI_Datatype datatype,
                int dest, unsigned flags)
{
    int mpi_errno = MPI_SUCCESS;
    mm_car_t *data = &req->dev.data_car;
    MPI_Aint type_size, true_lb;
    int is_contig;

    datatype = msg_type(count, datatype);
    mpi_errno = mm_vc_get(mm_comm_lpid(req->comm, dest), &req->dev.vc);
    MPIR_ERR_CHECK(mpi_errno);

    req->dev.buf = (void *) buf;
    req->dev.count = count;
    req->dev.datatype = datatype;
    if (flags & XFER_SEND_SYNC)
        req->dev.flags |= MM_REQ_SYNC;
    MPIR_Datatype_get_size_macro(datatype, type_size);
    req->dev.data_sz = (size_t) type_size *(size_t) count;

    data->kind = MM_CAR_DATA;
    data->dir = MM_CAR_WRITE;
    data->req = req;
    data->vc = req->dev.vc;
    MPIR_Datatype_is_contig(datatype, &is_contig);
    if (is_contig || req->dev.data_sz == 0) {
        MPIR_Datatype_get_true_lb(datatype, &true_lb);
        mm_buf_init_contig(&data->buf, (char *) buf + true_lb, req->dev.data_sz);
    } else {
        /* Noncontiguous payload is packed once here, so the caller's datatype is not
         * needed after the send starts. */
        MPI_Aint packed = 0;
        req->dev.tmpbuf = MPL_malloc(req->dev.data_sz, MPL_MEM_BUFFER);
        MPIR_ERR_CHKANDJUMP1(req->dev.tmpbuf == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                             "**nomem %s", "mm send packing buffer");
        mpi_errno = MPIR_Typerep_pack(buf, count, datatype, 0, req->dev.tmpbuf,
                                      req->dev.data_sz, &packed);
        MPIR_ERR_CHECK(mpi_errno);
        MPIR_Assert((size_t) packed == req->dev.data_sz);
        mm_buf_init_contig(&data->buf, req->dev.tmpbuf, req->dev.data_sz);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

void mm_msg_recv(MPIR_Request * req, void *buf, MPI_Aint count, MPI_Datatype datatype,
                 int src)
{
    datatype = msg_type(count, datatype);
    req->dev.buf = buf;
    req->dev.count = count;
    req->dev.datatype = datatype;
    req->dev.match_rank = src;
    /* The datatype is needed again when the payload is unpacked at completion. */
    MPIR_Datatype_add_ref_if_not_builtin(datatype);
    mm_request_cc_add(req, 1);  /* the message */
}

int mm_msg_start(MPIR_Request * req)
{
    int mpi_errno = MPI_SUCCESS;

    if (req->kind == MPIR_REQUEST_KIND__SEND) {
        mpi_errno = mm_proto_send(req, (req->dev.flags & MM_REQ_SYNC) != 0);
    } else {
        MPIR_Request *ureq = mm_recvq_match_unexp(req->dev.match_ctx, req->dev.match_rank,
                                                  req->dev.match_tag, 1);
        if (ureq)
            mpi_errno = mm_proto_recv_matched(req, ureq);
        else
            mm_recvq_post(req);
    }
    return mpi_errno;
}
