/*
 * ib method: the device, its queues and buffers, the listener and the card, reachability,
 * per-VC setup and teardown, the method table. The protocol is described in ib_impl.h.
 */
#include "mpidimpl.h"
#include "ib_impl.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <arpa/inet.h>

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_MM_IB_EAGER_LIMIT
      category    : MM
      type        : int
      default     : 8192
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Largest message (bytes) the ib method sends eagerly, copied through its registered
        buffers; larger ones use the rendezvous protocol, in which the receiver reads the
        payload from the sender's memory with RDMA READ.

    - name        : MPIR_CVAR_MM_IB_INTERFACE
      category    : MM
      type        : string
      default     : ""
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        Name of the network interface (IPoIB, or the RoCE device's Ethernet interface)
        whose IPv4 address the ib method publishes and connects through. Empty: the first
        interface whose address maps to an RDMA device.

    - name        : MPIR_CVAR_MM_IB_CREDITS
      category    : MM
      type        : int
      default     : 32
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Send buffers the ib method may have in flight to one peer before the peer credits
        them back (flow control of eager messages).

    - name        : MPIR_CVAR_MM_IB_RECV_BUFFERS
      category    : MM
      type        : int
      default     : 512
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        Receive buffers (8 KiB each) the ib method posts to its shared receive queue, for
        all peers together.

    - name        : MPIR_CVAR_MM_IB_CLOSE_TIMEOUT
      category    : MM
      type        : int
      default     : 10
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        Seconds MPI_Finalize waits for peers to end their ib connections before it
        destroys them itself.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

ib_state_t ib_state;

/* Why ib is not up in this process, for MPIR_CVAR_MM_REPORT_METHODS. */
static const char *ib_off_reason;
static int cq_need;

_Static_assert(IB_CARD_MAX == MM_METHOD_CARD_MAX, "ib card size");

/* libibverbs complains on stderr when it finds no provider configuration, which a machine
 * without RDMA hardware or rdma-core's providers may well lack: look at the kernel's list
 * of RDMA devices first, and stay silent when it is empty. */
static int kernel_has_rdma(void)
{
    DIR *d = opendir("/sys/class/infiniband");
    struct dirent *e;
    int found = 0;

    if (d == NULL)
        return 0;
    while (!found && (e = readdir(d)) != NULL)
        found = e->d_name[0] != '.';
    closedir(d);
    return found;
}

/* Bind the listener to the first IPv4 address (of MPIR_CVAR_MM_IB_INTERFACE, if set) that
 * maps to an RDMA device; the address goes into *addr. */
static int bind_listener(struct in_addr *addr)
{
    struct ifaddrs *ifa_list, *ifa;
    const char *want = MPIR_CVAR_MM_IB_INTERFACE;
    int bound = 0;

    if (getifaddrs(&ifa_list) != 0)
        return 0;
    for (ifa = ifa_list; ifa && !bound; ifa = ifa->ifa_next) {
        struct sockaddr_in sin;

        if (!ifa->ifa_addr || ifa->ifa_addr->sa_family != AF_INET || !(ifa->ifa_flags & IFF_UP))
            continue;
        if (want && *want ? strcmp(want, ifa->ifa_name) != 0 : (ifa->ifa_flags & IFF_LOOPBACK))
            continue;
        if (ib_state.listen_id == NULL &&
            rdma_create_id(ib_state.ch, &ib_state.listen_id, NULL, RDMA_PS_TCP) != 0)
            break;
        memcpy(&sin, ifa->ifa_addr, sizeof(sin));
        sin.sin_port = 0;
        if (rdma_bind_addr(ib_state.listen_id, (struct sockaddr *) &sin) == 0 &&
            ib_state.listen_id->verbs != NULL) {
            *addr = sin.sin_addr;
            bound = 1;
        } else {
            /* an id bound once cannot be bound again */
            rdma_destroy_id(ib_state.listen_id);
            ib_state.listen_id = NULL;
        }
    }
    freeifaddrs(ifa_list);
    return bound;
}

/* The completion queue takes every receive of the SRQ and every work request of every QP;
 * it grows as connections come (rdma_rxe and real devices alike can resize). */
int ib_cq_reserve(int more)
{
    int mpi_errno = MPI_SUCCESS;

    cq_need += more;
    if (cq_need > ib_state.cq_size) {
        int size = MPL_MAX(cq_need, 2 * ib_state.cq_size);

        MPIR_ERR_CHKANDJUMP2(ibv_resize_cq(ib_state.cq, size) != 0, mpi_errno, MPI_ERR_OTHER,
                             "**mm|ib_init", "**mm|ib_init %s %s", "ibv_resize_cq",
                             MPL_strerror(errno));
        ib_state.cq_size = size;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    cq_need -= more;
    goto fn_exit;
}

static void* slab_alloc(size_t bytes)
{
    void *p = NULL;

    if (posix_memalign(&p, 4096, bytes) != 0)
        return NULL;
    memset(p, 0, bytes);
    return p;
}

static void release_device(void)
{
    if (ib_state.srq)
        ibv_destroy_srq(ib_state.srq);
    if (ib_state.cq)
        ibv_destroy_cq(ib_state.cq);
    if (ib_state.rmr)
        ibv_dereg_mr(ib_state.rmr);
    if (ib_state.smr)
        ibv_dereg_mr(ib_state.smr);
    if (ib_state.pd)
        ibv_dealloc_pd(ib_state.pd);
    if (ib_state.listen_id)
        rdma_destroy_id(ib_state.listen_id);
    if (ib_state.ch)
        rdma_destroy_event_channel(ib_state.ch);
    free(ib_state.rslab);
    free(ib_state.sslab);
    MPL_free(ib_state.qtab);
    memset(&ib_state, 0, sizeof(ib_state));
    cq_need = 0;
}

/* Open the device behind the listener's address: protection domain, completion queue,
 * shared receive queue and the registered buffers. Returns the failing call's name. */
static const char *open_device(void)
{
    struct ibv_device_attr dattr;
    struct ibv_port_attr pattr;
    struct ibv_srq_init_attr sattr;
    size_t rbytes, sbytes;

    ib_state.ctx = ib_state.listen_id->verbs;
    if (ibv_query_device(ib_state.ctx, &dattr) != 0)
        return "ibv_query_device";
    if (ibv_query_port(ib_state.ctx, ib_state.listen_id->port_num, &pattr) != 0)
        return "ibv_query_port";
    ib_state.rd_atom = MPL_MIN(dattr.max_qp_rd_atom, IB_MAX_READS);
    ib_state.max_msg = MPL_MIN(pattr.max_msg_sz, IB_READ_CHUNK);
    ib_state.nrecv = MPL_MIN(MPL_MAX(MPIR_CVAR_MM_IB_RECV_BUFFERS, 16), dattr.max_srq_wr);

    ib_state.pd = ibv_alloc_pd(ib_state.ctx);
    if (ib_state.pd == NULL)
        return "ibv_alloc_pd";
    ib_state.cq_size = MPL_MIN(ib_state.nrecv + 256, dattr.max_cqe);
    cq_need = ib_state.nrecv;
    ib_state.cq = ibv_create_cq(ib_state.ctx, ib_state.cq_size, NULL, NULL, 0);
    if (ib_state.cq == NULL)
        return "ibv_create_cq";
    memset(&sattr, 0, sizeof(sattr));
    sattr.attr.max_wr = ib_state.nrecv;
    sattr.attr.max_sge = 1;
    ib_state.srq = ibv_create_srq(ib_state.pd, &sattr);
    if (ib_state.srq == NULL)
        return "ibv_create_srq";

    rbytes = (size_t) ib_state.nrecv * IB_BUF_SIZE;
    sbytes = (size_t) IB_SEND_BUFS * IB_BUF_SIZE;
    ib_state.rslab = slab_alloc(rbytes);
    ib_state.sslab = slab_alloc(sbytes);
    if (ib_state.rslab == NULL || ib_state.sslab == NULL)
        return "posix_memalign";
    ib_state.rmr = ibv_reg_mr(ib_state.pd, ib_state.rslab, rbytes, IBV_ACCESS_LOCAL_WRITE);
    ib_state.smr = ibv_reg_mr(ib_state.pd, ib_state.sslab, sbytes, IBV_ACCESS_LOCAL_WRITE);
    if (ib_state.rmr == NULL || ib_state.smr == NULL)
        return "ibv_reg_mr";
    for (int i = IB_SEND_BUFS - 1; i >= 0; i--) {
        ib_sbuf_t *sb = &ib_state.sbufs[i];

        sb->data = ib_state.sslab + (size_t) i * IB_BUF_SIZE;
        sb->next = ib_state.sfree;
        ib_state.sfree = sb;
    }
    for (int i = 0; i < ib_state.nrecv; i++)
        if (ib_srq_post(i) != MPI_SUCCESS)
            return "ibv_post_srq_recv";
    return NULL;
}

static int ib_init(char *card)
{
    struct in_addr addr;
    char a[INET_ADDRSTRLEN];
    const char *what = NULL;
    int flags;

    memset(&ib_state, 0, sizeof(ib_state));
    ib_off_reason = NULL;
    card[0] = '\0';
    if (!kernel_has_rdma()) {
        ib_off_reason = "no RDMA device";
        return MPI_SUCCESS;
    }
    ib_state.token = mm_random64() | 1;
    ib_state.ch = rdma_create_event_channel();
    if (ib_state.ch == NULL) {
        what = "rdma_create_event_channel";
        goto off;
    }
    if (!bind_listener(&addr)) {
        ib_off_reason = "no IPv4 address on an RDMA device";
        goto off_quiet;
    }
    what = open_device();
    if (what)
        goto off;
    if (rdma_listen(ib_state.listen_id, 128) != 0) {
        what = "rdma_listen";
        goto off;
    }
    flags = fcntl(ib_state.ch->fd, F_GETFL);
    if (flags < 0 || fcntl(ib_state.ch->fd, F_SETFL, flags | O_NONBLOCK) != 0) {
        what = "fcntl";
        goto off;
    }
    inet_ntop(AF_INET, &addr, a, sizeof(a));
    snprintf(card, MM_METHOD_CARD_MAX, "%016llx:%u:%s", (unsigned long long) ib_state.token,
             (unsigned) ntohs(rdma_get_src_port(ib_state.listen_id)), a);
    ib_state.up = 1;
    return MPI_SUCCESS;

    /* A device that does not work here makes ib unusable, not the process: the other
     * methods still run, and MPIR_CVAR_MM_REPORT_METHODS says why ib is off. */
  off:
    ib_off_reason = what;
  off_quiet:
    release_device();
    card[0] = '\0';
    return MPI_SUCCESS;
}

static int ib_finalize(void)
{
    int mpi_errno = MPI_SUCCESS;

    if (ib_state.up)
        mpi_errno = ib_wait_closed();
    ib_conn_destroy_all();
    ib_atomic_finalize();
    release_device();
    return mpi_errno;
}

/* ib reaches any peer with a usable card, except this process itself (self is a copy). */
static int ib_can_reach(int lpid, const char *card)
{
    ib_peer_t peer;

    if (!ib_state.up) {
        if (MPIR_CVAR_MM_REPORT_METHODS && ib_off_reason && lpid != MPIR_Process.rank) {
            printf("mm: rank %d: ib is off here (%s)\n", MPIR_Process.rank, ib_off_reason);
            ib_off_reason = NULL;       /* once */
        }
        return 0;
    }
    return lpid != MPIR_Process.rank && ib_parse_card(card, &peer);
}

static int ib_connect(mm_vc_t * vc, const char *card)
{
    int mpi_errno = MPI_SUCCESS;
    ib_vc_t *t = ib_vc(vc);

    memset(t, 0, sizeof(*t));
    if (card) {
        t->peer = MPL_malloc(sizeof(ib_peer_t), MPL_MEM_ADDRESS);
        MPIR_ERR_CHKANDJUMP1(t->peer == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                             "**nomem %s", "mm ib peer");
        ib_parse_card(card, t->peer);
    }
    vc->eager_limit = MPL_MAX(MPIR_CVAR_MM_IB_EAGER_LIMIT, 0);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Write everything queued on vc, then BYE, and wait until the peer's device holds it; the
 * connection itself lives on until the peer's BYE (ib_wait_closed). A peer found dead on
 * the way was reported when it happened (or nothing was waiting for it): finalize goes on. */
static int ib_close(mm_vc_t * vc)
{
    int mpi_errno = MPI_SUCCESS;
    ib_vc_t *t = ib_vc(vc);

    while (!t->failed && (t->wq_head || t->attempt ||
                          (t->conn && (t->bye_state != 2 || !t->conn->bye_acked)))) {
        int made_progress = 0;

        if (t->conn && t->conn->state == IB_CONN_OPEN && t->wq_head == NULL &&
            t->bye_state == 0) {
            t->bye_state = 1;
            mpi_errno = ib_write_progress(vc);
        } else {
            mpi_errno = ib_progress(&made_progress);
            if (mpi_errno == MPI_SUCCESS && !made_progress)
                mm_yield_core();
        }
        if (mpi_errno != MPI_SUCCESS && t->failed)
            mpi_errno = MPI_SUCCESS;
        MPIR_ERR_CHECK(mpi_errno);
    }
    MPL_free(t->peer);
    t->peer = NULL;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

const mm_method_t mm_ib_method = {
    .name = "ib",
    .eager_limit = 8192,
    .caps = MM_METHOD_CAP_CARD | MM_METHOD_CAP_GET | MM_METHOD_CAP_ATOMIC,
    .init = ib_init,
    .finalize = ib_finalize,
    .can_reach = ib_can_reach,
    .connect = ib_connect,
    .post_write = ib_post_write,
    .send_inline = ib_send_inline,
    .post_read = ib_post_read,
    .progress = ib_progress,
    .wait_fd = NULL,            /* completions are polled */
    .close = ib_close,
    .mem_register = ib_mem_register,
    .mem_deregister = ib_mem_deregister,
    .get = ib_get,
    .win_register = ib_win_register,
    .win_deregister = ib_win_deregister,
    .atomic = ib_atomic,
    .rdma = ib_rdma,
};
