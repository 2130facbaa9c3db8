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
 *
 * READS. When an envelope arrives from a VC the method copies it into vc->rhead.pkt and
 * calls mm_cq_complete(&vc->rhead). If the packet carries payload (pkt.data_sz > 0 for
 * EAGER, EAGER_SYNC and DATA) the engine, before mm_cq_complete returns, hands the method a
 * READ DATA CAR of exactly data_sz bytes with post_read(); the method fills it in order and
 * completes it. Only then does the next envelope of that VC get delivered.
 *
 * EAGER AND RENDEZVOUS. The engine, not the method, chooses the protocol: messages up to
 * eager_limit go as EAGER (payload follows the envelope and lands in an unexpected buffer
 * if no receive is posted); larger ones go as RTS/CTS/DATA, so payload only moves once the
 * receiver has a place for it. A method that can move bytes without staging (CMA, RDMA)
 * says so in caps and later gets single-copy hooks; the contract above stays the fallback.
 *
 * PROGRESS. progress() advances pending writes and delivers arrivals; it sets *made_progress
 * when anything moved. It is called with the global critical section held and must not
 * block: blocking (when the engine decides to) happens in the engine's wait logic.
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

/* Capability bits */
#define MM_METHOD_CAP_SINGLE_COPY 0x1   /* can move large payloads without a staging copy */
#define MM_METHOD_CAP_ATOMICS     0x2   /* can apply remote atomics itself */
#define MM_METHOD_CAP_CARD        0x4   /* peers need our business card (published through
                                         * PMI at init) to reach us */

#define MM_METHOD_CARD_MAX 256  /* bytes of one method's business card, NUL included */

typedef struct mm_method {
    const char *name;

    /* Capabilities and performance model; the engine reads these, never the method's code. */
    size_t eager_limit;         /* largest payload sent eagerly, bytes (connect() may set
                                 * vc->eager_limit to a per-peer value instead) */
    int max_iov;                /* most iovec entries one DATA CAR may carry */
    unsigned caps;              /* MM_METHOD_CAP_* */
    unsigned latency_ns;        /* hint: small-message one-way latency */
    unsigned bandwidth_mbs;     /* hint: large-message bandwidth */

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
    /* Where the payload of the envelope just delivered on car->vc goes (see READS). */
    int (*post_read) (mm_car_t * car);
    int (*progress) (int *made_progress);
    /* See BLOCKING; NULL: this method must be polled. */
    int (*wait_fd) (void);
    /* Drain and release the VC; pending writes are finished first. */
    int (*close) (mm_vc_t * vc);
} mm_method_t;

/* Registered methods, in methods/mm_methods.c */
extern const mm_method_t mm_self_method;
extern const mm_method_t mm_shm_method;
extern const mm_method_t mm_tcp_method;

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

/* 64 random bits (engine and methods alike name processes with them). */
uint64_t mm_random64(void);

/* Engine entry for methods: a CAR is finished (see READS/WRITES above). */
int mm_cq_complete(mm_car_t * car);
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
