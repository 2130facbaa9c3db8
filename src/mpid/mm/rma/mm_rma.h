/*
 * mm one-sided communication: the shared vocabulary of rma/.
 *
 * Every operation travels as an active message on the target's VC, whatever the method:
 *
 *   origin                                   target
 *   RMA_OP  [mm_rma_hdr_t][target footprint][origin data][compare data]  ->
 *                                            applies it to the window (mm_rma_target.c)
 *        <-  RMA_RESP [result bytes]         one answer per operation, always
 *
 * The answer is what completes an operation: flush, unlock, fence and complete wait until
 * every operation they cover has been answered, so "answered" means "done at the target".
 * Synchronization has its own header-only packets (RMA_CTRL, subkinds below): the target
 * grants its lock from a FIFO queue (fair: a request never overtakes an earlier one), and
 * post/complete are counted messages.
 *
 * A VC delivers in order, so the operations of one origin reach a target in the order
 * they were issued, and an UNLOCK or COMPLETE arrives after the operations before it.
 *
 * Packet fields (mm_pkt_t): context_id = the window's key, rank = the sender's rank in
 * the window, tag = the RMA_CTRL subkind or, in RMA_RESP, the MPI error class of a failed
 * operation (0 = success), sreq = the origin's request id that waits for the answer (0:
 * none), rreq = unused.
 */
#ifndef MM_RMA_H_INCLUDED
#define MM_RMA_H_INCLUDED

#include "mpidimpl.h"
#include "mm_subsys.h"
#include "mm_rma_wire.h"       /* the RMA_OP payload and its decoder */

/* Access epochs of an origin (win->dev.access). */
enum {
    MM_ACCESS_NONE = 0,
    MM_ACCESS_FENCE_OPEN,       /* after a fence, no operation issued yet: a lock or start
                                 * may still begin instead */
    MM_ACCESS_FENCE,            /* operations issued since the last fence */
    MM_ACCESS_PSCW,             /* between start and complete */
    MM_ACCESS_LOCK,             /* some targets locked with MPI_Win_lock */
    MM_ACCESS_LOCK_ALL          /* MPI_Win_lock_all */
};

/* Exposure epochs of a target (win->dev.exposure). */
enum {
    MM_EXPOSE_NONE = 0,
    MM_EXPOSE_FENCE,
    MM_EXPOSE_POST              /* between post and wait/test */
};

/* The lock state an origin keeps per target (mm_win_peer_t.lock). */
enum {
    MM_PEER_UNLOCKED = 0,
    MM_PEER_LOCK_WAIT,          /* LOCK_REQ sent, grant to come */
    MM_PEER_LOCKED,             /* granted (or MPI_MODE_NOCHECK: taken without asking) */
    MM_PEER_UNLOCK_WAIT         /* UNLOCK sent, its acknowledgement to come */
};

/* RMA_CTRL subkinds (mm_pkt_t.tag); sreq carries the argument. */
enum {
    MM_RMA_LOCK_REQ = 1,        /* origin -> target: sreq = MPI_LOCK_SHARED / EXCLUSIVE */
    MM_RMA_LOCK_GRANT,          /* target -> origin */
    MM_RMA_UNLOCK,              /* origin -> target: release what LOCK_REQ got */
    MM_RMA_UNLOCK_ACK,          /* target -> origin */
    MM_RMA_POST,                /* target -> origin: exposure epoch open for you */
    MM_RMA_COMPLETE             /* origin -> target: my access epoch to you is over */
};

/* accumulate_ordering info bits (win->dev.info_acc_ordering) */
#define MM_ACC_ORDER_RAR 0x1
#define MM_ACC_ORDER_RAW 0x2
#define MM_ACC_ORDER_WAR 0x4
#define MM_ACC_ORDER_WAW 0x8

/* An origin's record of one target of the window. */
typedef struct mm_win_peer {
    int pending;                /* operations to this target not yet answered */
    int lock;                   /* MM_PEER_* */
    int lock_type;              /* MPI_LOCK_SHARED / EXCLUSIVE while lock != UNLOCKED */
    int lock_nocheck;           /* taken with MPI_MODE_NOCHECK: no messages */
    void *lockword;             /* the target's lock in shared memory, or NULL */
    int posts;                  /* POST messages from this target not yet consumed by start */
    /* MPI_Win_allocate_shared: the peer's part of the node segment */
    void *shm_base;
    MPI_Aint shm_size;
    int shm_disp_unit;
} mm_win_peer_t;

/* A queued lock request at the target. */
typedef struct mm_lock_waiter {
    int rank;
    int type;
    void *op;                   /* an implicit-epoch operation (MPI_Rmw) to apply once
                                 * granted, instead of sending a grant; NULL: a LOCK_REQ */
    struct mm_lock_waiter *next;
} mm_lock_waiter_t;

/* Memory attached to a dynamic window. */
typedef struct mm_win_region {
    char *base;
    MPI_Aint size;
    struct mm_win_region *next;
} mm_win_region_t;

/* One operation as the MPID_ entry points describe it. */
typedef struct mm_rma_args {
    int op;                     /* MM_RMA_* */
    const void *origin;         /* data sent: put, accumulates, CAS's new value */
    MPI_Aint ocount;
    MPI_Datatype otype;
    const void *compare;        /* CAS */
    void *result;               /* where the answer's data goes: get's origin buffer, the */
    MPI_Aint rcount;            /* result buffer of the fetching accumulates */
    MPI_Datatype rtype;
    int target;
    MPI_Aint tdisp;
    MPI_Aint tcount;
    MPI_Datatype ttype;
    MPI_Op acc_op;              /* MM_RMA_RMW2: the MPI_RMW2_* op */
    int implicit;               /* an MPI_Rmw implicit epoch: no epoch check here; with
                                 * MM_RMA_HDR_IMPLICIT_LOCK the target takes its lock */
    uint32_t hdr_flags;
    int copy_origin;            /* origin data goes before the operation completes: copy it */
} mm_rma_args_t;

/* The one predefined type a datatype is made of (accumulates, MPI_Rmw). */
static inline MPI_Datatype mm_rma_basic_type(MPI_Datatype type)
{
    MPIR_Datatype *dt;

    if (MPIR_DATATYPE_IS_PREDEFINED(type))
        return type;
    MPIR_Datatype_get_ptr(type, dt);
    return dt->basic_type;
}

/* --- the registry of windows (mm_win_registry.c) --- */
/* Add a created window (before the collective that ends its creation); remove it at free. */
void mm_win_register(MPIR_Win * win);
void mm_win_unregister(MPIR_Win * win);
/* The window a packet's key names, or NULL. */
MPIR_Win *mm_win_lookup(uint32_t key);
/* Is [addr, addr+len) inside memory the window exposes? */
int mm_win_range_ok(MPIR_Win * win, const char *addr, MPI_Aint len);

/* --- the wire (mm_rma_ops.c) --- */
/* Issue one operation (the MPID_ entry points and MPI_Rmw); *ureq, if given, gets a
 * request that completes with it. */
int mm_rma_issue(MPIR_Win * win, const mm_rma_args_t * a, MPIR_Request ** ureq);
/* The VC of a rank of the window. */
int mm_rma_vc(MPIR_Win * win, int rank, mm_vc_t ** vc_out);
/* Send a header-only RMA_CTRL packet to rank. */
int mm_rma_send_ctrl(MPIR_Win * win, int rank, int subkind, uint64_t arg);
/* Send an RMA_RESP for an operation, with len result bytes copied from result. */
int mm_rma_send_resp(MPIR_Win * win, mm_vc_t * vc, uint64_t sreq, int errclass,
                     const void *result, size_t len);
/* The answer to one of our operations arrived. */
int mm_rma_handle_resp(mm_vc_t * vc, const mm_pkt_t * pkt);

/* --- the target (mm_rma_target.c) --- */
int mm_rma_handle_op(mm_vc_t * vc, const mm_pkt_t * pkt);
int mm_rma_op_payload_done(mm_car_t * car);
int mm_rma_handle_ctrl(mm_vc_t * vc, const mm_pkt_t * pkt);

/* --- applying accumulates under the atomicity rule (mm_rma_atomic.c) --- */
/* Combine nelem packed elements of basic type at src into the target buffer (addr, count,
 * type) with op; if old is not NULL, first store the previous contents there, packed.
 * Atomic per element with respect to every other accumulate on the window. */
int mm_rma_acc_apply(MPIR_Win * win, void *addr, MPI_Aint count, MPI_Datatype type,
                     const void *src, MPI_Aint nelem, MPI_Datatype basic, MPI_Op op, void *old);
/* Compare-and-swap of one element; the previous value goes to old. */
int mm_rma_cas_apply(MPIR_Win * win, void *addr, MPI_Datatype type, const void *newval,
                     const void *compare, void *old);

/* MPI_Rmw2 on nelem elements of basic type: operand and operand2 packed, the previous
 * contents to old (packed). Same atomicity rule as the accumulates. */
int mm_rma_rmw2_apply(MPIR_Win * win, void *addr, MPI_Aint count, MPI_Datatype type,
                      const void *operand, const void *operand2, MPI_Aint nelem,
                      MPI_Datatype basic, int op, void *old);
/* The same two, on a target known only by its blocks (a footprint from the wire, each block
 * whole elements of basic): the blocks cover exactly the nelem elements applied. */
int mm_rma_acc_apply_blocks(MPIR_Win * win, const struct iovec *iov, MPI_Aint niov,
                            const void *src, MPI_Aint nelem, MPI_Datatype basic, MPI_Op op,
                            void *old);
int mm_rma_rmw2_apply_blocks(MPIR_Win * win, const struct iovec *iov, MPI_Aint niov,
                             const void *operand, const void *operand2, MPI_Aint nelem,
                             MPI_Datatype basic, int op, void *old);
/* Is op an MPI_RMW2_* op defined on basic (MPI_SUCCESS), else an MPI_ERR_OP code. */
int mm_rma_rmw2_check(int op, MPI_Datatype basic);

/* --- the accumulate stripes of a shared segment (mm_rma_atomic.c has the rule) ---
 *
 * Segment header: MM_ACC_STRIPES stripe words, one cache line each (the writer lock, the
 * stripe's mode, and the count of locked readers since the last writer); then one line
 * per member for the window lock (mm_rma_lockword.c); then one line per member of reader
 * counters (member m's line: one byte per stripe, the number of m's threads inside a
 * lock-free CPU atomic on that stripe). Stripe of an address: its MM_ACC_GRANULE-byte
 * granule of the segment, modulo MM_ACC_STRIPES. A new segment is zero: every stripe
 * unlocked and in MM_ACC_MODE_READ. */
#define MM_ACC_STRIPES 64
#define MM_ACC_STRIPE_BYTES 64
#define MM_ACC_GRANULE 4096     /* a page: a 64 KiB accumulate takes 16 locks, not 64 */
#define MM_ACC_LOCKS_BYTES (MM_ACC_STRIPES * MM_ACC_STRIPE_BYTES)
#define MM_WIN_LOCK_BYTES 64
#define MM_ACC_SLOT_BYTES MM_ACC_STRIPES
static inline size_t mm_win_seg_header(int nmembers)
{
    return MM_ACC_LOCKS_BYTES + (size_t) nmembers * (MM_WIN_LOCK_BYTES + MM_ACC_SLOT_BYTES);
}

typedef struct {
    int lock;                   /* writer lock: 1 while held */
    int mode;                   /* MM_ACC_MODE_*: written only by a holder of lock */
    unsigned reads;             /* locked readers since the last writer (holders only) */
} mm_acc_stripe_t;
enum { MM_ACC_MODE_READ = 0, MM_ACC_MODE_WRITE = 1 };
/* A reader's ticket for mm_acc_reader_exit: the stripe, plus this bit if it holds the
 * stripe's lock. */
#define MM_ACC_TICKET_LOCKED 0x100

/* Point the window's stripes and reader slots into a segment of nmembers members in which
 * this process is member me (MPI_Win_allocate_shared, MPI_Win_allocate's node segment).
 * The segment's maker has set acc_asym: every member registered for membarrier. */
void mm_rma_acc_slots_init(MPIR_Win * win, void *seg, int nmembers, int me);
/* May this process's readers announce themselves without a locked instruction, writers
 * then making every member's CPU order its stores with membarrier? Registers this
 * process the first time (MPIR_CVAR_MM_RMA_MEMBARRIER turns it off). */
int mm_rma_membarrier_ready(void);

/* Other processes may update the window's memory directly (its stripes live in a shared
 * segment): single-element accumulates are CPU atomics, the rest take stripes. */
static inline int mm_win_acc_atomic(MPIR_Win * win)
{
    return win->dev.acc_slots != NULL;
}

static inline int mm_acc_stripe_of(MPIR_Win * win, const void *addr)
{
    return (int) (((uintptr_t) addr - (uintptr_t) win->dev.acc_lock) / MM_ACC_GRANULE %
                  MM_ACC_STRIPES);
}

static inline mm_acc_stripe_t *mm_acc_stripe(MPIR_Win * win, int stripe)
{
    return (mm_acc_stripe_t *) ((char *) win->dev.acc_lock +
                                (size_t) stripe * MM_ACC_STRIPE_BYTES);
}

static inline volatile int *mm_acc_stripe_lock(MPIR_Win * win, int stripe)
{
    return &mm_acc_stripe(win, stripe)->lock;
}

/* The stripe is in write mode: take its lock instead (mm_rma_atomic.c). */
int mm_acc_reader_enter_locked(MPIR_Win * win, int stripe);
void mm_acc_reader_exit_locked(MPIR_Win * win, int stripe);

/* This process's counter byte for a stripe; only its own threads write it. */
static inline volatile uint8_t *mm_acc_my_counter(MPIR_Win * win, int stripe)
{
    return (volatile uint8_t *) win->dev.acc_slots +
        (size_t) win->dev.acc_myslot * MM_ACC_SLOT_BYTES + stripe;
}

/* Announcing and withdrawing. With membarrier (acc_asym) and one thread inside MPI at a
 * time, a plain store: the writer that switches the stripe to write mode makes every CPU
 * order it (the argument is in mm_rma_atomic.c). Else a sequentially consistent atomic. */
static inline void mm_acc_announce(MPIR_Win * win, volatile uint8_t * mine)
{
    if (win->dev.acc_asym && !MPIR_IS_THREADED) {
        __atomic_store_n(mine, (uint8_t) (*mine + 1), __ATOMIC_RELAXED);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);        /* the compiler keeps the order */
    } else {
        __atomic_fetch_add(mine, 1, __ATOMIC_SEQ_CST);
    }
}

static inline void mm_acc_withdraw(volatile uint8_t * mine)
{
    /* after the reader's atomic: a release store keeps it first */
    if (MPIR_IS_THREADED)
        __atomic_fetch_sub(mine, 1, __ATOMIC_RELEASE);
    else
        __atomic_store_n(mine, (uint8_t) (*mine - 1), __ATOMIC_RELEASE);
}

/* A reader (one aligned element, one CPU atomic) enters its stripe: announce, then read
 * the stripe's mode; in read mode it goes ahead lock-free, in write mode it withdraws and
 * takes the stripe's lock. Returns a ticket for mm_acc_reader_exit. */
static inline int mm_acc_reader_enter(MPIR_Win * win, const void *addr)
{
    int stripe = mm_acc_stripe_of(win, addr);
    volatile uint8_t *mine = mm_acc_my_counter(win, stripe);

    mm_acc_announce(win, mine);
    if (__atomic_load_n(&mm_acc_stripe(win, stripe)->mode, __ATOMIC_SEQ_CST) ==
        MM_ACC_MODE_READ)
        return stripe;
    mm_acc_withdraw(mine);
    return mm_acc_reader_enter_locked(win, stripe);
}

static inline void mm_acc_reader_exit(MPIR_Win * win, int ticket)
{
#if !defined(__x86_64__) && !defined(__i386__)
    win->dev.acc_unfenced = 1;  /* the atomic is not a full barrier here: flush fences */
#endif
    if (ticket & MM_ACC_TICKET_LOCKED)
        mm_acc_reader_exit_locked(win, ticket & ~MM_ACC_TICKET_LOCKED);
    else
        mm_acc_withdraw(mm_acc_my_counter(win, ticket));
}

/* --- accumulate loops (mm_rma_kernels.c) --- */
/* dst = op(src, dst) over len bytes of whole elements; src and dst do not overlap. */
typedef void mm_rma_kernel_fn(void *dst, const void *src, size_t len);
/* The loop for (basic, op), or NULL: use MPICH's op function. */
mm_rma_kernel_fn *mm_rma_kernel(MPI_Datatype basic, MPI_Op op);
/* Element kinds the loops and the CPU atomics know. */
enum { MM_ELEM_OTHER = 0, MM_ELEM_SINT8, MM_ELEM_SINT16, MM_ELEM_SINT32, MM_ELEM_SINT64,
    MM_ELEM_UINT8, MM_ELEM_UINT16, MM_ELEM_UINT32, MM_ELEM_UINT64, MM_ELEM_FLOAT,
    MM_ELEM_DOUBLE
};
int mm_rma_elem_class(MPI_Datatype basic);

/* May this origin access target now? Moves a fresh fence epoch to "operations issued". */
static inline int mm_rma_epoch_allows(MPIR_Win * win, int target)
{
    switch (win->dev.access) {
        case MM_ACCESS_FENCE_OPEN:
            win->dev.access = MM_ACCESS_FENCE;
            return 1;
        case MM_ACCESS_FENCE:
        case MM_ACCESS_LOCK_ALL:
            return 1;
        case MM_ACCESS_PSCW:
            for (int i = 0; i < win->dev.start_n; i++)
                if (win->dev.start_ranks[i] == target)
                    return 1;
            return 0;
        case MM_ACCESS_LOCK:
            return win->dev.peers[target].lock == MM_PEER_LOCKED;
        default:
            return 0;
    }
}

/* --- memory this process maps (mm_rma_direct.c) --- */
/* Is target's memory mapped here (an MPI_Win_allocate(_shared) peer on this node, or
 * ourselves)? Then operations on it are loads and stores, not messages. */
static inline int mm_rma_is_direct(MPIR_Win * win, int target)
{
    return win->dev.peers[target].shm_base != NULL;
}

/* Where len bytes at displacement disp of a mapped target start, or NULL if they do not lie
 * inside its memory (or the target is not mapped). No product or sum may wrap. */
static inline char *mm_rma_mapped_range(const mm_win_peer_t * peer, MPI_Aint disp, MPI_Aint len)
{
    MPI_Aint off;

    if (peer->shm_base == NULL || disp < 0 || len < 0 ||
        __builtin_mul_overflow(disp, (MPI_Aint) peer->shm_disp_unit, &off) || off < 0 ||
        (size_t) off > peer->shm_size || (size_t) len > peer->shm_size - (size_t) off)
        return NULL;
    return (char *) peer->shm_base + off;
}

/* --- the window lock in shared memory (mm_rma_lockword.c) --- */
/* Set every peer's lockword when every member of the window maps every other member's
 * memory; else they stay NULL and the target grants the lock (mm_rma_target.c). The same
 * answer in every member, so the two ways never meet on one window. */
void mm_rma_lockwords_init(MPIR_Win * win);
/* Take (waiting, polling the engine) or give back the lock, MPI_LOCK_SHARED/EXCLUSIVE. */
int mm_rma_lockword_acquire(void *word, int type);
void mm_rma_lockword_release(void *word, int type);

/* Perform one operation on a directly reachable target, complete when this returns.
 * basic is the element type of an accumulate; data_len/result_len as on the wire. */
int mm_rma_direct(MPIR_Win * win, const mm_rma_args_t * a, MPI_Datatype basic,
                  MPI_Aint data_len, MPI_Aint result_len);
/* The accumulate family and compare-and-swap in their commonest form (one predefined type,
 * a mapped target): 1 if done (its result in *errp), 0 for the general path. */
int mm_rma_acc_direct_fast(MPIR_Win * win, const void *origin, void *result, MPI_Aint count,
                           MPI_Datatype type, int target, MPI_Aint disp, MPI_Op op, int *errp);
int mm_rma_cas_direct_fast(MPIR_Win * win, const void *origin, const void *compare,
                           void *result, MPI_Datatype type, int target, MPI_Aint disp,
                           int *errp);

/* A direct operation completes without the progress engine, so a process looping on them
 * (a trylock spinning on compare-and-swap + flush, a counter read with MPI_Rmw) would
 * never apply the operations, lock requests and messages that peers reaching it only by
 * message (tcp) send to it, and they would wait until the loop ends. Every
 * MM_RMA_DIRECT_POLL_INTERVAL-th direct operation or idle flush therefore polls the engine
 * once: cheap for the loop (one poll per interval) and a bounded wait for those peers. */
#define MM_RMA_DIRECT_POLL_INTERVAL 64
extern unsigned mm_rma_direct_count;

static inline int mm_rma_direct_tick(void)
{
    if (++mm_rma_direct_count % MM_RMA_DIRECT_POLL_INTERVAL != 0)
        return MPI_SUCCESS;
    return MPID_Progress_test(NULL);
}

/* --- device atomics on a window's 8-byte integer words (mm_rma_nic.c) --- */
typedef struct mm_win_nic mm_win_nic_t;
/* Decide, with every member, whether the window's words are the device's (wanted: the
 * info key or the CVAR says so); sets win->dev.nic if so. Collective. */
int mm_rma_nic_setup(MPIR_Win * win, int wanted);
void mm_rma_nic_free(MPIR_Win * win);
/* Are these target pieces of basic elements the device's to update? */
int mm_rma_nic_elems(MPIR_Win * win, const struct iovec *iov, MPI_Aint niov,
                     MPI_Datatype basic);
/* The accumulate (old: the previous values, or NULL) and compare-and-swap, by the device,
 * on pieces mm_rma_nic_elems accepted. */
int mm_rma_nic_acc(MPIR_Win * win, const struct iovec *iov, MPI_Aint niov, const void *src,
                   MPI_Datatype basic, MPI_Op op, void *old);
int mm_rma_nic_cas(MPIR_Win * win, void *addr, const void *newval, const void *compare,
                   void *old);
/* Replace the word at addr by fn(its value, ctx) with device compare-and-swaps; *old gets
 * the value replaced. */
typedef uint64_t(*mm_rma_nic_fn) (uint64_t cur, const void *ctx);
int mm_rma_nic_update(MPIR_Win * win, void *addr, mm_rma_nic_fn fn, const void *ctx,
                      uint64_t * old);
/* One device atomic (MM_ATOMIC_*) on target's word at disp, straight from here, waiting
 * for it; *done = 0 when target is not reached that way. */
int mm_rma_nic_remote(MPIR_Win * win, int target, MPI_Aint disp, int op, uint64_t operand,
                      uint64_t compare, uint64_t * old, int *done);
/* The same with mm_rma_nic_update's rule (compare-and-swaps from here). */
int mm_rma_nic_remote_update(MPIR_Win * win, int target, MPI_Aint disp, mm_rma_nic_fn fn,
                             const void *ctx, uint64_t * old, int *done);
/* A small accumulate, get_accumulate or compare-and-swap of 8-byte integers on a target
 * reached through the device's method, done from here with device atomics, complete when
 * this returns (*done = 1); *done = 0 leaves it to the other paths. */
int mm_rma_nic_issue(MPIR_Win * win, const mm_rma_args_t * a, MPI_Datatype basic, int *done);
/* A put or get of contiguous data on both sides to a target reached through the device's
 * method, started as one RDMA write or read (*done = 1): pending until the device is
 * done, like an operation the target answers; *done = 0 leaves it to the packets. */
int mm_rma_nic_putget(MPIR_Win * win, const mm_rma_args_t * a, MPIR_Request ** ureq,
                      int *done);

/* An operation to rank is done at the target (errclass != 0: it failed there): the pending
 * counts drop and req, if any, completes (mm_rma_ops.c). */
int mm_rma_op_finish(MPIR_Win * win, int rank, MPIR_Request * req, int errclass);

/* --- synchronization (mm_rma_sync.c) --- */
/* Progress until every operation to rank (all ranks if rank < 0) is answered. */
int mm_rma_flush_wait(MPIR_Win * win, int rank);
/* The same for MPI_Win_flush*: fences only after RMA calls that need it. */
int mm_rma_flush_ops(MPIR_Win * win, int rank);

/* An epoch error: MPI_ERR_RMA_SYNC with a message saying what was wrong. */
static inline int mm_rma_sync_error(const char *fn, const char *why)
{
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, fn, __LINE__,
                                MPI_ERR_RMA_SYNC, "**mm|rmasync", "**mm|rmasync %s", why);
}

#endif /* MM_RMA_H_INCLUDED */
