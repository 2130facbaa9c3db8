/*
 * ib method, read side: the shared receive queue's buffers, and the records in them
 * (ib_impl.h) handed to the engine. Every record is checked against the bytes that
 * actually arrived before anything is read from it: a peer, or anything else that got a
 * connection, must not make this process crash or read past a buffer. Whatever happens,
 * the buffer goes back to the queue.
 */
#include "mpidimpl.h"
#include "ib_impl.h"

int ib_srq_post(uint32_t buf_idx)
{
    struct ibv_sge sge;
    struct ibv_recv_wr wr, *bad;

    sge.addr = (uintptr_t) (ib_state.rslab + (size_t) buf_idx * IB_BUF_SIZE);
    sge.length = IB_BUF_SIZE;
    sge.lkey = ib_state.rmr->lkey;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = (uint64_t) buf_idx << 3;    /* tag 0: a receive (ib_progress.c) */
    wr.sg_list = &sge;
    wr.num_sge = 1;
    if (ibv_post_srq_recv(ib_state.srq, &wr, &bad) != 0)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPI_ERR_OTHER, "**mm|ib_init", "**mm|ib_init %s %s",
                                    "ibv_post_srq_recv", "receive queue full");
    return MPI_SUCCESS;
}

int ib_post_read(mm_car_t * car)
{
    car->vc->rdata = car;
    return MPI_SUCCESS;
}

static int bad_record(ib_conn_t * conn, int kind)
{
    mm_vc_t *vc = conn->vc;
    int mpi_errno = MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                         MPI_ERR_OTHER, "**mm|badpkt", "**mm|badpkt %d %d %d",
                                         vc->lpid, MM_PKT_VERSION, kind);

    /* nothing after a bad record can be framed: the connection ends here */
    ib_conn_fail(conn, "bad record");
    ib_vc(vc)->failed = 1;
    return mpi_errno;
}

/* Move n payload bytes into the READ DATA CAR in flight; complete it when full. */
static int fill_rdata(mm_vc_t * vc, const char *p, size_t n)
{
    mm_car_t *rdata = vc->rdata;

    mm_buf_copy(&rdata->buf, (void *) p, n, 1);
    if (mm_buf_remaining(&rdata->buf) > 0)
        return MPI_SUCCESS;
    vc->rdata = NULL;
    return mm_cq_complete(rdata);
}

static int parse(ib_conn_t * conn, const char *p, size_t n)
{
    int mpi_errno = MPI_SUCCESS;
    mm_vc_t *vc = conn->vc;
    size_t off = 0;

    if (conn->got_bye)
        return bad_record(conn, 0);
    if (vc->rdata) {
        /* the rest of a FIRST record's payload, nothing else */
        if (n > mm_buf_remaining(&vc->rdata->buf))
            return bad_record(conn, 0);
        return fill_rdata(vc, p, n);
    }
    while (off < n) {
        ib_rec_t rec;
        mm_pkt_t pkt;

        if (n - off < sizeof(rec))
            return bad_record(conn, 0);
        memcpy(&rec, p + off, sizeof(rec));
        off += sizeof(rec);
        if (rec.kind == IB_REC_BYE) {
            if (rec.len != 0 || off != n)
                return bad_record(conn, 0);
            conn->got_bye = 1;
            return MPI_SUCCESS;
        }
        if ((rec.kind != IB_REC_MSG && rec.kind != IB_REC_FIRST) || n - off < sizeof(pkt) ||
            rec.len > n - off - sizeof(pkt))
            return bad_record(conn, 0);
        memcpy(&pkt, p + off, sizeof(pkt));
        off += sizeof(pkt);
        if (rec.kind == IB_REC_MSG) {
            mpi_errno = mm_cq_deliver(vc, &pkt, p + off, rec.len);
            off = MPL_MIN((off + rec.len + IB_REC_ALIGN - 1) & ~(size_t) (IB_REC_ALIGN - 1), n);
        } else {
            /* FIRST ends its buffer; the engine's READ DATA CAR says how much follows */
            if (off + rec.len != n)
                return bad_record(conn, pkt.kind);
            vc->rhead.pkt = pkt;
            vc->rdata = NULL;
            mpi_errno = mm_cq_complete(&vc->rhead);
            if (mpi_errno == MPI_SUCCESS &&
                (vc->rdata == NULL || mm_buf_remaining(&vc->rdata->buf) < rec.len))
                return bad_record(conn, pkt.kind);
            if (mpi_errno == MPI_SUCCESS)
                mpi_errno = fill_rdata(vc, p + off, rec.len);
            off = n;
        }
        if (mpi_errno) {
            /* The engine refused the envelope: nothing after it can be trusted. */
            ib_conn_fail(conn, "refused packet");
            ib_vc(vc)->failed = 1;
            return mpi_errno;
        }
    }
    return MPI_SUCCESS;
}

int ib_recv_done(ib_conn_t * conn, uint32_t buf_idx, uint32_t byte_len, uint32_t credits)
{
    int mpi_errno = MPI_SUCCESS, err;

    /* (a peer cannot make the window larger than it is) */
    conn->credits = (int) MPL_MIN((uint32_t) conn->credits + MPL_MIN(credits, 1u << 16),
                                  (uint32_t) MPL_MAX(MPIR_CVAR_MM_IB_CREDITS, 1));
    if (byte_len > 0 && conn->state != IB_CONN_DEAD) {
        conn->owed++;
        mpi_errno = parse(conn, ib_state.rslab + (size_t) buf_idx * IB_BUF_SIZE,
                          MPL_MIN(byte_len, IB_BUF_SIZE));
    }
    err = ib_srq_post(buf_idx);
    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = err;
    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = ib_conn_pump(conn);
    return mpi_errno;
}
