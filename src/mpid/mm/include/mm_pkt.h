/*
 * mm wire format: the envelope every method carries in front of a message.
 *
 * Methods move opaque bytes; only the engine (src/mm_cq.c) interprets a packet. A packet is
 * one mm_pkt_t, followed by the payload the engine names when it is delivered (the READ
 * DATA CAR it posts, mm_method.h): data_sz bytes for EAGER, EAGER_SYNC and DATA, aux_sz
 * bytes of rendezvous data for an RTS that offers its payload to a get.
 */
#ifndef MM_PKT_H_INCLUDED
#define MM_PKT_H_INCLUDED

#include <stdint.h>

/* Bump when the layout or meaning of any field changes; receivers reject other versions. */
#define MM_PKT_VERSION 2

typedef enum mm_pkt_kind {
    MM_PKT_EAGER = 1,           /* envelope + whole payload */
    MM_PKT_EAGER_SYNC,          /* as EAGER, and the receiver answers SYNC_ACK on match (Ssend) */
    MM_PKT_SYNC_ACK,            /* receiver -> sender: the EAGER_SYNC message was matched */
    MM_PKT_RTS,                 /* rendezvous request to send: envelope, no payload */
    MM_PKT_CTS,                 /* rendezvous clear to send: receiver matched, names its request */
    MM_PKT_DATA,                /* rendezvous payload for the receive named in rreq */
    MM_PKT_CANCEL_REQ,          /* sender -> receiver: withdraw message number rreq if unmatched */
    MM_PKT_CANCEL_RESP,         /* receiver -> sender: rreq = 1 withdrawn, 0 already matched */
    MM_PKT_RMA_OP,              /* origin -> target: one RMA operation (rma/mm_rma.h) */
    MM_PKT_RMA_RESP,            /* target -> origin: the operation is done; its result */
    MM_PKT_RMA_CTRL,            /* window synchronization: lock, unlock, post, complete */
    MM_PKT_FIN,                 /* receiver -> sender: the payload an RTS offered has been read
                                 * with the method's get(); the send is done (names sreq) */
    MM_PKT_KIND_LAST
} mm_pkt_kind_t;

/* Kinds from here up belong to methods: a method may frame control packets of its own
 * (tcp's goodbye) with this envelope, and never delivers them to the engine. */
#define MM_PKT_METHOD_FIRST 0xf0

/* Most bytes of rendezvous data an RTS may carry: a method's description of the sender's
 * memory for get() (an address, a length and a key or a process id). */
#define MM_RNDV_DATA_MAX 48

/*
 * Version 2, 40 bytes, host byte order (the peers of one job share an architecture).
 *   version     MM_PKT_VERSION
 *   kind        mm_pkt_kind_t
 *   aux_sz      RTS: bytes of rendezvous data that follow the envelope (at most
 *               MM_RNDV_DATA_MAX; 0: no get offered, the receiver answers CTS); else zero
 *   context_id  context id the receiver matches on (sender's comm->context_id + offset)
 *   rank        sender's rank in the communicator's group it sent from
 *   tag         MPI tag (may carry MPICH's error bits for collectives)
 *   data_sz     total payload bytes of the message (EAGER/RTS/DATA); 0 for acks
 *   sreq        sender's request id (mm_reqid): echoed in CTS, SYNC_ACK and CANCEL_RESP
 *   rreq        receiver's request id: set in CTS, echoed in DATA. In EAGER, EAGER_SYNC and
 *               RTS: the message's number on its VC (1, 2, ...), by which CANCEL_REQ names
 *               it; in CANCEL_RESP: the answer
 * Request ids are looked up in a table (mm_reqid.c) and validated; they are never pointers.
 * The RMA kinds use the same fields for windows: context_id names the window (its
 * communicator's context id), rank is the sender's rank in it, tag a subkind or status;
 * rma/mm_rma.h has the rest.
 */
typedef struct mm_pkt {
    uint8_t version;
    uint8_t kind;
    uint16_t aux_sz;            /* RTS: rendezvous data bytes; else zero */
    uint32_t context_id;
    int32_t rank;
    int32_t tag;
    uint64_t data_sz;
    uint64_t sreq;
    uint64_t rreq;
} mm_pkt_t;

#endif /* MM_PKT_H_INCLUDED */
