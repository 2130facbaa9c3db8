/*
 * The xfer API (mm_xfer.h): each call goes to the kind of block it is made on, a message
 * block (mm_msg.c) or a graph block (mm_xfer_graph.c), which build on the message blocks
 * and never on this file.
 */
#include "mpidimpl.h"

int xfer_init(int tag, MPIR_Comm * comm, int context_offset, MPIR_Request_kind_t kind,
              MPIR_Request ** req_out)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *req;

    if (kind != MPIR_REQUEST_KIND__COLL)
        return mm_msg_init(tag, comm, context_offset, kind, req_out);
    req = mm_request_create(kind, comm);
    MPIR_ERR_CHKANDJUMP1(req == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm request");
    mpi_errno = mm_xfer_graph_init(req, tag, context_offset);
    if (mpi_errno) {
        /* both references: the caller gets none */
        MPIR_Request_free(req);
        MPIR_Request_free(req);
        goto fn_fail;
    }
    *req_out = req;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* A message block holds one op of a whole buffer; say so rather than silently dropping a
 * second one (or a part of the buffer). */
static int msg_claim_op(MPIR_Request * req, MPI_Aint first, MPI_Aint last, const char *op)
{
    if (first != 0 || last != XFER_END)
        return mm_notimpl(op);
    return req->dev.datatype == MPI_DATATYPE_NULL ? MPI_SUCCESS : mm_notimpl(op);
}

int xfer_send_op(MPIR_Request * req, const void *buf, MPI_Aint count, MPI_Datatype datatype,
                 MPI_Aint first, MPI_Aint last, int dest, unsigned flags)
{
    int mpi_errno;

    if (req->kind == MPIR_REQUEST_KIND__COLL) {
        xfer_op_args_t a = {.kind = XFER_OP_SEND,.buf = (void *) buf,.count = count,
            .datatype = datatype,.first = first,.last = last,.op = MPI_OP_NULL,.src =
                MPI_PROC_NULL,.dest = dest
        };
        if (flags)
            return mm_notimpl("xfer_send_op (a synchronous send in a graph block)");
        return mm_xfer_graph_add(req, &a);
    }
    mpi_errno = msg_claim_op(req, first, last,
                             "xfer_send_op (a second op or a byte range in a message block)");
    if (mpi_errno)
        return mpi_errno;
    return mm_msg_send(req, buf, count, datatype, dest, flags);
}

int xfer_recv_op(MPIR_Request * req, void *buf, MPI_Aint count, MPI_Datatype datatype,
                 MPI_Aint first, MPI_Aint last, int src)
{
    int mpi_errno;

    if (req->kind == MPIR_REQUEST_KIND__COLL) {
        xfer_op_args_t a = {.kind = XFER_OP_RECV,.buf = buf,.count = count,
            .datatype = datatype,.first = first,.last = last,.op = MPI_OP_NULL,.src = src,
            .dest = MPI_PROC_NULL
        };
        return mm_xfer_graph_add(req, &a);
    }
    mpi_errno = msg_claim_op(req, first, last,
                             "xfer_recv_op (a second op or a byte range in a message block)");
    if (mpi_errno)
        return mpi_errno;
    mm_msg_recv(req, buf, count, datatype, src);
    return MPI_SUCCESS;
}

/* The ops only a graph block has. */
static int graph_op(MPIR_Request * req, const xfer_op_args_t * a, const char *name)
{
    if (req->kind != MPIR_REQUEST_KIND__COLL)
        return mm_notimpl(name);
    return mm_xfer_graph_add(req, a);
}

int xfer_recv_mop_op(MPIR_Request * req, void *buf, MPI_Aint count, MPI_Datatype datatype,
                     MPI_Aint first, MPI_Aint last, MPI_Op op, int src)
{
    xfer_op_args_t a = {.kind = XFER_OP_RECV_MOP,.buf = buf,.count = count,
        .datatype = datatype,.first = first,.last = last,.op = op,.src = src,
        .dest = MPI_PROC_NULL
    };
    return graph_op(req, &a, "xfer_recv_mop_op (in a message block)");
}

int xfer_recv_forward_op(MPIR_Request * req, void *buf, MPI_Aint count,
                         MPI_Datatype datatype, MPI_Aint first, MPI_Aint last, int src,
                         int dest)
{
    xfer_op_args_t a = {.kind = XFER_OP_RECV_FORWARD,.buf = buf,.count = count,
        .datatype = datatype,.first = first,.last = last,.op = MPI_OP_NULL,.src = src,
        .dest = dest
    };
    return graph_op(req, &a, "xfer_recv_forward_op (in a message block)");
}

int xfer_recv_mop_forward_op(MPIR_Request * req, void *buf, MPI_Aint count,
                             MPI_Datatype datatype, MPI_Aint first, MPI_Aint last, MPI_Op op,
                             int src, int dest)
{
    xfer_op_args_t a = {.kind = XFER_OP_RECV_MOP_FORWARD,.buf = buf,.count = count,
        .datatype = datatype,.first = first,.last = last,.op = op,.src = src,.dest = dest
    };
    return graph_op(req, &a, "xfer_recv_mop_forward_op (in a message block)");
}

int xfer_forward_op(MPIR_Request * req, MPI_Aint size, int src, int dest)
{
    xfer_op_args_t a = {.kind = XFER_OP_FORWARD,.buf = NULL,.count = size,
        .datatype = MPI_BYTE,.first = 0,.last = size,.op = MPI_OP_NULL,.src = src,
        .dest = dest
    };
    return graph_op(req, &a, "xfer_forward_op (in a message block)");
}

int xfer_replicate_op(MPIR_Request * req, int dest)
{
    if (req->kind != MPIR_REQUEST_KIND__COLL)
        return mm_notimpl("xfer_replicate_op (in a message block)");
    return mm_xfer_graph_replicate(req, dest);
}

int xfer_start(MPIR_Request * req)
{
    if (req->kind == MPIR_REQUEST_KIND__COLL)
        return mm_xfer_graph_start(req);
    return mm_msg_start(req);
}
