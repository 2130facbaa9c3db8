/*
 * ib method, zero-copy rendezvous: mem_register, mem_deregister and get (mm_method.h).
 *
 * The sender registers its buffer for remote read; its rendezvous data is {address,
 * length, rkey}. The receiver registers the destination pieces for local write and reads
 * the payload with RDMA READs of at most IB_READ_CHUNK bytes, keeping at most IB_MAX_READS
 * of them in flight per connection (the rest wait on the connection's read queue for send
 * queue room). The sender's CPU takes no part until the engine's FIN.
 *
 * Registrations are made per message and released at FIN. A registration cache (keeping
 * the pin for the next send of the same buffer) is not safe without knowing when the
 * application unmaps memory, which needs hooks into the allocator this method does not
 * have: a stale pin would read the old pages of a buffer that was freed and reallocated.
 * So none is kept; mem_deregister is where one would go.
 *
 * An address from the wire is only ever handed to the device, which checks it against the
 * peer's registration (a wrong rkey or range fails the READ, never touches our memory).
 */
#include "mpidimpl.h"
#include "ib_impl.h"

typedef struct ib_rndv {
    uint64_t addr;
    uint64_t len;
    uint32_t rkey;
    uint32_t pad;
} ib_rndv_t;

_Static_assert(sizeof(ib_rndv_t) <= MM_RNDV_DATA_MAX, "ib rendezvous data size");

int ib_mem_register(mm_vc_t * vc, mm_buf_t * buf, void *rndv, size_t * len)
{
    ib_rndv_t r;
    struct ibv_mr *mr;
    char *addr;
    size_t size = mm_buf_remaining(buf);

    *len = 0;
    /* one contiguous piece (the engine packs other datatypes first); else decline */
    if (!ib_state.up || buf->iov_count - buf->iov_idx != 1 || size == 0)
        return MPI_SUCCESS;
    addr = (char *) buf->iov[buf->iov_idx].iov_base + buf->iov_off;
    mr = ibv_reg_mr(ib_state.pd, addr, size, IBV_ACCESS_REMOTE_READ);
    if (mr == NULL)
        return MPI_SUCCESS;     /* declined: RTS -> CTS -> DATA through the send buffers */
    memset(&r, 0, sizeof(r));
    r.addr = (uintptr_t) addr;
    r.len = size;
    r.rkey = mr->rkey;
    memcpy(rndv, &r, sizeof(r));
    *len = sizeof(r);
    buf->mem = mr;
    return MPI_SUCCESS;
}

void ib_mem_deregister(mm_vc_t * vc, mm_buf_t * buf)
{
    if (buf->mem)
        ibv_dereg_mr(buf->mem);
    buf->mem = NULL;
}

static void read_release(ib_read_t * rd)
{
    for (int i = 0; i < rd->nmr; i++)
        if (rd->mr[i])
            ibv_dereg_mr(rd->mr[i]);
    MPL_free(rd);
}

static int bad_rndv(mm_vc_t * vc)
{
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                MPI_ERR_OTHER, "**mm|badpkt", "**mm|badpkt %d %d %d", vc->lpid,
                                MM_PKT_VERSION, MM_PKT_RTS);
}

int ib_get(mm_car_t * car, const void *rndv, size_t len, int *refused)
{
    mm_vc_t *vc = car->vc;
    ib_conn_t *conn = ib_vc(vc)->conn;
    mm_buf_t *b = &car->buf;
    ib_rndv_t r;
    ib_read_t *rd;
    int pieces = b->iov_count - b->iov_idx;

    *refused = 0;
    if (len != sizeof(r))
        return bad_rndv(vc);
    memcpy(&r, rndv, sizeof(r));
    if (r.len != mm_buf_remaining(b))
        return bad_rndv(vc);
    if (conn == NULL || pieces > IB_GET_MAX_IOV || ib_state.rd_atom == 0) {
        *refused = 1;           /* a datatype of many pieces: the payload comes as DATA */
        return MPI_SUCCESS;
    }
    rd = MPL_calloc(1, sizeof(*rd), MPL_MEM_BUFFER);
    if (rd == NULL) {
        *refused = 1;
        return MPI_SUCCESS;
    }
    rd->conn = conn;
    rd->car = car;
    rd->raddr = r.addr;
    rd->rkey = r.rkey;
    rd->left = r.len;
    rd->iov_i = b->iov_idx;
    rd->iov_off = b->iov_off;
    for (int i = 0; i < pieces; i++) {
        const struct iovec *v = &b->iov[b->iov_idx + i];
        size_t skip = i == 0 ? b->iov_off : 0;

        rd->nmr++;
        if (v->iov_len <= skip)
            continue;
        rd->mr[i] = ibv_reg_mr(ib_state.pd, (char *) v->iov_base + skip, v->iov_len - skip,
                               IBV_ACCESS_LOCAL_WRITE);
        if (rd->mr[i] == NULL) {
            read_release(rd);
            *refused = 1;       /* memory we cannot pin: the payload comes as DATA */
            return MPI_SUCCESS;
        }
    }
    rd->next = NULL;
    if (conn->rq_tail)
        conn->rq_tail->next = rd;
    else
        conn->rq_head = rd;
    conn->rq_tail = rd;
    return ib_read_pump(conn);
}

/* Post the READs the connection's queue holds, as far as the send queue and the
 * connection's read window allow. */
int ib_read_pump(ib_conn_t * conn)
{
    while (conn->rq_head && conn->sq_used < ib_sq_depth() && conn->nreads < ib_state.rd_atom) {
        ib_read_t *rd = conn->rq_head;
        mm_buf_t *b = &rd->car->buf;
        const struct iovec *v = &b->iov[rd->iov_i];
        int k = rd->iov_i - b->iov_idx;
        size_t n = MPL_MIN(MPL_MIN(v->iov_len - rd->iov_off, ib_state.max_msg), rd->left);
        struct ibv_sge sge;
        struct ibv_send_wr wr, *bad;
        int rc;

        if (v->iov_len == rd->iov_off) {
            rd->iov_i++;        /* an empty (or finished) piece */
            rd->iov_off = 0;
            continue;
        }
        sge.addr = (uintptr_t) v->iov_base + rd->iov_off;
        sge.length = (uint32_t) n;
        sge.lkey = rd->mr[k]->lkey;
        memset(&wr, 0, sizeof(wr));
        wr.wr_id = (uintptr_t) rd | IB_WR_READ;
        wr.sg_list = &sge;
        wr.num_sge = 1;
        wr.opcode = IBV_WR_RDMA_READ;
        wr.send_flags = IBV_SEND_SIGNALED;
        wr.wr.rdma.remote_addr = rd->raddr;
        wr.wr.rdma.rkey = rd->rkey;
        rc = ibv_post_send(conn->qp, &wr, &bad);
        if (rc != 0)
            return ib_conn_fail(conn, MPL_strerror(rc));
        conn->sq_used++;
        conn->nreads++;
        rd->inflight++;
        rd->raddr += n;
        rd->left -= n;
        rd->iov_off += n;
        if (rd->left == 0) {
            /* all asked for: the read leaves the queue and lives on in its completions */
            conn->rq_head = rd->next;
            if (conn->rq_head == NULL)
                conn->rq_tail = NULL;
            rd->next = NULL;
        }
    }
    return MPI_SUCCESS;
}

/* One READ of rd completed (ok: successfully). The last one completes the CAR, unless
 * one failed: the caller then fails the connection, which reports the error. */
int ib_read_done(ib_read_t * rd, int ok)
{
    ib_conn_t *conn = rd->conn;
    mm_car_t *car = rd->car;
    size_t total;

    conn->sq_used--;
    conn->nreads--;
    rd->inflight--;
    if (!ok)
        rd->failed = 1;
    if (rd->inflight > 0 || (rd->left > 0 && !rd->failed))
        return MPI_SUCCESS;
    if (rd->left > 0)
        return MPI_SUCCESS;     /* still queued: ib_read_abort releases it */
    total = mm_buf_remaining(&car->buf);
    if (rd->failed) {
        read_release(rd);
        return MPI_SUCCESS;
    }
    read_release(rd);
    mm_buf_advance(&car->buf, total);
    return mm_cq_complete(car);
}

/* The connection is dead: the READs it never posted are dropped (the VC failed, and the
 * engine fails what waited on it). */
void ib_read_abort(ib_conn_t * conn)
{
    while (conn->rq_head) {
        ib_read_t *rd = conn->rq_head;

        conn->rq_head = rd->next;
        rd->next = NULL;
        rd->failed = 1;
        rd->left = 0;
        if (rd->inflight == 0)
            read_release(rd);
    }
    conn->rq_tail = NULL;
}
