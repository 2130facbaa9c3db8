/*
 * mm device: the window lock in shared memory, for windows whose every member maps every
 * other member's memory (MPI_Win_allocate_shared, and MPI_Win_allocate on one node).
 *
 * Why: the lock of MPI_Win_lock is otherwise granted by the target's progress engine
 * (mm_rma_target.c), a round trip to take it and another to give it back, around
 * operations that on such a window are single loads, stores and CPU atomics
 * (mm_rma_direct.c): lock + MPI_Fetch_and_op + unlock cost 1.1 us between two processes
 * of one node, 20 times the operation. Here each member's lock is a cache line of its own
 * after the accumulate locks of the segment, taken and released with atomic instructions
 * by the origin itself. No origin of such a window ever asks the target, so the two
 * schemes never meet on one window (mm_rma_lockwords_init decides, the same way in every
 * member).
 *
 * The lock is Brandenburg and Anderson's phase-fair reader-writer ticket lock: writers
 * (exclusive) are served in ticket order, and readers (shared) and writers alternate in
 * phases, so neither a stream of shared requests nor one of exclusive requests can starve
 * the other, the same guarantee as the target's FIFO queue.
 *
 *   rin   readers in, in units of PF_RINC; its two low bits say a writer is present
 *         (PF_PRES) and in which phase (PF_PHID, the writer ticket's low bit)
 *   rout  readers out, in units of PF_RINC
 *   win   writer tickets taken
 *   wout  writer tickets served
 *
 * A waiting process keeps polling its engine (the holder may wait for an answer from it
 * before it can release) and, after a short spin, gives the core away.
 */

#include "mm_rma.h"

#define PF_RINC 0x100u
#define PF_WBITS 0x3u
#define PF_PRES 0x2u
#define PF_PHID 0x1u
#define LOCKWORD_SPIN 64

typedef struct mm_lockword {
    _Atomic uint32_t rin;
    _Atomic uint32_t rout;
    _Atomic uint32_t win;
    _Atomic uint32_t wout;
} mm_lockword_t;

_Static_assert(sizeof(mm_lockword_t) <= MM_WIN_LOCK_BYTES, "lock word exceeds its line");

void mm_rma_lockwords_init(MPIR_Win * win)
{
    int n = win->comm_ptr->local_size;

    if (win->dev.shm_seg == NULL)
        return;
    for (int r = 0; r < n; r++)
        if (!mm_rma_is_direct(win, r))
            return;
    /* the lines mm_win_seg_header reserved after the accumulate locks */
    for (int r = 0; r < n; r++)
        win->dev.peers[r].lockword = (char *) win->dev.shm_seg + MM_ACC_LOCKS_BYTES +
            (size_t) r * MM_WIN_LOCK_BYTES;
}

/* Poll the engine and, after a short spin, give the core away, until done(lw, arg). */
static int lockword_wait(mm_lockword_t * lw, int (*done) (mm_lockword_t *, uint32_t),
                         uint32_t arg)
{
    int mpi_errno = MPI_SUCCESS;

    for (unsigned spins = 0; !done(lw, arg); spins++) {
        mpi_errno = MPID_Progress_test(NULL);
        if (mpi_errno)
            break;
        if (spins >= LOCKWORD_SPIN)
            mm_progress_relax();
    }
    return mpi_errno;
}

/* A reader that came while a writer was present waits for the writer bits to change. */
static int writer_phase_over(mm_lockword_t * lw, uint32_t w)
{
    return (atomic_load_explicit(&lw->rin, memory_order_acquire) & PF_WBITS) != w;
}

static int my_ticket_served(mm_lockword_t * lw, uint32_t ticket)
{
    return atomic_load_explicit(&lw->wout, memory_order_acquire) == ticket;
}

static int readers_drained(mm_lockword_t * lw, uint32_t rticket)
{
    return atomic_load_explicit(&lw->rout, memory_order_acquire) == rticket;
}

int mm_rma_lockword_acquire(void *word, int type)
{
    mm_lockword_t *lw = word;
    uint32_t ticket, w;
    int mpi_errno;

    if (type == MPI_LOCK_SHARED) {
        w = atomic_fetch_add_explicit(&lw->rin, PF_RINC, memory_order_acq_rel) & PF_WBITS;
        return w ? lockword_wait(lw, writer_phase_over, w) : MPI_SUCCESS;
    }
    ticket = atomic_fetch_add_explicit(&lw->win, 1, memory_order_acq_rel);
    mpi_errno = lockword_wait(lw, my_ticket_served, ticket);
    if (mpi_errno)
        return mpi_errno;
    w = PF_PRES | (ticket & PF_PHID);
    ticket = atomic_fetch_add_explicit(&lw->rin, w, memory_order_acq_rel) & ~PF_WBITS;
    return lockword_wait(lw, readers_drained, ticket);
}

void mm_rma_lockword_release(void *word, int type)
{
    mm_lockword_t *lw = word;

    if (type == MPI_LOCK_SHARED) {
        atomic_fetch_add_explicit(&lw->rout, PF_RINC, memory_order_release);
        return;
    }
    atomic_fetch_and_explicit(&lw->rin, ~PF_WBITS, memory_order_release);
    /* Only the holder writes wout. */
    atomic_store_explicit(&lw->wout, atomic_load_explicit(&lw->wout, memory_order_relaxed) + 1,
                          memory_order_release);
}
