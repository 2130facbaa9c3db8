/*
 * tcp method: the listening socket and the card, reachability, per-VC setup and teardown,
 * the method table. The wire protocol is described in tcp_impl.h.
 */
#include "mpidimpl.h"
#include "tcp_impl.h"
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_MM_TCP_EAGER_LIMIT
      category    : MM
      type        : int
      default     : 65536
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Largest message (bytes) the tcp method sends eagerly; larger ones use the
        rendezvous protocol and are streamed once the receive is posted.

    - name        : MPIR_CVAR_MM_TCP_INTERFACES
      category    : MM
      type        : string
      default     : ""
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        Comma-separated network interface names whose IPv4 addresses the tcp method
        publishes for peers to connect to, in order of preference. Empty: every interface
        that is up, loopback last (and only if there is no other).

    - name        : MPIR_CVAR_MM_TCP_SOCKBUF
      category    : MM
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        Socket send and receive buffer size in bytes for tcp connections; 0 leaves the
        kernel's autotuning in charge.

    - name        : MPIR_CVAR_MM_TCP_CLOSE_TIMEOUT
      category    : MM
      type        : int
      default     : 10
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        Seconds MPI_Finalize waits for peers to close their tcp connections before it
        closes them itself.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

tcp_state_t tcp_state = {.listen_fd = -1,.epfd = -1 };

static uint64_t make_token(void)
{
    uint64_t token = mm_random64();

    return token ? token : 1;
}

/* Is interface `name` in the comma-separated list? */
static int name_listed(const char *list, const char *name)
{
    size_t len = strlen(name);

    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        if (n == len && strncmp(p, name, len) == 0)
            return 1;
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* Append the IPv4 addresses peers may use to reach this host, as dotted quads. */
static void card_addrs(char *out, size_t outlen)
{
    struct ifaddrs *ifa_list, *ifa;
    const char *want = MPIR_CVAR_MM_TCP_INTERFACES;
    char loop[INET_ADDRSTRLEN] = "";
    int n = 0;

    if (getifaddrs(&ifa_list) != 0)
        ifa_list = NULL;
    for (ifa = ifa_list; ifa; ifa = ifa->ifa_next) {
        char a[INET_ADDRSTRLEN];

        if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != AF_INET || !(ifa->ifa_flags & IFF_UP))
            continue;
        if (want && *want && !name_listed(want, ifa->ifa_name))
            continue;
        inet_ntop(AF_INET, &((struct sockaddr_in *) ifa->ifa_addr)->sin_addr, a, sizeof(a));
        if ((ifa->ifa_flags & IFF_LOOPBACK) && !(want && *want)) {
            MPL_strncpy(loop, a, sizeof(loop));
            continue;
        }
        if (n < TCP_MAX_ADDRS) {
            size_t l = strlen(out);
            snprintf(out + l, outlen - l, "%s%s", n ? "," : "", a);
            n++;
        }
    }
    if (n == 0 && loop[0]) {
        size_t l = strlen(out);
        snprintf(out + l, outlen - l, "%s", loop);
    }
    if (ifa_list)
        freeifaddrs(ifa_list);
}

/* The card's parser is tcp_card.c, fuzzed on its own; it must take what we write. */
_Static_assert(TCP_CARD_MAX == MM_METHOD_CARD_MAX, "tcp card size");

static int tcp_init(char *card)
{
    int mpi_errno = MPI_SUCCESS;
    struct sockaddr_in sin;
    socklen_t len = sizeof(sin);
    struct epoll_event ev;
    const char *what = NULL;

    memset(&tcp_state, 0, sizeof(tcp_state));
    tcp_state.listen_fd = tcp_state.epfd = -1;
    tcp_state.token = make_token();

    tcp_state.listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (tcp_state.listen_fd < 0) {
        what = "socket";
        goto sys_fail;
    }
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_addr.s_addr = htonl(INADDR_ANY);
    sin.sin_port = 0;
    if (bind(tcp_state.listen_fd, (struct sockaddr *) &sin, sizeof(sin)) != 0) {
        what = "bind";
        goto sys_fail;
    }
    if (listen(tcp_state.listen_fd, SOMAXCONN) != 0) {
        what = "listen";
        goto sys_fail;
    }
    if (getsockname(tcp_state.listen_fd, (struct sockaddr *) &sin, &len) != 0) {
        what = "getsockname";
        goto sys_fail;
    }
    tcp_state.epfd = epoll_create1(EPOLL_CLOEXEC);
    if (tcp_state.epfd < 0) {
        what = "epoll_create1";
        goto sys_fail;
    }
    ev.events = EPOLLIN;
    ev.data.ptr = NULL;         /* NULL names the listener */
    if (epoll_ctl(tcp_state.epfd, EPOLL_CTL_ADD, tcp_state.listen_fd, &ev) != 0) {
        what = "epoll_ctl";
        goto sys_fail;
    }

    /* No spaces: PMI-1 values end at the first one. */
    snprintf(card, MM_METHOD_CARD_MAX, "%016llx:%u:", (unsigned long long) tcp_state.token,
             (unsigned) ntohs(sin.sin_port));
    card_addrs(card, MM_METHOD_CARD_MAX);
    if (card[strlen(card) - 1] == ':')
        card[0] = '\0';         /* no usable address: peers must use another method */

  fn_exit:
    return mpi_errno;
  sys_fail:
    MPIR_ERR_SET2(mpi_errno, MPI_ERR_OTHER, "**mm|tcp_init", "**mm|tcp_init %s %s", what,
                  MPL_strerror(errno));
    goto fn_exit;
}

static int tcp_finalize(void)
{
    int mpi_errno = tcp_wait_closed();

    if (tcp_state.listen_fd >= 0)
        close(tcp_state.listen_fd);
    if (tcp_state.epfd >= 0)
        close(tcp_state.epfd);
    tcp_state.listen_fd = tcp_state.epfd = -1;
    return mpi_errno;
}

/* tcp reaches any peer with a usable card, except this process itself (self is always
 * there and is a copy, not a round trip through the kernel). */
static int tcp_can_reach(int lpid, const char *card)
{
    tcp_peer_t peer;

    return lpid != MPIR_Process.rank && tcp_parse_card(card, &peer);
}

static int tcp_connect(mm_vc_t * vc, const char *card)
{
    int mpi_errno = MPI_SUCCESS;
    tcp_vc_t *t = tcp_vc(vc);

    memset(t, 0, sizeof(*t));
    t->peer = MPL_calloc(1, sizeof(tcp_peer_t), MPL_MEM_ADDRESS);
    MPIR_ERR_CHKANDJUMP1(t->peer == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm tcp peer");
    tcp_parse_card(card, t->peer);
    vc->eager_limit = MPL_MAX(MPIR_CVAR_MM_TCP_EAGER_LIMIT, 0);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Write everything queued on vc, then BYE, then end our direction of the stream; the
 * peer's direction stays open until it closes too (tcp_wait_closed). A peer found dead on
 * the way was reported when it happened (or nothing was waiting for it): finalize goes on. */
static int tcp_close(mm_vc_t * vc)
{
    int mpi_errno = MPI_SUCCESS;
    tcp_vc_t *t = tcp_vc(vc);

    while (!t->failed && (t->wq_head || t->attempt || (t->conn && t->bye_state != 2))) {
        int made_progress = 0;

        if (t->conn && t->wq_head == NULL && t->bye_state == 0) {
            t->bye_state = 1;
            mpi_errno = tcp_write_progress(vc);
        } else {
            mpi_errno = tcp_progress(&made_progress);
            if (mpi_errno == MPI_SUCCESS && !made_progress)
                mm_yield_core();
        }
        if (mpi_errno != MPI_SUCCESS && t->failed)
            mpi_errno = MPI_SUCCESS;
        MPIR_ERR_CHECK(mpi_errno);
    }
    if (t->conn) {
        shutdown(t->conn->fd, SHUT_WR);
        if (t->conn->got_eof)
            tcp_conn_kill(t->conn);     /* both directions are finished */
    }
    MPL_free(t->peer);
    t->peer = NULL;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The epoll set signals new connections, arrivals and writable sockets alike. */
static int tcp_wait_fd(void)
{
    return tcp_state.epfd;
}

const mm_method_t mm_tcp_method = {
    .name = "tcp",
    .eager_limit = 65536,
    .caps = MM_METHOD_CAP_CARD,
    .init = tcp_init,
    .finalize = tcp_finalize,
    .can_reach = tcp_can_reach,
    .connect = tcp_connect,
    .post_write = tcp_post_write,
    .post_read = tcp_post_read,
    .progress = tcp_progress,
    .wait_fd = tcp_wait_fd,
    .close = tcp_close,
};
