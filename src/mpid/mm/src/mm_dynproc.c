/*
 * mm device: dynamic processes. Ports, accept/connect, spawn, disconnect, and the universe
 * size. (MPI_Comm_join and the name service are MPICH's, built on these.)
 *
 * PORTS. A port name is "mmport:<tag>-<secret>:<description of the opening process>"
 * (mm_vc.h: its gpid and cards), so a process of any job can reach the opener by the normal
 * method selection. The tag, never reused within the process, tells its ports apart. The
 * secret, 64 random bits drawn by MPI_Open_port, is what a connect request must carry: the
 * description (with tcp's per-process token) is the same in every port the process opens
 * and tags are easy to guess, so without it anyone who ever saw one of its port names
 * could connect through any other. A request without it is answered DENIED and the
 * accept waits for the next.
 *
 * ACCEPT/CONNECT, between the two roots:
 *     connector                                    acceptor (in MPI_Comm_accept)
 *     REQ {ctx C, own description}   ---------->   a receive on the port channel (context
 *         on the port channel, tag = port tag      MM_CTX_PORT, tag = port tag) takes the
 *                                                  oldest REQ: connects are served in order
 *                                    <----------   REPLY {ctx A, ok}, on context C
 * C and A are fresh context ids; from then on the two roots talk over a one-to-one
 * intercommunicator (send to the other's, receive on their own) and run the groups' exchange
 * of mm_intercomm.c, adding the context id each side allocated for the new intercomm over
 * its own group. Each root then broadcasts the outcome to its group, so a failure (port
 * closed, nobody accepting before the timeout, peer unreachable) is an error on every
 * process of the group, not a hang. A REQ nobody takes is withdrawn (it is an ordinary
 * message, so MPI_Cancel works on it) when the timeout passes; ports closed with REQs
 * waiting answer them "refused".
 *
 * SPAWN. The root opens a port, has the process manager start the children with the port
 * name in their PMI space (PARENT_ROOT_PORT_NAME, the key hydra and MPICH's devices use),
 * and accepts; each child's MPID_InitCompleted connects to it over MPI_COMM_WORLD and the
 * result becomes MPI_COMM_PARENT.
 *
 * DISCONNECT waits until no request on the communicator is pending (each holds a reference
 * on it), then frees it; VCs to processes of other jobs that no communicator names any more
 * are closed then (mm_vc_comm_unref), which lets either job finalize on its own.
 */

#include "mpidimpl.h"
#include "mm_subsys.h"
#include <limits.h>
#include <time.h>

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_MM_CONNECT_TIMEOUT
      category    : MM
      type        : int
      default     : 60
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_GROUP_EQ
      description : >-
        Seconds MPI_Comm_connect waits for an MPI_Comm_accept on the port before it fails
        with MPI_ERR_PORT. The info key "timeout" of the call overrides it.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

#define MM_PORT_TAG_REPLY 0
#define MM_PORT_TAG_SWAP 1
#define MM_PARENT_PORT_KEY "PARENT_ROOT_PORT_NAME"
#define MM_DESCR_MAX MM_PORT_DESCR_MAX

typedef struct mm_port {
    int tag;
    uint64_t secret;
    struct mm_port *next;
} mm_port_t;

static mm_port_t *open_ports;
static int last_port_tag;

/* --- port names --- */

static int port_parse(const char *port_name, int *tag, uint64_t * secret, uint64_t * gpid,
                      const char **cards)
{
    int mpi_errno = MPI_SUCCESS;
    size_t n = port_name ? strnlen(port_name, MPI_MAX_PORT_NAME) : 0;

    if (port_name && n < MPI_MAX_PORT_NAME &&
        mm_wire_port_parse(port_name, n + 1, tag, secret, gpid, cards) == MM_WIRE_OK)
        return MPI_SUCCESS;

  bad:
    MPIR_ERR_SET1(mpi_errno, MPI_ERR_PORT, "**mm|badport", "**mm|badport %s",
                  port_name ? port_name : "(null)");
    return mpi_errno;
}

static mm_port_t **port_find(int tag)
{
    mm_port_t **pp;

    for (pp = &open_ports; *pp; pp = &(*pp)->next)
        if ((*pp)->tag == tag)
            return pp;
    return NULL;
}

int MPID_Open_port(MPIR_Info * info, char *port_name)
{
    int mpi_errno = MPI_SUCCESS;
    mm_port_t *port;
    int n;

    port = MPL_malloc(sizeof(*port), MPL_MEM_DYNAMIC);
    MPIR_ERR_CHKANDJUMP1(port == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm port");
    port->tag = ++last_port_tag;
    port->secret = mm_random64();
    n = snprintf(port_name, MPI_MAX_PORT_NAME, MM_PORT_PREFIX "%d-%0*llx:", port->tag,
                 MM_PORT_SECRET_DIGITS, (unsigned long long) port->secret);
    if (mm_vc_describe(MPIR_Process.rank, 1, port_name + n, MPI_MAX_PORT_NAME - n) < 0) {
        MPL_free(port);
        MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**mm|portlen", "**mm|portlen %d",
                             MPI_MAX_PORT_NAME);
    }
    port->next = open_ports;
    open_ports = port;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* --- the roots' handshake --- */

static double deadline_after(int seconds)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9 + seconds;
}

static int connect_timeout(MPIR_Info * info)
{
    int timeout = MPIR_CVAR_MM_CONNECT_TIMEOUT, flag = 0;
    char val[MPI_MAX_INFO_VAL + 1];

    if (info) {
        MPIR_Info_get_impl(info, "timeout", MPI_MAX_INFO_VAL, val, &flag);
        if (flag && atoi(val) > 0)
            timeout = atoi(val);
    }
    return timeout;
}

/* Answer a REQ (taken from the port channel) on the connector's context. With status OK
 * the one-to-one intercommunicator stays for the exchange (*tmp); otherwise it is gone. */
static int port_reply(const mm_port_req_t * req, size_t got, int status, MPIR_Comm ** tmp)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *sreq;
    MPIR_Context_id_t ctx = 0;
    mm_port_reply_t reply = {.magic = MM_PORT_MAGIC,.status = status };
    uint64_t gpid;
    const char *cards;
    int lpid;

    *tmp = NULL;
    MPIR_ERR_CHKANDJUMP1(mm_wire_port_req_check(req, got, &gpid, &cards) != MM_WIRE_OK,
                         mpi_errno, MPI_ERR_OTHER, "**mm|badport", "**mm|badport %s",
                         "(a malformed connect request)");
    mpi_errno = mm_vc_lookup(gpid, cards, 1, &lpid);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_Get_contextid_sparse(MPIR_Process.comm_self, &ctx, FALSE);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_peer_intercomm_create((MPIR_Context_id_t) req->ctx, ctx, (uint64_t) lpid,
                                           1, tmp);
    if (mpi_errno) {
        MPIR_Free_contextid(ctx);
        MPIR_ERR_CHECK(mpi_errno);
    }
    reply.ctx = ctx;
    /* Point-to-point context (offset 0), where the connector's receive waits. */
    mpi_errno = MPID_Isend(&reply, sizeof(reply), MPI_BYTE, 0, MM_PORT_TAG_REPLY, *tmp, 0,
                           &sreq);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPID_Wait(sreq, MPI_STATUS_IGNORE);
    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = sreq->status.MPI_ERROR;
    MPIR_Request_free(sreq);
    MPIR_ERR_CHECK(mpi_errno);
    if (status != MM_PORT_OK) {
        MPIR_Comm_release(*tmp);
        *tmp = NULL;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    if (*tmp) {
        MPIR_Comm_release(*tmp);
        *tmp = NULL;
    }
    goto fn_exit;
}

static int port_post_recv(int tag, mm_port_req_t * buf, MPIR_Request ** req)
{
    MPIR_Comm *self = MPIR_Process.comm_self;

    return MPID_Irecv(buf, sizeof(*buf), MPI_BYTE, MPI_ANY_SOURCE, tag, self,
                      MM_CTX_PORT - self->recvcontext_id, req);
}

/* A message on a port that is not a connect request, or one without the port's secret:
 * reported once (with MPIR_CVAR_MM_REPORT_METHODS, as tcp reports refused connections). */
static void port_refused(const char *port_name, const char *why)
{
    static int reported;

    if (MPIR_CVAR_MM_REPORT_METHODS && !reported) {
        fprintf(stderr, "mm: rank %d refused %s on port %s (further ones are not reported)\n",
                MPIR_Process.rank, why, port_name);
        reported = 1;
    }
}

/* Acceptor root: take the oldest REQ on the port and answer it. Anyone who can reach this
 * process can send to the port channel, so a REQ that is not one (wrong size, magic,
 * context or description) is dropped, and one without the port's secret is answered
 * DENIED, and the accept waits for the next: a stray message must not fail the call. */
static int accept_root(const char *port_name, MPIR_Comm ** tmp)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *rreq = NULL;
    mm_port_req_t *req = NULL;
    uint64_t gpid, secret;
    const char *cards;
    mm_port_t **pp;
    int tag;

    mpi_errno = port_parse(port_name, &tag, &secret, &gpid, &cards);
    MPIR_ERR_CHECK(mpi_errno);
    pp = port_find(tag);
    MPIR_ERR_CHKANDJUMP2(gpid != mm_my_gpid || pp == NULL || (*pp)->secret != secret,
                         mpi_errno, MPI_ERR_PORT,
                         "**mm|portclosed", "**mm|portclosed %s %s", port_name,
                         "MPI_Comm_accept needs a port this process opened and has not closed");
    req = MPL_malloc(sizeof(*req), MPL_MEM_DYNAMIC);
    MPIR_ERR_CHKANDJUMP1(req == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm connect request");
    for (;;) {
        size_t got;

        memset(req, 0, sizeof(*req));
        mpi_errno = port_post_recv(tag, req, &rreq);
        MPIR_ERR_CHECK(mpi_errno);
        mpi_errno = MPID_Wait(rreq, MPI_STATUS_IGNORE);
        MPIR_ERR_CHECK(mpi_errno);
        got = (size_t) MPIR_STATUS_GET_COUNT(rreq->status);
        mpi_errno = rreq->status.MPI_ERROR;
        MPIR_Request_free(rreq);
        rreq = NULL;
        if (mpi_errno == MPI_SUCCESS && mm_wire_port_req_check(req, got, &gpid, &cards) == MM_WIRE_OK) {
            MPIR_Comm *denied = NULL;

            if (req->secret == secret)
                break;
            /* Tell the connector (best effort: it may be gone), and wait for the next. */
            port_refused(port_name, "a connect request without the port's secret");
            (void) port_reply(req, got, MM_PORT_DENIED, &denied);
            continue;
        }
        /* Truncated (longer than a REQ) or malformed: not a connect request. */
        port_refused(port_name, "a malformed connect request");
        mpi_errno = MPI_SUCCESS;
    }
    mpi_errno = port_reply(req, sizeof(*req), MM_PORT_OK, tmp);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    if (rreq)
        MPIR_Request_free(rreq);
    MPL_free(req);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Connector root: send REQ, wait for REPLY (or the timeout). */
static int connect_root(const char *port_name, int timeout, MPIR_Comm ** tmp)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *sreq = NULL, *rreq = NULL;
    mm_port_req_t *req = NULL;
    mm_port_reply_t reply;
    MPIR_Context_id_t ctx = 0;
    uint64_t gpid, secret;
    const char *cards;
    int tag, lpid;

    *tmp = NULL;
    mpi_errno = port_parse(port_name, &tag, &secret, &gpid, &cards);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = mm_vc_lookup(gpid, cards, 1, &lpid);
    MPIR_ERR_CHECK(mpi_errno);
    req = MPL_calloc(1, sizeof(*req), MPL_MEM_DYNAMIC);
    MPIR_ERR_CHKANDJUMP1(req == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm connect request");
    mpi_errno = MPIR_Get_contextid_sparse(MPIR_Process.comm_self, &ctx, FALSE);
    MPIR_ERR_CHECK(mpi_errno);
    /* The acceptor's context is not known yet: 0 until the REPLY names it. */
    mpi_errno = MPIR_peer_intercomm_create(0, ctx, (uint64_t) lpid, 0, tmp);
    if (mpi_errno) {
        MPIR_Free_contextid(ctx);
        MPIR_ERR_CHECK(mpi_errno);
    }
    req->magic = MM_PORT_MAGIC;
    req->ctx = ctx;
    req->secret = secret;
    MPIR_ERR_CHKANDJUMP1(mm_vc_describe(MPIR_Process.rank, 1, req->descr, sizeof(req->descr)) < 0,
                         mpi_errno, MPI_ERR_OTHER, "**mm|portlen", "**mm|portlen %d",
                         MM_DESCR_MAX);

    mpi_errno = MPID_Irecv(&reply, sizeof(reply), MPI_BYTE, 0, MM_PORT_TAG_REPLY, *tmp, 0, &rreq);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPID_Isend(req, sizeof(*req), MPI_BYTE, 0, tag, *tmp, MM_CTX_PORT, &sreq);
    MPIR_ERR_CHECK(mpi_errno);
    /* Until the REPLY, the deadline, or the REQ failing (the port's process is gone). */
    {
        double deadline = deadline_after(timeout);

        /* Polls, not MPID_Progress_wait: that returns only once something happens. */
        while (!MPIR_Request_is_complete(rreq) && !(MPIR_Request_is_complete(sreq) &&
                                                    sreq->status.MPI_ERROR != MPI_SUCCESS)) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            if (ts.tv_sec + ts.tv_nsec * 1e-9 >= deadline)
                break;
            mpi_errno = MPID_Progress_test(NULL);
            if (mpi_errno)
                break;
            mm_yield_core();
        }
        /* the connection to the port's process failed under us */
        MPIR_ERR_CHKANDJUMP2(mpi_errno, mpi_errno, MPI_ERR_PORT, "**mm|portunreach",
                             "**mm|portunreach %s %d", port_name, MPIR_ERR_GET_CLASS(mpi_errno));
    }
    if (!MPIR_Request_is_complete(rreq)) {
        /* Withdraw what is outstanding without waiting for the acceptor's process, which
         * may not be in MPI at all: its engine drops the REQ when the cancel arrives. */
        int err = MPIR_Request_is_complete(sreq) ? sreq->status.MPI_ERROR : MPI_SUCCESS;
        mpi_errno = MPID_Cancel_recv(rreq);
        MPIR_ERR_CHECK(mpi_errno);
        if (err == MPI_SUCCESS)
            (void) MPID_Cancel_send(sreq);
        MPIR_ERR_CHKANDJUMP2(err != MPI_SUCCESS, mpi_errno, MPI_ERR_PORT, "**mm|portunreach",
                             "**mm|portunreach %s %d", port_name, MPIR_ERR_GET_CLASS(err));
        MPIR_ERR_SETANDJUMP2(mpi_errno, MPI_ERR_PORT, "**mm|connecttimeout",
                             "**mm|connecttimeout %s %d", port_name, timeout);
    }
    MPIR_ERR_CHKANDJUMP1(mm_wire_port_reply_check(&reply, (size_t)
                                                  MPIR_STATUS_GET_COUNT(rreq->status)) !=
                         MM_WIRE_OK, mpi_errno, MPI_ERR_PORT, "**mm|badport", "**mm|badport %s",
                         port_name);
    MPIR_ERR_CHKANDJUMP1(reply.status == MM_PORT_DENIED, mpi_errno, MPI_ERR_PORT,
                         "**mm|portsecret", "**mm|portsecret %s", port_name);
    MPIR_ERR_CHKANDJUMP2(reply.status != MM_PORT_OK, mpi_errno, MPI_ERR_PORT,
                         "**mm|portclosed", "**mm|portclosed %s %s", port_name,
                         "the port was closed before it accepted this connect");
    (*tmp)->context_id = (MPIR_Context_id_t) reply.ctx;

  fn_exit:
    if (sreq)
        MPIR_Request_free(sreq);
    if (rreq)
        MPIR_Request_free(rreq);
    MPL_free(req);
    return mpi_errno;
  fn_fail:
    if (*tmp) {
        MPIR_Comm_release(*tmp);
        *tmp = NULL;
    }
    goto fn_exit;
}

int MPID_Close_port(const char *port_name)
{
    int mpi_errno = MPI_SUCCESS;
    mm_port_t **pp, *port;
    uint64_t gpid, secret;
    const char *cards;
    int tag, found;

    mpi_errno = port_parse(port_name, &tag, &secret, &gpid, &cards);
    MPIR_ERR_CHECK(mpi_errno);
    pp = port_find(tag);
    MPIR_ERR_CHKANDJUMP2(gpid != mm_my_gpid || pp == NULL || (*pp)->secret != secret,
                         mpi_errno, MPI_ERR_PORT,
                         "**mm|portclosed", "**mm|portclosed %s %s", port_name,
                         "it is not an open port of this process");
    port = *pp;
    *pp = port->next;
    MPL_free(port);

    /* Connects that came too late get an answer rather than a timeout. */
    do {
        MPI_Status status;
        mm_port_req_t *req;
        MPIR_Request *rreq = NULL;
        MPIR_Comm *self = MPIR_Process.comm_self, *tmp = NULL;

        mpi_errno = MPID_Iprobe(MPI_ANY_SOURCE, tag, self, MM_CTX_PORT - self->recvcontext_id,
                                &found, &status);
        MPIR_ERR_CHECK(mpi_errno);
        if (!found)
            break;
        req = MPL_calloc(1, sizeof(*req), MPL_MEM_DYNAMIC);
        MPIR_ERR_CHKANDJUMP1(req == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                             "mm connect request");
        mpi_errno = port_post_recv(tag, req, &rreq);
        if (mpi_errno == MPI_SUCCESS)
            mpi_errno = MPID_Wait(rreq, MPI_STATUS_IGNORE);
        if (mpi_errno == MPI_SUCCESS && rreq->status.MPI_ERROR == MPI_SUCCESS)
            (void) port_reply(req, (size_t) MPIR_STATUS_GET_COUNT(rreq->status),
                              MM_PORT_REFUSED, &tmp);   /* best effort */
        if (rreq)
            MPIR_Request_free(rreq);
        MPL_free(req);
        MPIR_ERR_CHECK(mpi_errno);
    } while (found);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* --- accept and connect --- */

/* Both sides: the root runs the handshake (handshake() leaves the one-to-one
 * intercommunicator in tmp), swaps the groups and new context ids, and every process
 * builds the intercommunicator. */
static int dynproc_join(MPIR_Comm * comm, int root, int is_acceptor, const char *port_name,
                        MPIR_Info * info, MPIR_Comm ** newcomm)
{
    int mpi_errno = MPI_SUCCESS, root_errno = MPI_SUCCESS;
    MPIR_Errflag_t errflag = MPIR_ERR_NONE;
    MPIR_Context_id_t my_ctx = 0;
    MPIR_Comm *tmp = NULL, *ic = NULL;
    mm_group_info_t ginfo = { 0 };
    uint64_t *lpids = NULL;
    int hdr[2] = { MPI_SUCCESS, 0 };    /* root's outcome, the remote group's context id */

    *newcomm = NULL;
    /* The context id the new intercommunicator receives on, agreed within our group. */
    mpi_errno = MPIR_Get_contextid_sparse(comm, &my_ctx, FALSE);
    MPIR_ERR_CHECK(mpi_errno);

    if (comm->rank == root) {
        int peer_ctx = 0, ctx = my_ctx;

        if (is_acceptor)
            root_errno = accept_root(port_name, &tmp);
        else
            root_errno = connect_root(port_name, connect_timeout(info), &tmp);
        if (root_errno == MPI_SUCCESS)
            root_errno = mm_group_swap(comm, tmp, 0, MM_PORT_TAG_SWAP, &ginfo);
        if (root_errno == MPI_SUCCESS)
            root_errno = MPIC_Sendrecv(&ctx, 1, MPI_INT, 0, MM_PORT_TAG_SWAP, &peer_ctx, 1,
                                       MPI_INT, 0, MM_PORT_TAG_SWAP, tmp, MPI_STATUS_IGNORE,
                                       &errflag);
        /* The acceptor's group is the low one, whatever the gpids say: a process that
         * connects to itself is both leaders. */
        ginfo.is_low_group = is_acceptor;
        hdr[0] = root_errno == MPI_SUCCESS ? MPI_SUCCESS : MPIR_ERR_GET_CLASS(root_errno);
        hdr[1] = peer_ctx;
    }
    mpi_errno = MPIR_Bcast(hdr, 2, MPI_INT, root, comm, &errflag);
    MPIR_ERR_CHECK(mpi_errno);
    if (hdr[0] != MPI_SUCCESS) {
        if (comm->rank == root)
            mpi_errno = root_errno;
        else
        {
            int errclass = hdr[0];      /* the root's error class, for everyone */
            mpi_errno = MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__,
                                             __LINE__, errclass, "**mm|rootfailed",
                                             "**mm|rootfailed %d", root);
        }
        goto fn_fail;
    }
    mpi_errno = mm_group_bcast(comm, root, &ginfo);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = mm_group_lpids(&ginfo, &lpids);
    MPIR_ERR_CHECK(mpi_errno);

    mpi_errno = MPIR_Comm_create(&ic);
    MPIR_ERR_CHECK(mpi_errno);
    ic->context_id = (MPIR_Context_id_t) hdr[1];
    ic->recvcontext_id = my_ctx;
    my_ctx = 0;         /* ic owns it now */
    ic->remote_size = ginfo.remote_size;
    ic->local_size = comm->local_size;
    ic->rank = comm->rank;
    ic->comm_kind = MPIR_COMM_KIND__INTERCOMM;
    ic->local_comm = NULL;
    ic->is_low_group = ginfo.is_low_group;
    mpi_errno = MPID_Create_intercomm_from_lpids(ic, ginfo.remote_size, lpids);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_Comm_map_dup(ic, comm, MPIR_COMM_MAP_DIR__L2L);
    ic->tainted = 1;
    mpi_errno = MPIR_Comm_commit(ic);
    MPIR_ERR_CHECK(mpi_errno);
    *newcomm = ic;
    ic = NULL;

  fn_exit:
    /* After the new intercommunicator took its references on the VCs. */
    if (tmp)
        MPIR_Comm_release(tmp);
    MPL_free(ginfo.blob);
    MPL_free(lpids);
    return mpi_errno;
  fn_fail:
    if (ic)
        MPIR_Comm_release(ic);
    else if (my_ctx)
        MPIR_Free_contextid(my_ctx);
    goto fn_exit;
}

int MPID_Comm_accept(const char *port_name, MPIR_Info * info, int root, MPIR_Comm * comm,
                     MPIR_Comm ** newcomm)
{
    return dynproc_join(comm, root, 1, port_name, info, newcomm);
}

int MPID_Comm_connect(const char *port_name, MPIR_Info * info, int root, MPIR_Comm * comm,
                      MPIR_Comm ** newcomm)
{
    return dynproc_join(comm, root, 0, port_name, info, newcomm);
}

int MPID_Comm_disconnect(MPIR_Comm * comm)
{
    int mpi_errno = MPI_SUCCESS;
    MPID_Progress_state state;

    /* Every request on comm holds a reference: wait until ours is the last. */
    MPID_Progress_start(&state);
    while (MPIR_Object_get_ref(comm) > 1) {
        mpi_errno = MPID_Progress_wait(&state);
        if (mpi_errno)
            break;
    }
    MPID_Progress_end(&state);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_Comm_free_impl(comm);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* --- spawn --- */

int MPID_Comm_spawn_multiple(int count, char *commands[], char **argvs[], const int maxprocs[],
                             MPIR_Info * infos[], int root, MPIR_Comm * comm,
                             MPIR_Comm ** intercomm, int errcodes[])
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Errflag_t errflag = MPIR_ERR_NONE;
    char port_name[MPI_MAX_PORT_NAME] = "";
    int *pmi_errcodes = NULL;
    int hdr[2] = { 0, MPI_SUCCESS };    /* processes asked for, the root's outcome */
    int root_errno = MPI_SUCCESS, nstarted = 0;

    *intercomm = NULL;
    if (comm->rank == root) {
        for (int i = 0; i < count; i++)
            hdr[0] += maxprocs[i];
        pmi_errcodes = MPL_calloc(MPL_MAX(hdr[0], 1), sizeof(int), MPL_MEM_DYNAMIC);
        if (pmi_errcodes == NULL)
            MPIR_ERR_SET1(root_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s", "spawn codes");
        /* A process started without mpiexec (no PMI_FD or PMI_PORT) has no process
         * manager. MPICH's simple PMI would then start `mpiexec -pmi_args ...`, which
         * 4.0.2's hydra no longer accepts, and wait for it forever: say so instead. */
        if (root_errno == MPI_SUCCESS && MPIR_Process.size == 1 && !getenv("PMI_FD") &&
            !getenv("PMI_PORT"))
            MPIR_ERR_SET(root_errno, MPI_ERR_SPAWN, "**mm|singleton_spawn");
        if (root_errno == MPI_SUCCESS)
            root_errno = MPID_Open_port(NULL, port_name);
        if (root_errno == MPI_SUCCESS) {
            struct MPIR_PMI_KEYVAL preput = {.key = MM_PARENT_PORT_KEY,.val = port_name };
            root_errno = MPIR_pmi_spawn_multiple(count, commands, argvs, maxprocs, infos, 1,
                                                 &preput, pmi_errcodes);
        }
        hdr[1] = root_errno == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_SPAWN;
    }
    mpi_errno = MPIR_Bcast(hdr, 2, MPI_INT, root, comm, &errflag);
    MPIR_ERR_CHECK(mpi_errno);
    if (hdr[1] != MPI_SUCCESS) {
        if (comm->rank == root)
            mpi_errno = MPIR_Err_create_code(root_errno, MPIR_ERR_RECOVERABLE, __func__,
                                             __LINE__, MPI_ERR_SPAWN, "**spawn", 0);
        else
            MPIR_ERR_SET1(mpi_errno, MPI_ERR_SPAWN, "**mm|rootfailed", "**mm|rootfailed %d",
                          root);
        goto fn_fail;
    }
    if (pmi_errcodes == NULL) {
        pmi_errcodes = MPL_calloc(MPL_MAX(hdr[0], 1), sizeof(int), MPL_MEM_DYNAMIC);
        MPIR_ERR_CHKANDJUMP1(pmi_errcodes == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                             "**nomem %s", "spawn codes");
    }
    /* Per-process outcome, known at the root; every process reports it. */
    mpi_errno = MPIR_Bcast(pmi_errcodes, hdr[0], MPI_INT, root, comm, &errflag);
    MPIR_ERR_CHECK(mpi_errno);
    for (int i = 0; i < hdr[0]; i++) {
        if (errcodes != MPI_ERRCODES_IGNORE)
            errcodes[i] = pmi_errcodes[i] == 0 ? MPI_SUCCESS : MPI_ERR_SPAWN;
        nstarted += pmi_errcodes[i] == 0;
    }
    MPIR_ERR_CHKANDJUMP1(nstarted == 0, mpi_errno, MPI_ERR_SPAWN, "**mm|spawnnone",
                         "**mm|spawnnone %d", hdr[0]);
    mpi_errno = MPID_Comm_accept(port_name, NULL, root, comm, intercomm);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    if (comm->rank == root && port_name[0]) {
        int err = MPID_Close_port(port_name);
        if (mpi_errno == MPI_SUCCESS)
            mpi_errno = err;
    }
    MPL_free(pmi_errcodes);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* A spawned process: connect to the parents' port, named in our PMI space. */
int mm_dynproc_connect_parent(void)
{
    int mpi_errno = MPI_SUCCESS;
    char port_name[MPI_MAX_PORT_NAME];

    if (!MPIR_Process.has_parent)
        goto fn_exit;
    mpi_errno = MPIR_pmi_kvs_get(-1, MM_PARENT_PORT_KEY, port_name, sizeof(port_name));
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPID_Comm_connect(port_name, NULL, 0, MPIR_Process.comm_world,
                                  &MPIR_Process.comm_parent);
    MPIR_ERR_CHECK(mpi_errno);
    MPL_strncpy(MPIR_Process.comm_parent->name, "MPI_COMM_PARENT", MPI_MAX_OBJECT_NAME);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* MPIR asks for the MPI_UNIVERSE_SIZE attribute and caches the answer, where -1
 * (MPIR_UNIVERSE_SIZE_NOT_SET) means "not asked yet". A process manager without a universe
 * size reports a negative number (hydra sends -1 unless mpiexec -usize is given); store that
 * as MPIR_UNIVERSE_SIZE_NOT_AVAILABLE so the attribute is absent and PMI is asked only once. */
int MPID_Get_universe_size(int *universe_size)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FUNC_ENTER;

    mpi_errno = MPIR_pmi_get_universe_size(universe_size);
    MPIR_ERR_CHECK(mpi_errno);
    if (*universe_size < 0) {
        *universe_size = MPIR_UNIVERSE_SIZE_NOT_AVAILABLE;
    }

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
