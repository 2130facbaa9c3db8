/*
 * mm wire decoders: every check the engine makes of bytes that come from another process
 * before it acts on them — a packet envelope, a process description (gpid and method
 * cards), a port name, a connect request, the group descriptions two jobs swap.
 *
 * Why a separate file with no MPICH header: a decoder is a function from a byte buffer to
 * "valid, and here is what it says" or "invalid, and why". Kept free of MPICH, each one is
 * also callable from a fuzz target (test/fuzz, `maint/mm fuzz`) that throws random bytes at
 * it under AddressSanitizer; the device calls exactly the same functions. A decoder never
 * asserts, never allocates, and reads no byte outside the buffer it was given.
 *
 * Callers turn the reason (mm_wire_err_t) into their MPI error; rma/mm_rma_wire.h holds the
 * decoder of an RMA operation, methods/tcp/tcp_card.h the tcp card's.
 */
#ifndef MM_WIRE_H_INCLUDED
#define MM_WIRE_H_INCLUDED

#include <stddef.h>
#include <stdint.h>
#include "mm_pkt.h"

/* Why a decoder refused its bytes. */
typedef enum mm_wire_err {
    MM_WIRE_OK = 0,
    MM_WIRE_BAD,                /* malformed: version, kind, field bounds, lengths, syntax */
    MM_WIRE_TOOLARGE,           /* announces more data than this process accepts */
    MM_WIRE_TYPE,               /* a datatype that is not valid here, or does not match */
    MM_WIRE_COUNT,              /* a count or length whose arithmetic overflows */
    MM_WIRE_TRUNCATE,           /* lengths that do not fit the buffers they name */
    MM_WIRE_OP                  /* an unknown operation */
} mm_wire_err_t;

/* The largest message any peer may announce (2^47 bytes, 128 TiB): far above any real
 * message, and low enough that sums of a few sizes cannot wrap 64 bits. */
#define MM_MSG_MAX ((uint64_t) 1 << 47)

/* An envelope: version, kind, rendezvous data size, and the payload size each kind allows.
 * eager_limit_rx: the largest EAGER payload the peer may send (the receiver allocates that
 * much for an unexpected message). Engine kinds only; a method's own kinds (tcp's BYE) are
 * the method's business. Inline, as it runs on every message: where the caller knows the
 * kind (an eager message in hand) it reduces to three compares. */
static inline mm_wire_err_t mm_wire_envelope_check(const mm_pkt_t * pkt, uint64_t eager_limit_rx)
{
    if (pkt->version != MM_PKT_VERSION)
        return MM_WIRE_BAD;
    /* Rendezvous data only rides on an RTS, and the receiver reads it into a fixed place. */
    if (pkt->aux_sz != 0 && (pkt->kind != MM_PKT_RTS || pkt->aux_sz > MM_RNDV_DATA_MAX))
        return MM_WIRE_BAD;
    switch (pkt->kind) {
        case MM_PKT_EAGER:
        case MM_PKT_EAGER_SYNC:
            /* The receiver allocates this much for an unexpected message; MM_MSG_MAX holds
             * even against a configured limit beyond it. */
            return pkt->data_sz <= eager_limit_rx && pkt->data_sz <= MM_MSG_MAX ?
                MM_WIRE_OK : MM_WIRE_TOOLARGE;
        case MM_PKT_RTS:
        case MM_PKT_DATA:
        case MM_PKT_RMA_RESP:
            /* Taken only by a request this process posted, which checks the size against
             * its own; the bound keeps every sum of sizes from wrapping. */
            return pkt->data_sz <= MM_MSG_MAX ? MM_WIRE_OK : MM_WIRE_TOOLARGE;
        case MM_PKT_RMA_OP:
            /* rma/ bounds it by the window it names (mm_rma_wire.h). */
            return pkt->data_sz <= MM_MSG_MAX ? MM_WIRE_OK : MM_WIRE_TOOLARGE;
        case MM_PKT_SYNC_ACK:
        case MM_PKT_CTS:
        case MM_PKT_CANCEL_REQ:
        case MM_PKT_CANCEL_RESP:
        case MM_PKT_RMA_CTRL:
        case MM_PKT_FIN:
            return pkt->data_sz == 0 ? MM_WIRE_OK : MM_WIRE_BAD;
        default:
            return MM_WIRE_BAD;
    }
}

/* --- process descriptions: "GPID" or "GPID/method/card/method/card..." ---
 * GPID is exactly 16 hex digits. The string must end within len bytes (a NUL before len). */
#define MM_WIRE_GPID_DIGITS 16
mm_wire_err_t mm_wire_descr_parse(const char *descr, size_t len, uint64_t * gpid,
                                  const char **cards);

/* The card for method `name` in a "/method/card..." list, copied NUL-terminated into
 * card[len]; MM_WIRE_BAD if absent, empty or too long. */
mm_wire_err_t mm_wire_cards_find(const char *cards, const char *name, char *card, size_t len);

/* --- port names: PREFIX "TAG-SECRET:" DESCR, TAG a positive int, SECRET 16 hex digits
 * (64 random bits drawn when the port was opened, which a connect request must carry) --- */
#define MM_PORT_PREFIX "mmport:"
#define MM_PORT_SECRET_DIGITS 16
mm_wire_err_t mm_wire_port_parse(const char *name, size_t len, int *tag, uint64_t * secret,
                                 uint64_t * gpid, const char **cards);

/* --- the connect request a connector sends to an acceptor's port --- */
#define MM_PORT_MAGIC 0x6d6d706fu       /* "mmpo" */
#define MM_PORT_DESCR_MAX 1024
typedef struct mm_port_req {
    uint32_t magic;
    uint32_t ctx;               /* the connector's receive context id */
    uint64_t secret;            /* the port's secret, from its name */
    char descr[MM_PORT_DESCR_MAX];      /* the connector root's description */
} mm_port_req_t;

typedef struct mm_port_reply {
    uint32_t magic;
    uint32_t ctx;               /* the acceptor's receive context id */
    int32_t status;             /* MM_PORT_OK / MM_PORT_REFUSED */
} mm_port_reply_t;

/* REFUSED: the port closed before accepting; DENIED: the request lacked the port's secret */
enum { MM_PORT_OK = 0, MM_PORT_REFUSED = 1, MM_PORT_DENIED = 2 };

/* got: the bytes that arrived. On success the descr is parsed into gpid/cards (pointing
 * into req). */
mm_wire_err_t mm_wire_port_req_check(const mm_port_req_t * req, size_t got, uint64_t * gpid,
                                     const char **cards);
mm_wire_err_t mm_wire_port_reply_check(const mm_port_reply_t * reply, size_t got);

/* --- the group descriptions two leaders swap (mm_intercomm.c): n descriptions, each
 * NUL-terminated, back to back in blob[len]. Entry i from *pos; advances *pos. --- */
mm_wire_err_t mm_wire_group_next(const char *blob, size_t len, size_t *pos, uint64_t * gpid,
                                 const char **cards);

#endif /* MM_WIRE_H_INCLUDED */
