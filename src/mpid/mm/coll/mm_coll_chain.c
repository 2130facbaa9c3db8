/*
 * coll/: the node-ordered chain of a communicator that spans nodes, for the device's
 * pipelines across nodes (mm_bcast.c).
 *
 * A chain in rank order crosses between nodes wherever two consecutive ranks live on
 * different ones: with ranks dealt round-robin, at every link, each crossing a tcp (or ib)
 * transfer of the whole message. Ordered by node instead (the root's node first, its
 * processes in rank order from the root, then each other node's in the order the ranks
 * after the root first reach it), the chain enters every node once: the first process of
 * a node is the leader that takes the stream from the network, and the node's other
 * processes get it from their neighbour through shared memory while the next chunks still
 * cross, so the node step overlaps the network one.
 *
 * Every process computes the same chain from the job's node map (a process spawned or
 * connected later, which has no entry, counts as a node of its own).
 *
 * Tried for MPI_Allreduce as well (partial sums down the chain with recv_mop_forward, the
 * result back up with recv_forward, both pipelined): on two one-core hosts over tcp,
 * 4 processes, it lost to MPIR's algorithms (64 KiB 118 against 90 us, 1 MiB 1640
 * against 1580, 16 MiB 53 against 34 ms), and was dropped.
 */
#include "mpidimpl.h"

typedef struct chain_key {
    int node;       /* the node, as an index of first appearance from the root */
    int rel;        /* rank relative to the root */
} chain_key_t;

static int key_cmp(const void *a, const void *b)
{
    const chain_key_t *x = a, *y = b;

    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return x->rel < y->rel ? -1 : x->rel > y->rel;
}

static int node_of(MPIR_Comm * comm, int rank)
{
    int lpid = comm->dev.lpids[rank];

    return lpid < MPIR_Process.size ? MPIR_Process.node_map[lpid] : MPIR_Process.size + lpid;
}

int mm_coll_node_chain(MPIR_Comm * comm, int root, int *prev, int *next)
{
    int n = comm->local_size, me = -1;
    chain_key_t *k = MPL_malloc(sizeof(*k) * (size_t) n, MPL_MEM_COLL);

    if (k == NULL)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPI_ERR_OTHER, "**nomem", "**nomem %s", "mm chain");
    /* Group by node, then key each group by its smallest relative rank. */
    for (int rel = 0; rel < n; rel++) {
        k[rel].node = node_of(comm, (root + rel) % n);
        k[rel].rel = rel;
    }
    qsort(k, (size_t) n, sizeof(*k), key_cmp);
    for (int i = 0, j; i < n; i = j) {
        int first = k[i].rel;   /* sorted by (node, rel): the group's smallest */

        for (j = i; j < n && k[j].node == k[i].node; j++);
        for (int t = i; t < j; t++)
            k[t].node = first;
    }
    /* Second pass: by that first rank, then by rank within the node. */
    qsort(k, (size_t) n, sizeof(*k), key_cmp);
    for (int i = 0; i < n; i++)
        if ((k[i].rel + root) % n == comm->rank)
            me = i;
    MPIR_Assert(me >= 0 && k[0].rel == 0);
    *prev = me > 0 ? (k[me - 1].rel + root) % n : -1;
    *next = me < n - 1 ? (k[me + 1].rel + root) % n : -1;
    MPL_free(k);
    return MPI_SUCCESS;
}
