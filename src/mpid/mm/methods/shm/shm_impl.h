/*
 * shm method internals, shared by the files of methods/shm only.
 *
 * One segment per node, created at init with MPIDU_Init_shm_alloc and mapped by every
 * local process, possibly at different addresses: everything inside it is named by
 * index, never by pointer.
 *
 *   [shm_seg_t][shm_rank_t x nlocal][shm_pair_t x nlocal^2][fast box x nlocal^2]
 *   [cells: nlocal x ncells]
 *
 * Each local process owns ncells cells. A sender takes a free cell of its own, fills it
 * and enqueues it on the receiver's recvq; the receiver copies the bytes out and returns
 * the cell to the owner's freeq. Both queues are multi-producer / single-consumer
 * (shm_queue.c), so no locks are ever taken and a cell is touched by one process at a time.
 *
 * Small messages skip the queues when they can: each ordered pair has a fast box
 * (shm_fbox.c), and messages carry numbers so the two paths deliver in order.
 *
 * Besides the cells, the segment holds one shm_pair_t per ordered pair of local processes:
 * where a receiver that reads a payload straight out of the sender's memory (shm_cma.c)
 * offers the sender a share of the copy.
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
#include <sys/types.h>

#define SHM_NIL (-1)
#define SHM_BAD (-2)            /* shm_queue_pop: the queue holds an index no cell has */
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

/* Whether a process of the node is still there (shm_life.c): its pid, written once before
 * the init barrier, and a flag its MPI_Finalize raises before it exits. */
typedef struct shm_life {
    _Atomic int32_t pid;
    _Atomic int32_t left;
    char pad[SHM_CACHELINE - 2 * sizeof(int32_t)];
} shm_life_t;

typedef struct shm_rank {
    shm_queue_t recvq;          /* cells addressed to this process */
    shm_queue_t freeq;          /* this process's own cells, free for it to fill */
    shm_life_t life;
} shm_rank_t;

#define SHM_CELL_ENVELOPE 0x1   /* the cell starts with an mm_pkt_t */

/* A fast box: a ring of message slots from one sender to one receiver (shm_fbox.c). A
 * slot is one cache line; a slot that starts a message is full when its stamp is its ring
 * position + 1. The receiver publishes how many slots it has consumed in a line of its
 * own, which the sender reads only when its local count says the ring may be full. The
 * slot header and the first 52 bytes of data share a line: an envelope with up to 12 bytes
 * of payload is one line.
 *
 * Ring length (shm_state.fbox_slots, a power of two, the same in every process since it
 * depends only on nlocal): SHM_FBOX_SLOTS_MAX (512 KiB: thousands of small messages in
 * flight, or 51 of 8 KiB) while the nlocal^2 boxes fit SHM_FBOX_BUDGET; shorter beyond,
 * down to SHM_FBOX_SLOTS_MIN; no boxes beyond SHM_FBOX_MAX_LOCAL processes. A message that
 * finds the ring full goes through the cell queues, and so does everything behind it until
 * that queue drains.
 *
 * SPANS. A message longer than one slot takes up to SHM_FBOX_SPAN_MAX consecutive slots
 * (one span): its bytes run on from the first slot's data over the next slots' headers,
 * so the receiver gets it contiguous, and only the first slot's stamp says it is there.
 * Spans of up to SHM_FBOX_DENSE_MAX slots (a payload of up to 460 bytes) lie back to
 * back, so a stream of small messages is a sequential walk through memory: 8-64 B
 * streaming bandwidth went from 0.92-1.0x Open MPI's to 1.02-1.4x in the VM's fast mode
 * (with 2 KiB slots, one per message, each message was a miss on a line of its own for
 * both processes), 2026-12-07. Longer spans are padded to a multiple of
 * SHM_FBOX_SPAN_ALIGN slots (2 KiB), as the 2 KiB slots were: packed back to back, 512 B-4
 * KiB messages lost 7-24%, most likely to the receiver's prefetches of the lines after a
 * long message, which the sender is then writing. An eager message of up to 8 KiB (shm's
 * eager limit with CMA) is one span instead of a trip through the cell queues. A span
 * never wraps: when it would, the sender first fills the rest of the ring with a skip
 * (len SHM_FSLOT_SKIP).
 *
 * STALE STAMPS. The stamp word of a slot inside a span holds payload. Before it releases a
 * span, the receiver overwrites the stamp words its payload covered with a value no slot
 * there can have (a stamp at ring index i is always i + 1 modulo the ring length), so
 * payload bytes never pass for a stamp in a later lap. A slot no one writes for a while (a
 * padded span's tail, past a skip) keeps an old stamp of the right residue, which could
 * match again only after exactly 2^32 positions: a 64-bit stamp would close that.
 * (Tried instead: the sender clearing the stamp where the next message starts, so the
 * receiver never writes into the ring. It cost 8 B bandwidth a quarter in the VM's slow
 * mode, 62 against 88 MB/s: one more store into a line the receiver is about to read.) */
#define SHM_FBOX_MAX_LOCAL 64
#define SHM_FBOX_SLOT_BYTES SHM_CACHELINE
#define SHM_FBOX_SLOTS_MIN 256          /* 16 KiB: an 8 KiB message and room to spare */
#define SHM_FBOX_SLOTS_MAX 8192
#define SHM_FBOX_BUDGET ((size_t) 32 << 20)
#define SHM_FBOX_DATA (SHM_FBOX_SLOT_BYTES - 3 * sizeof(uint32_t))     /* envelope + payload */
#define SHM_FBOX_DENSE_MAX 8    /* spans of up to this many slots lie back to back */
#define SHM_FBOX_SPAN_ALIGN 32  /* longer ones are padded to a multiple of this (2 KiB) */
#define SHM_FBOX_SPAN_MAX 160   /* 10228 bytes: an 8 KiB payload and its envelope */
#define SHM_FBOX_MSG_MAX (SHM_FBOX_SPAN_MAX * SHM_FBOX_SLOT_BYTES - 3 * sizeof(uint32_t))
#define SHM_FSLOT_SKIP 0        /* a slot's len: no message, the ring starts over */
typedef struct shm_fslot {
    _Atomic uint32_t stamp;     /* ring position + 1 once written */
    uint32_t seq;               /* the message's number from sender to receiver */
    uint32_t len;               /* bytes in data[] (and on, for a span) */
    char data[SHM_FBOX_DATA];
} shm_fslot_t;

typedef struct shm_fbox {
    _Atomic uint32_t consumed;  /* written by the receiver: slots it has emptied */
    char pad[SHM_CACHELINE - sizeof(uint32_t)];
    shm_fslot_t slot[];         /* shm_state.fbox_slots of them */
} shm_fbox_t;

/* Written by the receiver, read by the sender (shm_cma.c), one cache line per ordered pair:
 * the payload being read, offered to the sender as well, so both processes copy it at
 * once, chunk by chunk (a "shared copy"). claim holds the payload's number + 1 in its high
 * half and the next unclaimed chunk in its low half (0: no offer); whoever claims a chunk
 * by compare-and-swap copies it and counts it in `finished`. */
typedef struct shm_pair {
    _Atomic uint64_t claim;     /* (payload number + 1) << 32 | next chunk */
    _Atomic uint64_t src;       /* payload address in the sender (its rendezvous data's) */
    _Atomic uint64_t dst;       /* destination address in the receiver */
    _Atomic uint64_t len;
    _Atomic uint32_t done;      /* payloads read from the sender so far: numbers the offers */
    _Atomic uint32_t finished;  /* chunks copied */
    _Atomic uint32_t redo;      /* chunk + 1 the sender failed to copy, or 0 */
    _Atomic uint32_t nchunks;
    _Atomic uint32_t chunk;     /* bytes per chunk (the last one may be shorter) */
    _Atomic int32_t dst_pid;    /* the receiver */
    char pad[SHM_CACHELINE - 56];
} shm_pair_t;

/* The rendezvous data of a buffer offered to get() (mm_method.h): what the receiver hands
 * to process_vm_readv. */
typedef struct shm_cma_rndv {
    int32_t pid;                /* the sender */
    uint32_t zero;
    uint64_t base;              /* address in the sender's address space */
    uint64_t len;               /* == the message's data_sz */
} shm_cma_rndv_t;

/* A registration: a send buffer offered to the peer's get(), until FIN. The sender's
 * progress helps with the copies of these (SHARED COPY in shm_cma.c). */
typedef struct shm_cma_reg {
    struct shm_cma_reg *next;
    mm_vc_t *vc;
    uint64_t base;
    uint64_t len;
} shm_cma_reg_t;

typedef struct shm_cell {
    _Atomic int32_t next;       /* queue link (cell index) */
    int32_t src;                /* sender's local rank */
    uint32_t len;               /* bytes used in data[] */
    uint32_t flags;             /* SHM_CELL_* */
    uint32_t seq;               /* envelope cells: the message's number from src to us */
    char pad[SHM_CACHELINE - 5 * sizeof(int32_t)];
    char data[];                /* cell_size bytes */
} shm_cell_t;

typedef struct shm_seg {
    uint32_t magic;
    int32_t nlocal;
    int32_t ncells;             /* per process */
    int32_t cell_size;          /* payload bytes per cell */
} shm_seg_t;

/* Per-VC state, kept in vc->priv (64 bytes: pointers first, flags packed last). */
typedef struct shm_vc {
    mm_car_t *wq_head;          /* chains waiting to be written, FIFO; head is in progress */
    mm_car_t *wq_tail;
    struct mm_vc *active_next;  /* VCs with queued writes */
    int32_t local_rank;         /* the peer's local rank */
    uint8_t hdr_sent;           /* the envelope of wq_head is out */
    uint8_t on_active_list;
    uint8_t cma_rx_ok;          /* receiver: a CMA read from this peer has worked */
    uint8_t cma_rx_off;         /* receiver: the kernel refused one */
    uint8_t cma_help_off;       /* sender: a shared-copy write failed; read-only from now */
    uint32_t cma_offered;       /* sender: our buffers the peer may read (registrations) */
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
    shm_pair_t *pairs;          /* [sender * nlocal + receiver] */
    char *fboxes;               /* shm_fbox_t [sender * nlocal + receiver]; NULL: none */
    size_t fbox_stride;         /* bytes per box */
    uint32_t fbox_slots;        /* slots per box, a power of two */
    uint32_t *tx_seq;           /* by local rank: number of our next message to it */
    uint32_t *rx_seq;           /* by local rank: number of its next message to us */
    uint32_t *tx_pos;           /* by local rank: our next slot position in its box */
    uint32_t *tx_consumed;      /* by local rank: its box's consumed count, as last read */
    uint32_t *rx_pos;           /* by local rank: our next slot position in its box to us */
    int nlocal;
    /* The layout, as this process computed it (and checked the segment agrees at init):
     * read from here, never again from the segment another process can write. */
    int32_t ncells;             /* per process */
    int32_t ncells_all;         /* nlocal * ncells: every valid cell index is below it */
    uint32_t cell_size;
    pid_t pid;
    int cma_enabled;            /* MPIR_CVAR_MM_SHM_CMA */
    shm_cma_reg_t *cma_regs;    /* buffers offered to peers' get(), until their FIN */
    mm_vc_t **peer_vc;          /* by local rank: VC of an arriving cell's sender */
    pid_t *peer_pid;            /* by local rank: its pid as read at init; 0: not watched */
    unsigned quiet_polls;       /* progress calls that moved nothing, since the last look */
    int64_t life_checked_ns;    /* when the peers' pids were last looked at */
    mm_vc_t *active_head;       /* VCs with queued writes */
} shm_state_t;

extern shm_state_t shm_state;
extern const mm_method_t mm_shm_method;

static inline shm_cell_t *shm_cell(int32_t idx)
{
    return (shm_cell_t *) (shm_state.cells + (size_t) idx * shm_state.cell_stride);
}

static inline shm_pair_t *shm_pair(int sender, int receiver)
{
    return &shm_state.pairs[sender * shm_state.nlocal + receiver];
}

static inline shm_fbox_t *shm_fbox(int sender, int receiver)
{
    return (shm_fbox_t *) (shm_state.fboxes +
                           (size_t) (sender * shm_state.nlocal + receiver) *
                           shm_state.fbox_stride);
}

void shm_queue_init(shm_queue_t * q);
void shm_queue_push(shm_queue_t * q, int32_t idx);
int32_t shm_queue_pop(shm_queue_t * q);

int shm_write_progress(int *made_progress);
int shm_read_progress(int *made_progress);
/* Peers' lives (shm_life.c): publish ours before the init barrier, read theirs after it,
 * raise our flag in MPI_Finalize, and on quiet polls notice a peer that vanished. */
void shm_life_publish(void);
int shm_life_init(void);
void shm_life_leave(void);
#define SHM_LIFE_QUIET_POLLS 4096
int shm_life_check(void);
/* Every progress call: after SHM_LIFE_QUIET_POLLS calls in a row that moved nothing, look
 * (at most every SHM_LIFE_PERIOD_NS) whether a peer vanished. */
static inline int shm_life_poll(int made_progress)
{
    if (made_progress) {
        shm_state.quiet_polls = 0;
        return MPI_SUCCESS;
    }
    if (++shm_state.quiet_polls < SHM_LIFE_QUIET_POLLS)
        return MPI_SUCCESS;
    shm_state.quiet_polls = 0;
    return shm_life_check();
}
int shm_post_write(mm_car_t * head);
int shm_post_read(mm_car_t * car);
/* The VC of local rank src, bound on first use. */
int shm_peer_vc(int src, mm_vc_t ** vc_out);

/* shm_fbox.c */
int shm_fbox_fits(const mm_car_t * head);
int shm_fbox_try_send(mm_vc_t * vc, mm_car_t * head, int *sent);
/* The method's send_inline (mm_method.h): the fast box or nothing. */
int shm_send_inline(mm_vc_t * vc, const mm_pkt_t * pkt, const void *data, size_t len);
int shm_fbox_recv(int src, int *delivered);
int shm_fbox_poll(int *made_progress);
int shm_poll_vc(mm_vc_t * vc, int *made_progress);

/* Eager limits measured on the 2-core machine (2026-12-04, 8 B-256 KiB ping-pong and
 * windowed bandwidth, eager vs rendezvous at each size): with CMA, a rendezvous of 16 KiB
 * takes 2.3 us against 3.4 us eager (64 KiB: 4.1 against 7.7), and at 8 KiB both take
 * 2.0 us while eager streams 1.6x faster; through cells, rendezvous only adds a round
 * trip (16-64 KiB: 0.3-0.5 us slower than eager). */
#define SHM_EAGER_LIMIT_CMA 8192
#define SHM_EAGER_LIMIT_CELLS 65536

/* The eager limit of a pair, given whether its rendezvous payloads go by CMA. */
static inline size_t shm_eager_limit(int cma)
{
    if (MPIR_CVAR_MM_SHM_EAGER_LIMIT >= 0)
        return (size_t) MPIR_CVAR_MM_SHM_EAGER_LIMIT;
    return cma ? SHM_EAGER_LIMIT_CMA : SHM_EAGER_LIMIT_CELLS;
}

/* shm_cma.c: the method's get() and its registrations (mm_method.h) */
int shm_mem_register(mm_vc_t * vc, mm_buf_t * buf, void *rndv, size_t * len);
void shm_mem_deregister(mm_vc_t * vc, mm_buf_t * buf);
int shm_get(mm_car_t * car, const void *rndv, size_t len, int *refused);
/* Sender: copy chunks of the payloads receivers are reading out of our registered
 * buffers, if they offer them. */
void shm_cma_help(int *made_progress);

#endif /* SHM_IMPL_H_INCLUDED */
