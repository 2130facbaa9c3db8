/*
 * Requests: the device hooks MPICH calls on every request, and the completion rule the
 * engine applies (a request completes when its last outstanding CAR or awaited ack does).
 */
#include "mpidimpl.h"

/* The two embedded CARs are most of the request's device part (8 of its ~9 cache lines),
 * and whoever uses one sets its kind, direction, owner, VC, envelope or buffer: clearing
 * them whole for every request cost a tenth of a small message's latency. Only their
 * links and flags must start out zero. */
static inline void car_reset(mm_car_t * car)
{
    car->flags = 0;
    car->req = NULL;
    car->vc = NULL;
    car->next = NULL;
    car->qnext = NULL;
    car->done = NULL;
}

/* Field by field rather than a memset of the fields before head_car: that memset compiled
 * to `rep stos`, whose start-up cost made request creation a tenth of an 8-byte
 * ping-pong (perf, 2026-12-07). In the order of the struct, so that the stores go out
 * line by line: with a window of requests in flight they are not all in L1. */
void MPID_Request_create_hook(MPIR_Request * req)
{
    MPIDI_MM_request_t *d = &req->dev;

    d->match_ctx = 0;
    d->match_rank = 0;
    d->match_tag = 0;
    d->flags = 0;
    d->buf = NULL;
    d->count = 0;
    d->datatype = MPI_DATATYPE_NULL;
    d->buf_offset = 0;
    d->data_sz = 0;
    d->tmpbuf = NULL;
    d->vc = NULL;
    d->id = 0;
    d->peer_id = 0;
    d->msg_seq = 0;
    d->partner = NULL;
    d->on_complete = NULL;
    d->cb_arg = NULL;
    d->xfer = NULL;
    d->qnext = NULL;
    d->persist_op = MM_PERSIST_SEND;
    d->persist_rank = 0;
    d->persist_tag = 0;
    d->persist_ctx_offset = 0;
    car_reset(&d->head_car);
    car_reset(&d->data_car);
}

void MPID_Request_free_hook(MPIR_Request * req)
{
}

void MPID_Request_destroy_hook(MPIR_Request * req)
{
    /* Persistent and partitioned requests hold their datatype for as long as they exist. */
    if (req->kind == MPIR_REQUEST_KIND__PREQUEST_SEND ||
        req->kind == MPIR_REQUEST_KIND__PREQUEST_RECV ||
        req->kind == MPIR_REQUEST_KIND__PART_SEND || req->kind == MPIR_REQUEST_KIND__PART_RECV)
        MPIR_Datatype_release_if_not_builtin(req->dev.datatype);
    if (req->dev.tmpbuf) {
        MPL_free(req->dev.tmpbuf);
        req->dev.tmpbuf = NULL;
    }
}

MPIR_Request *mm_request_create(MPIR_Request_kind_t kind, MPIR_Comm * comm)
{
    MPIR_Request *req = MPIR_Request_create(kind);

    if (req == NULL)
        return NULL;
    /* One reference for the user (released by MPI_Wait & co.), one for the engine
     * (released when the request completes). */
    MPIR_Object_set_ref(req, 2);
    MPIR_cc_set(&req->cc, 0);
    if (comm) {
        req->comm = comm;
        MPIR_Comm_add_ref(comm);
    }
    return req;
}

void mm_request_cc_add(MPIR_Request * req, int n)
{
    int was_incomplete;
    for (int i = 0; i < n; i++)
        MPIR_cc_incr(req->cc_ptr, &was_incomplete);
}

/* A receive's payload is in place (in the user buffer or in tmpbuf): unpack if needed and
 * fill in the status. As in ch3, a message longer than the buffer delivers what fits and
 * completes with MPI_ERR_TRUNCATE; one that ends inside an element of a noncontiguous
 * receive type delivers its whole elements and completes with MPI_ERR_TYPE (a contiguous
 * buffer simply takes the bytes, and MPI_Get_count reports MPI_UNDEFINED). The count is
 * always what was stored, and the request completes normally either way: a bad receive
 * is the user's error, reported to the user. */
static void recv_finish_data(MPIR_Request * rreq)
{
    size_t capacity = mm_request_capacity(rreq);
    size_t got = MPL_MIN(rreq->dev.data_sz, capacity);
    size_t stored = got;
    int err = MPI_SUCCESS;

    if ((rreq->dev.flags & MM_REQ_NEED_UNPACK) && got > 0) {
        MPI_Aint actual = 0;
        err = MPIR_Typerep_unpack(rreq->dev.tmpbuf, got, rreq->dev.buf, rreq->dev.count,
                                  rreq->dev.datatype, 0, &actual);
        stored = err == MPI_SUCCESS ? (size_t) actual : 0;
    }
    if (rreq->dev.tmpbuf) {
        MPL_free(rreq->dev.tmpbuf);
        rreq->dev.tmpbuf = NULL;
    }
    MPIR_STATUS_SET_COUNT(rreq->status, stored);
    if (rreq->dev.data_sz > capacity) {
        err = MPIR_Err_create_code(err, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                   MPI_ERR_TRUNCATE, "**mm|truncate",
                                   "**mm|truncate %d %d %L %L", rreq->status.MPI_SOURCE,
                                   rreq->status.MPI_TAG, (long long) rreq->dev.data_sz,
                                   (long long) capacity);
    } else if (err == MPI_SUCCESS && stored != got) {
        err = MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                   MPI_ERR_TYPE, "**mm|typemismatch",
                                   "**mm|typemismatch %d %d %L %L", rreq->status.MPI_SOURCE,
                                   rreq->status.MPI_TAG, (long long) got, (long long) stored);
    }
    if (err != MPI_SUCCESS)
        rreq->status.MPI_ERROR = err;
}

/* The counter reached zero: tell waiters (mm_completions, a completion_notification
 * counter) and drop the engine's reference. */
static void request_completed(MPIR_Request * req)
{
    if (req->dev.on_complete)
        req->dev.on_complete(req);
    mm_completions++;
    if (req->completion_notification)
        MPIR_cc_dec(req->completion_notification);
    MPIR_Request_free(req);
}

int mm_request_cc_done(MPIR_Request * req)
{
    int incomplete;

    MPIR_cc_decr(req->cc_ptr, &incomplete);
    if (incomplete)
        return MPI_SUCCESS;

    if (req->kind == MPIR_REQUEST_KIND__RECV && !(req->dev.flags & MM_REQ_UNEXPECTED)) {
        recv_finish_data(req);
        MPIR_Datatype_release_if_not_builtin(req->dev.datatype);
    }
    if (req->dev.id) {
        mm_reqid_release(req->dev.id);
        req->dev.id = 0;
    }
    request_completed(req);
    return MPI_SUCCESS;
}

int MPID_Request_complete(MPIR_Request * req)
{
    int incomplete;

    MPIR_cc_decr(req->cc_ptr, &incomplete);
    if (!incomplete)
        request_completed(req);
    return MPI_SUCCESS;
}
