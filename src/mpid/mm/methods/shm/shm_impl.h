/*
 * shm method internals, shared by the files of methods/shm only.
 *
 * One segment per node, created at init with MPIDU_Init_shm_alloc and mapped by every
 * local process, possibly at different addresses: everything inside it is named by
 * index, never by pointer.
 *
 *   [shm_seg_t header][shm_rank_t x nlocal][cells: nlocal x ncells]
 *
 * Each local process owns ncells cells. A sender takes a free cell of its own, fills it
 * and enqueues it on the receiver's recvq; the receiver copies the bytes out and returns
 * the cell to the owner's freeq. Both queues are multi-producer / single-consumer
 * (shm_queue.c), so no locks are ever taken and a cell is touched by one process at a time.
 *
 * Framing: the bytes a sender writes to one receiver form an ordered stream
 * [mm_pkt_t][payload][mm_pkt_t][payload]... A cell that starts a message has
 * SHM_CELL_ENVELOPE set and begins with the mm_pkt_t; payload fills the rest of that cell
 * and as many following cells as it needs. Cells of one sender reach a receiver in the
 * order they were enqueued, so the receiver reassembles each message in place.
 */
#ifndef SHM_IMPL_H_INCLUDED
#define SHM_IMPL_H_INCLUDED

#include <stdatomic.h>

#define SHM_NIL (-1)
#define SHM_SEG_MAGIC 0x6d6d7368u      /* "mmsh" */
#define SHM_CACHELINE 64

/* MPSC queue of cells. head is read and advanced by the single consumer, and written by a
 * producer only when it finds the queue empty (tail was NIL); tail is swapped by
 * producers. The two live on separate cache lines so consumer and producers don't
 * false-share. */
typedef struct shm_queue {
    _Atomic int32_t head;
    char pad0[SHM_CACHELINE - sizeof(int32_t)];
    _Atomic int32_t tail;
    char pad1[SHM_CACHELINE - sizeof(int32_t)];
} shm_queue_t;

typedef struct shm_rank {
    shm_queue_t recvq;          /* cells addressed to this process */
    shm_queue_t freeq;          /* this process's own cells, free for it to fill */
} shm_rank_t;

#define SHM_CELL_ENVELOPE 0x1   /* the cell starts with an mm_pkt_t */

typedef struct shm_cell {
    _Atomic int32_t next;       /* queue link (cell index) */
    int32_t src;                /* sender's local rank */
    uint32_t len;               /* bytes used in data[] */
    uint32_t flags;             /* SHM_CELL_* */
    char pad[SHM_CACHELINE - 4 * sizeof(int32_t)];
    char data[];                /* cell_size bytes */
} shm_cell_t;

typedef struct shm_seg {
    uint32_t magic;
    int32_t nlocal;
    int32_t ncells;             /* per process */
    int32_t cell_size;          /* payload bytes per cell */
} shm_seg_t;

/* Per-VC state, kept in vc->priv. */
typedef struct shm_vc {
    int local_rank;             /* the peer's local rank */
    mm_car_t *wq_head;          /* chains waiting to be written, FIFO; head is in progress */
    mm_car_t *wq_tail;
    int hdr_sent;               /* the envelope of wq_head is out */
    int on_active_list;
    struct mm_vc *active_next;  /* VCs with queued writes */
} shm_vc_t;

static inline shm_vc_t *shm_vc(mm_vc_t * vc)
{
    MPL_COMPILE_TIME_ASSERT(sizeof(shm_vc_t) <= MM_VC_METHOD_PRIV_BYTES);
    return (shm_vc_t *) vc->priv.bytes;
}

/* Process-wide state of the method. */
typedef struct shm_state {
    void *seg_base;
    shm_seg_t *seg;
    shm_rank_t *ranks;
    char *cells;
    size_t cell_stride;
    int my_local;
    mm_vc_t **peer_vc;          /* by local rank: VC of an arriving cell's sender */
    mm_vc_t *active_head;       /* VCs with queued writes */
} shm_state_t;

extern shm_state_t shm_state;

static inline shm_cell_t *shm_cell(int32_t idx)
{
    return (shm_cell_t *) (shm_state.cells + (size_t) idx * shm_state.cell_stride);
}

void shm_queue_init(shm_queue_t * q);
void shm_queue_push(shm_queue_t * q, int32_t idx);
int32_t shm_queue_pop(shm_queue_t * q);

int shm_write_progress(int *made_progress);
int shm_read_progress(int *made_progress);
int shm_post_write(mm_car_t * head);
int shm_post_read(mm_car_t * car);

#endif /* SHM_IMPL_H_INCLUDED */
