/*
 * MPIX_Xfer_*: graph xfer blocks for programs (include/mpix_xfer.h says what they do).
 *
 * Each call checks its arguments as an MPI binding does (an error of the right class,
 * through the communicator's error handler, and nothing else changed), takes MPICH's
 * global critical section, and calls the device's own xfer API. The block is a request of
 * kind COLL, so MPI_Wait, MPI_Test and their kin complete and free it.
 */
#include "mpidimpl.h"
#include "mpix_xfer.h"

/* The block a handle names, if it is a graph block that has not started. */
static int block_get(MPI_Request handle, MPIR_Request ** req_out)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *req = NULL;

    MPIR_ERRTEST_REQUEST(handle, mpi_errno);
    MPIR_Request_get_ptr(handle, req);
    MPIR_Request_valid_ptr(req, mpi_errno);
    if (mpi_errno)
        goto fn_fail;
    MPIR_ERR_CHKANDJUMP(!mm_xfer_graph_open(req), mpi_errno, MPI_ERR_REQUEST,
                        "**mm|xfernotblock");
    *req_out = req;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int check_buf(const void *buf, MPI_Count count, MPI_Datatype datatype)
{
    int mpi_errno = MPI_SUCCESS;

    MPIR_ERRTEST_COUNT(count, mpi_errno);
    MPIR_ERRTEST_DATATYPE(datatype, "datatype", mpi_errno);
    if (!HANDLE_IS_BUILTIN(datatype)) {
        MPIR_Datatype *dt = NULL;
        MPIR_Datatype_get_ptr(datatype, dt);
        MPIR_Datatype_valid_ptr(dt, mpi_errno);
        if (mpi_errno)
            goto fn_fail;
        MPIR_Datatype_committed_ptr(dt, mpi_errno);
        if (mpi_errno)
            goto fn_fail;
    }
    if (count > 0)
        MPIR_ERRTEST_USERBUFFER(buf, count, datatype, mpi_errno);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* A source: a rank of the communicator's (remote) group or MPI_PROC_NULL. */
static int check_src(MPIR_Comm * comm, int src)
{
    int mpi_errno = MPI_SUCCESS;

    MPIR_ERR_CHKANDJUMP2(src != MPI_PROC_NULL && (src < 0 || src >= comm->remote_size),
                         mpi_errno, MPI_ERR_RANK, "**rank", "**rank %d %d", src,
                         comm->remote_size);
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int check_dest(MPIR_Comm * comm, int dest)
{
    int mpi_errno = MPI_SUCCESS;

    MPIR_ERRTEST_SEND_RANK(comm, dest, mpi_errno);
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int check_op(MPI_Op op)
{
    int mpi_errno = MPI_SUCCESS;

    MPIR_ERRTEST_OP(op, mpi_errno);
    if (!HANDLE_IS_BUILTIN(op)) {
        MPIR_Op *op_ptr = NULL;
        MPIR_Op_get_ptr(op, op_ptr);
        MPIR_Op_valid_ptr(op_ptr, mpi_errno);
    }
  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The error of an xfer call, through the block's communicator's handler. */
static int xfer_return(MPIR_Request * req, const char *fn, int mpi_errno)
{
    if (mpi_errno == MPI_SUCCESS)
        return MPI_SUCCESS;
    return MPIR_Err_return_comm(req ? req->comm : NULL, fn, mpi_errno);
}

int MPIX_Xfer_init(MPI_Comm comm, int tag, MPI_Request * block)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *comm_ptr = NULL;
    MPIR_Request *req = NULL;

    MPIR_ERRTEST_INITIALIZED_ORDIE();
    MPID_THREAD_CS_ENTER(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    MPIR_ERRTEST_COMM(comm, mpi_errno);
    MPIR_Comm_get_ptr(comm, comm_ptr);
    MPIR_Comm_valid_ptr(comm_ptr, mpi_errno, FALSE);
    if (mpi_errno)
        goto fn_fail;
    MPIR_ERRTEST_SEND_TAG(tag, mpi_errno);
    MPIR_ERRTEST_ARGNULL(block, "block", mpi_errno);
    mpi_errno = xfer_init(tag, comm_ptr, 0, MPIR_REQUEST_KIND__COLL, &req);
    if (mpi_errno)
        goto fn_fail;
    /* The engine's reference goes when the block completes, the user's at MPI_Wait. */
    *block = req->handle;

  fn_exit:
    MPID_THREAD_CS_EXIT(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    return mpi_errno;
  fn_fail:
    mpi_errno = MPIR_Err_return_comm(comm_ptr, __func__, mpi_errno);
    goto fn_exit;
}

/* The body every buffer op shares: check, then add the op. */
static int buffer_op(const char *fn, MPI_Request block, xfer_op_kind_t kind, void *buf,
                     MPI_Count count, MPI_Datatype datatype, MPI_Count first, MPI_Count last,
                     MPI_Op op, int src, int dest)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *req = NULL;

    MPIR_ERRTEST_INITIALIZED_ORDIE();
    MPID_THREAD_CS_ENTER(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    mpi_errno = block_get(block, &req);
    if (mpi_errno)
        goto fn_fail;
    mpi_errno = check_buf(buf, count, datatype);
    if (mpi_errno)
        goto fn_fail;
    if (kind != XFER_OP_SEND) {
        mpi_errno = check_src(req->comm, src);
        if (mpi_errno)
            goto fn_fail;
    }
    if (kind == XFER_OP_SEND || kind == XFER_OP_RECV_FORWARD ||
        kind == XFER_OP_RECV_MOP_FORWARD) {
        mpi_errno = check_dest(req->comm, dest);
        if (mpi_errno)
            goto fn_fail;
    }
    if (kind == XFER_OP_RECV_MOP || kind == XFER_OP_RECV_MOP_FORWARD) {
        mpi_errno = check_op(op);
        if (mpi_errno)
            goto fn_fail;
    }
    {
        xfer_op_args_t a = {.kind = kind,.buf = buf,.count = count,.datatype = datatype,
            .first = first,.last = last == MPIX_XFER_END ? XFER_END : last,.op = op,
            .src = src,.dest = dest
        };
        mpi_errno = mm_xfer_graph_add(req, &a);
        if (mpi_errno)
            goto fn_fail;
    }

  fn_exit:
    MPID_THREAD_CS_EXIT(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    return mpi_errno;
  fn_fail:
    mpi_errno = xfer_return(req, fn, mpi_errno);
    goto fn_exit;
}

int MPIX_Xfer_send(MPI_Request block, const void *buf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Count first, MPI_Count last, int dest)
{
    return buffer_op(__func__, block, XFER_OP_SEND, (void *) buf, count, datatype, first,
                     last, MPI_OP_NULL, MPI_PROC_NULL, dest);
}

int MPIX_Xfer_recv(MPI_Request block, void *buf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Count first, MPI_Count last, int src)
{
    return buffer_op(__func__, block, XFER_OP_RECV, buf, count, datatype, first, last,
                     MPI_OP_NULL, src, MPI_PROC_NULL);
}

int MPIX_Xfer_recv_mop(MPI_Request block, void *buf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Count first, MPI_Count last, MPI_Op op, int src)
{
    return buffer_op(__func__, block, XFER_OP_RECV_MOP, buf, count, datatype, first, last,
                     op, src, MPI_PROC_NULL);
}

int MPIX_Xfer_recv_forward(MPI_Request block, void *buf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Count first, MPI_Count last, int src,
                           int dest)
{
    return buffer_op(__func__, block, XFER_OP_RECV_FORWARD, buf, count, datatype, first,
                     last, MPI_OP_NULL, src, dest);
}

int MPIX_Xfer_recv_mop_forward(MPI_Request block, void *buf, MPI_Count count,
                               MPI_Datatype datatype, MPI_Count first, MPI_Count last,
                               MPI_Op op, int src, int dest)
{
    return buffer_op(__func__, block, XFER_OP_RECV_MOP_FORWARD, buf, count, datatype, first,
                     last, op, src, dest);
}

int MPIX_Xfer_forward(MPI_Request block, MPI_Count size, int src, int dest)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *req = NULL;

    MPIR_ERRTEST_INITIALIZED_ORDIE();
    MPID_THREAD_CS_ENTER(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    mpi_errno = block_get(block, &req);
    if (mpi_errno)
        goto fn_fail;
    MPIR_ERRTEST_COUNT(size, mpi_errno);
    mpi_errno = check_src(req->comm, src);
    if (mpi_errno)
        goto fn_fail;
    mpi_errno = check_dest(req->comm, dest);
    if (mpi_errno)
        goto fn_fail;
    mpi_errno = xfer_forward_op(req, size, src, dest);
    if (mpi_errno)
        goto fn_fail;

  fn_exit:
    MPID_THREAD_CS_EXIT(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    return mpi_errno;
  fn_fail:
    mpi_errno = xfer_return(req, __func__, mpi_errno);
    goto fn_exit;
}

int MPIX_Xfer_replicate(MPI_Request block, int dest)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *req = NULL;

    MPIR_ERRTEST_INITIALIZED_ORDIE();
    MPID_THREAD_CS_ENTER(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    mpi_errno = block_get(block, &req);
    if (mpi_errno)
        goto fn_fail;
    mpi_errno = check_dest(req->comm, dest);
    if (mpi_errno)
        goto fn_fail;
    mpi_errno = xfer_replicate_op(req, dest);
    if (mpi_errno)
        goto fn_fail;

  fn_exit:
    MPID_THREAD_CS_EXIT(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    return mpi_errno;
  fn_fail:
    mpi_errno = xfer_return(req, __func__, mpi_errno);
    goto fn_exit;
}

int MPIX_Xfer_start(MPI_Request block)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *req = NULL;

    MPIR_ERRTEST_INITIALIZED_ORDIE();
    MPID_THREAD_CS_ENTER(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    mpi_errno = block_get(block, &req);
    if (mpi_errno)
        goto fn_fail;
    mpi_errno = xfer_start(req);
    if (mpi_errno)
        goto fn_fail;

  fn_exit:
    MPID_THREAD_CS_EXIT(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
    return mpi_errno;
  fn_fail:
    mpi_errno = xfer_return(req, __func__, mpi_errno);
    goto fn_exit;
}
