/*
 * tcp method, progress: one epoll_wait(0) per pass over the listener and every connection.
 * A process with no connection still polls its listener (someone may connect), but only
 * every TCP_IDLE_SKIP-th pass: a system call costs a microsecond or more under a
 * hypervisor, so polling it every 64th pass took a third of a pure-shm job's spin loop
 * and delayed the detection of shm arrivals. 4096 passes are well under a millisecond,
 * which is all a first connection waits for its accept.
 */
#include "mpidimpl.h"
#include "tcp_impl.h"
#include <errno.h>
#include <sys/epoll.h>
#include <time.h>

#define TCP_EVENTS 32
#define TCP_IDLE_SKIP 4096

int tcp_progress(int *made_progress)
{
    int mpi_errno = MPI_SUCCESS;
    struct epoll_event evs[TCP_EVENTS];
    int n;

    if (tcp_state.nopen == 0 && (++tcp_state.idle_polls % TCP_IDLE_SKIP) != 0)
        return MPI_SUCCESS;
    n = epoll_wait(tcp_state.epfd, evs, TCP_EVENTS, 0);
    for (int i = 0; i < n; i++) {
        tcp_conn_t *conn = evs[i].data.ptr;

        *made_progress = 1;
        if (conn == NULL) {
            mpi_errno = tcp_conn_accept();
        } else if (conn->state == TCP_CONN_DEAD) {
            continue;   /* killed earlier in this batch */
        } else if (conn->state != TCP_CONN_OPEN) {
            mpi_errno = tcp_conn_handshake(conn, evs[i].events);
        } else {
            if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
                mpi_errno = tcp_read_progress(conn);
            if (mpi_errno == MPI_SUCCESS && conn->state == TCP_CONN_OPEN &&
                (evs[i].events & EPOLLOUT))
                mpi_errno = tcp_write_progress(conn->vc);
        }
        if (mpi_errno != MPI_SUCCESS)
            break;
    }
    tcp_conn_reap();
    return mpi_errno;
}

static int any_open(void)
{
    for (tcp_conn_t * conn = tcp_state.conns; conn; conn = conn->next)
        if (conn->state == TCP_CONN_OPEN)
            return 1;
    return 0;
}

/* Finalize, after every process has sent its BYEs: read until each peer's end of stream,
 * so nothing a peer wrote is lost by closing early, then close. Bounded by
 * MPIR_CVAR_MM_TCP_CLOSE_TIMEOUT, since a peer that died must not hang us. */
int tcp_wait_closed(void)
{
    int mpi_errno = MPI_SUCCESS;
    struct timespec start, now;

    tcp_state.finalizing = 1;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (any_open()) {
        int made_progress = 0;

        mpi_errno = tcp_progress(&made_progress);
        MPIR_ERR_CHECK(mpi_errno);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec >= MPIR_CVAR_MM_TCP_CLOSE_TIMEOUT)
            break;
        if (!made_progress)
            mm_yield_core();
    }
    for (tcp_conn_t * conn = tcp_state.conns; conn; conn = conn->next)
        tcp_conn_kill(conn);
    tcp_conn_reap();

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
