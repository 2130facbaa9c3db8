/*
 * coll/: what the device's collective algorithms share. Engine-facing helpers for the
 * algorithms that move data by single-copy reads (the methods' get(), mm_method.h):
 * a read of a peer's registered memory into local memory, counted in a pending total
 * that the caller waits on with the progress engine.
 *
 * Private to coll/; the device's entry points are declared in include/mpid_coll.h.
 */
#ifndef MM_COLL_H_INCLUDED
#define MM_COLL_H_INCLUDED

/* One read in flight. Its CAR is the method's to drive; pending is the caller's counter,
 * decremented when the read completes. */
typedef struct mm_coll_read {
    mm_car_t car;
    int *pending;
} mm_coll_read_t;

/* Start reading len bytes from vc's peer, described by the rendezvous data rndv its
 * mem_register produced, into dst. *refused: the method cannot read that peer's memory
 * (nothing started, pending unchanged); otherwise *pending counts the read until it
 * completes, now or from progress. */
int mm_coll_read_start(mm_coll_read_t * rd, mm_vc_t * vc, int *pending, const void *rndv,
                       size_t rndv_len, void *dst, size_t len, int *refused);

/* Drive progress until *pending is zero. */
int mm_coll_read_wait(int *pending);

/* Do all ranks of comm (an intracommunicator) share this process's node? The same answer
 * in every process of comm: it comes from the job's node map. A process spawned or
 * connected later has no entry in it and counts as elsewhere. */
int mm_coll_one_node(MPIR_Comm * comm);

/*
 * THE NODE SEGMENT of a communicator whose processes share one node: shared memory all of
 * them map, made the first time a collective asks for it (a collective step itself: every
 * process asks at the same point) and unmapped when the communicator is freed. It is a
 * ring of MM_SEG_SLOTS slots of MM_SEG_CHUNK bytes, each with two words on lines of their
 * own:
 *   full   the number + 1 of the chunk its writer last put there (stored with release);
 *   reads  how many readers have finished with the slot, over all its uses (fetch-add,
 *          release).
 * Chunks are numbered per communicator: every process advances next_chunk by the same
 * amount for each collective that used the ring, so chunk g lives in slot g % SLOTS, as
 * that slot's use g / SLOTS. A writer may fill use k of a slot once reads has reached
 * k * readers (everybody done with use k - 1); a reader takes use k once full == g + 1.
 * Nothing else orders them, so a writer never waits for a process that is not reading.
 */
#define MM_SEG_SLOTS 16
#define MM_SEG_CHUNK (64 * 1024)

/*
 * After the ring, the segment holds an area for collectives in which every process both
 * writes and reads (allreduce): one step word per process, on a line of its own, which
 * only that process stores to (release) and the others load (acquire); and two sets of p
 * regions of `region` bytes, MM_SEG_AREA bytes in all. A collective numbers its rounds
 * (next_round, the same everywhere); round G uses set G % 2, and a process announces
 * that it has passed stage s of round G by storing 2G + s in its step word. Set G % 2 is
 * free again for round G + 2 once every process has passed stage 1 of round G + 1, which
 * each does only after its last read of round G (the rest of the rules are in the
 * algorithm that uses them, coll/mm_allreduce.c).
 */
#define MM_SEG_AREA (4 * 1024 * 1024)

typedef struct mm_seg_step {
    _Atomic uint64_t step;
    char pad[64 - sizeof(uint64_t)];
} mm_seg_step_t;

typedef struct mm_seg_ctl {
    _Atomic uint64_t full;
    uint64_t msg_bytes;         /* bytes of the message the chunk belongs to (its writer's
                                 * count, published by full) */
    char pad0[64 - 2 * sizeof(uint64_t)];
    _Atomic uint64_t reads;
    char pad1[64 - sizeof(uint64_t)];
} mm_seg_ctl_t;

typedef struct mm_coll_comm {
    int seg_state;              /* 0: not asked for yet; 1: mapped; -1: could not be made */
    mm_seg_ctl_t *ctl;          /* MM_SEG_SLOTS of them, then the slots' data */
    char *data;
    size_t seg_len;
    uint64_t next_chunk;        /* number of the next chunk through the ring */
    mm_seg_step_t *steps;       /* the area: one step word per process */
    char *area;                 /* then 2 sets of p regions */
    size_t region;              /* bytes per region: a multiple of 64 */
    uint64_t next_round;        /* number of the next round through the area */
    uint64_t seen;              /* every process's step word has reached this */
} mm_coll_comm_t;

/* coll/mm_coll_chain.c: this process's neighbours in comm's node-ordered chain from
 * root (-1: none), the same chain in every process. */
int mm_coll_node_chain(MPIR_Comm * comm, int root, int *prev, int *next);

/* comm's node segment, made on first use (a collective call: every process of comm must
 * call it at the same point). NULL, the same in every process, when it cannot be made;
 * the caller then takes another algorithm. Errors are those of the small collectives
 * that agree on it. */
int mm_coll_seg(MPIR_Comm * comm, mm_coll_comm_t ** cc_out);

/* Wait until the word's value is at least want, polling the engine now and then. */
int mm_coll_seg_wait(_Atomic uint64_t * word, uint64_t want);

/* Region q of set `set` of the area. */
static inline char *mm_coll_region(mm_coll_comm_t * cc, int p, int set, int q)
{
    return cc->area + ((size_t) set * p + q) * cc->region;
}

/* Take the next round of the area and wait until its set is free: every process has
 * passed stage 1 of the round before (usually known already, from a wait of that round).
 * Every round starts with this, so a process that needs nothing from the others (a
 * reduce's non-root) can pass its stages without waiting at all. */
int mm_coll_round(mm_coll_comm_t * cc, int me, int p, uint64_t * g_out);

/* Announce stage s of round g of the area (see above), and when `wait`, wait until every
 * process of the p has. */
int mm_coll_step(mm_coll_comm_t * cc, int me, int p, uint64_t g, int s, int wait);

/* A collective that failed records it in errflag, as MPIR's algorithms do, unless an
 * earlier step already did. */
static inline void mm_coll_errflag(int mpi_errno, MPIR_Errflag_t * errflag)
{
    if (mpi_errno && *errflag == MPIR_ERR_NONE)
        *errflag = MPIX_ERR_PROC_FAILED == MPIR_ERR_GET_CLASS(mpi_errno) ?
            MPIR_ERR_PROC_FAILED : MPIR_ERR_OTHER;
}

#endif /* MM_COLL_H_INCLUDED */
