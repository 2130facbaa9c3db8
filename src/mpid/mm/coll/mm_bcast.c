/*
 * MPI_Bcast and MPI_Ibcast in the device, for the sizes where its algorithms beat MPIR's;
 * everything else goes to MPIR_Bcast_impl / MPIR_Ibcast_impl.
 *
 * ON ONE NODE a blocking broadcast of MPIR_CVAR_MM_BCAST_SHM_MIN bytes or more (any but an
 * empty one, by default: an 8-byte broadcast after a barrier on 8 processes took 3.2-3.6 us
 * against 11-14 through MPIR's binomial tree and Open MPI's 18.5) goes through
 * the communicator's node segment (mm_coll.h): the root copies the buffer in, chunk by
 * chunk, and returns; the others copy each chunk out as it appears. No process waits for
 * another to forward anything, which on an oversubscribed node (most processes not
 * running at any moment) is what the tree and chain algorithms spend their time on.
 * Measured 2026-12-07, bound to the 2 cores, back-to-back broadcasts (slowest process,
 * time per call), segment against the pipeline below and Open MPI 4.1: 4 processes 1 KiB
 * 0.6-0.8 us vs 0.7 (MPIR's) and 3.4; 64 KiB 5.3 vs 21 and 20; 1 MiB 78 vs 184-198 and
 * 316; 16 MiB 1231-1275 vs 4056-4305 and 5830-5910. 8 processes 64 KiB 9.9 vs 55 and
 * 40-43; 1 MiB 137-147 vs 580-600 and 457-486; 16 MiB 2300-2500 vs 11900-12400 and
 * 6100-6800. Reading the root's buffer with CMA instead (one copy fewer) was slower at
 * every size: 16 MiB on 8 processes 7800-8600 us, the kernel's page pinning per read.
 *
 * ACROSS NODES, and for MPI_Ibcast, every process of an intracommunicator builds one xfer
 * graph block (mm_xfer.h) on the collective context with MPIR_BCAST_TAG: the root sends,
 * the others receive from their parent and pass each chunk on (recv_forward, replicate)
 * as it arrives, so a large broadcast crosses the tree once, pipelined, instead of being
 * scattered and gathered again. The shape:
 *  - across nodes, the node-ordered chain (coll/mm_coll_chain.c: each node entered once,
 *    its leader passing the stream on inside the node while the next chunks cross) in
 *    chunks of MPIR_CVAR_MM_BCAST_NET_CHUNK. Measured 2026-12-08 on two hosts (network
 *    namespaces, one core each, tcp between them; 4 processes, time per call): rank-order
 *    binary tree, 480 KiB chunks: 64 KiB 281 us, 1 MiB 948; chain, 480 KiB chunks: 51
 *    and 926; chain, 32 KiB chunks: 63 and 594 (16 KiB: 75 and 790; 64 KiB, the tcp
 *    eager limit: 68 and 1638); Open MPI 4.1: 50 and 748. 8 processes, 32 KiB chunks:
 *    1 MiB 1337 against Open MPI's 2398.
 *  - on one node (when there is no node segment, and for MPI_Ibcast), below
 *    MPIR_CVAR_MM_BCAST_CHAIN_MIN bytes a binary tree (depth log2 n, the root sends
 *    twice); from it on a chain 0 -> 1 -> ... -> n-1 (relative to the root): every link
 *    carries the message once, and the chain fills after one chunk
 *    (MPIR_CVAR_MM_XFER_CHUNK) per hop.
 * Measured 2026-12-07 on one node, 4 processes bound to 2 cores, 3 runs, time per call
 * against MPIR's algorithms on mm: 64 KiB tree 22-26 us vs 37-43; 1 MiB tree 241-290 vs
 * 277-329 (chain 255-302); 16 MiB chain 5970-6560 vs 6980-7520 (tree 6620-7790). A chain
 * cut into 64 or 128 KiB segments (one op each) was slower at every size: each segment is
 * one more rendezvous.
 *
 * Every process decides from the same numbers (the type signatures of a broadcast match,
 * so its byte count is the same everywhere; the node map is the job's), so all take the
 * same path.
 */
#include "mpidimpl.h"
#include "mm_coll.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_MM_BCAST_PIPELINE_MIN
      category    : MM
      type        : int
      default     : 65536
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Bytes from which MPI_Bcast and MPI_Ibcast on an intracommunicator of three or
        more processes run as the device's xfer pipeline (a binary tree; a chain from
        MPIR_CVAR_MM_BCAST_CHAIN_MIN on); smaller broadcasts use MPIR's algorithms. -1:
        never.

    - name        : MPIR_CVAR_MM_BCAST_SHM_MIN
      category    : MM
      type        : int
      default     : 1
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Bytes from which a blocking MPI_Bcast on an intracommunicator of three or more
        processes, all on one node, goes through the communicator's node segment (shared
        memory: the root copies the buffer in, the others copy it out, chunk by chunk;
        any datatype). The segment is made at the first such broadcast on a
        communicator. -1: never.

    - name        : MPIR_CVAR_MM_BCAST_CHAIN_MIN
      category    : MM
      type        : int
      default     : 2097152
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Bytes from which a pipelined MPI_Bcast on one node runs as a chain instead of a
        binary tree (across nodes it is always the node-ordered chain).

    - name        : MPIR_CVAR_MM_BCAST_NET_CHUNK
      category    : MM
      type        : int
      default     : 32768
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Bytes per chunk of the pipelined MPI_Bcast across nodes (rounded down to a
        multiple of 480), instead of MPIR_CVAR_MM_XFER_CHUNK: small enough that the
        chain fills after a short first transfer over the network.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

static int bcast_tree(MPIR_Request * x, void *buf, MPI_Aint count, MPI_Datatype dt, int rel,
                      int size, int root)
{
    int mpi_errno = MPI_SUCCESS;

    if (rel > 0)
        mpi_errno = xfer_recv_op(x, buf, count, dt, 0, XFER_END,
                                 ((rel - 1) / 2 + root) % size);
    for (int k = 1; k <= 2 && mpi_errno == MPI_SUCCESS; k++) {
        int kid = 2 * rel + k;
        if (kid >= size)
            break;
        if (rel == 0)
            mpi_errno = xfer_send_op(x, buf, count, dt, 0, XFER_END, (kid + root) % size, 0);
        else
            mpi_errno = xfer_replicate_op(x, (kid + root) % size);
    }
    return mpi_errno;
}

/* This process's link of a chain: from prev (-1: the root) to next (-1: the end). */
static int bcast_chain(MPIR_Request * x, void *buf, MPI_Aint count, MPI_Datatype dt, int prev,
                       int next)
{
    if (prev < 0)
        return xfer_send_op(x, buf, count, dt, 0, XFER_END, next, 0);
    if (next >= 0)
        return xfer_recv_forward_op(x, buf, count, dt, 0, XFER_END, prev, next);
    return xfer_recv_op(x, buf, count, dt, 0, XFER_END, prev);
}

/* Is (count, dt) one contiguous piece of memory? */
static int bcast_contig(MPI_Aint count, MPI_Datatype dt)
{
    MPI_Aint size, extent;
    int is_contig;

    MPIR_Datatype_is_contig(dt, &is_contig);
    MPIR_Datatype_get_size_macro(dt, size);
    MPIR_Datatype_get_extent_macro(dt, extent);
    return is_contig && (count <= 1 || size == extent);
}

/* Does a blocking broadcast of nbytes on comm go through its node segment? The same answer
 * everywhere: the type signatures of a broadcast match, and the node map is the job's. */
static int bcast_through_seg(MPIR_Comm * comm, MPI_Aint nbytes)
{
    return comm->comm_kind == MPIR_COMM_KIND__INTRACOMM && comm->local_size >= 3 &&
        MPIR_CVAR_MM_BCAST_SHM_MIN >= 0 && nbytes >= MPIR_CVAR_MM_BCAST_SHM_MIN && nbytes > 0 &&
        mm_coll_one_node(comm);
}

/*
 * THROUGH THE NODE SEGMENT (mm_coll.h): the root copies the buffer into the ring, chunk by
 * chunk, and returns as soon as the last chunk is in; every other process copies each
 * chunk out as it appears. No message at all, and nobody waits for a process that is not
 * running, except for a free slot or a filled one. Noncontiguous types are packed into
 * and unpacked from the slots.
 */
static int bcast_seg(void *buf, MPI_Aint count, MPI_Datatype dt, MPI_Aint nbytes, int root,
                     MPIR_Comm * comm, mm_coll_comm_t * cc)
{
    int mpi_errno = MPI_SUCCESS, err;
    int contig = bcast_contig(count, dt), is_root = comm->rank == root;
    uint64_t readers = (uint64_t) comm->local_size - 1;
    uint64_t first = cc->next_chunk, n = ((uint64_t) nbytes + MM_SEG_CHUNK - 1) / MM_SEG_CHUNK;
    MPI_Aint true_lb, sent = nbytes;    /* sent: the root's byte count */
    char *base;

    MPIR_Datatype_get_true_lb(dt, &true_lb);
    base = (char *) buf + true_lb;
    for (uint64_t c = 0; c < n; c++) {
        uint64_t g = first + c;
        mm_seg_ctl_t *ctl = &cc->ctl[g % MM_SEG_SLOTS];
        char *slot = cc->data + (g % MM_SEG_SLOTS) * MM_SEG_CHUNK;
        MPI_Aint off = (MPI_Aint) c * MM_SEG_CHUNK, len;
        MPI_Aint actual;

        if (is_root) {
            len = MPL_MIN(MM_SEG_CHUNK, nbytes - off);
            /* Everyone is done with the slot's previous use. */
            err = mm_coll_seg_wait(&ctl->reads, (g / MM_SEG_SLOTS) * readers);
            if (err)
                return err;
            if (contig)
                memcpy(slot, base + off, len);
            else if (mpi_errno == MPI_SUCCESS)
                /* After a failed pack the chunks are still published, garbage: the
                 * others must not wait for them forever. */
                mpi_errno = MPIR_Typerep_pack(buf, count, dt, off, slot, len, &actual);
            ctl->msg_bytes = (uint64_t) nbytes;
            atomic_store_explicit(&ctl->full, g + 1, memory_order_release);
            continue;
        }
        err = mm_coll_seg_wait(&ctl->full, g + 1);
        if (err)
            return err;
        if (c == 0 && ctl->msg_bytes != (uint64_t) nbytes) {
            /* An erroneous program: the root sends another size. Take what fits, and
             * consume exactly the root's chunks, so that the ring stays in step. */
            sent = (MPI_Aint) ctl->msg_bytes;
            n = ((uint64_t) sent + MM_SEG_CHUNK - 1) / MM_SEG_CHUNK;
            if (sent > nbytes)
                MPIR_ERR_SET2(mpi_errno, MPI_ERR_TRUNCATE, "**mm|bcast_size",
                              "**mm|bcast_size %L %L", (long long) sent, (long long) nbytes);
            else
                MPIR_ERR_SET2(mpi_errno, MPI_ERR_OTHER, "**mm|bcast_size",
                              "**mm|bcast_size %L %L", (long long) sent, (long long) nbytes);
        }
        len = MPL_MIN(MM_SEG_CHUNK, MPL_MIN(sent, nbytes) - off);
        if (len > 0 && contig)
            memcpy(base + off, slot, len);
        else if (len > 0)
            err = MPIR_Typerep_unpack(slot, len, buf, count, dt, off, &actual);
        if (err && mpi_errno == MPI_SUCCESS)
            mpi_errno = err;
        err = MPI_SUCCESS;
        /* Release: our reads of the slot come before the next writer's stores. */
        atomic_fetch_add_explicit(&ctl->reads, 1, memory_order_release);
    }
    cc->next_chunk = first + n;
    return mpi_errno;
}

/* Does a broadcast of nbytes on comm run as the device's pipeline? */
static int bcast_pipelined(MPIR_Comm * comm, MPI_Aint nbytes)
{
    return comm->comm_kind == MPIR_COMM_KIND__INTRACOMM && comm->local_size >= 3 &&
        MPIR_CVAR_MM_BCAST_PIPELINE_MIN >= 0 && nbytes >= MPIR_CVAR_MM_BCAST_PIPELINE_MIN;
}

/* Build and start this process's block of a pipelined broadcast. Once it is started
 * (*x_out set), it completes whatever happened: an op that could not be added is this
 * process's error, returned here. */
static int bcast_start(void *buf, MPI_Aint count, MPI_Datatype dt, MPI_Aint nbytes, int root,
                       MPIR_Comm * comm, int tag, MPIR_Request ** x_out)
{
    int mpi_errno, err, size = comm->local_size, rel = (comm->rank - root + size) % size;
    MPIR_Request *x = NULL;

    *x_out = NULL;
    mpi_errno = xfer_init(tag, comm, MPIR_CONTEXT_INTRA_COLL, MPIR_REQUEST_KIND__COLL, &x);
    if (mpi_errno)
        return mpi_errno;
    if (!mm_coll_one_node(comm)) {
        int prev, next;

        mm_xfer_graph_set_chunk(x, MPIR_CVAR_MM_BCAST_NET_CHUNK);
        mpi_errno = mm_coll_node_chain(comm, root, &prev, &next);
        if (mpi_errno == MPI_SUCCESS)
            mpi_errno = bcast_chain(x, buf, count, dt, prev, next);
    } else if (nbytes < MPIR_CVAR_MM_BCAST_CHAIN_MIN) {
        mpi_errno = bcast_tree(x, buf, count, dt, rel, size, root);
    } else {
        int prev = rel == 0 ? -1 : (comm->rank - 1 + size) % size;
        int next = rel == size - 1 ? -1 : (comm->rank + 1) % size;

        mpi_errno = bcast_chain(x, buf, count, dt, prev, next);
    }
    err = xfer_start(x);
    *x_out = x;
    return mpi_errno ? mpi_errno : err;
}

int mm_coll_bcast(void *buf, MPI_Aint count, MPI_Datatype dt, int root, MPIR_Comm * comm,
                  MPIR_Errflag_t * errflag)
{
    int mpi_errno = MPI_SUCCESS, err;
    MPI_Aint nbytes;
    MPIR_Request *x = NULL;

    MPIR_Datatype_get_size_macro(dt, nbytes);
    nbytes *= count;
    if (bcast_through_seg(comm, nbytes)) {
        mm_coll_comm_t *cc;

        mpi_errno = mm_coll_seg(comm, &cc);
        if (mpi_errno == MPI_SUCCESS && cc)
            mpi_errno = bcast_seg(buf, count, dt, nbytes, root, comm, cc);
        if (mpi_errno || cc)
            goto check;
        /* no segment on this communicator: as across nodes */
    }
    if (!bcast_pipelined(comm, nbytes))
        return MPIR_Bcast_impl(buf, count, dt, root, comm, errflag);

    mpi_errno = bcast_start(buf, count, dt, nbytes, root, comm, MPIR_BCAST_TAG, &x);
    if (x) {
        err = MPIC_Wait(x, errflag);
        if (mpi_errno == MPI_SUCCESS)
            mpi_errno = err;
        if (mpi_errno == MPI_SUCCESS)
            mpi_errno = x->status.MPI_ERROR;
        MPIR_Request_free(x);
    }
  check:
    if (mpi_errno) {
        *errflag = MPIX_ERR_PROC_FAILED == MPIR_ERR_GET_CLASS(mpi_errno) ?
            MPIR_ERR_PROC_FAILED : MPIR_ERR_OTHER;
        goto fn_fail;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* MPI_Ibcast: the block is the request. Its messages get a tag of their own (the one
 * MPIR's schedules take theirs from), since several nonblocking broadcasts on one
 * communicator may be in flight at once and their chunks must not meet. */
int mm_coll_ibcast(void *buf, MPI_Aint count, MPI_Datatype dt, int root, MPIR_Comm * comm,
                   MPIR_Request ** req)
{
    int mpi_errno = MPI_SUCCESS, tag;
    MPI_Aint nbytes;
    MPIR_Request *x = NULL;

    MPIR_Datatype_get_size_macro(dt, nbytes);
    nbytes *= count;
    if (!bcast_pipelined(comm, nbytes))
        return MPIR_Ibcast_impl(buf, count, dt, root, comm, req);

    mpi_errno = MPIR_Sched_next_tag(comm, &tag);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = bcast_start(buf, count, dt, nbytes, root, comm, tag, &x);
    if (mpi_errno && x) {
        /* it completes on its own; the caller gets the error instead of it */
        MPIR_Request_free(x);
        x = NULL;
    }
    MPIR_ERR_CHECK(mpi_errno);
    *req = x;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
