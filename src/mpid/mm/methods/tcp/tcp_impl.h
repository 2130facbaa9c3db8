/*
 * tcp method internals, shared by the files of methods/tcp only.
 *
 * CARD. Each process listens on one socket; its card is
 *     "<token>:<port>:<addr>[,<addr>...]"      (no spaces: PMI-1 values end at one)
 * token: 64 random bits (hex) naming this process, so a connector that reached the wrong
 * process (a stale port, an address that means something else in another network
 * namespace) finds out in the handshake instead of talking to a stranger; port: the
 * listening port; addr: the IPv4 addresses of this host's usable interfaces
 * (MPIR_CVAR_MM_TCP_INTERFACES), tried in order.
 *
 * CONNECTION SETUP, lazily on a VC's first write:
 *     connector                          acceptor
 *     connect() (nonblocking) -------->  accept()
 *     HELLO {gpid, token wanted} ------>  checks token; tie-break
 *                                 <-----  ACK (this socket carries the VC) or NACK
 * The gpid names the connector in every job (mm_vc.h): a process of another job that
 * this one has not heard of yet (it connects through a port before our side has learnt
 * its cards) gets a VC bound to the connection it opened.
 * Tie-break: when both ends of a pair connect at once, the connection started by the
 * lower gpid wins; the higher one's is answered NACK. Both ends apply the same rule to the
 * same two sockets, so exactly one survives, and each end only writes on a VC once a
 * connection is settled. A connector that sees the socket close before any answer (token
 * mismatch) tries the card's next address.
 *
 * STREAM. On a settled connection each direction is the bytes of mm_pkt_t envelopes, each
 * followed by its payload, whose length the engine gives by the READ DATA CAR it posts
 * when the envelope is delivered (tcp never interprets the engine's kinds; the engine
 * validates every envelope). TCP_PKT_BYE, a method-private kind, says "I am finalizing
 * and will send nothing more": an end of stream after BYE is a clean close, an end of
 * stream without it means the peer died, and is reported as an error naming the peer. A
 * clean end of stream only closes the peer's direction: the connection stays the VC's
 * until this process has written its own queue and BYE on it too, since closing earlier
 * would look like death to the peer.
 *
 * READS go through a per-connection buffer (one recv() can bring many small messages);
 * a payload larger than the buffer's free space is read straight into its destination.
 * WRITES gather the queued envelopes and payloads of a VC into one sendmsg() and complete
 * CARs once the kernel has taken their bytes.
 */
#ifndef TCP_IMPL_H_INCLUDED
#define TCP_IMPL_H_INCLUDED

#include <stdint.h>
#include <netinet/in.h>
#include "tcp_card.h"

/* Method-private packet kind (mm_pkt.h: MM_PKT_METHOD_FIRST); never reaches the engine. */
extern const mm_method_t mm_tcp_method;

#define TCP_PKT_BYE MM_PKT_METHOD_FIRST

#define TCP_HELLO_MAGIC 0x6d6d7463u     /* "mmtc" */
#define TCP_WIRE_VERSION 2
#define TCP_RBUF_SIZE (64 * 1024)
#define TCP_MAX_IOV 64

enum tcp_hs_kind {
    TCP_HS_HELLO = 1,
    TCP_HS_ACK,                 /* this connection carries the VC from now on */
    TCP_HS_NACK                 /* lost the tie-break: close it, the other one wins */
};

/* Handshake message, both directions. */
typedef struct tcp_hello {
    uint32_t magic;
    uint16_t version;
    uint16_t kind;              /* enum tcp_hs_kind */
    uint64_t gpid;              /* sender's gpid */
    uint64_t token;             /* HELLO: the token of the process the connector wants */
} tcp_hello_t;

typedef enum tcp_conn_state {
    TCP_CONN_CONNECTING,        /* ours: nonblocking connect() in flight */
    TCP_CONN_HELLO_SENT,        /* ours: waiting for ACK/NACK */
    TCP_CONN_WAIT_HELLO,        /* accepted: waiting for the connector's HELLO */
    TCP_CONN_OPEN,              /* settled: carries the VC's packets */
    TCP_CONN_DEAD               /* closed; freed at the end of the progress pass */
} tcp_conn_state_t;

typedef struct tcp_conn {
    int fd;
    tcp_conn_state_t state;
    struct mm_vc *vc;           /* the peer, once known */
    int addr_idx;               /* ours: which address of the card is being tried */
    uint32_t events;            /* epoll events currently registered */
    tcp_hello_t hs;             /* handshake message being received */
    size_t hs_len;
    char *rbuf;                 /* OPEN: bytes received, not yet consumed */
    size_t rpos, rend;
    int got_bye;
    int got_eof;                /* the peer ended its direction after BYE: nothing more to read */
    int registered;             /* fd is in the epoll set */
    struct tcp_conn *next;      /* all connections of this process */
} tcp_conn_t;

/* Per-VC state, kept in vc->priv. */
typedef struct tcp_vc {
    tcp_conn_t *conn;           /* settled connection, or NULL */
    tcp_conn_t *attempt;        /* our connection while it is being set up */
    struct tcp_peer *peer;      /* parsed card */
    mm_car_t *wq_head;          /* chains waiting to be written, FIFO */
    mm_car_t *wq_tail;
    uint32_t hdr_off;           /* bytes of wq_head's envelope already written */
    uint8_t bye_state;          /* 0, 1: BYE to be written, 2: BYE written */
    uint8_t bye_off;            /* bytes of the BYE written */
    uint8_t writing;            /* tcp_write_progress is running (completions may post) */
    uint8_t failed;             /* the peer is gone: every further write fails */
} tcp_vc_t;


static inline tcp_vc_t *tcp_vc(mm_vc_t * vc)
{
    MPL_COMPILE_TIME_ASSERT(sizeof(tcp_vc_t) <= MM_VC_METHOD_PRIV_BYTES);
    return (tcp_vc_t *) vc->priv.bytes;
}

/* Process-wide state of the method. */
typedef struct tcp_state {
    int listen_fd;
    int epfd;
    uint64_t token;
    tcp_conn_t *conns;
    int nopen;                  /* connections that carry or may carry a VC */
    int ndead;                  /* connections waiting to be freed */
    unsigned idle_polls;        /* listener-only polls skipped */
    int finalizing;
} tcp_state_t;

extern tcp_state_t tcp_state;


/* tcp_conn.c: connection setup */
int tcp_conn_start(mm_vc_t * vc);
int tcp_conn_accept(void);
int tcp_conn_handshake(tcp_conn_t * conn, uint32_t events);
void tcp_conn_set_events(tcp_conn_t * conn, uint32_t events);
void tcp_conn_kill(tcp_conn_t * conn);
void tcp_conn_reap(void);

/* tcp_send.c: the write side */
int tcp_post_write(mm_car_t * head);
int tcp_write_progress(mm_vc_t * vc);

/* tcp_recv.c: the read side */
int tcp_post_read(mm_car_t * car);
int tcp_read_progress(tcp_conn_t * conn);

/* tcp_progress.c */
int tcp_progress(int *made_progress);
int tcp_wait_closed(void);

#endif /* TCP_IMPL_H_INCLUDED */
