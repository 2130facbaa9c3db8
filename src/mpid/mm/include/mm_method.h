/*
 * mm_method.h — the contract between the mm engine and a communication method.
 *
 * A method moves bytes between this process and the peers it can reach: `self` (this
 * process), `shm` (processes on the same node), `tcp` (anyone reachable by IP), `ib`
 * (InfiniBand/RoCE). Several methods are live in one process at once; each peer (VC) is
 * bound to exactly one of them.
 *
 * SELECTION. At init every method publishes a business card (an opaque string: a shm
 * segment name, a host:port, a GID/QPN...). When the engine first needs a VC it walks
 * MPIR_CVAR_MM_METHODS in order and binds the VC to the first method whose can_reach()
 * accepts the peer. The engine never names a method outside methods/mm_methods.c.
 *
 * WRITES. The engine posts a chain of WRITE CARs with post_write(): a HEAD CAR carrying an
 * mm_pkt_t envelope, optionally followed (car->next) by one DATA CAR whose mm_buf_t iovec
 * cursor describes payload bytes. The method must put the envelope and then the payload on
 * the wire in order, must not interleave two chains of the same VC, and may stop at any
 * point for lack of resources and resume in progress(). It completes each CAR with
 * mm_cq_complete() once the CAR's bytes no longer need the caller's buffer (copied out or
 * acknowledged). post_write() may complete CARs before it returns; the engine allows it.
 * A method may also offer send_inline(), which takes a small message whole, without CARs,
 * when it can put it on the wire at once: the engine tries it first for MPI_Send and
 * MPI_Isend of contiguous data (and falls back to CARs when it declines).
 *
 * READS. When an envelope arrives from a VC the method copies it into vc->rhead.pkt and
 * calls mm_cq_complete(&vc->rhead). If the packet carries payload, the engine, before
 * mm_cq_complete returns, hands the method a READ DATA CAR of exactly the payload's length
 * with post_read(); the method fills it in order and completes it. Only then does the next
 * envelope of that VC get delivered. A method that holds a whole message at once (the
 * envelope and all of its payload, contiguous: a fast box slot) may instead hand both over
 * with mm_cq_deliver(), which lets an eager message go straight into its receive buffer.
 *
 * Methods never interpret an envelope: only the engine knows packet kinds. A method frames
 * what the engine gives it ([envelope][payload of the DATA CAR, if any]) and, on the read
 * side, learns how long a payload is from the READ DATA CAR the engine posts (or that none
 * follows, when it posts none). Kinds from MM_PKT_METHOD_FIRST up are a method's own
 * control packets (mm_pkt.h), which it keeps to itself.
 *
 * EAGER AND RENDEZVOUS. The engine, not the method, chooses the protocol, from the VC's
 * eager limit and the method's caps: messages up to vc->eager_limit go as EAGER (payload
 * follows the envelope and lands in an unexpected buffer if no receive is posted); larger
 * ones go as a rendezvous, so the payload only moves once the receiver has a place for it:
 *
 *   RTS -> CTS -> DATA   every method: the sender's method moves the payload as a WRITE.
 *   RTS(rndv) -> FIN     (RGET) methods with MM_METHOD_CAP_GET: the sender registers its
 *                        buffer (mem_register), whose rendezvous data rides on the RTS; the
 *                        receiver's method reads the payload with get() straight into the
 *                        receive buffer, and the engine answers FIN, after which the sender
 *                        deregisters (mem_deregister) and completes. If get() is refused
 *                        (the kernel forbids it, say), the receiver answers CTS instead and
 *                        the payload comes as DATA: the first protocol is always the
 *                        fallback.
 *
 * MEMORY REGISTRATION. mem_register() makes a send buffer readable by one peer and writes
 * the rendezvous data that describes it (an address, a length, a process id or a remote
 * key: at most MM_RNDV_DATA_MAX bytes); its handle lives in the buffer view (mm_buf_t.mem)
 * until mem_deregister(). The pair is also where a method that pins memory keeps its
 * registration cache: deregistering may keep the pin for the next send of the same buffer.
 * The engine registers only contiguous views (it packs other datatypes first).
 *
 * DEVICE ATOMICS. A method with MM_METHOD_CAP_ATOMIC has its device apply 8-byte atomics
 * (fetch-and-add, compare-and-swap) to a peer's registered memory without the peer's CPU
 * (RDMA atomics), and to this process's own memory through the same device (a loopback),
 * since such atomics are atomic only with respect to each other: unless the method also
 * sets MM_METHOD_CAP_ATOMIC_CPU, a CPU atomic on the same word may be lost. rma/ decides
 * per window whether its 8-byte integer words are updated by the device everywhere (every
 * path, local ones included) or by CPUs everywhere (mm_rma_nic.c); win_register makes a
 * window's memory reachable, and its key (an rkey) travels to the members at creation.
 * The same registration carries contiguous puts and gets to such a peer as one RDMA
 * write or read each (rdma). Everything else of RMA travels as RMA packets, or as loads
 * and stores on memory of the node's shared segments (rma/).
 *
 * PROGRESS. progress() advances pending writes and delivers arrivals; it sets *made_progress
 * when anything moved. It is called with the global critical section held and must not
 * block: blocking (when the engine decides to) happens in the engine's wait logic. The
 * engine calls it on every poll while VCs are bound to the method, and only every 64th
 * poll before that (enough to notice a peer that reaches us first through it).
 *
 * TARGETED POLLING. A blocking receive from one peer (MPI_Recv with a named source) on a
 * node whose cores are not oversubscribed waits by calling poll_vc() on that peer's VC,
 * with a full progress() of every method after each MM_POLL_VC_RUN of them: the message
 * it waits for is noticed within a few nanoseconds of landing rather than within one
 * turn of the whole engine, and everything else still moves. Oversubscribed, the wait
 * stays the plain one: a spinning process would take the core from the peer it waits for.
 *
 * BLOCKING. A wait that found nothing to do for a while should sleep rather than spin, so
 * an oversubscribed core goes to the process that has work. A method whose arrivals (and
 * writable sockets) are signalled on a file descriptor returns it from wait_fd(); the engine
 * sleeps in poll() on those descriptors only when every active method has one. A method that
 * must be polled (shm: memory, no descriptor) leaves wait_fd NULL and keeps the engine
 * spinning and yielding. A method with nothing that can arrive on its own (self: only this
 * process queues its work, and progress delivers it at once) returns -1.
 *
 * THREADS. All entry points run under MPICH's GLOBAL critical section.
 */
#ifndef MM_METHOD_H_INCLUDED
#define MM_METHOD_H_INCLUDED

#include <stddef.h>
#include "mm_car.h"
#include "mm_vc.h"

/* Capability bits: what the engine chooses protocols by. */
#define MM_METHOD_CAP_GET  0x1  /* mem_register, mem_deregister and get are there: large
                                 * payloads go by RGET (see EAGER AND RENDEZVOUS) */
#define MM_METHOD_CAP_CARD 0x4  /* peers need our business card (published through
                                 * PMI at init) to reach us */
#define MM_METHOD_CAP_ATOMIC 0x8        /* win_register, win_deregister, atomic and rdma are
                                         * there (see DEVICE ATOMICS) */
#define MM_METHOD_CAP_ATOMIC_CPU 0x10   /* ... and its atomics are coherent with the CPU's */

#define MM_WIN_KEY_MAX 16       /* bytes of a window registration's key */

/* The device atomics of MM_METHOD_CAP_ATOMIC. */
enum mm_atomic_op {
    MM_ATOMIC_FADD = 1,         /* *result = word; word += operand */
    MM_ATOMIC_CSWAP             /* *result = word; if (word == compare) word = operand */
};

#define MM_METHOD_CARD_MAX 256  /* bytes of one method's business card, NUL included */

typedef struct mm_method {
    const char *name;

    /* What the engine reads to choose protocols, never the method's code. */
    size_t eager_limit;         /* largest payload sent eagerly, bytes (connect() may set
                                 * vc->eager_limit and vc->eager_limit_rx per peer instead) */
    unsigned caps;              /* MM_METHOD_CAP_* */

    /* Bring the method up. Fills card (NUL-terminated, < MM_METHOD_CARD_MAX) with what peers
     * need to reach us; an empty card means the method is unusable in this process. */
    int (*init) (char *card);
    int (*finalize) (void);
    /* Can this process reach the peer whose card (for this method) is given? card is
     * NULL for methods without MM_METHOD_CAP_CARD, and for the peer's not published.
     * lpid >= MPIR_Process.size is a process of another job (dynamic processes): it is in
     * neither the PMI node map nor this job's shared segment, and known by its card only. */
    int (*can_reach) (int lpid, const char *card);
    /* Bind vc to this method (may connect lazily, at the first write); card as above.
     * card is NULL as well when the peer reached us first, before this process knew its
     * cards (mm_vc_bind): the method then talks over the connection the peer opened. */
    int (*connect) (mm_vc_t * vc, const char *card);
    int (*post_write) (mm_car_t * head);
    /* Optional (NULL: the engine always posts CARs): the fast path of small sends. Put
     * a whole message, the envelope pkt and len contiguous payload bytes at data, on the
     * wire at once, without CARs, if nothing of vc is queued ahead of it and the method
     * has room for it now; return 1 when it did (the bytes were copied out: the caller's
     * buffer is free), 0 to have the engine post it as CARs instead. Never blocks, never
     * completes anything, never re-enters the engine. */
    int (*send_inline) (mm_vc_t * vc, const mm_pkt_t * pkt, const void *data, size_t len);
    /* Where the payload of the envelope just delivered on car->vc goes (see READS). */
    int (*post_read) (mm_car_t * car);
    int (*progress) (int *made_progress);
    /* Optional (NULL: not offered): deliver what has arrived from vc's peer alone, as
     * progress() would, in a fraction of its time. A blocking receive from that one peer
     * polls it between full progress() calls (see TARGETED POLLING), so it may leave
     * everything else, writes included, to them. */
    int (*poll_vc) (mm_vc_t * vc, int *made_progress);
    /* See BLOCKING; NULL: this method must be polled. */
    int (*wait_fd) (void);
    /* Drain and release the VC; pending writes are finished first. */
    int (*close) (mm_vc_t * vc);

    /* MM_METHOD_CAP_GET only (NULL otherwise); see EAGER AND RENDEZVOUS and MEMORY
     * REGISTRATION. */
    /* Let vc's peer read the bytes of buf (one contiguous piece, all of it still to send):
     * write their rendezvous data into rndv (MM_RNDV_DATA_MAX bytes of room), its length
     * into *len, and the method's handle into buf->mem. *len = 0 declines (this peer cannot
     * be offered a get now): the engine then uses RTS -> CTS -> DATA. */
    int (*mem_register) (mm_vc_t * vc, mm_buf_t * buf, void *rndv, size_t * len);
    /* The peer will not read buf any more (FIN, a CTS instead, or a cancelled send):
     * release buf->mem and set it to NULL. */
    void (*mem_deregister) (mm_vc_t * vc, mm_buf_t * buf);
    /* Read into the READ DATA CAR car (its buffer describes exactly the message's bytes)
     * what the peer's rendezvous data rndv (len bytes, as the peer sent them: untrusted)
     * describes, and complete car with mm_cq_complete() when it is all in, now or from
     * progress(). Sets *refused (and leaves car alone) when this method cannot read that
     * peer's memory; the engine then asks for the payload with a CTS. Rendezvous data that
     * does not describe car's length is an error (**mm|badpkt), as is a read that fails
     * after reads from this peer have worked. */
    int (*get) (mm_car_t * car, const void *rndv, size_t len, int *refused);

    /* MM_METHOD_CAP_ATOMIC only (NULL otherwise); see DEVICE ATOMICS. */
    /* Make len bytes at base (a window's memory in this process) reachable by the device
     * atomics of peers and of this process: the handle goes to *mem, the key peers need
     * (at most MM_WIN_KEY_MAX bytes) to key, its length to *keylen. Returns 0 and sets
     * *mem = NULL when this process cannot (no device here, memory that cannot be pinned):
     * the window then keeps to CPU atomics. */
    int (*win_register) (void *base, size_t len, void **mem, void *key, size_t * keylen);
    void (*win_deregister) (void *mem);
    /* One aligned 8-byte atomic (enum mm_atomic_op) on the word at addr:
     *   vc != NULL: in the peer's memory, which the peer registered with key (keylen bytes,
     *     as it sent them); *result is written and car completed with mm_cq_complete()
     *     when the device is done, now or from progress(). A peer the device cannot reach
     *     fails the call (the VC's error).
     *   vc == NULL: in this process's memory, registered as mem (a win_register handle),
     *     through the device; done when the call returns, without running progress (the
     *     caller may be in the middle of delivering a packet). car is unused. */
    int (*atomic) (mm_vc_t * vc, int op, uint64_t addr, const void *key, size_t keylen,
                   void *mem, uint64_t operand, uint64_t compare, uint64_t * result,
                   mm_car_t * car);
    /* One RDMA transfer between len contiguous bytes at local (any memory of this process)
     * and the peer's memory at addr, registered with key by win_register: write != 0
     * copies local there, else there into local. car is completed with mm_cq_complete()
     * from progress() once the peer's memory holds the data (write) or local does (read);
     * never during the call. Transfers and atomics to one peer are started in call order.
     * *refused = 1 (and nothing started) when the method cannot: local memory it cannot
     * register, a length it does not take in one transfer. */
    int (*rdma) (mm_vc_t * vc, int write, void *local, size_t len, uint64_t addr,
                 const void *key, size_t keylen, mm_car_t * car, int *refused);
} mm_method_t;

/* Each method lives in its own folder, methods/NAME/, with its own build fragment
 * (Makefile.mk, included by the device's) and configure checks (subconfigure.m4, which
 * MPICH's autogen finds by itself and which decides whether the folder is built at all),
 * and defines `const mm_method_t mm_NAME_method`. The registry (methods/mm_methods.c) is
 * the one place that names them: adding a method is its folder, its line there and its
 * include line in the device's Makefile.mk. */

/* The methods enabled in this process (after init), in MPIR_CVAR_MM_METHODS order. */
extern const mm_method_t *mm_methods_active[];
extern int mm_methods_nactive;

int mm_methods_init(void);
int mm_methods_finalize(void);
int mm_methods_progress(int *made_progress);
/* Sleep until a method's descriptor is ready or timeout_ms passes; returns 0 at once,
 * without sleeping, when some active method must be polled instead. */
int mm_methods_block(int timeout_ms);
/* Pick and connect the method for vc (first in order whose can_reach accepts). */
int mm_methods_select(mm_vc_t * vc);
/* Bind an unbound vc to method; card may be NULL (see connect). */
int mm_methods_bind(mm_vc_t * vc, const mm_method_t * method, const char *card);
/* Write "/method/card" for each card-carrying active method of world process lpid (or of
 * this process) into buf; returns the length, or -1 when buf is too small. */
int mm_methods_cards(int lpid, char *buf, size_t len);

/* The first active method with MM_METHOD_CAP_ATOMIC, or NULL. */
const mm_method_t *mm_methods_atomic(void);

/* 64 random bits (engine and methods alike name processes with them). */
uint64_t mm_random64(void);

/* Engine entry for methods: a CAR is finished (see READS/WRITES above). */
int mm_cq_complete(mm_car_t * car);
/* Engine entry for methods that hold a whole message at once, the envelope and all of its
 * payload contiguous (len bytes at data; a fast box slot, a cell): the same as delivering
 * the envelope with mm_cq_complete(&vc->rhead) and filling the READ DATA CAR the engine
 * posts, but an eager message goes straight to its receive buffer. The method may reuse
 * pkt and data once it returns. Payload that does not match what the envelope announces
 * is an error (**mm|badpkt). */
int mm_cq_deliver(mm_vc_t * vc, const mm_pkt_t * pkt, const void *data, size_t len);
/* A WRITE chain is fully out: complete its HEAD CAR, then its DATA CAR if it has one (read
 * from head->next first, since completing head may free it). */
int mm_cq_complete_chain(mm_car_t * head);

/* FIFOs of CAR chains linked through qnext (a method's per-VC write queue), kept as a head
 * and a tail pointer. */
static inline void mm_car_fifo_push(mm_car_t ** head, mm_car_t ** tail, mm_car_t * car)
{
    car->qnext = NULL;
    if (*tail)
        (*tail)->qnext = car;
    else
        *head = car;
    *tail = car;
}

/* Unlink the first chain (the FIFO must not be empty) and return it. */
static inline mm_car_t *mm_car_fifo_pop(mm_car_t ** head, mm_car_t ** tail)
{
    mm_car_t *car = *head;

    *head = car->qnext;
    if (*head == NULL)
        *tail = NULL;
    car->qnext = NULL;
    return car;
}

/* For methods that move bytes with their own system calls (readv/writev): describe up to
 * max_iov entries of what remains under a cursor, and advance it by what was moved. */
int mm_buf_to_iov(const mm_buf_t * b, struct iovec *iov, int max_iov);
void mm_buf_advance(mm_buf_t * b, size_t n);

#endif /* MM_METHOD_H_INCLUDED */
