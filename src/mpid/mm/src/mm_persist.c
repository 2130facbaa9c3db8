/*
 * Persistent point-to-point requests. MPI_*_init records the arguments; MPI_Start(all)
 * replays them as an ordinary nonblocking operation (the "real" request) and points the
 * persistent request's completion counter at it, so MPIR's wait/test code sees one
 * request. Persistent collectives are started by MPIR (MPIR_Persist_coll_start).
 */
#include "mpidimpl.h"
#include "mm_subsys.h"

static int persist_create(MPIR_Request_kind_t kind, mm_persist_op_t op, const void *buf,
                          MPI_Aint count, MPI_Datatype datatype, int rank, int tag,
                          MPIR_Comm * comm, int context_offset, MPIR_Request ** request)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *preq = MPIR_Request_create(kind);

    MPIR_ERR_CHKANDJUMP1(preq == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm persistent request");
    preq->comm = comm;
    MPIR_Comm_add_ref(comm);
    /* Inactive until started: complete, with no real request. */
    MPIR_cc_set(&preq->cc, 0);
    preq->u.persist.real_request = NULL;
    preq->dev.persist_op = op;
    preq->dev.buf = (void *) buf;
    preq->dev.count = count;
    preq->dev.datatype = datatype;
    MPIR_Datatype_add_ref_if_not_builtin(datatype);
    preq->dev.persist_rank = rank;
    preq->dev.persist_tag = tag;
    preq->dev.persist_ctx_offset = context_offset;
    *request = preq;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Send_init(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
                   MPIR_Comm * comm, int context_offset, MPIR_Request ** request)
{
    return persist_create(MPIR_REQUEST_KIND__PREQUEST_SEND, MM_PERSIST_SEND, buf, count,
                          datatype, dest, tag, comm, context_offset, request);
}

int MPID_Ssend_init(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
                    MPIR_Comm * comm, int context_offset, MPIR_Request ** request)
{
    return persist_create(MPIR_REQUEST_KIND__PREQUEST_SEND, MM_PERSIST_SSEND, buf, count,
                          datatype, dest, tag, comm, context_offset, request);
}

int MPID_Rsend_init(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
                    MPIR_Comm * comm, int context_offset, MPIR_Request ** request)
{
    return persist_create(MPIR_REQUEST_KIND__PREQUEST_SEND, MM_PERSIST_RSEND, buf, count,
                          datatype, dest, tag, comm, context_offset, request);
}

int MPID_Bsend_init(const void *buf, MPI_Aint count, MPI_Datatype datatype, int dest, int tag,
                    MPIR_Comm * comm, int context_offset, MPIR_Request ** request)
{
    return persist_create(MPIR_REQUEST_KIND__PREQUEST_SEND, MM_PERSIST_BSEND, buf, count,
                          datatype, dest, tag, comm, context_offset, request);
}

int MPID_Recv_init(void *buf, MPI_Aint count, MPI_Datatype datatype, int source, int tag,
                   MPIR_Comm * comm, int context_offset, MPIR_Request ** request)
{
    return persist_create(MPIR_REQUEST_KIND__PREQUEST_RECV, MM_PERSIST_RECV, buf, count,
                          datatype, source, tag, comm, context_offset, request);
}

static int persist_start(MPIR_Request * preq)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request **real = &preq->u.persist.real_request;
    const void *buf = preq->dev.buf;
    MPI_Aint count = preq->dev.count;
    MPI_Datatype dt = preq->dev.datatype;
    int rank = preq->dev.persist_rank, tag = preq->dev.persist_tag;
    int off = preq->dev.persist_ctx_offset;

    switch (preq->dev.persist_op) {
        case MM_PERSIST_SEND:
            mpi_errno = MPID_Isend(buf, count, dt, rank, tag, preq->comm, off, real);
            break;
        case MM_PERSIST_SSEND:
            mpi_errno = MPID_Issend(buf, count, dt, rank, tag, preq->comm, off, real);
            break;
        case MM_PERSIST_RSEND:
            mpi_errno = MPID_Irsend(buf, count, dt, rank, tag, preq->comm, off, real);
            break;
        case MM_PERSIST_RECV:
            mpi_errno = MPID_Irecv((void *) buf, count, dt, rank, tag, preq->comm, off, real);
            break;
        case MM_PERSIST_BSEND:
            /* A buffered send is complete as soon as its data is in the attached buffer. */
            mpi_errno = MPIR_Bsend_isend(buf, count, dt, rank, tag, preq->comm, real);
            MPIR_ERR_CHECK(mpi_errno);
            preq->status.MPI_ERROR = MPI_SUCCESS;
            preq->cc_ptr = &preq->cc;
            MPIR_cc_set(preq->cc_ptr, 0);
            goto fn_exit;
    }
    MPIR_ERR_CHECK(mpi_errno);
    preq->status.MPI_ERROR = MPI_SUCCESS;
    preq->cc_ptr = &(*real)->cc;

  fn_exit:
    return mpi_errno;
  fn_fail:
    /* Wait/test report the failure through the persistent request itself. */
    preq->status.MPI_ERROR = mpi_errno;
    *real = NULL;
    preq->cc_ptr = &preq->cc;
    MPIR_cc_set(preq->cc_ptr, 0);
    goto fn_exit;
}

int MPID_Startall(int count, MPIR_Request * requests[])
{
    int mpi_errno = MPI_SUCCESS;

    MPIR_FUNC_ENTER;
    for (int i = 0; i < count; i++) {
        MPIR_Request *preq = requests[i];

        if (preq->kind == MPIR_REQUEST_KIND__PREQUEST_COLL) {
            mpi_errno = MPIR_Persist_coll_start(preq);
            MPIR_ERR_CHECK(mpi_errno);
        } else if (MPIR_Request_is_partitioned(preq)) {
            mpi_errno = mm_part_start(preq);
            MPIR_ERR_CHECK(mpi_errno);
        } else {
            mpi_errno = persist_start(preq);
            MPIR_ERR_CHECK(mpi_errno);
        }
    }

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
