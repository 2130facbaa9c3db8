/*
 * The progress engine: poll every active method, then MPICH's progress hooks (NBC
 * schedules, and later RMA). A blocking wait spins MPIR_CVAR_MM_SPIN_COUNT idle polls,
 * then yields: first the GLOBAL critical section, so other threads of this process can
 * run MPI calls, then the core, because these jobs oversubscribe their nodes and the peer
 * we wait for may need this very core to make the progress we are waiting on. When every
 * active method can signal arrivals on a descriptor (tcp, without shm), the core is given
 * away by sleeping in poll() instead, so the kernel wakes this process exactly when a
 * packet comes rather than whenever the scheduler gets back to a yielding spinner.
 */
#include "mpidimpl.h"
#include <sched.h>
#include <unistd.h>

unsigned long mm_completions;
static unsigned spin_limit;

#define MM_SPIN_DEDICATED 200
#define MM_SPIN_OVERSUBSCRIBED 10
/* More than two processes per core: the peer a process waits for is most likely not
 * running at all, so every idle poll is taken from it. An 8-process MPI_Allreduce on 2
 * cores: 16-19 us with 1 poll, 21-23 us with 10 (2026-12-04, interleaved runs); on 4
 * processes 10 polls stay better (3.3 against 3.8 us). */
#define MM_SPIN_CROWDED 1

/* Oversubscribed when this node runs more processes of the job than it has cores for
 * them. The cores are those this process may run on, unless the launcher pinned it to a
 * single one (mpiexec -bind-to core): then its peers are pinned elsewhere and the cores
 * its launcher may use are what the job shares. (Counting the pinned process's one core
 * made every bound job look oversubscribed and yield after 10 polls: 1.1 us instead of
 * 0.53 us for an 8-byte ping-pong. Counting the node's online cores instead made a launcher
 * confined to one core, two processes bound to it, look dedicated: they spun 200 polls
 * before giving the core to the peer they waited for, a 4-process allreduce across two
 * such hosts 55 us instead of 15.) */
void mm_progress_init(void)
{
    cpu_set_t set;
    int cores = 1;

    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        cores = CPU_COUNT(&set);
    if (cores == 1) {
        /* Pinned: the cores the job shares here are those our launcher (hydra's proxy, our
         * parent) may run on; where that cannot be read, the node's online cores. */
        long online;

        if (sched_getaffinity(getppid(), sizeof(set), &set) == 0)
            cores = CPU_COUNT(&set);
        else if ((online = sysconf(_SC_NPROCESSORS_ONLN)) > 1)
            cores = (int) online;
    }
    if (MPIR_CVAR_MM_SPIN_COUNT >= 0)
        spin_limit = (unsigned) MPIR_CVAR_MM_SPIN_COUNT;
    else if (MPIR_Process.local_size > 2 * cores)
        spin_limit = MM_SPIN_CROWDED;
    else if (MPIR_Process.local_size > cores)
        spin_limit = MM_SPIN_OVERSUBSCRIBED;
    else
        spin_limit = MM_SPIN_DEDICATED;
}

#define MM_PROGRESS_BLOCK_MS 10

/* The first peer a method lost without a goodbye, or -1. mm does not fail the requests
 * that wait for a lost process one by one (mm_ulfm.c: no failure propagation), so a receive
 * posted from it, or a collective's next step waiting for it, would wait forever: MPICH's
 * collectives carry on past a failed step and wait again. Instead the loss is sticky: once
 * a peer is lost, a poll that moves nothing fails, so every wait that what is already
 * arriving cannot satisfy ends with MPIX_ERR_PROC_FAILED, and the job ends with errors
 * (or aborts, under MPI_ERRORS_ARE_FATAL) instead of hanging. */
static int lost_lpid = -1;

void mm_progress_peer_lost(int lpid)
{
    if (lost_lpid < 0)
        lost_lpid = lpid;
}

/* The errors a lost peer causes are rooted in a bare class code (MM_ERR_LOST_ROOT,
 * MPI_ERR_OTHER, as the "previous" error of the first in the stack; MPICH takes only
 * standard classes there, not MPIX ones) instead of MPI_SUCCESS. Their own class stays
 * MPIX_ERR_PROC_FAILED. Why: MPICH 4.0.2's binomial broadcast, when a receive fails,
 * records the error and then builds its size-mismatch error on top of that same code and
 * adds both to the collective's result; combining them links the stack's last entry back
 * to its first, and MPI_Error_string, or the fatal handler's printing, walks that circle
 * forever (seen: a survivor of a failed peer spinning in MPIR_Err_print_stack_string
 * inside MPI_Barrier's smp broadcast). MPICH links a stack onto the entry whose previous
 * code is MPI_SUCCESS; a stack whose root names a class instead ends there, is never
 * extended, and prints whole. */

int mm_progress_poll(int *made_progress)
{
    int mpi_errno;

    mpi_errno = mm_methods_progress(made_progress);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_Progress_hook_exec_all(made_progress);
    MPIR_ERR_CHECK(mpi_errno);
    if (lost_lpid >= 0 && !*made_progress)
        mpi_errno = MPIR_Err_create_code(MM_ERR_LOST_ROOT, MPIR_ERR_RECOVERABLE, __func__,
                                         __LINE__, MPIX_ERR_PROC_FAILED, "**mm|peerlost",
                                         "**mm|peerlost %d", lost_lpid);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

void mm_yield_core(void)
{
    sched_yield();
}

#ifdef MPICH_IS_THREADED
/* Give the core away outside the GLOBAL critical section, so that both other threads of
 * this process (which may take the section meanwhile) and other processes can run.
 * MPID_THREAD_CS_YIELD would release and retake the section, but the MPL_thread_yield it
 * calls in between is a no-op (see mm_yield_core): the thread kept its core until the
 * scheduler's tick took it, and a 4-process barrier under MPI_THREAD_MULTIPLE on 2 cores
 * took 8 ms instead of 12 us. The recursion count and owner are set aside and restored
 * the same way the section's own yield does. Returns 0, doing nothing, in a process
 * that is not multithreaded. */
static int yield_outside_cs(void)
{
    MPID_Thread_mutex_t *m = &MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX;
    MPID_Thread_id_t owner = m->owner;
    int count = m->count, err = 0;

    if (!MPIR_ThreadInfo.isThreaded)
        return 0;
    m->count = 0;
    m->owner = 0;
    MPIDU_Thread_mutex_unlock(m, &err);
    MPIR_Assert(err == 0);
    mm_yield_core();
    MPIDU_Thread_mutex_lock(m, &err, MPL_THREAD_PRIO_LOW);
    MPIR_Assert(err == 0 && m->count == 0);
    m->count = count;
    m->owner = owner;
    return 1;
}
#else
#define yield_outside_cs() 0
#endif

void mm_progress_relax(void)
{
    if (!yield_outside_cs())
        mm_yield_core();
}

/* Give the core away; returns whether other threads may have run MPI code meanwhile. */
static int progress_yield(void)
{
    if (yield_outside_cs())
        return 1;
    /* Bounded: a progress hook (an NBC schedule) may have work no descriptor announces. */
    if (!mm_methods_block(MM_PROGRESS_BLOCK_MS))
        mm_yield_core();
    return 0;
}

void MPID_Progress_start(MPID_Progress_state * state)
{
    state->spins = 0;
    state->completions = mm_completions;
}

void MPID_Progress_end(MPID_Progress_state * state)
{
}

int MPID_Progress_test(MPID_Progress_state * state)
{
    int made_progress = 0;
    return mm_progress_poll(&made_progress);
}

int MPID_Progress_poke(void)
{
    return MPID_Progress_test(NULL);
}

/* One turn of a wait for something no method announces (a word in shared memory another
 * process of the node sets): poll the engine once, and after spin_limit turns that moved
 * nothing give the core away as a blocking wait would, but never by sleeping in a
 * method's descriptor wait (progress_yield), which that word cannot end. A lost peer makes
 * the poll fail, so such a wait ends with an error instead of hanging. */
int mm_progress_idle(MPID_Progress_state * state)
{
    int made_progress = 0;
    int mpi_errno = mm_progress_poll(&made_progress);

    if (made_progress)
        state->spins = 0;
    else if (++state->spins >= spin_limit) {
        state->spins = 0;
        mm_progress_relax();
    }
    return mpi_errno;
}

/* Targeted polling (mm_method.h): how many poll_vc() calls between two full polls. A
 * full poll of the engine (every method, MPICH's hooks) takes about as long as 16 of an
 * idle fast box's; the message waited for is then noticed within one of those instead of
 * within one turn of the engine, and nothing else waits more than twice as long. */
#define MM_POLL_VC_RUN 16

/* Wait until req is complete, req being a receive from vc's peer alone: poll_vc() runs of
 * MM_POLL_VC_RUN, each followed by one step of MPID_Progress_wait's loop. Only where
 * spinning costs nobody a core (spin_limit == MM_SPIN_DEDICATED); elsewhere, and for a
 * method without poll_vc, it is MPID_Progress_wait's loop itself. */
int mm_progress_wait_from(mm_vc_t * vc, MPIR_Request * req)
{
    int mpi_errno = MPI_SUCCESS;
    MPID_Progress_state state;
    int (*poll_vc) (mm_vc_t *, int *) = NULL;

    /* An unbound VC has no method yet: its first message binds it (mm_vc_bind). */
    if (vc->state == MM_VC_STATE_BOUND && spin_limit == MM_SPIN_DEDICATED)
        poll_vc = vc->method->poll_vc;
    MPID_Progress_start(&state);
    if (poll_vc == NULL) {
        while (!MPIR_Request_is_complete(req)) {
            mpi_errno = MPID_Progress_wait(&state);
            MPIR_ERR_CHECK(mpi_errno);
        }
        goto fn_exit;
    }
    while (!MPIR_Request_is_complete(req)) {
        int made_progress = 0;

        for (int i = 0; i < MM_POLL_VC_RUN; i++) {
            mpi_errno = poll_vc(vc, &made_progress);
            MPIR_ERR_CHECK(mpi_errno);
            if (MPIR_Request_is_complete(req))
                goto fn_exit;
        }
        mpi_errno = mm_progress_poll(&made_progress);
        MPIR_ERR_CHECK(mpi_errno);
        if (made_progress || state.completions != mm_completions) {
            state.spins = 0;
            state.completions = mm_completions;
        } else if (++state.spins >= spin_limit) {
            state.spins = 0;
            progress_yield();
        }
    }

  fn_exit:
    MPID_Progress_end(&state);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Return once something moved: this call's polling made progress, a request completed
 * anywhere in the process, or other threads ran while we yielded (they may have completed
 * what the caller waits for, e.g. a generalized request). The caller re-checks. */
int MPID_Progress_wait(MPID_Progress_state * state)
{
    int mpi_errno = MPI_SUCCESS;

    for (;;) {
        int made_progress = 0;

        mpi_errno = mm_progress_poll(&made_progress);
        MPIR_ERR_CHECK(mpi_errno);
        if (made_progress || state->completions != mm_completions) {
            state->spins = 0;
            break;
        }
        if (++state->spins >= spin_limit && progress_yield())
            break;
    }
    state->completions = mm_completions;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
