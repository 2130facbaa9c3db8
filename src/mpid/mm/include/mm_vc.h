/*
 * Virtual connections. One VC per peer process (indexed by lpid), shared by every
 * communicator that contains the peer. A VC is bound to exactly one method, chosen once,
 * the first time the engine needs it (mm_vc_select), by walking MPIR_CVAR_MM_METHODS.
 * Binding a peer to one method for its lifetime is what keeps MPI's non-overtaking order:
 * each method delivers a VC's packets in the order they were written.
 *
 * NAMES. An lpid is this process's name for a peer: 0..size-1 are the world ranks (as
 * MPICH requires), larger ones are processes of other jobs met through ports or spawn
 * (dynamic VCs), numbered in the order this process met them. lpids mean nothing to other
 * processes; what travels is the gpid, (job id << 32) | world rank, where the job id is
 * a random number rank 0 of each job draws at init. A process is described to another
 * job by its gpid and the business cards of its methods (mm_vc_describe), which is all a
 * dynamic VC needs to be reached.
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
    uint64_t gpid;              /* the peer's name in every process (see NAMES) */
    char *cards;                /* dynamic VCs: the peer's cards, "/method/card..." */
    int comm_refs;              /* dynamic VCs: communicator tables naming this VC */
    const struct mm_method *method;
    uint64_t send_seq;          /* messages sent on this VC (mm_pkt_t.rreq of EAGER/RTS) */
    size_t eager_limit;         /* the method's eager_limit, or what its connect() set */
    size_t eager_limit_rx;      /* the largest EAGER payload the peer may send us: the engine
                                 * refuses bigger ones (the receiver allocates that much) */
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

/* This process's gpid and its job's id. */
extern uint64_t mm_my_gpid;
#define MM_GPID_JOB(gpid) ((uint32_t) ((gpid) >> 32))
#define MM_GPID_RANK(gpid) ((int) ((gpid) & 0xffffffffu))

int mm_vc_init(void);
/* After the methods' PMI barrier: learn the job id, which completes every gpid. */
int mm_vc_init_names(void);
int mm_vc_close_all(void);
int mm_vc_finalize(void);
/* The VC of lpid, bound to its method (selected and connected on first use). */
int mm_vc_get(int lpid, mm_vc_t ** vc_out);
/* The VC of lpid as it is, bound or not (lpid must exist). The engine's send and receive
 * paths use src/mm_vc_table.h's inline form of it. */
mm_vc_t *mm_vc_at(int lpid);
/* The same for a process of another job (lpid >= MPIR_Process.size). */
mm_vc_t *mm_vc_dyn_at(int lpid);
/* Number of lpids in use: world ranks, then dynamic VCs. */
int mm_vc_count(void);
/* The lpid of the process gpid names, creating a dynamic VC for a process of another job
 * when create is set (cards may be NULL: a peer that connected to us, bound by its
 * method). Returns -1 when the process is unknown and create is 0. */
int mm_vc_lookup(uint64_t gpid, const char *cards, int create, int *lpid);
/* Append "<gpid>[/method/card...]" for lpid to buf (with_cards: its cards too); returns
 * the length written, or -1 when it does not fit. */
int mm_vc_describe(int lpid, int with_cards, char *buf, size_t len);
/* Communicator tables hold dynamic VCs; the last table gone closes the VC. */
void mm_vc_comm_ref(const int *lpids, int n);
int mm_vc_comm_unref(const int *lpids, int n);

#endif /* MM_VC_H_INCLUDED */
