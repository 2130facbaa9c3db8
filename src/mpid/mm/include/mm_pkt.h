/*
 * mm wire format: the envelope every method carries in front of a message.
 *
 * Methods move opaque bytes; only the engine (src/mm_cq.c) interprets a packet. A packet is
 * one mm_pkt_t, followed for EAGER, EAGER_SYNC and DATA by exactly data_sz payload bytes.
 */
#ifndef MM_PKT_H_INCLUDED
#define MM_PKT_H_INCLUDED

#include <stdint.h>

/* Bump when the layout or meaning of any field changes; receivers reject other versions. */
#define MM_PKT_VERSION 1

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
    MM_PKT_KIND_LAST
} mm_pkt_kind_t;

/*
 * Version 1, 40 bytes, host byte order (the peers of one job share an architecture).
 *   version     MM_PKT_VERSION
 *   kind        mm_pkt_kind_t
 *   reserved    zero
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
    uint16_t reserved;          /* zero */
    uint32_t context_id;
    int32_t rank;
    int32_t tag;
    uint64_t data_sz;
    uint64_t sreq;
    uint64_t rreq;
} mm_pkt_t;

/* Whether data_sz payload bytes follow the envelope on the wire. Methods that frame the
 * stream themselves (tcp) ask this; the others carry the payload as the chain's DATA CAR. */
static inline int mm_pkt_has_payload(const mm_pkt_t * pkt)
{
    switch (pkt->kind) {
        case MM_PKT_EAGER:
        case MM_PKT_EAGER_SYNC:
        case MM_PKT_DATA:
        case MM_PKT_RMA_OP:
        case MM_PKT_RMA_RESP:
            return pkt->data_sz > 0;
        default:
            return 0;
    }
}

#endif /* MM_PKT_H_INCLUDED */
