/*
 * Virtual connections. One VC per peer process (indexed by lpid), shared by every
 * communicator that contains the peer. A VC is bound to exactly one method, chosen once,
 * the first time the engine needs it (mm_vc_select), by walking MPIR_CVAR_MM_METHODS.
 * Binding a peer to one method for its lifetime is what keeps MPI's non-overtaking order:
 * each method delivers a VC's packets in the order they were written.
 */
#ifndef MM_VC_H_INCLUDED
#define MM_VC_H_INCLUDED

#include <stdint.h>
#include "mm_car.h"

struct mm_method;

typedef enum mm_vc_state {
    MM_VC_STATE_UNBOUND = 0,    /* no method chosen yet */
    MM_VC_STATE_BOUND,          /* method chosen, method->connect() done */
    MM_VC_STATE_CLOSED
} mm_vc_state_t;

/* Room for a method's per-VC state; each method checks its struct fits at compile time. */
#define MM_VC_METHOD_PRIV_BYTES 64

typedef struct mm_vc {
    int lpid;                   /* process id; for world processes, the world rank */
    mm_vc_state_t state;
    const struct mm_method *method;
    uint64_t send_seq;          /* messages sent on this VC (mm_pkt_t.rreq of EAGER/RTS) */
    size_t eager_limit;         /* the method's eager_limit, or what its connect() set */
    int reported;               /* MPIR_CVAR_MM_REPORT_METHODS line printed */
    /* Read side: a method fills rhead with each envelope that arrives on this VC and
     * completes it; the engine then posts, in rdata, where that message's payload goes.
     * One message at a time per VC, because methods deliver a VC's bytes in order. */
    mm_car_t rhead;
    mm_car_t *rdata;
    union {
        void *align;
        unsigned char bytes[MM_VC_METHOD_PRIV_BYTES];
    } priv;
} mm_vc_t;

extern mm_vc_t *mm_vc_table;    /* indexed by lpid */
extern int mm_vc_table_size;

int mm_vc_init(void);
int mm_vc_close_all(void);
int mm_vc_finalize(void);
/* The VC of lpid, bound to its method (selected and connected on first use). */
int mm_vc_get(int lpid, mm_vc_t ** vc_out);

#endif /* MM_VC_H_INCLUDED */
