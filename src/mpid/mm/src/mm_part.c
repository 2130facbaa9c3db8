/*
 * Partitioned communication (MPI_Psend_init, MPI_Precv_init, MPI_Pready*, MPI_Parrived).
 *
 * A partitioned request is persistent: the init calls record the arguments, MPI_Start
 * opens an epoch, and the epoch's data moves as one ordinary message of all partitions
 * (partitions * count elements), the request's "child":
 *   send side: the child send starts when the last partition is marked ready, so the
 *              bytes the user is still filling are never read early;
 *   recv side: the child receive is posted at MPI_Start; every partition has arrived once
 *              it completes (MPI_Parrived is all-or-nothing per epoch, which MPI allows).
 * Sender and receiver may cut the buffer into different numbers of partitions; only the
 * total must agree, as MPI requires. Children match in their own context space
 * (MM_CTX_PART), so a partitioned message never meets an ordinary receive.
 *
 * MATCHING follows the order of the init calls, not of the starts: the k-th
 * MPI_Psend_init to (comm, dest, tag) pairs with the k-th MPI_Precv_init from
 * (comm, source, tag), however the epochs are started later. Each side numbers its inits per
 * (comm, peer, tag, direction) and the number goes into the child's context offset (bits
 * 17..30, so sequences wrap at 16384 live requests of one triple).
 *
 * Fields of a partitioned request: dev.buf/count(total)/datatype, dev.persist_rank/tag,
 * dev.tmpbuf = one "ready" byte per partition (send side), dev.data_sz = partitions marked
 * ready this epoch, dev.partner = the child while one is in flight,
 * dev.persist_ctx_offset = the children's context offset (MM_CTX_PART + init number).
 */
#include "mpidimpl.h"
#include "mm_subsys.h"

#define PART_SEQ_SHIFT 17
#define PART_SEQ_MASK 0x3fff

/* Init counters per (communicator, peer, tag, direction). Few triples are live at once and
 * the list is only walked by the init calls. */
typedef struct part_seq {
    int context_id;
    int rank;
    int tag;
    int is_send;
    unsigned next;
    struct part_seq *link;
} part_seq_t;

static part_seq_t *part_seqs;

static int part_seq_take(MPIR_Comm * comm, int rank, int tag, int is_send, unsigned *seq)
{
    part_seq_t *e;

    for (e = part_seqs; e; e = e->link)
        if (e->context_id == comm->context_id && e->rank == rank && e->tag == tag &&
            e->is_send == is_send)
            break;
    if (e == NULL) {
        e = MPL_malloc(sizeof(*e), MPL_MEM_OTHER);
        if (e == NULL)
            return 0;
        e->context_id = comm->context_id;
        e->rank = rank;
        e->tag = tag;
        e->is_send = is_send;
        e->next = 0;
        e->link = part_seqs;
        part_seqs = e;
    }
    *seq = e->next++ & PART_SEQ_MASK;
    return 1;
}

/* A freed communicator's context id will name another one: forget its counters. */
static void part_comm_free(MPIR_Comm * comm)
{
    part_seq_t **pp = &part_seqs;

    while (*pp) {
        part_seq_t *e = *pp;
        if (e->context_id == comm->context_id) {
            *pp = e->link;
            MPL_free(e);
        } else {
            pp = &e->link;
        }
    }
}

static int part_create(MPIR_Request_kind_t kind, void *buf, int partitions, MPI_Count count,
                       MPI_Datatype datatype, int rank, int tag, MPIR_Comm * comm,
                       MPIR_Request ** request)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *preq = NULL;
    unsigned seq;

    MPIR_ERR_CHKANDJUMP1(!part_seq_take(comm, rank, tag, kind == MPIR_REQUEST_KIND__PART_SEND,
                                        &seq), mpi_errno, MPI_ERR_OTHER, "**nomem",
                         "**nomem %s", "mm partitioned sequence");
    preq = MPIR_Request_create(kind);
    MPIR_ERR_CHKANDJUMP1(preq == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm partitioned request");
    preq->comm = comm;
    MPIR_Comm_add_ref(comm);
    preq->u.part.partitions = partitions;
    MPIR_Part_request_inactivate(preq);
    MPIR_cc_set(&preq->cc, 0);          /* inactive requests are complete */
    preq->dev.buf = buf;
    preq->dev.count = (MPI_Aint) partitions * (MPI_Aint) count;
    /* Zero elements may name MPI_DATATYPE_NULL, which has nothing to hold on to. */
    preq->dev.datatype = preq->dev.count == 0 ? MPI_BYTE : datatype;
    MPIR_Datatype_add_ref_if_not_builtin(preq->dev.datatype);
    preq->dev.persist_rank = rank;
    preq->dev.persist_tag = tag;
    preq->dev.persist_ctx_offset = MM_CTX_PART + (int) (seq << PART_SEQ_SHIFT);
    preq->dev.partner = NULL;
    if (kind == MPIR_REQUEST_KIND__PART_SEND) {
        preq->dev.tmpbuf = MPL_calloc(partitions > 0 ? partitions : 1, 1, MPL_MEM_OTHER);
        if (preq->dev.tmpbuf == NULL) {
            MPIR_Request_free(preq);
            MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                                 "mm partition flags");
        }
    }
    *request = preq;

  fn_exit:
    return mpi_errno;
  fn_fail:
    *request = NULL;
    goto fn_exit;
}

int MPID_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPIR_Comm * comm, MPIR_Info * info,
                    MPIR_Request ** request)
{
    return part_create(MPIR_REQUEST_KIND__PART_SEND, (void *) buf, partitions, count, datatype,
                       dest, tag, comm, request);
}

int MPID_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int source, int tag, MPIR_Comm * comm, MPIR_Info * info,
                    MPIR_Request ** request)
{
    return part_create(MPIR_REQUEST_KIND__PART_RECV, buf, partitions, count, datatype, source,
                       tag, comm, request);
}

/* The parent's status is what MPI_Wait/Test report for it. */
static void part_finish(MPIR_Request * preq, MPIR_Request * child)
{
    preq->dev.partner = NULL;
    if (child) {
        preq->status.MPI_SOURCE = child->status.MPI_SOURCE;
        preq->status.MPI_TAG = child->status.MPI_TAG;
        preq->status.MPI_ERROR = child->status.MPI_ERROR;
        MPIR_STATUS_SET_COUNT(preq->status, MPIR_STATUS_GET_COUNT(child->status));
    }
    MPID_Request_complete(preq);
}

/* The transfer child of a partitioned request completed (its on_complete): finish the
 * parent. */
static void part_child_done(MPIR_Request * child)
{
    MPIR_Request *preq = child->dev.partner;

    child->dev.on_complete = NULL;
    child->dev.partner = NULL;
    part_finish(preq, child);
    MPIR_Request_free(child);   /* the reference MPID_Isend/Irecv gave us as its "user" */
}

/* Link a just-started child to its parent; a child that already completed (a send
 * that fit the socket, a receive that matched arrived data) finishes the parent now. */
static void part_adopt(MPIR_Request * preq, MPIR_Request * child)
{
    if (MPIR_cc_get(child->cc) == 0) {
        part_finish(preq, child);
        MPIR_Request_free(child);
    } else {
        child->dev.partner = preq;
        child->dev.on_complete = part_child_done;
        preq->dev.partner = child;
    }
}

int mm_part_start(MPIR_Request * preq)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *child = NULL;

    MPIR_Part_request_activate(preq);
    /* The engine's reference for the epoch, dropped when it completes the request (as for
     * every request it completes); the user's stays until MPI_Request_free. */
    MPIR_Request_add_ref(preq);
    preq->status.MPI_ERROR = MPI_SUCCESS;
    preq->cc_ptr = &preq->cc;
    MPIR_cc_set(&preq->cc, 1);
    preq->dev.data_sz = 0;
    if (preq->kind == MPIR_REQUEST_KIND__PART_SEND) {
        memset(preq->dev.tmpbuf, 0, preq->u.part.partitions);
        if (preq->u.part.partitions == 0)
            goto send_now;      /* nothing to mark ready: the (empty) message goes now */
        goto fn_exit;
    }
    mpi_errno = MPID_Irecv(preq->dev.buf, preq->dev.count, preq->dev.datatype,
                           preq->dev.persist_rank, preq->dev.persist_tag, preq->comm,
                           preq->dev.persist_ctx_offset, &child);
    MPIR_ERR_CHECK(mpi_errno);
    part_adopt(preq, child);
    goto fn_exit;

  send_now:
    mpi_errno = MPID_Isend(preq->dev.buf, preq->dev.count, preq->dev.datatype,
                           preq->dev.persist_rank, preq->dev.persist_tag, preq->comm,
                           preq->dev.persist_ctx_offset, &child);
    MPIR_ERR_CHECK(mpi_errno);
    part_adopt(preq, child);

  fn_exit:
    return mpi_errno;
  fn_fail:
    preq->status.MPI_ERROR = mpi_errno;
    part_finish(preq, NULL);
    goto fn_exit;
}

/* Mark one partition ready; the last one sends the epoch's message. */
static int pready_one(MPIR_Request * sreq, int partition)
{
    int mpi_errno = MPI_SUCCESS;
    unsigned char *ready = sreq->dev.tmpbuf;
    MPIR_Request *child = NULL;

    MPIR_ERR_CHKANDJUMP(!MPIR_Part_request_is_active(sreq), mpi_errno, MPI_ERR_REQUEST,
                        "**mm|pready_inactive");
    MPIR_ERR_CHKANDJUMP1(ready[partition], mpi_errno, MPI_ERR_ARG, "**mm|pready_twice",
                         "**mm|pready_twice %d", partition);
    ready[partition] = 1;
    if (++sreq->dev.data_sz < (size_t) sreq->u.part.partitions)
        goto fn_exit;

    mpi_errno = MPID_Isend(sreq->dev.buf, sreq->dev.count, sreq->dev.datatype,
                           sreq->dev.persist_rank, sreq->dev.persist_tag, sreq->comm,
                           sreq->dev.persist_ctx_offset, &child);
    if (mpi_errno != MPI_SUCCESS) {
        sreq->status.MPI_ERROR = mpi_errno;
        part_finish(sreq, NULL);
        goto fn_fail;
    }
    part_adopt(sreq, child);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Pready_range(int partition_low, int partition_high, MPIR_Request * sreq)
{
    int mpi_errno = MPI_SUCCESS;

    for (int p = partition_low; p <= partition_high; p++) {
        mpi_errno = pready_one(sreq, p);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Pready_list(int length, const int array_of_partitions[], MPIR_Request * sreq)
{
    int mpi_errno = MPI_SUCCESS;

    for (int i = 0; i < length; i++) {
        mpi_errno = pready_one(sreq, array_of_partitions[i]);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Polled by the user: make progress once, then answer for the whole epoch. */
int MPID_Parrived(MPIR_Request * rreq, int partition, int *flag)
{
    int mpi_errno = MPI_SUCCESS;

    if (MPIR_Part_request_is_active(rreq) && MPIR_cc_get(rreq->cc) != 0) {
        mpi_errno = MPID_Progress_test(NULL);
        MPIR_ERR_CHECK(mpi_errno);
    }
    *flag = !MPIR_Part_request_is_active(rreq) || MPIR_cc_get(rreq->cc) == 0;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

void mm_part_init(void)
{
    mm_comm_register_free(part_comm_free);
}
