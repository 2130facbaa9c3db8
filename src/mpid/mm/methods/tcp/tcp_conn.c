/*
 * tcp method, connection setup: nonblocking connect through the addresses of a card, the
 * HELLO/ACK handshake with its tie-break, accept, and the lifetime of connection objects
 * (tcp_impl.h describes the protocol).
 */
#include "mpidimpl.h"
#include "tcp_impl.h"
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

static tcp_conn_t *conn_new(int fd, tcp_conn_state_t state, mm_vc_t * vc)
{
    tcp_conn_t *conn = MPL_calloc(1, sizeof(*conn), MPL_MEM_OTHER);

    if (conn) {
        conn->fd = fd;
        conn->state = state;
        conn->vc = vc;
        conn->next = tcp_state.conns;
        tcp_state.conns = conn;
        tcp_state.nopen++;
    }
    return conn;
}

void tcp_conn_set_events(tcp_conn_t * conn, uint32_t events)
{
    struct epoll_event ev;

    /* After the peer's end of stream a readable socket stays readable (0 bytes): asking for
     * EPOLLIN would make every progress pass wake up for nothing. */
    if (conn->got_eof)
        events &= ~EPOLLIN;
    if (conn->registered && conn->events == events)
        return;
    ev.events = events;
    ev.data.ptr = conn;
    epoll_ctl(tcp_state.epfd, conn->registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, conn->fd, &ev);
    conn->registered = 1;
    conn->events = events;
}

/* Close the socket now; the object lives until tcp_conn_reap, because the current epoll
 * batch may still name it. */
void tcp_conn_kill(tcp_conn_t * conn)
{
    if (conn->state == TCP_CONN_DEAD)
        return;
    if (conn->vc) {
        tcp_vc_t *t = tcp_vc(conn->vc);
        if (t->conn == conn)
            t->conn = NULL;
        if (t->attempt == conn)
            t->attempt = NULL;
    }
    epoll_ctl(tcp_state.epfd, EPOLL_CTL_DEL, conn->fd, NULL);
    close(conn->fd);
    conn->fd = -1;
    conn->state = TCP_CONN_DEAD;
    tcp_state.nopen--;
    tcp_state.ndead++;
}

void tcp_conn_reap(void)
{
    tcp_conn_t **pp = &tcp_state.conns;

    while (tcp_state.ndead > 0 && *pp) {
        tcp_conn_t *conn = *pp;
        if (conn->state == TCP_CONN_DEAD) {
            *pp = conn->next;
            MPL_free(conn->rbuf);
            MPL_free(conn);
            tcp_state.ndead--;
        } else {
            pp = &conn->next;
        }
    }
}

static void sock_tune(int fd)
{
    int one = 1, sz = MPIR_CVAR_MM_TCP_SOCKBUF;

    /* Envelopes are small and latency-bound: never let Nagle hold one back. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (sz > 0) {
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
    }
}

/* A handshake message is 24 bytes on a fresh socket: it always fits the send buffer, so a
 * short write means the socket is broken. */
static int hs_send(int fd, int kind, uint64_t token)
{
    tcp_hello_t h = {.magic = TCP_HELLO_MAGIC,.version = TCP_WIRE_VERSION,.kind = kind,
        .gpid = mm_my_gpid,.token = token
    };
    ssize_t n;

    do {
        n = send(fd, &h, sizeof(h), MSG_NOSIGNAL | MSG_DONTWAIT);
    } while (n < 0 && errno == EINTR);
    return n == (ssize_t) sizeof(h) ? 0 : -1;
}

/* Receive the rest of conn->hs; returns 1 when complete, 0 when more is to come, -1 when
 * the socket closed or failed. Reads no byte beyond the handshake message: packets may
 * follow right behind an ACK. */
static int hs_recv(tcp_conn_t * conn)
{
    while (conn->hs_len < sizeof(conn->hs)) {
        ssize_t n = recv(conn->fd, (char *) &conn->hs + conn->hs_len,
                         sizeof(conn->hs) - conn->hs_len, MSG_DONTWAIT);
        if (n > 0)
            conn->hs_len += n;
        else if (n < 0 && errno == EINTR)
            continue;
        else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        else
            return -1;
    }
    return 1;
}

static int hs_valid(const tcp_hello_t * h, int kind)
{
    return h->magic == TCP_HELLO_MAGIC && h->version == TCP_WIRE_VERSION &&
        (kind == 0 || h->kind == kind);
}

/* Start (or restart, on the next address) our connection to vc's peer. */
static int attempt_connect(tcp_conn_t * conn)
{
    int mpi_errno = MPI_SUCCESS;
    mm_vc_t *vc = conn->vc;
    tcp_peer_t *peer = tcp_vc(vc)->peer;
    int err = ECONNREFUSED;

    for (; conn->addr_idx < peer->naddrs; conn->addr_idx++) {
        struct sockaddr_in sin;
        int fd, rc;

        if (conn->fd >= 0) {
            epoll_ctl(tcp_state.epfd, EPOLL_CTL_DEL, conn->fd, NULL);
            close(conn->fd);
            conn->fd = -1;
            conn->events = 0;
            conn->registered = 0;
        }
        fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            err = errno;
            break;
        }
        sock_tune(fd);
        memset(&sin, 0, sizeof(sin));
        sin.sin_family = AF_INET;
        sin.sin_port = htons(peer->port);
        sin.sin_addr = peer->addrs[conn->addr_idx];
        conn->fd = fd;
        conn->hs_len = 0;
        do {
            rc = connect(fd, (struct sockaddr *) &sin, sizeof(sin));
        } while (rc != 0 && errno == EINTR);
        if (rc == 0) {
            if (hs_send(fd, TCP_HS_HELLO, peer->token) == 0) {
                conn->state = TCP_CONN_HELLO_SENT;
                tcp_conn_set_events(conn, EPOLLIN);
                goto fn_exit;
            }
            err = errno;
        } else if (errno == EINPROGRESS) {
            conn->state = TCP_CONN_CONNECTING;
            tcp_conn_set_events(conn, EPOLLOUT);
            goto fn_exit;
        } else {
            err = errno;
        }
    }

    /* Every address failed: this peer cannot be reached, and what waits for it fails. */
    {
        char where[64];
        snprintf(where, sizeof(where), "port %u: %s", (unsigned) peer->port, MPL_strerror(err));
        tcp_vc(vc)->failed = 1;
        tcp_conn_kill(conn);
        MPIR_ERR_SET2(mpi_errno, MPIX_ERR_PROC_FAILED, "**mm|tcp_connect",
                      "**mm|tcp_connect %d %s", vc->lpid, where);
    }

  fn_exit:
    return mpi_errno;
}

int tcp_conn_start(mm_vc_t * vc)
{
    int mpi_errno = MPI_SUCCESS;
    tcp_conn_t *conn = conn_new(-1, TCP_CONN_CONNECTING, vc);

    MPIR_ERR_CHKANDJUMP1(conn == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm tcp connection");
    tcp_vc(vc)->attempt = conn;
    mpi_errno = attempt_connect(conn);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int tcp_conn_accept(void)
{
    int mpi_errno = MPI_SUCCESS;

    for (;;) {
        int fd = accept4(tcp_state.listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        tcp_conn_t *conn;

        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            break;      /* EAGAIN, or out of descriptors: the backlog keeps the rest */
        }
        sock_tune(fd);
        conn = conn_new(fd, TCP_CONN_WAIT_HELLO, NULL);
        if (conn == NULL) {
            close(fd);
            MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                                 "mm tcp connection");
        }
        tcp_conn_set_events(conn, EPOLLIN);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* conn now carries vc's traffic in both directions. */
static int conn_settle(tcp_conn_t * conn, mm_vc_t * vc)
{
    int mpi_errno = MPI_SUCCESS;
    tcp_vc_t *t = tcp_vc(vc);

    conn->vc = vc;
    conn->state = TCP_CONN_OPEN;
    conn->rbuf = MPL_malloc(TCP_RBUF_SIZE, MPL_MEM_BUFFER);
    MPIR_ERR_CHKANDJUMP1(conn->rbuf == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                         "**nomem %s", "mm tcp receive buffer");
    conn->rpos = conn->rend = 0;
    t->conn = conn;
    if (t->attempt == conn)
        t->attempt = NULL;
    tcp_conn_set_events(conn, EPOLLIN);
    if (t->wq_head)
        mpi_errno = tcp_write_progress(vc);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Close a connection whose first message is not a HELLO meant for this process (a stale
 * card, a port scanner, a stranger without our token: the token is the secret a connector
 * can only have learnt from our card, through the job's PMI or a port name). It never
 * touches the job; with MPIR_CVAR_MM_REPORT_METHODS the first one is reported. */
static void refuse(tcp_conn_t * conn, const char *why)
{
    static int reported;

    if (MPIR_CVAR_MM_REPORT_METHODS && !reported) {
        struct sockaddr_in from = { 0 };
        socklen_t len = sizeof(from);
        char addr[INET_ADDRSTRLEN] = "?";

        reported = 1;
        if (getpeername(conn->fd, (struct sockaddr *) &from, &len) == 0 &&
            from.sin_family == AF_INET)
            inet_ntop(AF_INET, &from.sin_addr, addr, sizeof(addr));
        fprintf(stderr, "mm: rank %d refused a tcp connection from %s:%u: %s (further "
                "refusals are not reported)\n", MPIR_Process.rank, addr,
                from.sin_family == AF_INET ? ntohs(from.sin_port) : 0, why);
    }
    tcp_conn_kill(conn);
}

/* An accepted socket said HELLO: decide whether it carries the VC. */
static int accept_hello(tcp_conn_t * conn)
{
    int mpi_errno = MPI_SUCCESS;
    const tcp_hello_t *h = &conn->hs;
    mm_vc_t *vc;
    tcp_vc_t *t;
    int accept, lpid = -1;

    if (!hs_valid(h, TCP_HS_HELLO)) {
        refuse(conn, "not an mm handshake");
        goto fn_exit;
    }
    if (h->token != tcp_state.token) {
        refuse(conn, "wrong token");    /* the connector tries its card's next address */
        goto fn_exit;
    }
    if (h->gpid == mm_my_gpid || mm_vc_lookup(h->gpid, NULL, 1, &lpid) != MPI_SUCCESS ||
        lpid < 0) {
        refuse(conn, "no such process");
        goto fn_exit;
    }
    vc = mm_vc_at(lpid);
    if (vc->state == MM_VC_STATE_UNBOUND && lpid >= MPIR_Process.size && vc->cards == NULL) {
        /* A process of another job that reached us before we learnt its cards. */
        mpi_errno = mm_methods_bind(vc, &mm_tcp_method, NULL);
        MPIR_ERR_CHECK(mpi_errno);
    }
    mpi_errno = mm_vc_get(lpid, &vc);
    MPIR_ERR_CHECK(mpi_errno);
    if (vc->method != &mm_tcp_method) {
        tcp_conn_kill(conn);    /* the peer disagrees on MPIR_CVAR_MM_METHODS */
        goto fn_exit;
    }
    t = tcp_vc(vc);
    /* The tie-break: a connection started by the lower lpid wins. */
    if (t->conn)
        accept = 0;
    else if (t->attempt)
        accept = h->gpid < mm_my_gpid;
    else
        accept = !t->failed;

    if (hs_send(conn->fd, accept ? TCP_HS_ACK : TCP_HS_NACK, 0) != 0 ||
        !accept) {
        tcp_conn_kill(conn);
        goto fn_exit;
    }
    /* Our own attempt lost the tie-break: the peer would answer it NACK, but only from its
     * progress engine, which it may never run again (it may be finalizing already, in a
     * PMI barrier that waits for us). Drop it now rather than wait for the answer. */
    if (t->attempt)
        tcp_conn_kill(t->attempt);
    mpi_errno = conn_settle(conn, vc);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Advance a connection that is not yet OPEN. */
int tcp_conn_handshake(tcp_conn_t * conn, uint32_t events)
{
    int mpi_errno = MPI_SUCCESS;
    int rc, err = 0;
    socklen_t len = sizeof(err);

    switch (conn->state) {
        case TCP_CONN_CONNECTING:
            if (getsockopt(conn->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
                err = errno;
            if (err == 0 && !(events & (EPOLLERR | EPOLLHUP)) &&
                hs_send(conn->fd, TCP_HS_HELLO, tcp_vc(conn->vc)->peer->token) == 0) {
                conn->state = TCP_CONN_HELLO_SENT;
                tcp_conn_set_events(conn, EPOLLIN);
                break;
            }
            conn->addr_idx++;
            mpi_errno = attempt_connect(conn);
            break;

        case TCP_CONN_HELLO_SENT:
            rc = hs_recv(conn);
            if (rc < 0 || (rc > 0 && !hs_valid(&conn->hs, 0))) {
                /* Closed without an answer: whoever listens there is not our peer. */
                conn->addr_idx++;
                mpi_errno = attempt_connect(conn);
            } else if (rc > 0 && conn->hs.kind == TCP_HS_ACK) {
                mpi_errno = conn_settle(conn, conn->vc);
            } else if (rc > 0) {
                /* NACK: the peer's own connection to us wins and arrives on our listener. */
                tcp_conn_kill(conn);
            }
            break;

        case TCP_CONN_WAIT_HELLO:
            rc = hs_recv(conn);
            if (rc < 0)
                tcp_conn_kill(conn);
            else if (rc > 0)
                mpi_errno = accept_hello(conn);
            break;

        default:
            break;
    }
    return mpi_errno;
}
