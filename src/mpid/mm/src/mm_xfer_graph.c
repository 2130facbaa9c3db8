/*
 * Graph xfer blocks: several ops on byte ranges, cut into chunks and pipelined (the ops
 * and their rules are in mm_xfer.h).
 *
 * Every chunk moves as one message of the block's tag: a message block (mm_msg.c) whose
 * on_complete brings the block its result. The block's own request counts one for starting and one per child in
 * flight; it completes when the last child has, carrying the first error a child met and,
 * as its count, the bytes its receives took in.
 *
 * Memory: a chunk of a contiguous buffer is sent from and received into the buffer
 * itself. A chunk that needs staging (a noncontiguous buffer, the operand of a reduction,
 * a forward without a buffer) gets a chunk-sized block, freed when the chunk is done with
 * (received, applied and passed on). A receiving op keeps at most MM_XFER_STAGED chunk
 * receives of staged memory posted; each completed receive posts the next at once, so
 * posting never waits for a send and no cycle of forwarding blocks can deadlock (the
 * memory a slow downstream peer holds up is bounded by the stream, not by a window).
 */
#include "mpidimpl.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_MM_XFER_CHUNK
      category    : MM
      type        : int
      default     : 491520
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Bytes per chunk of a pipelined xfer stream (MPIX_Xfer_* and the device's own
        pipelines), rounded down to a multiple of 480 (at least 480). Both ends of a stream
        cut it the same way, so every process of a job must use the same value.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

/* Chunk receives of staged memory an op keeps posted. */
#define MM_XFER_STAGED 4

typedef struct xfer_op {
    xfer_op_args_t a;
    int contig;                 /* the buffer's bytes lie at buf + true_lb in order */
    MPI_Aint true_lb;
    MPI_Datatype basic;         /* mop ops: the element type the MPI_Op combines */
    MPI_Aint bsize;
    int *dests;                 /* where received chunks go on (forwarding ops, replicate) */
    int ndest;
    MPI_Aint chunk;             /* its graph's chunk size when it was added */
    MPI_Aint nchunks;
    MPI_Aint posted;            /* chunks started */
    /* Passing on keeps chunk order: chunks complete out of order (an eager last chunk
     * overtakes a rendezvous one), but the receiver downstream matches them in order. */
    struct xfer_chunk **held;   /* arrived chunks waiting for an earlier one, by index */
    MPI_Aint passed;            /* chunks passed on so far */
} xfer_op_t;

typedef struct mm_xfer_graph {
    int tag;
    int context_offset;
    int started;
    int nops, cap;
    xfer_op_t *ops;
    MPI_Aint received;          /* bytes the receives took in */
    MPI_Aint chunk;             /* bytes per chunk of its streams (mm_xfer_graph_set_chunk) */
} mm_xfer_graph_t;

/* One chunk of an op in flight: the child messages that carry it hold a reference each
 * (a receive, then the sends that pass it on). */
typedef struct xfer_chunk {
    MPIR_Request *block;
    int op;
    MPI_Aint index;
    char *stage;                /* staging memory, or NULL */
    char *out;                  /* once arrived: the bytes to pass on */
    int refs;
} xfer_chunk_t;

static MPI_Aint chunk_round(MPI_Aint c)
{
    return c < MM_XFER_CHUNK_UNIT ? MM_XFER_CHUNK_UNIT : c - c % MM_XFER_CHUNK_UNIT;
}

int mm_xfer_graph_init(MPIR_Request * req, int tag, int context_offset)
{
    mm_xfer_graph_t *g = MPL_calloc(1, sizeof(*g), MPL_MEM_BUFFER);

    if (g == NULL)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPI_ERR_OTHER, "**nomem", "**nomem %s", "xfer block");
    g->tag = tag;
    g->context_offset = context_offset;
    g->chunk = chunk_round(MPIR_CVAR_MM_XFER_CHUNK);
    req->dev.xfer = g;
    /* Not complete until started and done: a wait before the start would wait forever, a
     * test says "not yet". */
    mm_request_cc_add(req, 1);
    return MPI_SUCCESS;
}

void mm_xfer_graph_set_chunk(MPIR_Request * req, MPI_Aint bytes)
{
    mm_xfer_graph_t *g = req->dev.xfer;

    MPIR_Assert(g->nops == 0);
    g->chunk = chunk_round(bytes);
}

int mm_xfer_graph_open(MPIR_Request * req)
{
    return req->kind == MPIR_REQUEST_KIND__COLL && req->dev.xfer && !req->dev.xfer->started;
}

static int op_add_dest(xfer_op_t * op, int dest)
{
    int *d = MPL_realloc(op->dests, (op->ndest + 1) * sizeof(int), MPL_MEM_BUFFER);

    if (d == NULL)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPI_ERR_OTHER, "**nomem", "**nomem %s", "xfer op");
    op->dests = d;
    op->dests[op->ndest++] = dest;
    return MPI_SUCCESS;
}

static int op_receives(const xfer_op_t * op)
{
    return op->a.kind != XFER_OP_SEND;
}

/* One stream per direction and peer in a block: the two ends match a stream's chunks in
 * order, and two streams to one peer would interleave in an order the peer cannot know
 * (chunks of one are sent as they arrive, the other's at once). */
static int peer_taken(const mm_xfer_graph_t * g, int src, int dest)
{
    for (int i = 0; i < g->nops; i++) {
        const xfer_op_t *o = &g->ops[i];
        if (src != MPI_PROC_NULL && op_receives(o) && o->a.src == src)
            return 1;
        for (int d = 0; dest != MPI_PROC_NULL && d < o->ndest; d++)
            if (o->dests[d] == dest)
                return 1;
    }
    return 0;
}

int mm_xfer_graph_add(MPIR_Request * req, const xfer_op_args_t * a)
{
    int mpi_errno = MPI_SUCCESS;
    mm_xfer_graph_t *g = req->dev.xfer;
    MPI_Aint size = 0;
    xfer_op_t *op = NULL;

    MPIR_Assert(mm_xfer_graph_open(req));
    MPIR_ERR_CHKANDJUMP2(peer_taken(g, a->kind == XFER_OP_SEND ? MPI_PROC_NULL : a->src,
                                    a->kind == XFER_OP_RECV || a->kind == XFER_OP_RECV_MOP ?
                                    MPI_PROC_NULL : a->dest), mpi_errno, MPI_ERR_ARG,
                         "**mm|xferpeer", "**mm|xferpeer %d %d",
                         a->kind == XFER_OP_SEND ? MPI_PROC_NULL : a->src,
                         a->kind == XFER_OP_RECV || a->kind == XFER_OP_RECV_MOP ?
                         MPI_PROC_NULL : a->dest);
    if (g->nops == g->cap) {
        int cap = g->cap ? 2 * g->cap : 4;
        xfer_op_t *ops = MPL_realloc(g->ops, cap * sizeof(*ops), MPL_MEM_BUFFER);
        MPIR_ERR_CHKANDJUMP1(ops == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                             "xfer op");
        g->ops = ops;
        g->cap = cap;
    }
    op = &g->ops[g->nops];
    memset(op, 0, sizeof(*op));
    op->a = *a;
    op->basic = MPI_DATATYPE_NULL;
    if (a->kind == XFER_OP_FORWARD) {
        op->contig = 0;
    } else {
        MPIR_Datatype_get_size_macro(a->datatype, size);
        size *= a->count;
        MPIR_Datatype_is_contig(a->datatype, &op->contig);
        MPIR_Datatype_get_true_lb(a->datatype, &op->true_lb);
    }
    if (op->a.last == XFER_END)
        op->a.last = a->kind == XFER_OP_FORWARD ? a->count : size;
    if (a->kind == XFER_OP_RECV_MOP || a->kind == XFER_OP_RECV_MOP_FORWARD) {
        if (HANDLE_IS_BUILTIN(a->datatype)) {
            op->basic = a->datatype;
        } else {
            MPIR_Datatype *dt;
            MPIR_Datatype_get_ptr(a->datatype, dt);
            op->basic = dt->basic_type;
        }
        if (op->basic != MPI_DATATYPE_NULL)
            MPIR_Datatype_get_size_macro(op->basic, op->bsize);
        /* The op must be defined on the element type, and a range must hold whole elements
         * (chunks then do too: MM_XFER_CHUNK_UNIT is a multiple of every element size). */
        MPIR_ERR_CHKANDJUMP1(op->bsize <= 0 || MM_XFER_CHUNK_UNIT % op->bsize, mpi_errno,
                             MPI_ERR_TYPE, "**mm|xfermoptype", "**mm|xfermoptype %s",
                             "recv_mop");
        if (HANDLE_IS_BUILTIN(a->op)) {
            mpi_errno = (*MPIR_OP_HDL_TO_DTYPE_FN(a->op)) (op->basic);
            MPIR_ERR_CHECK(mpi_errno);
        }
        MPIR_ERR_CHKANDJUMP3(op->a.first % op->bsize || op->a.last % op->bsize, mpi_errno,
                             MPI_ERR_ARG, "**mm|xferrange", "**mm|xferrange %L %L %L",
                             (long long) op->a.first, (long long) op->a.last,
                             (long long) size);
    }
    MPIR_ERR_CHKANDJUMP3(op->a.first < 0 || op->a.last < op->a.first ||
                         (a->kind != XFER_OP_FORWARD && op->a.last > size), mpi_errno,
                         MPI_ERR_ARG, "**mm|xferrange", "**mm|xferrange %L %L %L",
                         (long long) op->a.first, (long long) op->a.last, (long long) size);
    if (a->kind == XFER_OP_SEND || a->kind == XFER_OP_RECV_FORWARD ||
        a->kind == XFER_OP_RECV_MOP_FORWARD || a->kind == XFER_OP_FORWARD) {
        mpi_errno = op_add_dest(op, a->dest);
        MPIR_ERR_CHECK(mpi_errno);
    }
    if (a->kind != XFER_OP_FORWARD)
        MPIR_Datatype_add_ref_if_not_builtin(a->datatype);
    if (a->op != MPI_OP_NULL)
        MPIR_Op_add_ref_if_not_builtin(a->op);
    op->chunk = g->chunk;
    op->nchunks = (op->a.last - op->a.first + op->chunk - 1) / op->chunk;
    g->nops++;

  fn_exit:
    return mpi_errno;
  fn_fail:
    if (op)
        MPL_free(op->dests);
    goto fn_exit;
}

int mm_xfer_graph_replicate(MPIR_Request * req, int dest)
{
    int mpi_errno = MPI_SUCCESS;
    mm_xfer_graph_t *g = req->dev.xfer;
    xfer_op_t *op = g->nops ? &g->ops[g->nops - 1] : NULL;

    MPIR_Assert(mm_xfer_graph_open(req));
    MPIR_ERR_CHKANDJUMP(op == NULL || !op_receives(op), mpi_errno, MPI_ERR_ARG,
                        "**mm|xferreplicate");
    MPIR_ERR_CHKANDJUMP2(peer_taken(g, MPI_PROC_NULL, dest), mpi_errno, MPI_ERR_ARG,
                         "**mm|xferpeer", "**mm|xferpeer %d %d", MPI_PROC_NULL, dest);
    mpi_errno = op_add_dest(op, dest);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* --- running a graph --- */

static void block_error(MPIR_Request * block, int err)
{
    if (err != MPI_SUCCESS && block->status.MPI_ERROR == MPI_SUCCESS)
        block->status.MPI_ERROR = err;
}

static void chunk_unref(struct xfer_chunk *c);

/* The block's request completes (its on_complete): its ops' references go. */
static void graph_release(MPIR_Request * block)
{
    mm_xfer_graph_t *g = block->dev.xfer;

    block->dev.on_complete = NULL;
    block->dev.xfer = NULL;
    MPIR_STATUS_SET_COUNT(block->status, g->received);
    for (int i = 0; i < g->nops; i++) {
        xfer_op_t *op = &g->ops[i];
        if (op->a.kind != XFER_OP_FORWARD)
            MPIR_Datatype_release_if_not_builtin(op->a.datatype);
        if (op->a.op != MPI_OP_NULL)
            MPIR_Op_release_if_not_builtin(op->a.op);
        MPL_free(op->dests);
        /* after an error, chunks that waited for one that never came */
        for (MPI_Aint k = op->passed; op->held && k < op->nchunks; k++)
            if (op->held[k])
                chunk_unref(op->held[k]);
        MPL_free(op->held);
    }
    MPL_free(g->ops);
    MPL_free(g);
}

static void chunk_unref(struct xfer_chunk *c)
{
    if (--c->refs == 0) {
        MPL_free(c->stage);
        MPL_free(c);
    }
}

static void chunk_range(const xfer_op_t * op, MPI_Aint k, MPI_Aint * lo, MPI_Aint * len)
{
    *lo = op->a.first + k * op->chunk;
    *len = MPL_MIN(op->chunk, op->a.last - *lo);
}

static void child_send_done(MPIR_Request * child);
static void child_recv_done(MPIR_Request * child);

/* Start one child message of chunk c: len bytes at buf to or from peer. */
static int child_start(xfer_chunk_t * c, int is_send, void *buf, MPI_Aint len, int peer)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *block = c->block, *child = NULL;
    mm_xfer_graph_t *g = block->dev.xfer;

    mpi_errno = mm_msg_init(g->tag, block->comm, g->context_offset,
                            is_send ? MPIR_REQUEST_KIND__SEND : MPIR_REQUEST_KIND__RECV, &child);
    MPIR_ERR_CHECK(mpi_errno);
    if (is_send) {
        mpi_errno = mm_msg_send(child, buf, len, MPI_BYTE, peer, 0);
        MPIR_ERR_CHECK(mpi_errno);
    } else {
        mm_msg_recv(child, buf, len, MPI_BYTE, peer);
    }
    child->dev.cb_arg = c;
    child->dev.on_complete = is_send ? child_send_done : child_recv_done;
    c->refs++;
    mm_request_cc_add(block, 1);
    /* A child may complete inside mm_msg_start (a send the method took at once): its
     * on_complete then runs before this returns, with the block still held by the caller. */
    mpi_errno = mm_msg_start(child);
    if (mpi_errno) {
        /* never started: nothing will complete it */
        child->dev.on_complete = NULL;
        c->refs--;
        mm_request_cc_done(block);
        goto fn_fail;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    if (child) {
        MPIR_Request_free(child);
        MPIR_Request_free(child);
    }
    goto fn_exit;
}

/* Pass chunk c on to every destination of its op, from data (len bytes). */
static int chunk_pass_on(xfer_chunk_t * c, xfer_op_t * op, char *data, MPI_Aint len)
{
    int mpi_errno = MPI_SUCCESS;

    for (int d = 0; d < op->ndest; d++) {
        if (op->dests[d] == MPI_PROC_NULL)
            continue;
        mpi_errno = child_start(c, 1, data, len, op->dests[d]);
        if (mpi_errno)
            break;
    }
    return mpi_errno;
}

/* A new chunk k of op opi, with the caller's reference (dropped once its messages are
 * started), or NULL. */
static xfer_chunk_t *chunk_new(MPIR_Request * block, int opi, MPI_Aint k)
{
    xfer_chunk_t *c = MPL_calloc(1, sizeof(*c), MPL_MEM_BUFFER);

    if (c) {
        c->block = block;
        c->op = opi;
        c->index = k;
        c->refs = 1;
    }
    return c;
}

/* Does a receiving op need staging memory (anything but a receive into a contiguous
 * buffer, which lands in place)? */
static int op_staged(const xfer_op_t * op)
{
    return !(op->contig && (op->a.kind == XFER_OP_RECV || op->a.kind == XFER_OP_RECV_FORWARD));
}

/* Start chunk k of a send op. */
static int chunk_send(MPIR_Request * block, xfer_op_t * op, int opi, MPI_Aint k)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint lo, len, packed;
    xfer_chunk_t *c = chunk_new(block, opi, k);
    char *data;

    MPIR_ERR_CHKANDJUMP1(c == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "xfer chunk");
    chunk_range(op, k, &lo, &len);
    if (op->contig) {
        data = (char *) op->a.buf + op->true_lb + lo;
    } else {
        c->stage = MPL_malloc(MPL_MAX(len, 1), MPL_MEM_BUFFER);
        MPIR_ERR_CHKANDJUMP1(c->stage == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                             "**nomem %s", "xfer chunk");
        mpi_errno = MPIR_Typerep_pack(op->a.buf, op->a.count, op->a.datatype, lo, c->stage,
                                      len, &packed);
        MPIR_ERR_CHECK(mpi_errno);
        data = c->stage;
    }
    mpi_errno = chunk_pass_on(c, op, data, len);

  fn_exit:
    if (c)
        chunk_unref(c);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Post the receive of the next chunk of a receiving op. */
static int chunk_recv_next(MPIR_Request * block, xfer_op_t * op, int opi)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint lo, len, k = op->posted;
    xfer_chunk_t *c = chunk_new(block, opi, k);
    char *dst;

    MPIR_ERR_CHKANDJUMP1(c == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "xfer chunk");
    op->posted++;
    chunk_range(op, k, &lo, &len);
    if (!op_staged(op)) {
        dst = (char *) op->a.buf + op->true_lb + lo;    /* in place */
    } else {
        c->stage = MPL_malloc(MPL_MAX(len, 1), MPL_MEM_BUFFER);
        MPIR_ERR_CHKANDJUMP1(c->stage == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                             "**nomem %s", "xfer chunk");
        dst = c->stage;
    }
    mpi_errno = child_start(c, 0, dst, len, op->a.src);

  fn_exit:
    if (c)
        chunk_unref(c);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* A received chunk is in: apply it to the buffer, pass it on. */
static int chunk_arrived(xfer_chunk_t * c, xfer_op_t * op)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint lo, len, n;
    char *data, *mine = NULL;

    chunk_range(op, c->index, &lo, &len);
    data = c->stage ? c->stage : (char *) op->a.buf + op->true_lb + lo;
    switch (op->a.kind) {
        case XFER_OP_RECV:
        case XFER_OP_RECV_FORWARD:
            if (c->stage) {
                mpi_errno = MPIR_Typerep_unpack(c->stage, len, op->a.buf, op->a.count,
                                                op->a.datatype, lo, &n);
                MPIR_ERR_CHECK(mpi_errno);
            }
            break;
        case XFER_OP_RECV_MOP:
        case XFER_OP_RECV_MOP_FORWARD:
            if (op->contig) {
                mine = (char *) op->a.buf + op->true_lb + lo;
            } else {
                mine = MPL_malloc(MPL_MAX(len, 1), MPL_MEM_BUFFER);
                MPIR_ERR_CHKANDJUMP1(mine == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                                     "**nomem %s", "xfer chunk");
                mpi_errno = MPIR_Typerep_pack(op->a.buf, op->a.count, op->a.datatype, lo,
                                              mine, len, &n);
                MPIR_ERR_CHECK(mpi_errno);
            }
            /* buf = in op buf: what arrived is the left operand */
            mpi_errno = MPIR_Reduce_local(c->stage, mine, len / op->bsize, op->basic,
                                          op->a.op);
            MPIR_ERR_CHECK(mpi_errno);
            if (!op->contig) {
                mpi_errno = MPIR_Typerep_unpack(mine, len, op->a.buf, op->a.count,
                                                op->a.datatype, lo, &n);
                MPIR_ERR_CHECK(mpi_errno);
                /* what goes on is the combined chunk: it becomes the stage */
                MPL_free(c->stage);
                c->stage = mine;
                mine = NULL;
                data = c->stage;
            } else {
                data = (char *) op->a.buf + op->true_lb + lo;
            }
            break;
        case XFER_OP_FORWARD:
        case XFER_OP_SEND:
            break;
    }
    if (op->ndest == 0)
        goto fn_exit;
    /* Pass on this chunk and every held one after it, in order. */
    c->out = data;
    c->refs++;
    op->held[c->index] = c;
    while (op->passed < op->nchunks && op->held[op->passed] && mpi_errno == MPI_SUCCESS) {
        xfer_chunk_t *h = op->held[op->passed];
        MPI_Aint hlo, hlen;

        op->held[op->passed++] = NULL;
        chunk_range(op, h->index, &hlo, &hlen);
        mpi_errno = chunk_pass_on(h, op, h->out, hlen);
        chunk_unref(h);
    }

  fn_exit:
    if (mine && !op->contig)
        MPL_free(mine);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static void child_send_done(MPIR_Request * child)
{
    xfer_chunk_t *c = child->dev.cb_arg;
    MPIR_Request *block = c->block;

    child->dev.on_complete = NULL;
    block_error(block, child->status.MPI_ERROR);
    chunk_unref(c);
    MPIR_Request_free(child);   /* the reference mm_msg_init gave us as its "user" */
    mm_request_cc_done(block);
}

static void child_recv_done(MPIR_Request * child)
{
    xfer_chunk_t *c = child->dev.cb_arg;
    MPIR_Request *block = c->block;
    mm_xfer_graph_t *g = block->dev.xfer;
    xfer_op_t *op = &g->ops[c->op];
    int err = child->status.MPI_ERROR;
    MPI_Aint lo, len, got = MPIR_STATUS_GET_COUNT(child->status);

    child->dev.on_complete = NULL;
    chunk_range(op, c->index, &lo, &len);
    if (err == MPI_SUCCESS && got != len)
        err = MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                   MPI_ERR_TRUNCATE, "**mm|xferchunk",
                                   "**mm|xferchunk %d %L %L", op->a.src, (long long) got,
                                   (long long) len);
    if (err == MPI_SUCCESS) {
        g->received += got;
        err = chunk_arrived(c, op);
    }
    block_error(block, err);
    /* the next receive of a staged op: at once, whatever the sends of this chunk do */
    if (op_staged(op) && op->posted < op->nchunks)
        block_error(block, chunk_recv_next(block, op, c->op));
    chunk_unref(c);
    MPIR_Request_free(child);
    mm_request_cc_done(block);
}

int mm_xfer_graph_start(MPIR_Request * block)
{
    int mpi_errno = MPI_SUCCESS;
    mm_xfer_graph_t *g = block->dev.xfer;

    MPIR_Assert(mm_xfer_graph_open(block));
    g->started = 1;
    block->dev.on_complete = graph_release;
    /* The count of starting (set at init) keeps the block from completing while its ops
     * are posted, in issue order: the priority mm_xfer.h promises. */
    for (int i = 0; i < g->nops && mpi_errno == MPI_SUCCESS; i++) {
        xfer_op_t *op = &g->ops[i];

        if (op->a.kind == XFER_OP_SEND) {
            for (MPI_Aint k = 0; k < op->nchunks && mpi_errno == MPI_SUCCESS; k++)
                mpi_errno = chunk_send(block, op, i, k);
        } else if (op->a.src != MPI_PROC_NULL) {
            MPI_Aint n;

            if (op->ndest > 0) {
                op->held = MPL_calloc(MPL_MAX(op->nchunks, 1), sizeof(*op->held),
                                      MPL_MEM_BUFFER);
                if (op->held == NULL) {
                    mpi_errno = MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE,
                                                     __func__, __LINE__, MPI_ERR_OTHER,
                                                     "**nomem", "**nomem %s", "xfer op");
                    break;
                }
            }
            n = op_staged(op) ? MPL_MIN(MM_XFER_STAGED, op->nchunks) : op->nchunks;
            while (op->posted < n && mpi_errno == MPI_SUCCESS)
                mpi_errno = chunk_recv_next(block, op, i);
        }
    }
    /* An op that failed to start fails the block; what did start still completes it. */
    block_error(block, mpi_errno);
    mm_request_cc_done(block);
    return MPI_SUCCESS;
}
