/*
 * ib method internals, shared by the files of methods/ib only.
 *
 * The ib method speaks RDMA verbs (rdma-core's libibverbs) over reliable connections (RC
 * queue pairs), set up with the RDMA connection manager (librdmacm), so it runs on
 * InfiniBand (through IPoIB addresses), RoCE and iWARP devices alike, and on the kernel's
 * soft-RoCE (rdma_rxe) that maint/ib-vm boots.
 *
 * CARD. "<token>:<port>:<addr>": token, 64 random bits (hex) naming this process; port,
 * the RDMA-CM listener's port; addr, the IPv4 address of the netdev that carries our RDMA
 * device (MPIR_CVAR_MM_IB_INTERFACE, or the first address that maps to one). No device, no
 * address: an empty card, and ib reaches nobody (silently: a build with ib runs anywhere).
 *
 * CONNECTION SETUP, lazily on a VC's first write, through RDMA-CM (ib_conn.c):
 *     connector                                acceptor
 *     resolve addr, route; create QP
 *     connect, private data {gpid, token} --> CONNECT_REQUEST: check the token; tie-break;
 *                                              create QP; accept (or reject)
 *     ESTABLISHED                              ESTABLISHED
 * Tie-break, as tcp's: when both ends of a pair connect at once, the connection the lower
 * gpid started wins. An acceptor that holds an attempt of its own and accepts the peer's
 * drops its attempt at once (the peer might never run the progress that rejects it).
 *
 * BUFFERS AND RECORDS (ib_send.c, ib_recv.c). Every process posts
 * MPIR_CVAR_MM_IB_RECV_BUFFERS receive buffers of IB_BUF_SIZE bytes to one shared receive
 * queue (SRQ) that all its QPs draw from, and reposts each one as soon as its bytes are
 * handed on. A VC's writes are copied into registered send buffers of the same size and
 * sent with SEND_WITH_IMM; what a buffer holds is a sequence of records:
 *     IB_REC_MSG    [ib_rec][mm_pkt_t][len payload bytes]   a whole message (several of
 *                   them share a buffer when the queue holds several: a burst costs one send)
 *     IB_REC_FIRST  [ib_rec][mm_pkt_t][len payload bytes]   the start of a message whose
 *                   payload does not fit; the VC's next buffers hold nothing but the rest
 *                   of that payload, whose length the receiver knows from the READ DATA CAR
 *                   the engine posted (ib never interprets the engine's kinds)
 *     IB_REC_BYE    [ib_rec]    this process will send nothing more on the connection
 * A whole message goes to the engine with mm_cq_deliver, so an eager message is matched
 * and copied into its receive buffer straight from the receive buffer.
 *
 * CREDITS. A sender may have MPIR_CVAR_MM_IB_CREDITS buffers in flight to a peer; each one
 * the receiver hands on earns a credit back, carried in the immediate data of the
 * receiver's next send to it, or alone (a zero-byte send, which needs no credit) once half
 * the window is owed and nothing else is going that way. The SRQ is shared, so credits
 * bound what one peer can pour in; the QPs' infinite RNR retry is what makes an
 * overcommitted SRQ (many peers bursting at once) slow instead of fatal.
 *
 * RENDEZVOUS (ib_rdma.c). MM_METHOD_CAP_GET: the sender registers its buffer for remote
 * read (mem_register) and the RTS carries {address, length, rkey}; the receiver registers
 * the destination and reads it with RDMA READs, straight from the sender's memory into
 * the receive buffer, without the sender's CPU. A receive buffer of many pieces (a
 * datatype), or memory that cannot be registered, makes get() refuse, and the payload
 * comes through the send buffers after a CTS: those are the pinned bounce buffers.
 *
 * CLOSE AND FAILURE. close() writes the VC's queue, then BYE, and waits until BYE's send
 * has completed (the peer's device holds it). A connection is destroyed only once BYE
 * went both ways (finalize waits for the peers', at most MPIR_CVAR_MM_IB_CLOSE_TIMEOUT
 * seconds), since destroying a QP fails whatever the peer still sends to it. A completion
 * in error, or a disconnect, before the peer's BYE means the peer died (or its port went
 * down): the VC fails and the error, MPIX_ERR_PROC_FAILED, names the peer.
 */
#ifndef IB_IMPL_H_INCLUDED
#define IB_IMPL_H_INCLUDED

#include <stdint.h>
#include <netinet/in.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include "ib_card.h"

extern const mm_method_t mm_ib_method;

/* One send or receive buffer: the largest eager message of the default limit, whole, with
 * its record header and envelope. */
#define IB_BUF_SIZE (8192 + 64)
#define IB_SEND_BUFS 256        /* registered send buffers of the process */
#define IB_CQ_POLL 16           /* completions taken per ibv_poll_cq */
#define IB_MAX_READS 16         /* RDMA READs one connection keeps in flight */
#define IB_READ_CHUNK (1 << 20) /* bytes of one RDMA READ */
#define IB_RDMA_MAX (1 << 30)   /* largest window RDMA WRITE/READ (rdma): one work request */
#define IB_GET_MAX_IOV 8        /* receive buffers of more pieces make get() refuse */
#define IB_MIN_FIRST 512        /* a FIRST record starts a buffer's tail only with this
                                 * many payload bytes of room, else a new buffer */

#define IB_CM_MAGIC 0x6d6d6962u /* "mmib" */
#define IB_CM_VERSION 1

/* Private data of a connect request and of its accept. */
typedef struct ib_cm_data {
    uint32_t magic;
    uint16_t version;
    uint16_t pad;
    uint64_t gpid;              /* the sender's gpid */
    uint64_t token;             /* request: the token of the process the connector wants */
} ib_cm_data_t;

enum ib_rec_kind {
    IB_REC_MSG = 1,
    IB_REC_FIRST,
    IB_REC_BYE
};

typedef struct ib_rec {
    uint32_t len;               /* payload bytes of this record in this buffer */
    uint16_t kind;              /* enum ib_rec_kind */
    uint16_t pad;
} ib_rec_t;

#define IB_REC_HDR (sizeof(ib_rec_t) + sizeof(mm_pkt_t))
#define IB_REC_ALIGN 8          /* records start 8-byte aligned: payloads are copied fast */

/* Tags in the low bits of a send-side work request id (the rest is a pointer). */
#define IB_WR_SEND   1          /* an ib_sbuf_t */
#define IB_WR_CREDIT 2          /* an ib_conn_t: a credit-only send */
#define IB_WR_READ   3          /* an ib_read_t: one RDMA READ of a get */
#define IB_WR_ATOMIC 4          /* an ib_atom_t: a device atomic or window RDMA (ib_atomic.c) */
#define IB_WR_TAGS   7

typedef enum ib_conn_state {
    IB_CONN_RESOLVING,          /* ours: address and route being resolved */
    IB_CONN_CONNECTING,         /* ours: connect request sent */
    IB_CONN_ACCEPTING,          /* theirs: accepted, not yet established */
    IB_CONN_OPEN,               /* carries the VC's records */
    IB_CONN_DEAD                /* failed or finished: destroyed once its sends are in */
} ib_conn_state_t;

struct ib_sbuf;
struct ib_read;
struct ib_atom;

typedef struct ib_conn {
    struct rdma_cm_id *id;
    struct ibv_qp *qp;          /* NULL until created */
    uint32_t qpn;
    ib_conn_state_t state;
    struct mm_vc *vc;
    int credits;                /* buffers we may still send the peer */
    int owed;                   /* buffers of the peer handed on, not yet credited back */
    int sq_used;                /* our work requests in the send queue */
    int nreads;                 /* RDMA READs among them */
    struct ib_sbuf *cur;        /* send buffer being filled */
    struct ib_read *rq_head;    /* gets waiting for send queue room */
    struct ib_read *rq_tail;
    struct ib_atom *aq_head;    /* device atomics waiting for the read/atomic window */
    struct ib_atom *aq_tail;
    uint8_t got_bye;            /* the peer sends nothing more */
    uint8_t bye_acked;          /* our BYE's send completed */
    uint8_t peer_gone;          /* RDMA-CM says the peer disconnected */
    uint8_t failed;
    uint8_t bye_posted;         /* nothing may follow our BYE, credits included */
    uint8_t blocked;            /* writes wait for credits, send queue room or a buffer */
    struct ib_conn *next;       /* all connections of this process */
} ib_conn_t;

/* A registered send buffer. */
typedef struct ib_sbuf {
    struct ib_sbuf *next;       /* free list */
    ib_conn_t *conn;            /* while posted */
    char *data;
    uint32_t len;
    uint8_t has_bye;
} ib_sbuf_t;

/* A get(): the RDMA READs that fill one READ DATA CAR. */
typedef struct ib_read {
    struct ib_read *next;
    ib_conn_t *conn;
    mm_car_t *car;
    uint64_t raddr;             /* next remote byte */
    uint32_t rkey;
    int nmr;
    struct ibv_mr *mr[IB_GET_MAX_IOV];
    int iov_i;                  /* next local piece (index into car->buf.iov), and offset */
    size_t iov_off;
    size_t left;                /* bytes not yet asked for */
    int inflight;               /* READs posted, not yet completed */
    int failed;
} ib_read_t;

/* Per-VC state, kept in vc->priv. */
typedef struct ib_vc {
    ib_conn_t *conn;            /* the connection (OPEN, or accepted and not yet open) */
    ib_conn_t *attempt;         /* ours while it is being set up */
    ib_peer_t *peer;            /* parsed card */
    mm_car_t *wq_head;          /* chains waiting to be written, FIFO */
    mm_car_t *wq_tail;
    struct ib_atom *aq;         /* device atomics waiting for the connection */
    uint8_t started;            /* wq_head's FIRST record is out: the rest is payload */
    uint8_t bye_state;          /* 0, 1: BYE to be written, 2: BYE written */
    uint8_t writing;            /* ib_write_progress is running (completions may post) */
    uint8_t failed;             /* the peer is gone: every further write fails */
} ib_vc_t;

static inline ib_vc_t *ib_vc(mm_vc_t * vc)
{
    MPL_COMPILE_TIME_ASSERT(sizeof(ib_vc_t) <= MM_VC_METHOD_PRIV_BYTES);
    return (ib_vc_t *) vc->priv.bytes;
}

/* Work requests of one QP's send queue: a window of buffers, the READs of gets, and a few
 * credit-only sends. */
static inline int ib_sq_depth(void)
{
    return MPL_MAX(MPIR_CVAR_MM_IB_CREDITS, 1) + IB_MAX_READS + 4;
}

/* Process-wide state of the method. */
typedef struct ib_state {
    int up;                     /* a device is open and the listener runs */
    uint64_t token;
    struct rdma_event_channel *ch;
    struct rdma_cm_id *listen_id;
    struct ibv_context *ctx;
    struct ibv_pd *pd;
    struct ibv_cq *cq;
    int cq_size;
    struct ibv_srq *srq;
    int nrecv;                  /* receive buffers */
    char *rslab;
    struct ibv_mr *rmr;
    char *sslab;
    struct ibv_mr *smr;
    ib_sbuf_t sbufs[IB_SEND_BUFS];
    ib_sbuf_t *sfree;           /* free send buffers */
    uint32_t max_inline;
    int rd_atom;                /* RDMA READs a QP may have outstanding, both ways */
    uint32_t max_msg;           /* largest message of the port */
    ib_conn_t *conns;
    int nconns;                 /* not DEAD */
    int npending;               /* being set up: RDMA-CM is polled on every pass */
    int nblocked;               /* connections whose writes wait for resources */
    unsigned cm_polls;
    /* qpn -> connection, open addressing (receives of the SRQ name only their QP) */
    ib_conn_t **qtab;
    uint32_t qtab_size;
    int finalizing;
} ib_state_t;

extern ib_state_t ib_state;

/* ib_init.c */
int ib_cq_reserve(int more);

/* ib_conn.c: connection setup, RDMA-CM events, the qpn table */
int ib_conn_start(mm_vc_t * vc);
int ib_cm_progress(int *made_progress);
ib_conn_t *ib_conn_by_qpn(uint32_t qpn);
int ib_conn_fail(ib_conn_t * conn, const char *why);
void ib_conn_reap(void);
void ib_conn_destroy_all(void);

/* ib_send.c: the write side */
int ib_post_write(mm_car_t * head);
int ib_send_inline(mm_vc_t * vc, const mm_pkt_t * pkt, const void *data, size_t len);
int ib_write_progress(mm_vc_t * vc);
int ib_conn_pump(ib_conn_t * conn);
int ib_send_done(ib_sbuf_t * sb);

/* ib_recv.c: the read side */
int ib_post_read(mm_car_t * car);
int ib_recv_done(ib_conn_t * conn, uint32_t buf_idx, uint32_t byte_len, uint32_t credits);
int ib_srq_post(uint32_t buf_idx);

/* ib_rdma.c: registration and get */
int ib_mem_register(mm_vc_t * vc, mm_buf_t * buf, void *rndv, size_t * len);
void ib_mem_deregister(mm_vc_t * vc, mm_buf_t * buf);
int ib_get(mm_car_t * car, const void *rndv, size_t len, int *refused);
int ib_read_pump(ib_conn_t * conn);
int ib_read_done(ib_read_t * rd, int ok);
void ib_read_abort(ib_conn_t * conn);

/* ib_atomic.c: device atomics */
int ib_win_register(void *base, size_t len, void **mem, void *key, size_t * keylen);
void ib_win_deregister(void *mem);
int ib_atomic(mm_vc_t * vc, int op, uint64_t addr, const void *key, size_t keylen, void *mem,
              uint64_t operand, uint64_t compare, uint64_t * result, mm_car_t * car);
int ib_rdma(mm_vc_t * vc, int write, void *local, size_t len, uint64_t addr, const void *key,
            size_t keylen, mm_car_t * car, int *refused);
int ib_atomic_pump(ib_conn_t * conn);
int ib_atomic_vc_open(mm_vc_t * vc, ib_conn_t * conn);
int ib_atomic_done(void *at, int ok, ib_conn_t ** conn);
void ib_atomic_abort(ib_conn_t * conn);
void ib_atomic_finalize(void);

/* ib_progress.c */
int ib_progress(int *made_progress);
int ib_poll_cq(int *made_progress);
int ib_wait_closed(void);

#endif /* IB_IMPL_H_INCLUDED */
