/*
 * mpidpre.h — what MPICH's generic layer needs from the mm device before its own types
 * exist: thread and scheduler bindings, the device fields of requests and communicators,
 * the progress state, and the prototypes of every out-of-line MPID_ entry point.
 * Included by mpiimpl.h before mpir_comm.h / mpir_request.h, so only forward-declared
 * MPIR types may be used here, and only through pointers.
 */
#ifndef MPIDPRE_H_INCLUDED
#define MPIDPRE_H_INCLUDED

#include <stdint.h>
#include "mpid_thread.h"
#include "mpid_sched.h"
#include "mm_car.h"

/* What a persistent request replays on MPI_Start (mm_persist.c). */
typedef enum mm_persist_op {
    MM_PERSIST_SEND,
    MM_PERSIST_SSEND,
    MM_PERSIST_RSEND,
    MM_PERSIST_BSEND,
    MM_PERSIST_RECV
} mm_persist_op_t;

/* Request flags (MPIDI_MM_request_t.flags) */
#define MM_REQ_SYNC        0x01 /* Ssend: complete only after the receiver matched */
#define MM_REQ_RNDV        0x02 /* rendezvous protocol (a send that went as RTS, or an
                                 * unexpected RTS) */
#define MM_REQ_UNEXPECTED  0x04 /* an arrived message nobody had posted a receive for */
#define MM_REQ_DATA_DONE   0x08 /* all payload of an unexpected message has arrived */
#define MM_REQ_NEED_UNPACK 0x10 /* payload lands in tmpbuf and is unpacked at completion */
#define MM_REQ_SYNC_ACKED  0x20 /* unexpected EAGER_SYNC whose ack was already sent */
#define MM_REQ_RGET        0x40 /* rendezvous by get: a send that offered its buffer on the
                                 * RTS (FIN or CTS to come), or a receive holding such an
                                 * offer in rndv */
#define MM_REQ_AWAIT_ACK   0x80 /* send: a SYNC_ACK or CTS is still to come */
#define MM_REQ_CANCEL_PENDING 0x100     /* send: a CANCEL_REQ is out, its answer to come */
#define MM_REQ_CANCELLED   0x200        /* unexpected message withdrawn by its sender while
                                         * its payload still arrives: drop it when it has */
#define MM_REQ_AWAIT_DATA  0x400        /* receive: its CTS is out, the DATA it asks for is
                                         * still to come */

typedef struct MPIDI_MM_request {
    /* Every field before head_car starts out zero: MPID_Request_create_hook (mm_request.c)
     * clears them one by one, so a field added here is added there too. */
    /* matching envelope: posted receives hold the pattern, unexpected ones what arrived */
    int match_ctx;
    int match_rank;
    int match_tag;
    unsigned flags;
    /* the user's buffer */
    void *buf;
    MPI_Aint count;
    MPI_Datatype datatype;
    MPI_Aint buf_offset;        /* RMA answer of one part of a split operation: where its
                                 * bytes start in buf, in packed order */
    /* the message */
    size_t data_sz;             /* payload bytes on the wire */
    void *tmpbuf;               /* packed or unexpected payload; freed at completion */
    struct mm_vc *vc;           /* peer the message came from / goes to */
    uint64_t id;                /* our mm_reqid while a peer may name this request */
    uint64_t peer_id;           /* the peer's request id (rendezvous / sync ack) */
    uint64_t msg_seq;           /* the message's number on its VC (names it for cancel) */
    struct MPIR_Request *partner;       /* unexpected message <-> the receive that matched it */
    /* Called as the engine completes the request, before it drops its reference: the way a
     * subsystem above the engine (partitioned requests) learns that a request it started
     * has finished. NULL for most requests. */
    void (*on_complete) (struct MPIR_Request * req);
    void *cb_arg;               /* on_complete's own data (an xfer chunk) */
    struct mm_xfer_graph *xfer; /* a graph xfer block (kind COLL): its ops (mm_xfer.h) */
    struct MPIR_Request *qnext; /* posted / unexpected queue link */
    /* persistent requests: what MPI_Start replays */
    mm_persist_op_t persist_op;
    int persist_rank;
    int persist_tag;
    int persist_ctx_offset;
    mm_car_t head_car;
    mm_car_t data_car;
    /* RGET (MM_REQ_RGET): the method's rendezvous data describing the sender's buffer
     * (not cleared at creation: read only under the flag) */
    uint16_t rndv_len;
    unsigned char rndv[MM_RNDV_DATA_MAX];
} MPIDI_MM_request_t;

#define MPID_DEV_REQUEST_DECL MPIDI_MM_request_t dev;

typedef struct MPIDI_MM_comm {
    int *lpids;                 /* remote group (the group, for intracomms): rank -> lpid */
    int *local_lpids;           /* intercomms only: local group rank -> lpid */
    int vc_refs;                /* the tables hold references on dynamic VCs */
    struct mm_coll_comm *coll;  /* coll/'s state for it (coll/mm_coll.h); NULL until a
                                 * collective needs some, reset by coll/'s free hook */
} MPIDI_MM_comm_t;

#define MPID_DEV_COMM_DECL MPIDI_MM_comm_t dev;

/* The device part of a window (rma/). Epoch states and the per-peer records are rma/'s
 * own business (rma/mm_rma.h); MPICH sees only this block. */
struct mm_win_peer;
struct mm_lock_waiter;
struct mm_win_region;
struct mm_win_nic;

typedef struct MPIDI_MM_win {
    uint32_t key;               /* context id of win->comm_ptr: names the window on the wire */
    struct MPIR_Win *next;      /* registry of this process's windows (rma/mm_win.c) */
    struct mm_win_peer *peers;  /* one per rank of the window's group */
    int access;                 /* access epoch, MM_ACCESS_* */
    int exposure;               /* exposure epoch, MM_EXPOSE_* */
    int pending;                /* operations issued and not yet answered, all targets */
    int nlocks;                 /* targets locked (or being locked) by this origin */
    int lock_all_nocheck;       /* the lock_all epoch was opened with MPI_MODE_NOCHECK */
    int error;                  /* first error a target reported, for the next sync call */
    /* target side: the lock every origin takes, and the queue of those waiting for it */
    int lock_shared;            /* holders of the shared lock */
    int lock_excl;              /* 1 while an origin holds it exclusively */
    struct mm_lock_waiter *lockq_head, *lockq_tail;
    /* post/start/complete/wait */
    int *start_ranks;           /* access group of the current start, as window ranks */
    int start_n;
    int post_n;                 /* origins of the current post */
    int completes;              /* COMPLETE messages received and not yet waited for */
    /* memory */
    void *alloc_base;           /* what MPI_Win_allocate malloc'ed, freed with the window */
    void *shm_seg;              /* MPI_Win_allocate_shared: the node segment */
    size_t shm_len;
    struct mm_win_region *regions;      /* dynamic windows: attached memory */
    volatile int *acc_lock;     /* the accumulate stripes (rma/mm_rma.h); in private
                                 * memory the one stripe acc_lock_local */
    int acc_lock_local[4];      /* the shape of an mm_acc_stripe_t: only its lock is used */
    void *acc_slots;            /* shared segment: the members' reader counters; else NULL */
    int acc_nslots;
    int acc_myslot;
    int acc_asym;               /* readers announce with plain stores, writers membarrier */
    int acc_unfenced;           /* plain stores into mapped memory since the last fence */
    struct mm_win_nic *nic;     /* the device updates the 8-byte integer words
                                 * (rma/mm_rma_nic.c); NULL: the CPUs do */
    int info_nic_atomics;       /* info mm_nic_atomics: 1, 0, or -1 (MPIR_CVAR_MM_NIC_ATOMICS) */
    /* info hints */
    int info_no_locks;
    int info_acc_ordering;      /* MM_ACC_ORDER_* bits */
    int info_acc_ops_same_op;   /* accumulate_ops = same_op (else same_op_no_op) */
    int info_same_size;
    int info_same_disp_unit;
    int info_alloc_shared_noncontig;
} MPIDI_MM_win_t;

#define MPID_DEV_WIN_DECL MPIDI_MM_win_t dev;

/* Carried by MPIR across consecutive MPID_Progress_wait calls of one wait loop, so the
 * engine knows how long it has already spun before it starts yielding the core. */
typedef struct {
    unsigned spins;
    unsigned long completions;  /* mm_completions when the wait started */
} MPID_Progress_state;

#include "mpid_proto.h"

#endif /* MPIDPRE_H_INCLUDED */
