/*
 * The progress engine: poll every active method, then MPICH's progress hooks (NBC
 * schedules, and later RMA). A blocking wait spins MPIR_CVAR_MM_SPIN_COUNT idle polls,
 * then yields: first the GLOBAL critical section, so other threads of this process can
 * run MPI calls, then the core, because these jobs oversubscribe their nodes and the peer
 * we wait for may need this very core to make the progress we are waiting on.
 */
#include "mpidimpl.h"
#include <sched.h>

unsigned long mm_completions;

int mm_progress_poll(int *made_progress)
{
    int mpi_errno;

    mpi_errno = mm_methods_progress(made_progress);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_Progress_hook_exec_all(made_progress);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Give the core away. With threads, the critical section is released meanwhile (the
 * yield inside MPID_THREAD_CS_YIELD); returns whether other threads may have run MPI code. */
static int progress_yield(void)
{
#ifdef MPICH_IS_THREADED
    if (MPIR_ThreadInfo.isThreaded) {
        MPID_THREAD_CS_YIELD(GLOBAL, MPIR_THREAD_GLOBAL_ALLFUNC_MUTEX);
        return 1;
    }
#endif
    sched_yield();
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
        if (++state->spins >= (unsigned) MPIR_CVAR_MM_SPIN_COUNT && progress_yield())
            break;
    }
    state->completions = mm_completions;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
