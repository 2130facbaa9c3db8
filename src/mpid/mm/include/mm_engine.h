/*
 * The mm engine's internal interfaces, shared by the files of src/. Methods use only
 * mm_method.h; the subsystems above the engine (rma/, cancel, partitioned, dynamic
 * processes: mm_subsys.h) use only what is declared here, and register with it.
 */
#ifndef MM_ENGINE_H_INCLUDED
#define MM_ENGINE_H_INCLUDED

/* --- bringing the engine up and down (mm_init.c; MPID_Init and MPID_Finalize) --- */
/* PMI, requests ids, VCs, the methods and the names of the job's processes. */
int mm_engine_init(int requested, int *provided);
/* Every VC finishes its writes, the job waits for everyone, the methods go down. */
int mm_engine_finalize(void);

/* --- requests (mm_request.c) --- */

/* A request the engine will complete and the user will free: two references. */
MPIR_Request *mm_request_create(MPIR_Request_kind_t kind, MPIR_Comm * comm);
/* Add n outstanding units (CARs, awaited acks) to a request's completion counter. */
void mm_request_cc_add(MPIR_Request * req, int n);
/* One unit done; at zero the request completes (receives are unpacked first). */
int mm_request_cc_done(MPIR_Request * req);
/* Bytes the receive buffer of rreq can hold (count elements of its datatype). */
static inline size_t mm_request_capacity(MPIR_Request * rreq)
{
    MPI_Aint type_size;
    MPIR_Datatype_get_size_macro(rreq->dev.datatype, type_size);
    return (size_t) type_size *(size_t) rreq->dev.count;
}

/* Partitioned traffic matches in its own space, above MPICH's 16-bit context ids, so it
 * never meets an ordinary receive (MPI keeps the two apart). A context offset. */
#define MM_CTX_PART (1 << 16)

/* --- request ids peers may name (mm_reqid.c) --- */
int mm_reqid_init(void);
void mm_reqid_finalize(void);
uint64_t mm_reqid_register(MPIR_Request * req);
/* The request registered under id, or NULL: ids from the wire are untrusted. */
MPIR_Request *mm_reqid_lookup(uint64_t id);
/* The request a peer's packet names by id, checked to be waiting for this very packet
 * from this peer (of that kind, with every flag of need and none of forbid): a stray or
 * duplicated answer fails with **mm|badreqid or **mm|unwanted instead of acting on a
 * request of another kind or state. what names the packet in the message. */
int mm_reqid_lookup_named(struct mm_vc *vc, uint64_t id, MPIR_Request_kind_t kind,
                          unsigned need, unsigned forbid, const char *what,
                          MPIR_Request ** req_out);
void mm_reqid_release(uint64_t id);

/* --- posted and unexpected queues (mm_recvq.c) --- */
void mm_recvq_post(MPIR_Request * rreq);
MPIR_Request *mm_recvq_match_posted(int ctx, int rank, int tag);
MPIR_Request *mm_recvq_match_unexp(int ctx, int rank, int tag, int dequeue);
void mm_recvq_add_unexp(MPIR_Request * ureq);
int mm_recvq_remove_posted(MPIR_Request * rreq);
int mm_recvq_remove_unexp(MPIR_Request * ureq);
/* Dequeue the unexpected message number seq of vc, if it is still there. */
MPIR_Request *mm_recvq_take_unexp_seq(struct mm_vc *vc, uint64_t seq);

/* --- point-to-point protocols (mm_proto_send.c, mm_proto_recv.c) --- */
/* Post the CARs of a send whose request, VC and buffer view are ready. */
int mm_proto_send(MPIR_Request * sreq, int sync);
/* A posted receive rreq matched the arrived message ureq (from the unexpected queue or a
 * matched probe); ureq is consumed. */
int mm_proto_recv_matched(MPIR_Request * rreq, MPIR_Request * ureq);
/* Post a header-only control packet to vc. */
int mm_proto_send_ctrl(struct mm_vc *vc, mm_pkt_kind_t kind, uint64_t sreq_id, uint64_t rreq_id);
/* Their packets' handlers (the completion queue's table, mm_cq.c). */
int mm_proto_handle_eager(struct mm_vc *vc, const mm_pkt_t * pkt);     /* and EAGER_SYNC */
int mm_proto_handle_rts(struct mm_vc *vc, const mm_pkt_t * pkt);
int mm_proto_handle_cts(struct mm_vc *vc, const mm_pkt_t * pkt);
int mm_proto_handle_data(struct mm_vc *vc, const mm_pkt_t * pkt);
int mm_proto_handle_sync_ack(struct mm_vc *vc, const mm_pkt_t * pkt);
int mm_proto_handle_fin(struct mm_vc *vc, const mm_pkt_t * pkt);
/* A send that offered its payload to a get (MM_REQ_RGET) will not be read: release its
 * registration (a CTS came instead, or the message was cancelled). */
void mm_proto_send_unoffer(MPIR_Request * sreq);
/* An EAGER or EAGER_SYNC message whose whole payload (pkt->data_sz bytes at data) the
 * method holds (mm_cq_deliver): matched and copied, or queued as unexpected, at once. */
int mm_proto_eager_in_hand(struct mm_vc *vc, const mm_pkt_t * pkt, const void *data);
/* The payload of an unexpected message is in (its DATA CAR completed). */
int mm_proto_unexp_data_done(MPIR_Request * ureq);

/* --- what the subsystems above the engine register with it ---
 * The engine (src/: requests, matching, the pt2pt protocols, progress) names no subsystem
 * above it. Cancel, partitioned requests, rma/ and dynamic processes hook in at MPID_Init
 * (mm_device.c) through these, so a subsystem is added or changed without touching the
 * core, and the dependencies run one way: subsystems call the engine, never back. */

/* An envelope of a kind a subsystem owns arrived on vc. The envelope has passed the wire
 * checks every packet meets (mm_wire_envelope_check); the rest of it is the handler's to
 * validate. Its payload, if any, is for the handler to post a READ DATA CAR for (with its
 * own done callback), before it returns. */
typedef int (*mm_pkt_handler_fn) (struct mm_vc * vc, const mm_pkt_t * pkt);
/* Claim a packet kind at init; the engine's own kinds are taken. */
void mm_pkt_register(mm_pkt_kind_t kind, mm_pkt_handler_fn fn);

/* A communicator is being freed (MPID_Comm_free_hook): drop what is kept per
 * communicator. Up to MM_COMM_FREE_HOOKS of them, called in registration order. */
typedef void (*mm_comm_free_fn) (MPIR_Comm * comm);
#define MM_COMM_FREE_HOOKS 4
void mm_comm_register_free(mm_comm_free_fn fn);

/* Hand a CAR to its VC's method: what every subsystem posts with (a method's entry points
 * are the engine's business). */
static inline int mm_car_post(mm_car_t * car)
{
    return car->dir == MM_CAR_WRITE ? car->vc->method->post_write(car)
        : car->vc->method->post_read(car);
}

/* --- progress (mm_progress.c) --- */
/* Requests the engine has completed so far: a blocking wait returns when this moves, even
 * if the completion happened in another thread's progress call. */
extern unsigned long mm_completions;
void mm_progress_init(void);
int mm_progress_poll(int *made_progress);
/* Wait for req, a receive from vc's peer alone, by targeted polling (mm_method.h). */
int mm_progress_wait_from(mm_vc_t * vc, MPIR_Request * req);
/* A method lost a peer that had not said goodbye: its process died, or exited without
 * MPI_Finalize. The method reports the loss once, as the error of the call progressing
 * then; from then on every progress poll that moves nothing fails too (mm_progress.c). */
void mm_progress_peer_lost(int lpid);
/* The "previous" code of the first error a lost peer causes, where MPICH would put
 * MPI_SUCCESS: a bare class, so that MPICH's collectives cannot loop on the stack (see
 * mm_progress.c). Such errors are made with MPIR_Err_create_code(MM_ERR_LOST_ROOT, ...)
 * written out at each place, since MPICH's message extractor only sees messages passed
 * to its own error routines and macros. */
#define MM_ERR_LOST_ROOT MPI_ERR_OTHER
/* Give the core to another runnable process: what every wait loop of the device does
 * when it has nothing to poll. Not MPL_sched_yield (nor MPL_thread_yield): MPL's Linux
 * build defines them as nothing (MPL_USE_NOTHING_FOR_YIELD), and these jobs oversubscribe
 * their cores, so a loop that only called them kept the core the peer it waits for needs. */
void mm_yield_core(void);
/* A wait loop that polls something no method announces (a lock word in shared memory)
 * calls this between polls: under MPI_THREAD_MULTIPLE it also lets the process's other
 * threads into MPI. */
void mm_progress_relax(void);
/* One turn of such a wait: poll once, and relax when polls have moved nothing for as long
 * as a blocking wait spins. Fails once a peer is lost (mm_progress_peer_lost). */
int mm_progress_idle(MPID_Progress_state * state);

/* The error an ADI entry point that is not implemented yet returns: MPI_ERR_OTHER with a
 * message naming the function, never a silent success. */
static inline int mm_notimpl(const char *fn)
{
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, fn, __LINE__, MPI_ERR_OTHER,
                                "**notimpl", "**notimpl %s", fn);
}

/* --- dynamic processes (mm_intercomm.c, mm_dynproc.c) --- */
/* Port requests match in their own space, above MPICH's context ids (as MM_CTX_PART). */
#define MM_CTX_PORT (2 << 16)

/* What one group learns about the other when they are joined into an intercommunicator. */
typedef struct mm_group_info {
    int remote_size;
    int is_low_group;
    int blob_len;
    char *blob;                 /* the remote members' descriptions (mm_vc_describe) */
} mm_group_info_t;

/* Leaders: swap the groups over (peer_comm, peer_rank, tag); local_comm is our group. */
int mm_group_swap(MPIR_Comm * local_comm, MPIR_Comm * peer_comm, int peer_rank, int tag,
                  mm_group_info_t * info);
/* The leader (root) passes what it learnt to its group. */
int mm_group_bcast(MPIR_Comm * local_comm, int root, mm_group_info_t * info);
/* Our lpids for the remote members, making VCs for processes met for the first time. */
int mm_group_lpids(const mm_group_info_t * info, uint64_t ** lpids);

/* --- configuration: names of the communicators' peers --- */
/* Communicator hooks MPICH calls through MPIR_Comm_fns (mm_comm.c). */
extern MPIR_Commops mm_comm_ops;

/* Does comm (an intracomm) include processes of other jobs? Every member then sees one,
 * and node ids (-1 for them) say nothing about shared memory. */
int mm_comm_has_other_jobs(MPIR_Comm * comm);

static inline int mm_comm_lpid(MPIR_Comm * comm, int rank)
{
    return comm->dev.lpids[rank];
}

#endif /* MM_ENGINE_H_INCLUDED */
