/*
 * Lock-free multi-producer / single-consumer queue of shm cells, linked by index.
 *
 * Push (any process): clear the cell's link, swap the cell into tail, then link it from
 * the previous tail (or publish it as head if the queue was empty). Pop (owner only): take
 * head; if it has a successor, advance; if it looks like the last cell, try to swing tail
 * back to NIL, and if a producer beat us to it, wait for that producer's link store.
 *
 * Memory ordering: a producer fills the cell (data, len, flags, src) with plain stores,
 * then publishes it with a release store (to the predecessor's next, or to head). The
 * consumer reads those links with acquire loads, so every byte the producer wrote is
 * visible before the consumer reads the cell. The exchange on tail is acq_rel because it
 * both orders the producer's own link reset before it and hands it the predecessor.
 *
 * Trust: head, tail and the links live in memory every local process can write, so pop
 * checks each index it reads against the number of cells before it turns it into an
 * address (SHM_BAD otherwise): a local process that scribbles on the segment gets this
 * one an MPI error, not a wild read. A producer that dies between its swap and its link
 * store leaves pop waiting for the link; that is the dead-peer case, which the process
 * manager ends.
 */
#include "mpidimpl.h"
#include "shm_impl.h"

static inline int cell_index_ok(int32_t idx)
{
    return (uint32_t) idx < (uint32_t) shm_state.ncells_all;
}

void shm_queue_init(shm_queue_t * q)
{
    atomic_store_explicit(&q->head, SHM_NIL, memory_order_relaxed);
    atomic_store_explicit(&q->tail, SHM_NIL, memory_order_relaxed);
}

void shm_queue_push(shm_queue_t * q, int32_t idx)
{
    int32_t prev;

    atomic_store_explicit(&shm_cell(idx)->next, SHM_NIL, memory_order_relaxed);
    prev = atomic_exchange_explicit(&q->tail, idx, memory_order_acq_rel);
    if (prev == SHM_NIL)
        atomic_store_explicit(&q->head, idx, memory_order_release);
    else
        atomic_store_explicit(&shm_cell(prev)->next, idx, memory_order_release);
}

int32_t shm_queue_pop(shm_queue_t * q)
{
    int32_t idx = atomic_load_explicit(&q->head, memory_order_acquire);
    int32_t next;

    if (idx == SHM_NIL)
        return SHM_NIL;
    if (!cell_index_ok(idx))
        return SHM_BAD;
    next = atomic_load_explicit(&shm_cell(idx)->next, memory_order_acquire);
    if (next != SHM_NIL) {
        if (!cell_index_ok(next))
            return SHM_BAD;
        /* Producers only write head when tail is NIL, which it is not while idx is
         * queued: the consumer owns head here. */
        atomic_store_explicit(&q->head, next, memory_order_relaxed);
        return idx;
    }
    /* idx looks last. Clear head first: once tail is NIL again, the next producer will
     * publish its cell through head. */
    atomic_store_explicit(&q->head, SHM_NIL, memory_order_relaxed);
    {
        int32_t expected = idx;
        if (atomic_compare_exchange_strong_explicit(&q->tail, &expected, SHM_NIL,
                                                    memory_order_acq_rel,
                                                    memory_order_acquire))
            return idx;
    }
    /* A producer swapped tail after idx and is about to link idx->next: wait for it. It
     * saw a non-NIL predecessor (idx), so it will not touch head. */
    while ((next = atomic_load_explicit(&shm_cell(idx)->next, memory_order_acquire)) == SHM_NIL)
        mm_yield_core();
    if (!cell_index_ok(next))
        return SHM_BAD;
    atomic_store_explicit(&q->head, next, memory_order_relaxed);
    return idx;
}
