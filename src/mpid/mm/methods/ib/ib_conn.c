/*
 * ib method, connections: setup through RDMA-CM (both ends), the tie-break, failure, the
 * qpn -> connection table that receives of the shared receive queue are routed by, and
 * teardown. The handshake is described in ib_impl.h.
 */
#include "mpidimpl.h"
#include "ib_impl.h"
#include <errno.h>

#define IB_RESOLVE_MS 5000

/* Reasons a connect request is rejected, in the reject's private data (pad). */
#define IB_REJ_TIEBREAK 1       /* our own connection to you wins: wait for it */
#define IB_REJ_REFUSED  2

/* ---- the qpn table: open addressing, rebuilt whenever a QP comes or goes (rare) ---- */

static uint32_t qhash(uint32_t qpn, uint32_t size)
{
    return (qpn * 2654435761u) & (size - 1);
}

static int qtab_rebuild(void)
{
    uint32_t size = 16;
    ib_conn_t **tab;

    while (size < 2 * (uint32_t) ib_state.nconns + 2)
        size *= 2;
    tab = MPL_calloc(size, sizeof(*tab), MPL_MEM_ADDRESS);
    if (tab == NULL)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPI_ERR_OTHER, "**nomem", "**nomem %s", "mm ib qp table");
    for (ib_conn_t * c = ib_state.conns; c; c = c->next) {
        uint32_t h;

        if (c->qp == NULL)
            continue;
        for (h = qhash(c->qpn, size); tab[h]; h = (h + 1) & (size - 1));
        tab[h] = c;
    }
    MPL_free(ib_state.qtab);
    ib_state.qtab = tab;
    ib_state.qtab_size = size;
    return MPI_SUCCESS;
}

ib_conn_t *ib_conn_by_qpn(uint32_t qpn)
{
    uint32_t size = ib_state.qtab_size;

    if (size == 0)
        return NULL;
    for (uint32_t h = qhash(qpn, size); ib_state.qtab[h]; h = (h + 1) & (size - 1))
        if (ib_state.qtab[h]->qpn == qpn)
            return ib_state.qtab[h];
    return NULL;
}

/* ---- connection objects ---- */

static ib_conn_t *conn_new(struct rdma_cm_id *id, mm_vc_t * vc, ib_conn_state_t state)
{
    ib_conn_t *conn = MPL_calloc(1, sizeof(*conn), MPL_MEM_ADDRESS);

    if (conn == NULL)
        return NULL;
    conn->id = id;
    id->context = conn;
    conn->vc = vc;
    conn->state = state;
    conn->credits = MPL_MAX(MPIR_CVAR_MM_IB_CREDITS, 1);
    conn->next = ib_state.conns;
    ib_state.conns = conn;
    ib_state.nconns++;
    ib_state.npending++;
    return conn;
}

/* The connection leaves the setup states (OPEN or DEAD). */
static void conn_settled(ib_conn_t * conn)
{
    if (conn->state != IB_CONN_OPEN && conn->state != IB_CONN_DEAD)
        ib_state.npending--;
}

/* Mark conn DEAD: it carries nothing more and is destroyed once its work requests are in
 * (ib_conn_reap). Moving the QP to the error state flushes them. */
static void conn_kill(ib_conn_t * conn)
{
    if (conn->state == IB_CONN_DEAD)
        return;
    conn_settled(conn);
    conn->state = IB_CONN_DEAD;
    ib_state.nconns--;
    if (conn->qp) {
        struct ibv_qp_attr attr = {.qp_state = IBV_QPS_ERR };
        ibv_modify_qp(conn->qp, &attr, IBV_QP_STATE);
    }
    ib_read_abort(conn);
    ib_atomic_abort(conn);
    if (conn->vc) {
        ib_vc_t *t = ib_vc(conn->vc);
        if (t->attempt == conn)
            t->attempt = NULL;
        if (t->conn == conn)
            t->conn = NULL;
    }
}

static int qp_create(ib_conn_t * conn)
{
    int mpi_errno = MPI_SUCCESS;
    struct ibv_qp_init_attr attr;

    MPIR_ERR_CHKANDJUMP2(conn->id->verbs != ib_state.ctx, mpi_errno, MPI_ERR_OTHER,
                         "**mm|ib_init", "**mm|ib_init %s %s", "rdma_create_qp",
                         "the peer is reached through another RDMA device than ours");
    mpi_errno = ib_cq_reserve(ib_sq_depth());
    MPIR_ERR_CHECK(mpi_errno);
    memset(&attr, 0, sizeof(attr));
    attr.send_cq = attr.recv_cq = ib_state.cq;
    attr.srq = ib_state.srq;
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = ib_sq_depth();
    attr.cap.max_send_sge = 1;
    attr.cap.max_inline_data = 64;
    if (rdma_create_qp(conn->id, ib_state.pd, &attr) != 0) {
        /* some devices take no inline data at all */
        attr.cap.max_inline_data = 0;
        if (rdma_create_qp(conn->id, ib_state.pd, &attr) != 0) {
            ib_cq_reserve(-ib_sq_depth());
            MPIR_ERR_SETANDJUMP2(mpi_errno, MPI_ERR_OTHER, "**mm|ib_init", "**mm|ib_init %s %s",
                                 "rdma_create_qp", MPL_strerror(errno));
        }
    }
    ib_state.max_inline = attr.cap.max_inline_data;
    conn->qp = conn->id->qp;
    conn->qpn = conn->qp->qp_num;
    mpi_errno = qtab_rebuild();

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static void conn_param(struct rdma_conn_param *p, const ib_cm_data_t * data)
{
    memset(p, 0, sizeof(*p));
    p->private_data = data;
    p->private_data_len = sizeof(*data);
    p->responder_resources = ib_state.rd_atom;
    p->initiator_depth = ib_state.rd_atom;
    p->retry_count = 7;
    p->rnr_retry_count = 7;     /* infinite: an empty SRQ slows a sender, never fails it */
}

static ib_cm_data_t cm_data(uint64_t token, uint16_t reason)
{
    ib_cm_data_t d;

    memset(&d, 0, sizeof(d));
    d.magic = IB_CM_MAGIC;
    d.version = IB_CM_VERSION;
    d.pad = reason;
    d.gpid = mm_my_gpid;
    d.token = token;
    return d;
}

static int connect_error(mm_vc_t * vc, const char *why)
{
    ib_vc(vc)->failed = 1;
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                MPIX_ERR_PROC_FAILED, "**mm|ib_connect", "**mm|ib_connect %d %s",
                                vc->lpid, why);
}

int ib_conn_start(mm_vc_t * vc)
{
    int mpi_errno = MPI_SUCCESS;
    ib_vc_t *t = ib_vc(vc);
    struct rdma_cm_id *id = NULL;
    struct sockaddr_in sin;
    ib_conn_t *conn;

    if (t->peer == NULL)
        /* The peer reached us first and we never learnt its card: it owns the connection,
         * and a broken one cannot be remade from here. */
        return connect_error(vc, "no card to connect with");
    if (rdma_create_id(ib_state.ch, &id, NULL, RDMA_PS_TCP) != 0)
        return connect_error(vc, MPL_strerror(errno));
    conn = conn_new(id, vc, IB_CONN_RESOLVING);
    if (conn == NULL) {
        rdma_destroy_id(id);
        return connect_error(vc, "out of memory");
    }
    t->attempt = conn;
    memset(&sin, 0, sizeof(sin));
    sin.sin_family = AF_INET;
    sin.sin_port = htons(t->peer->port);
    sin.sin_addr = t->peer->addr;
    if (rdma_resolve_addr(id, NULL, (struct sockaddr *) &sin, IB_RESOLVE_MS) != 0) {
        conn_kill(conn);
        mpi_errno = connect_error(vc, MPL_strerror(errno));
    }
    return mpi_errno;
}

/* Ours: the route is known; create the QP and ask. */
static int conn_request(ib_conn_t * conn)
{
    int mpi_errno;
    struct rdma_conn_param param;
    ib_cm_data_t data = cm_data(ib_vc(conn->vc)->peer->token, 0);

    mpi_errno = qp_create(conn);
    if (mpi_errno)
        return mpi_errno;
    conn_param(&param, &data);
    if (rdma_connect(conn->id, &param) != 0)
        return connect_error(conn->vc, MPL_strerror(errno));
    conn->state = IB_CONN_CONNECTING;
    return MPI_SUCCESS;
}

/* Both ends: the connection carries the VC from now on. */
static int conn_open(ib_conn_t * conn)
{
    ib_vc_t *t = ib_vc(conn->vc);

    conn_settled(conn);
    conn->state = IB_CONN_OPEN;
    if (t->attempt == conn)
        t->attempt = NULL;
    t->conn = conn;
    if (t->aq) {
        int mpi_errno = ib_atomic_vc_open(conn->vc, conn);
        if (mpi_errno)
            return mpi_errno;
    }
    return ib_write_progress(conn->vc);
}

static void reject(struct rdma_cm_id *id, uint16_t reason)
{
    ib_cm_data_t data = cm_data(0, reason);

    rdma_reject(id, &data, sizeof(data));
    rdma_destroy_id(id);
}

/* Theirs: a connect request arrived on the listener (id is the new connection's). */
static int conn_incoming(struct rdma_cm_id *id, const ib_cm_data_t * d, size_t len)
{
    int mpi_errno = MPI_SUCCESS;
    struct rdma_conn_param param;
    ib_cm_data_t data;
    mm_vc_t *vc;
    ib_vc_t *t;
    ib_conn_t *conn;
    int lpid = -1, accept;

    if (len < sizeof(*d) || d->magic != IB_CM_MAGIC || d->version != IB_CM_VERSION ||
        d->token != ib_state.token || d->gpid == mm_my_gpid ||
        mm_vc_lookup(d->gpid, NULL, 1, &lpid) != MPI_SUCCESS || lpid < 0) {
        /* not for us (a stale port, a stranger): refused, nothing else happens */
        reject(id, IB_REJ_REFUSED);
        goto fn_exit;
    }
    vc = mm_vc_at(lpid);
    if (vc->state == MM_VC_STATE_UNBOUND && lpid >= MPIR_Process.size && vc->cards == NULL) {
        /* A process of another job that reached us before we learnt its cards. */
        mpi_errno = mm_methods_bind(vc, &mm_ib_method, NULL);
        MPIR_ERR_CHECK(mpi_errno);
    }
    mpi_errno = mm_vc_get(lpid, &vc);
    MPIR_ERR_CHECK(mpi_errno);
    if (vc->method != &mm_ib_method) {
        reject(id, IB_REJ_REFUSED);     /* the peer disagrees on MPIR_CVAR_MM_METHODS */
        goto fn_exit;
    }
    t = ib_vc(vc);
    /* The tie-break: a connection started by the lower gpid wins. */
    if (t->conn)
        accept = 0;
    else if (t->attempt)
        accept = d->gpid < mm_my_gpid;
    else
        accept = !t->failed;
    if (!accept) {
        reject(id, t->failed ? IB_REJ_REFUSED : IB_REJ_TIEBREAK);
        goto fn_exit;
    }
    conn = conn_new(id, vc, IB_CONN_ACCEPTING);
    if (conn == NULL) {
        reject(id, IB_REJ_REFUSED);
        goto fn_exit;
    }
    mpi_errno = qp_create(conn);
    if (mpi_errno == MPI_SUCCESS) {
        data = cm_data(0, 0);
        conn_param(&param, &data);
        if (rdma_accept(id, &param) != 0)
            mpi_errno = connect_error(vc, MPL_strerror(errno));
    }
    if (mpi_errno) {
        conn_kill(conn);
        goto fn_fail;
    }
    /* Our own attempt lost: drop it now rather than wait for the peer to reject it from
     * a progress engine it may never run again (it may be finalizing, in a PMI barrier
     * that waits for us). Writes queue until the accepted connection is established. */
    if (t->attempt)
        conn_kill(t->attempt);
    t->conn = conn;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Ours was rejected or could not be set up. */
static int conn_refused(ib_conn_t * conn, int reason, const char *why)
{
    mm_vc_t *vc = conn->vc;
    ib_vc_t *t = ib_vc(vc);

    conn_kill(conn);
    if (t->conn || reason == IB_REJ_TIEBREAK)
        /* the peer's connection carries the VC (or is on its way to our listener) */
        return MPI_SUCCESS;
    return connect_error(vc, why);
}

int ib_conn_fail(ib_conn_t * conn, const char *why)
{
    mm_vc_t *vc = conn->vc;
    int clean = conn->got_bye || ib_state.finalizing;

    if (conn->failed)
        return MPI_SUCCESS;
    conn->failed = 1;
    conn_kill(conn);
    if (vc == NULL || clean)
        return MPI_SUCCESS;
    ib_vc(vc)->failed = 1;
    mm_progress_peer_lost(vc->lpid);
    return MPIR_Err_create_code(MM_ERR_LOST_ROOT, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                MPIX_ERR_PROC_FAILED, "**mm|ib_lost", "**mm|ib_lost %d %s",
                                vc->lpid, why);
}

static int cm_event(struct rdma_cm_event *ev)
{
    int mpi_errno = MPI_SUCCESS;
    enum rdma_cm_event_type type = ev->event;
    struct rdma_cm_id *id = ev->id;
    ib_conn_t *conn = type == RDMA_CM_EVENT_CONNECT_REQUEST ? NULL : id->context;
    ib_cm_data_t data;
    size_t len = 0;
    int status = ev->status;

    memset(&data, 0, sizeof(data));
    if (ev->param.conn.private_data) {
        len = MPL_MIN(ev->param.conn.private_data_len, sizeof(data));
        memcpy(&data, ev->param.conn.private_data, len);
    }
    /* Acknowledge before acting: destroying an id waits for its events' acknowledgements. */
    rdma_ack_cm_event(ev);

    if (type == RDMA_CM_EVENT_CONNECT_REQUEST)
        return conn_incoming(id, &data, len);
    if (conn == NULL || conn->state == IB_CONN_DEAD)
        return MPI_SUCCESS;     /* a listener event, or a connection already dropped */

    switch (type) {
        case RDMA_CM_EVENT_ADDR_RESOLVED:
            if (rdma_resolve_route(id, IB_RESOLVE_MS) != 0)
                mpi_errno = conn_refused(conn, 0, MPL_strerror(errno));
            break;
        case RDMA_CM_EVENT_ROUTE_RESOLVED:
            mpi_errno = conn_request(conn);
            if (mpi_errno)
                conn_kill(conn);
            break;
        case RDMA_CM_EVENT_ESTABLISHED:
            mpi_errno = conn_open(conn);
            break;
        case RDMA_CM_EVENT_REJECTED:
            mpi_errno = conn_refused(conn, len == sizeof(data) && data.magic == IB_CM_MAGIC ?
                                     data.pad : 0, "connection refused");
            break;
        case RDMA_CM_EVENT_ADDR_ERROR:
        case RDMA_CM_EVENT_ROUTE_ERROR:
        case RDMA_CM_EVENT_UNREACHABLE:
        case RDMA_CM_EVENT_CONNECT_ERROR:
            if (conn->state == IB_CONN_OPEN)
                mpi_errno = ib_conn_fail(conn, rdma_event_str(type));
            else if (conn->state == IB_CONN_ACCEPTING)
                mpi_errno = ib_conn_fail(conn, rdma_event_str(type));
            else
                mpi_errno = conn_refused(conn, 0, status ? MPL_strerror(-status) :
                                         rdma_event_str(type));
            break;
        case RDMA_CM_EVENT_DISCONNECTED:
        case RDMA_CM_EVENT_DEVICE_REMOVAL:
            /* The peer's BYE, if it sent one, may still sit in the completion queue: take
             * it before deciding whether this was a clean end. */
            conn->peer_gone = 1;
            mpi_errno = ib_poll_cq(&(int) {0});
            if (mpi_errno == MPI_SUCCESS && conn->state != IB_CONN_DEAD)
                mpi_errno = conn->got_bye ? (conn_kill(conn), MPI_SUCCESS) :
                    ib_conn_fail(conn, rdma_event_str(type));
            break;
        default:
            break;
    }
    return mpi_errno;
}

/* RDMA-CM's events; without connections in setup, only every IB_CM_IDLE_SKIP-th pass
 * (a read() system call each: a peer's first connect waits that many passes at most). */
#define IB_CM_IDLE_SKIP 256

int ib_cm_progress(int *made_progress)
{
    int mpi_errno = MPI_SUCCESS;
    struct rdma_cm_event *ev;

    if (ib_state.npending == 0 && (++ib_state.cm_polls % IB_CM_IDLE_SKIP) != 0)
        return MPI_SUCCESS;
    while (mpi_errno == MPI_SUCCESS && rdma_get_cm_event(ib_state.ch, &ev) == 0) {
        *made_progress = 1;
        mpi_errno = cm_event(ev);
    }
    return mpi_errno;
}

static void conn_destroy(ib_conn_t * conn)
{
    if (conn->qp) {
        rdma_destroy_qp(conn->id);
        ib_cq_reserve(-ib_sq_depth());
    }
    rdma_destroy_id(conn->id);
    if (conn->cur) {
        conn->cur->next = ib_state.sfree;
        ib_state.sfree = conn->cur;
    }
    MPL_free(conn);
}

/* Destroy the DEAD connections whose work requests have all come back, and the finished
 * ones (BYE went both ways and ours was received). */
void ib_conn_reap(void)
{
    ib_conn_t **pp = &ib_state.conns;
    int changed = 0;

    while (*pp) {
        ib_conn_t *conn = *pp;

        if (conn->state == IB_CONN_OPEN && conn->got_bye && conn->bye_acked)
            conn_kill(conn);
        if (conn->state == IB_CONN_DEAD && conn->sq_used == 0) {
            *pp = conn->next;
            conn_destroy(conn);
            changed = 1;
        } else {
            pp = &conn->next;
        }
    }
    if (changed)
        qtab_rebuild();
}

void ib_conn_destroy_all(void)
{
    while (ib_state.conns) {
        ib_conn_t *conn = ib_state.conns;

        ib_state.conns = conn->next;
        conn_kill(conn);
        conn_destroy(conn);
    }
    MPL_free(ib_state.qtab);
    ib_state.qtab = NULL;
    ib_state.qtab_size = 0;
}
