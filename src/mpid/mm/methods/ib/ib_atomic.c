/*
 * ib method, device atomics (mm_method.h, DEVICE ATOMICS): window registration, 8-byte
 * fetch-and-add and compare-and-swap executed by the HCA on a peer's memory, and on our
 * own through a loopback.
 *
 * WHY A LOOPBACK. An HCA's atomics are atomic with respect to each other, not to the
 * CPU's: a CPU fetch_add racing an RDMA fetch-and-add on the same word may lose one of the
 * two. So when a window's words are updated by the device (rma/mm_rma_nic.c), this
 * process's own updates of them go through the device too: a pair of RC queue pairs of
 * our own, connected to each other by hand (no RDMA-CM, no peer), whose atomics the same
 * HCA executes on our memory. They complete on a completion queue of their own, which the
 * caller polls alone: such an update may happen while a packet is being delivered, where
 * running the progress engine would deliver the next one too early.
 *
 * REMOTE ATOMICS go on the peer's connection like RDMA READs (they share the QP's
 * outstanding read/atomic window, IB_MAX_READS), with their 8-byte results landing in a
 * registered slot each. Atomics for a peer not yet connected wait on its VC (ib_vc_t.aq)
 * until the connection opens.
 *
 * RDMA WRITE AND READ of a window (rdma: MPI_Put and MPI_Get of contiguous data) use the
 * same queue and completion, so one order holds for all of a window's one-sided
 * operations to a peer: the origin's buffer is registered for the operation and
 * deregistered when it completes (no cache: see ib_rdma.c), and a buffer that cannot be
 * registered makes the call refuse, and rma/ sends the operation as a packet instead.
 * Writes do not count against the read/atomic window: only READs and atomics use the
 * responder's resources that IB_MAX_READS/rd_atom bound.
 */
#include "mpidimpl.h"
#include "ib_impl.h"

#define IB_ATOM_SLOTS 256

enum { IB_ONE_ATOMIC, IB_ONE_WRITE, IB_ONE_READ };

typedef struct ib_atom {
    struct ib_atom *next;
    ib_conn_t *conn;
    mm_car_t *car;
    int kind;                   /* IB_ONE_* */
    /* IB_ONE_ATOMIC */
    uint64_t *result;
    int slot;
    int op;
    /* IB_ONE_WRITE, IB_ONE_READ: local is registered as mr */
    void *local;
    size_t len;
    struct ibv_mr *mr;
    /* all */
    uint64_t raddr;
    uint32_t rkey;
    uint64_t operand, compare;
} ib_atom_t;

static struct {
    int up;                     /* loopback and slots ready */
    struct ibv_cq *cq;          /* the loopback's own */
    struct ibv_qp *qa, *qb;     /* qa asks, qb answers */
    uint64_t *slots;            /* [0]: the loopback's; the rest for remote atomics */
    struct ibv_mr *mr;
    int free[IB_ATOM_SLOTS];
    int nfree;
} loop;

static int gid_index(uint8_t port, union ibv_gid *gid)
{
    struct ibv_port_attr pa;

    if (ibv_query_port(ib_state.ctx, port, &pa) != 0)
        return -1;
    for (int i = 0; i < pa.gid_tbl_len && i < 16; i++) {
        union ibv_gid g;
        if (ibv_query_gid(ib_state.ctx, port, i, &g) == 0 && (g.global.subnet_prefix ||
                                                              g.global.interface_id)) {
            *gid = g;
            return i;
        }
    }
    return -1;
}

/* Bring qp from RESET to RTS, connected to the QP numbered dest on our own port. */
static int qp_to_rts(struct ibv_qp *qp, uint32_t dest)
{
    uint8_t port = ib_state.listen_id->port_num;
    struct ibv_port_attr pa;
    struct ibv_qp_attr a;
    union ibv_gid gid;
    int gi;

    if (ibv_query_port(ib_state.ctx, port, &pa) != 0)
        return -1;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_INIT;
    a.port_num = port;
    a.qp_access_flags = IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_REMOTE_READ |
        IBV_ACCESS_REMOTE_WRITE;
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
                      IBV_QP_ACCESS_FLAGS) != 0)
        return -1;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = pa.active_mtu;
    a.dest_qp_num = dest;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.port_num = port;
    a.ah_attr.dlid = pa.lid;
    if (pa.link_layer == IBV_LINK_LAYER_ETHERNET || pa.lid == 0) {
        /* RoCE and iWARP address by GID */
        gi = gid_index(port, &gid);
        if (gi < 0)
            return -1;
        a.ah_attr.is_global = 1;
        a.ah_attr.grh.dgid = gid;
        a.ah_attr.grh.sgid_index = (uint8_t) gi;
        a.ah_attr.grh.hop_limit = 1;
    }
    if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                      IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) != 0)
        return -1;
    memset(&a, 0, sizeof(a));
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.max_rd_atomic = 1;
    return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                         IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

static void loop_release(void)
{
    if (loop.qa)
        ibv_destroy_qp(loop.qa);
    if (loop.qb)
        ibv_destroy_qp(loop.qb);
    if (loop.cq)
        ibv_destroy_cq(loop.cq);
    if (loop.mr)
        ibv_dereg_mr(loop.mr);
    free(loop.slots);
    memset(&loop, 0, sizeof(loop));
}

/* The loopback and the result slots, made with the first window that wants them. */
static int loop_init(void)
{
    struct ibv_qp_init_attr qa;

    if (loop.up)
        return 1;
    if (!ib_state.up || ib_state.rd_atom == 0)
        return 0;
    if (posix_memalign((void **) &loop.slots, 64, IB_ATOM_SLOTS * sizeof(uint64_t)) != 0)
        return 0;
    loop.mr = ibv_reg_mr(ib_state.pd, loop.slots, IB_ATOM_SLOTS * sizeof(uint64_t),
                         IBV_ACCESS_LOCAL_WRITE);
    loop.cq = ibv_create_cq(ib_state.ctx, 8, NULL, NULL, 0);
    memset(&qa, 0, sizeof(qa));
    qa.send_cq = qa.recv_cq = loop.cq;
    qa.qp_type = IBV_QPT_RC;
    qa.cap.max_send_wr = 2;
    qa.cap.max_recv_wr = 1;
    qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
    if (loop.mr && loop.cq) {
        loop.qa = ibv_create_qp(ib_state.pd, &qa);
        loop.qb = ibv_create_qp(ib_state.pd, &qa);
    }
    if (!loop.qa || !loop.qb || qp_to_rts(loop.qa, loop.qb->qp_num) != 0 ||
        qp_to_rts(loop.qb, loop.qa->qp_num) != 0) {
        loop_release();
        return 0;
    }
    for (int i = IB_ATOM_SLOTS - 1; i >= 1; i--)
        loop.free[loop.nfree++] = i;
    loop.up = 1;
    return 1;
}

void ib_atomic_finalize(void)
{
    loop_release();
}

int ib_win_register(void *base, size_t len, void **mem, void *key, size_t * keylen)
{
    struct ibv_mr *mr;
    uint32_t rkey = 0;

    *mem = NULL;
    *keylen = 0;
    if (!loop_init())
        return MPI_SUCCESS;
    if (len > 0) {
        mr = ibv_reg_mr(ib_state.pd, base, len, IBV_ACCESS_LOCAL_WRITE |
                        IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                        IBV_ACCESS_REMOTE_ATOMIC);
        if (mr == NULL)
            return MPI_SUCCESS;
        rkey = mr->rkey;
        *mem = mr;
    } else {
        *mem = &loop;           /* nothing to reach, but the loopback is there */
    }
    memcpy(key, &rkey, sizeof(rkey));
    *keylen = sizeof(rkey);
    return MPI_SUCCESS;
}

void ib_win_deregister(void *mem)
{
    if (mem && mem != (void *) &loop)
        ibv_dereg_mr(mem);
}

static void atom_wr(struct ibv_send_wr *wr, struct ibv_sge *sge, int op, uint64_t raddr,
                    uint32_t rkey, uint64_t operand, uint64_t compare, int slot)
{
    sge->addr = (uintptr_t) &loop.slots[slot];
    sge->length = sizeof(uint64_t);
    sge->lkey = loop.mr->lkey;
    memset(wr, 0, sizeof(*wr));
    wr->sg_list = sge;
    wr->num_sge = 1;
    wr->send_flags = IBV_SEND_SIGNALED;
    wr->wr.atomic.remote_addr = raddr;
    wr->wr.atomic.rkey = rkey;
    if (op == MM_ATOMIC_FADD) {
        wr->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
        wr->wr.atomic.compare_add = operand;
    } else {
        wr->opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
        wr->wr.atomic.compare_add = compare;
        wr->wr.atomic.swap = operand;
    }
}

static int atomic_failed(int lpid, const char *why)
{
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                MPI_ERR_OTHER, "**mm|ib_atomic", "**mm|ib_atomic %d %s", lpid,
                                why);
}

/* An atomic on our own memory: post on the loopback, wait for it alone. */
static int loop_atomic(int op, uint64_t addr, void *mem, uint64_t operand, uint64_t compare,
                       uint64_t * result)
{
    struct ibv_send_wr wr, *bad;
    struct ibv_sge sge;
    struct ibv_wc wc;
    int n;

    if (mem == NULL || mem == (void *) &loop)
        return atomic_failed(MPIR_Process.rank, "memory not registered");
    atom_wr(&wr, &sge, op, addr, ((struct ibv_mr *) mem)->rkey, operand, compare, 0);
    if (ibv_post_send(loop.qa, &wr, &bad) != 0)
        return atomic_failed(MPIR_Process.rank, "ibv_post_send");
    while ((n = ibv_poll_cq(loop.cq, 1, &wc)) == 0)
        ;       /* the device answers without anyone else's help: a short spin */
    if (n < 0 || wc.status != IBV_WC_SUCCESS)
        return atomic_failed(MPIR_Process.rank, n < 0 ? "ibv_poll_cq" :
                             ibv_wc_status_str(wc.status));
    *result = loop.slots[0];
    return MPI_SUCCESS;
}

/* Post the atomics waiting on conn, as far as its read/atomic window and send queue
 * allow. */
int ib_atomic_pump(ib_conn_t * conn)
{
    while (conn->aq_head && conn->sq_used < ib_sq_depth()) {
        ib_atom_t *at = conn->aq_head;
        struct ibv_send_wr wr, *bad;
        struct ibv_sge sge;
        int rc, reads = at->kind != IB_ONE_WRITE;

        if (reads && conn->nreads >= ib_state.rd_atom)
            break;
        if (at->kind == IB_ONE_ATOMIC) {
            if (loop.nfree == 0)
                break;
            at->slot = loop.free[--loop.nfree];
            atom_wr(&wr, &sge, at->op, at->raddr, at->rkey, at->operand, at->compare,
                    at->slot);
        } else {
            sge.addr = (uintptr_t) at->local;
            sge.length = (uint32_t) at->len;
            sge.lkey = at->mr->lkey;
            memset(&wr, 0, sizeof(wr));
            wr.sg_list = &sge;
            wr.num_sge = 1;
            wr.send_flags = IBV_SEND_SIGNALED;
            wr.opcode = at->kind == IB_ONE_WRITE ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
            wr.wr.rdma.remote_addr = at->raddr;
            wr.wr.rdma.rkey = at->rkey;
        }
        wr.wr_id = (uintptr_t) at | IB_WR_ATOMIC;
        rc = ibv_post_send(conn->qp, &wr, &bad);
        if (rc != 0) {
            if (at->kind == IB_ONE_ATOMIC)
                loop.free[loop.nfree++] = at->slot;
            return ib_conn_fail(conn, MPL_strerror(rc));
        }
        conn->aq_head = at->next;
        if (conn->aq_head == NULL)
            conn->aq_tail = NULL;
        at->next = NULL;
        at->conn = conn;
        conn->sq_used++;
        conn->nreads += reads;
    }
    return MPI_SUCCESS;
}

/* Append at to the connection's queue of atomics not yet posted. */
static void aq_push(ib_conn_t * conn, ib_atom_t * at)
{
    at->next = NULL;
    if (conn->aq_tail)
        conn->aq_tail->next = at;
    else
        conn->aq_head = at;
    conn->aq_tail = at;
}

/* The atomics that waited on vc join its connection, now open. */
int ib_atomic_vc_open(mm_vc_t * vc, ib_conn_t * conn)
{
    ib_vc_t *t = ib_vc(vc);

    while (t->aq) {
        ib_atom_t *at = t->aq;

        t->aq = at->next;
        aq_push(conn, at);
    }
    return ib_atomic_pump(conn);
}

/* Queue at on vc's connection, or on the VC until it has one (connecting if nobody is). */
static int one_start(mm_vc_t * vc, ib_atom_t * at)
{
    ib_vc_t *t = ib_vc(vc);
    ib_atom_t **pp = &t->aq;

    if (t->conn && t->conn->state == IB_CONN_OPEN) {
        aq_push(t->conn, at);
        return ib_atomic_pump(t->conn);
    }
    while (*pp)         /* in issue order: ib_atomic_vc_open moves the list as it is */
        pp = &(*pp)->next;
    *pp = at;
    if (t->conn == NULL && t->attempt == NULL)
        return ib_conn_start(vc);
    return MPI_SUCCESS;
}

/* An operation that completed, failed or never went out: give back what it holds. */
static void one_release(ib_atom_t * at)
{
    if (at->mr)
        ibv_dereg_mr(at->mr);
    MPL_free(at);
}

/* A one-sided operation of the given kind to the word or range at addr of vc's peer, in
 * memory the peer registered with key: *at_out, or an error for a failed VC or a key
 * that is not an rkey. */
static int one_new(mm_vc_t * vc, int kind, uint64_t addr, const void *key, size_t keylen,
                   mm_car_t * car, ib_atom_t ** at_out)
{
    ib_atom_t *at;

    *at_out = NULL;
    if (ib_vc(vc)->failed)
        return atomic_failed(vc->lpid, "the connection failed");
    if (keylen != sizeof(at->rkey))
        return atomic_failed(vc->lpid, "bad window key");
    at = MPL_calloc(1, sizeof(*at), MPL_MEM_RMA);
    if (at == NULL)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPI_ERR_OTHER, "**nomem", "**nomem %s", "ib one-sided");
    memcpy(&at->rkey, key, sizeof(at->rkey));
    at->kind = kind;
    at->car = car;
    at->raddr = addr;
    *at_out = at;
    return MPI_SUCCESS;
}

int ib_atomic(mm_vc_t * vc, int op, uint64_t addr, const void *key, size_t keylen, void *mem,
              uint64_t operand, uint64_t compare, uint64_t * result, mm_car_t * car)
{
    ib_atom_t *at;
    int mpi_errno;

    if (!loop.up)
        return atomic_failed(vc ? vc->lpid : MPIR_Process.rank, "no device atomics here");
    if ((addr & 7) != 0)
        return atomic_failed(vc ? vc->lpid : MPIR_Process.rank, "unaligned word");
    if (vc == NULL)
        return loop_atomic(op, addr, mem, operand, compare, result);
    mpi_errno = one_new(vc, IB_ONE_ATOMIC, addr, key, keylen, car, &at);
    if (mpi_errno)
        return mpi_errno;
    at->result = result;
    at->op = op;
    at->operand = operand;
    at->compare = compare;
    return one_start(vc, at);
}

int ib_rdma(mm_vc_t * vc, int write, void *local, size_t len, uint64_t addr, const void *key,
            size_t keylen, mm_car_t * car, int *refused)
{
    ib_atom_t *at;
    int mpi_errno;

    *refused = len == 0 || len > IB_RDMA_MAX;
    if (*refused)
        return MPI_SUCCESS;
    mpi_errno = one_new(vc, write ? IB_ONE_WRITE : IB_ONE_READ, addr, key, keylen, car, &at);
    if (mpi_errno)
        return mpi_errno;
    /* a write only reads our buffer: no LOCAL_WRITE, so read-only memory works too */
    at->mr = ibv_reg_mr(ib_state.pd, local, len, write ? 0 : IBV_ACCESS_LOCAL_WRITE);
    if (at->mr == NULL) {
        MPL_free(at);
        *refused = 1;
        return MPI_SUCCESS;
    }
    at->local = local;
    at->len = len;
    return one_start(vc, at);
}

/* A remote atomic completed (ok: successfully; else the caller fails the connection). */
int ib_atomic_done(void *ptr, int ok, ib_conn_t ** conn_out)
{
    ib_atom_t *at = ptr;
    ib_conn_t *conn = at->conn;
    mm_car_t *car = at->car;

    *conn_out = conn;
    conn->sq_used--;
    if (at->kind != IB_ONE_WRITE)
        conn->nreads--;
    if (at->kind == IB_ONE_ATOMIC) {
        if (ok)
            *at->result = loop.slots[at->slot];
        loop.free[loop.nfree++] = at->slot;
    }
    one_release(at);
    return ok ? mm_cq_complete(car) : MPI_SUCCESS;
}

/* A dead connection's atomics that never went out are dropped (the VC failed, and the
 * engine fails what waited on it). */
void ib_atomic_abort(ib_conn_t * conn)
{
    while (conn->aq_head) {
        ib_atom_t *at = conn->aq_head;

        conn->aq_head = at->next;
        one_release(at);
    }
    conn->aq_tail = NULL;
}
