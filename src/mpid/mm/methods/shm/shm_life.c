/*
 * shm method: noticing a process of the node that ended without MPI_Finalize.
 *
 * A tcp peer that dies closes its sockets and the kernel tells us (end of stream); a shm
 * peer that dies just stops writing cells, and a process waiting for one would wait
 * forever. Usually the launcher ends the job first (hydra kills the others when one exits
 * early), but not when it is told not to (mpiexec -disable-auto-cleanup, fault-tolerant
 * runs) nor under launchers that leave that to the library. So each process writes its pid
 * into its line of the segment before the init barrier, raises `left` in MPI_Finalize
 * before it can exit, and a process whose progress calls have moved nothing for a while
 * looks at its peers: a pid that no longer exists (kill(pid, 0) fails with ESRCH) or is a
 * zombie, and whose `left` is not raised, is a failed process, reported once as
 * MPIX_ERR_PROC_FAILED (**mm|shm_lost), as tcp reports a lost connection, and to the
 * engine (mm_progress_peer_lost), which fails the waits that can no longer end.
 *
 * Why it is sound:
 * - `left` is stored (release) before the process can exit, and exiting happens-before the
 *   pid is gone, so a watcher that finds the pid gone and then loads `left` (acquire) sees it
 *   raised whenever the peer went through MPI_Finalize: no false failure from a peer that
 *   finalized early (finalize_skew).
 * - A pid can be reused by an unrelated process after the peer died: then the failure is
 *   noticed late or not at all (the launcher still ends the job); it is never invented.
 * - Pids are only comparable within one pid namespace. The pids are read right after the
 *   barrier, when every peer is certainly alive: a peer whose pid we cannot see then (ESRCH)
 *   is in another namespace, and is not watched.
 * - Cost: one counter increment per progress call that moved nothing; the clock is read
 *   every SHM_LIFE_QUIET_POLLS of them and the peers are looked at most every
 *   SHM_LIFE_PERIOD_NS, so a busy process never pays for it.
 * - The pids come from memory another local process can write; they are copied once at
 *   init, and a bad one can only make us signal-0 a wrong pid, which delivers nothing.
 */
#include "mpidimpl.h"
#include "shm_impl.h"
#include <fcntl.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#define SHM_LIFE_PERIOD_NS (250 * 1000 * 1000LL)   /* SHM_LIFE_QUIET_POLLS: shm_impl.h */

static int64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Gone: no such process, or a zombie its parent (the launcher's proxy) has not reaped
 * yet, which can take as long as the proxy likes (seen: seconds and more with hydra's
 * -disable-auto-cleanup while two spinning survivors held both cores). */
static int pid_gone(pid_t pid)
{
    char path[64], buf[512];
    const char *state;
    ssize_t n;
    int fd;

    if (kill(pid, 0) != 0)
        return errno == ESRCH;
    snprintf(path, sizeof(path), "/proc/%d/stat", (int) pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    /* "pid (comm) S ...": comm may hold spaces and parentheses, the state follows the last
     * ')'. */
    state = strrchr(buf, ')');
    return state && state[1] == ' ' && (state[2] == 'Z' || state[2] == 'X');
}

void shm_life_publish(void)
{
    shm_life_t *life = &shm_state.ranks[shm_state.my_local].life;

    atomic_store_explicit(&life->left, 0, memory_order_relaxed);
    atomic_store_explicit(&life->pid, (int32_t) shm_state.pid, memory_order_relaxed);
}

/* After the init barrier: every peer has published its pid and is alive. */
int shm_life_init(void)
{
    int mpi_errno = MPI_SUCCESS;

    shm_state.peer_pid = MPL_calloc(shm_state.nlocal, sizeof(pid_t), MPL_MEM_SHM);
    MPIR_ERR_CHKANDJUMP1(shm_state.peer_pid == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                         "**nomem %s", "mm shm peer pids");
    for (int r = 0; r < shm_state.nlocal; r++) {
        pid_t pid = atomic_load_explicit(&shm_state.ranks[r].life.pid, memory_order_relaxed);

        if (r != shm_state.my_local && pid > 0 && !pid_gone(pid))
            shm_state.peer_pid[r] = pid;
    }
    shm_state.life_checked_ns = now_ns();

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

void shm_life_leave(void)
{
    if (shm_state.ranks)
        atomic_store_explicit(&shm_state.ranks[shm_state.my_local].life.left, 1,
                              memory_order_release);
}

int shm_life_check(void)
{
    int mpi_errno = MPI_SUCCESS;
    int64_t t;

    t = now_ns();
    if (t - shm_state.life_checked_ns < SHM_LIFE_PERIOD_NS)
        return MPI_SUCCESS;
    shm_state.life_checked_ns = t;
    for (int r = 0; r < shm_state.nlocal; r++) {
        pid_t pid = shm_state.peer_pid[r];

        if (pid == 0 || !pid_gone(pid))
            continue;
        shm_state.peer_pid[r] = 0;      /* looked at no more: it left, or is reported now */
        if (atomic_load_explicit(&shm_state.ranks[r].life.left, memory_order_acquire))
            continue;
        mpi_errno = MPIR_Err_create_code(MM_ERR_LOST_ROOT, MPIR_ERR_RECOVERABLE, __func__,
                                         __LINE__, MPIX_ERR_PROC_FAILED, "**mm|shm_lost",
                                         "**mm|shm_lost %d %d", MPIR_Process.node_local_map[r],
                                         (int) pid);
        mm_progress_peer_lost(MPIR_Process.node_local_map[r]);
        break;
    }
    return mpi_errno;
}
