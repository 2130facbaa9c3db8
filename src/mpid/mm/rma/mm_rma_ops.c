/*
 * mm device: the origin side of RMA operations, and the packets rma/ puts on the wire.
 *
 * Every operation becomes one RMA_OP packet (mm_rma.h) on the target's VC (or several,
 * when the description of its target datatype would be too long for one: issue_blocks):
 * a HEAD CAR and a DATA CAR whose cursor covers a small block we allocate (header,
 * flattened target datatype, packed or small origin data) and, for large contiguous
 * origin data, the user's buffer itself, which MPI forbids the user to touch until the
 * operation completes. The block is freed when the method is done with the CARs.
 *
 * Every operation is answered (RMA_RESP) once the target has applied it; the answer
 * decrements the target's pending count, which is what flush, unlock, complete and fence
 * wait for. An operation that returns data (get, the fetching accumulates) or that the
 * user holds a request for (rput & co.) registers a request that the answer names
 * (mm_pkt_t.sreq) and completes; the answer's payload lands in the result buffer directly
 * when that is contiguous, else in a staging buffer unpacked at completion.
 */

#include "mm_rma.h"

/* Origin data up to this many contiguous bytes is copied into the packet; larger data is
 * sent from the user's buffer. */
#define MM_RMA_COPY_LIMIT 512

typedef struct mm_rma_tx {
    mm_car_t head;
    mm_car_t data;
    char buf[];                 /* the packet's own payload bytes */
} mm_rma_tx_t;

int mm_rma_vc(MPIR_Win * win, int rank, mm_vc_t ** vc_out)
{
    return mm_vc_get(mm_comm_lpid(win->comm_ptr, rank), vc_out);
}

/* --- the wire --- */

static mm_rma_tx_t *tx_alloc(size_t buflen)
{
    mm_rma_tx_t *tx = MPL_malloc(sizeof(mm_rma_tx_t) + buflen, MPL_MEM_RMA);

    if (tx == NULL)
        return NULL;
    memset(tx, 0, sizeof(*tx));
    return tx;
}

/* The method is done with a CAR of a packet we sent: free the tx once both are. */
static int tx_write_done(mm_car_t * car)
{
    if (car->kind == MM_CAR_HEAD) {
        if (car->next == NULL)
            MPL_free((char *) car - offsetof(mm_rma_tx_t, head));
    } else {
        MPL_free((char *) car - offsetof(mm_rma_tx_t, data));
    }
    return MPI_SUCCESS;
}

/* Post the tx's chain: the envelope, then buflen bytes of tx->buf followed by ulen bytes
 * of udata. */
static int tx_post(mm_vc_t * vc, mm_rma_tx_t * tx, const mm_pkt_t * pkt, size_t buflen,
                   const void *udata, size_t ulen)
{
    mm_car_t *head = &tx->head, *data = &tx->data;

    head->kind = MM_CAR_HEAD;
    head->dir = MM_CAR_WRITE;
    head->done = tx_write_done;
    head->vc = vc;
    head->pkt = *pkt;
    head->pkt.version = MM_PKT_VERSION;
    head->pkt.data_sz = buflen + ulen;
    if (buflen + ulen > 0) {
        mm_buf_t *b = &data->buf;

        head->next = data;
        data->kind = MM_CAR_DATA;
        data->dir = MM_CAR_WRITE;
        data->done = tx_write_done;
        data->vc = vc;
        mm_buf_init_contig(b, tx->buf, buflen);
        if (ulen > 0) {
            int i = buflen > 0 ? 1 : 0;
            b->inline_iov[i].iov_base = (void *) udata;
            b->inline_iov[i].iov_len = ulen;
            b->iov_count = i + 1;
            b->len = buflen + ulen;
        }
    }
    return mm_car_post(head);
}

/* The method is done with a CAR of an RMA packet: the block goes once its last CAR does
 * (methods complete a chain's HEAD before its DATA). */
int mm_rma_send_ctrl(MPIR_Win * win, int rank, int subkind, uint64_t arg)
{
    int mpi_errno = MPI_SUCCESS;
    mm_vc_t *vc;
    mm_rma_tx_t *tx;
    mm_pkt_t pkt = {.kind = MM_PKT_RMA_CTRL };

    mpi_errno = mm_rma_vc(win, rank, &vc);
    MPIR_ERR_CHECK(mpi_errno);
    tx = tx_alloc(0);
    MPIR_ERR_CHKANDJUMP1(tx == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "RMA control packet");
    pkt.context_id = win->dev.key;
    pkt.rank = win->comm_ptr->rank;
    pkt.tag = subkind;
    pkt.sreq = arg;
    mpi_errno = tx_post(vc, tx, &pkt, 0, NULL, 0);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_rma_send_resp(MPIR_Win * win, mm_vc_t * vc, uint64_t sreq, int errclass,
                     const void *result, size_t len)
{
    int mpi_errno = MPI_SUCCESS;
    mm_rma_tx_t *tx = tx_alloc(len);
    mm_pkt_t pkt = {.kind = MM_PKT_RMA_RESP };

    MPIR_ERR_CHKANDJUMP1(tx == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "RMA answer");
    if (len > 0)
        memcpy(tx->buf, result, len);
    pkt.context_id = win->dev.key;
    pkt.rank = win->comm_ptr->rank;
    pkt.tag = errclass;
    pkt.sreq = sreq;
    mpi_errno = tx_post(vc, tx, &pkt, len, NULL, 0);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* --- answers --- */

/* An operation to rank is done at the target (errclass != 0: it failed there). */
int mm_rma_op_finish(MPIR_Win * win, int rank, MPIR_Request * req, int errclass)
{
    int mpi_errno = MPI_SUCCESS;

    win->dev.peers[rank].pending--;
    win->dev.pending--;
    if (errclass) {
        int err = MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                       errclass, "**mm|rmaop", "**mm|rmaop %d %d", rank,
                                       errclass);
        if (win->dev.error == MPI_SUCCESS)
            win->dev.error = err;
        if (req)
            req->status.MPI_ERROR = err;
    }
    if (req == NULL)
        goto fn_exit;
    if (req->dev.tmpbuf) {
        MPI_Aint actual;
        if (errclass == 0 && req->dev.data_sz > 0) {
            mpi_errno = MPIR_Typerep_unpack(req->dev.tmpbuf, req->dev.data_sz, req->dev.buf,
                                            req->dev.count, req->dev.datatype,
                                            req->dev.buf_offset, &actual);
            MPIR_ERR_CHECK(mpi_errno);
        }
        MPL_free(req->dev.tmpbuf);
        req->dev.tmpbuf = NULL;
    }
    MPIR_Datatype_release_if_not_builtin(req->dev.datatype);
    req->dev.datatype = MPI_DATATYPE_NULL;
    mpi_errno = mm_request_cc_done(req);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* An answer's tag is the target's error class; one out of range is just an error. */
static int wire_errclass(int tag)
{
    return tag < 0 || tag > MPI_ERR_LASTCODE ? MPI_ERR_OTHER : tag;
}

static int resp_payload_done(mm_car_t * car);

int mm_rma_handle_resp(mm_vc_t * vc, const mm_pkt_t * pkt)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Win *win = mm_win_lookup(pkt->context_id);
    MPIR_Request *req = NULL;
    mm_car_t *car;
    int is_contig;

    MPIR_ERR_CHKANDJUMP2(win == NULL, mpi_errno, MPI_ERR_OTHER, "**mm|rmawin",
                         "**mm|rmawin %d %d", vc->lpid, (int) pkt->context_id);
    MPIR_ERR_CHKANDJUMP3(pkt->rank < 0 || pkt->rank >= win->comm_ptr->local_size ||
                         mm_comm_lpid(win->comm_ptr, pkt->rank) != vc->lpid ||
                         win->dev.peers[pkt->rank].pending <= 0, mpi_errno, MPI_ERR_OTHER,
                         "**mm|badpkt", "**mm|badpkt %d %d %d", vc->lpid, pkt->version,
                         pkt->kind);
    if (pkt->sreq) {
        req = mm_reqid_lookup(pkt->sreq);
        /* only the answer of this window's operation to this very peer */
        MPIR_ERR_CHKANDJUMP3(req == NULL || req->kind != MPIR_REQUEST_KIND__RMA ||
                             req->dev.match_ctx != (int) win->dev.key || req->dev.vc != vc ||
                             req->dev.match_rank != pkt->rank, mpi_errno,
                             MPI_ERR_OTHER, "**mm|badreqid", "**mm|badreqid %d %s %L",
                             vc->lpid, "RMA_RESP", (long long) pkt->sreq);
    }
    if (pkt->data_sz == 0)
        return mm_rma_op_finish(win, pkt->rank, req, wire_errclass(pkt->tag));

    MPIR_ERR_CHKANDJUMP3(req == NULL || pkt->data_sz != req->dev.data_sz, mpi_errno,
                         MPI_ERR_OTHER, "**mm|badpkt", "**mm|badpkt %d %d %d", vc->lpid,
                         pkt->version, pkt->kind);
    req->dev.match_tag = wire_errclass(pkt->tag);
    car = &req->dev.data_car;
    car->kind = MM_CAR_DATA;
    car->dir = MM_CAR_READ;
    car->flags = 0;
    car->done = resp_payload_done;
    car->req = req;
    car->vc = vc;
    car->next = NULL;
    MPIR_Datatype_is_contig(req->dev.datatype, &is_contig);
    if (is_contig && mm_request_capacity(req) >= req->dev.buf_offset + req->dev.data_sz) {
        MPI_Aint true_lb;
        MPIR_Datatype_get_true_lb(req->dev.datatype, &true_lb);
        mm_buf_init_contig(&car->buf, (char *) req->dev.buf + true_lb + req->dev.buf_offset,
                           req->dev.data_sz);
    } else {
        req->dev.tmpbuf = MPL_malloc(req->dev.data_sz, MPL_MEM_RMA);
        MPIR_ERR_CHKANDJUMP1(req->dev.tmpbuf == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                             "**nomem %s", "RMA result staging buffer");
        mm_buf_init_contig(&car->buf, req->dev.tmpbuf, req->dev.data_sz);
    }
    mpi_errno = mm_car_post(car);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The result an answer carried is in (the DATA CAR resp_post_result posted). */
static int resp_payload_done(mm_car_t * car)
{
    MPIR_Request *req = car->req;
    MPIR_Win *win;

    win = mm_win_lookup(req->dev.match_ctx);
    MPIR_Assert(win != NULL);
    return mm_rma_op_finish(win, req->dev.match_rank, req, req->dev.match_tag);
}

/* rma/'s packets reach it through the engine's dispatch table (mm_device.c calls this
 * at MPID_Init). */
void mm_rma_init(void)
{
    mm_pkt_register(MM_PKT_RMA_OP, mm_rma_handle_op);
    mm_pkt_register(MM_PKT_RMA_RESP, mm_rma_handle_resp);
    mm_pkt_register(MM_PKT_RMA_CTRL, mm_rma_handle_ctrl);
}

/* --- issuing operations --- */


/* A request that is complete from the start (an operation that moves nothing). */
static int request_done_now(MPIR_Win * win, MPIR_Request ** ureq)
{
    MPIR_Request *req = mm_request_create(MPIR_REQUEST_KIND__RMA, win->comm_ptr);

    if (req == NULL)
        return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                    MPI_ERR_OTHER, "**nomem", "**nomem %s", "RMA request");
    MPIR_Request_free(req);     /* the engine's reference: nothing is left to do */
    *ureq = req;
    return MPI_SUCCESS;
}

/* A derived target datatype as the target will see it: its footprint, the byte blocks of
 * count elements in order (at most n blocks, from the first'th byte of its data on),
 * merged into runs of equal blocks at a constant stride (a vector is one run per element
 * block pattern, not one entry per block). The target checks these numbers against its
 * window and applies the operation block by block; it never rebuilds the datatype
 * (mm_rma_wire.h says why). *bytes_out: the bytes of data the blocks cover.
 *
 * By bytes, not MPICH's block-offset call: in 4.0.2 its dataloop version never returns
 * for a nonzero offset. */
static int footprint_build(MPI_Aint count, MPI_Datatype type, MPI_Aint first, MPI_Aint n,
                           mm_rma_seg_t ** segs_out, uint32_t * nseg_out, MPI_Aint * bytes_out)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint size, got = 0, bytes = 0;
    struct iovec *iov = NULL;
    mm_rma_seg_t *segs = NULL;
    uint32_t k = 0;

    MPIR_Datatype_get_size_macro(type, size);
    if (n > 0 && size * count > first) {
        iov = MPL_malloc(n * sizeof(struct iovec), MPL_MEM_RMA);
        segs = MPL_malloc(n * sizeof(mm_rma_seg_t), MPL_MEM_RMA);
        MPIR_ERR_CHKANDJUMP1(iov == NULL || segs == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                             "**nomem %s", "RMA target footprint");
        /* Offsets from the buffer's start: the iovecs of a buffer at address 0. */
        mpi_errno = MPIR_Typerep_to_iov(NULL, count, type, first, iov, n, size * count - first,
                                        &got, &bytes);
        MPIR_ERR_CHECK(mpi_errno);
    }
    for (MPI_Aint i = 0; i < got; i++) {
        int64_t off = (int64_t) (intptr_t) iov[i].iov_base;
        uint64_t len = iov[i].iov_len;
        mm_rma_seg_t *r = k ? &segs[k - 1] : NULL;

        if (len == 0)
            continue;
        if (r && r->len == len) {
            int64_t step = off - (r->off + (int64_t) (r->count - 1) * r->stride);
            /* The next block of the run: same length, same distance, not overlapping. */
            if (r->count == 1 && (uint64_t) (step < 0 ? -step : step) >= len) {
                r->stride = step;
                r->count = 2;
                continue;
            }
            if (r->count > 1 && step == r->stride) {
                r->count++;
                continue;
            }
        }
        segs[k++] = (mm_rma_seg_t) {.off = off,.stride = 0,.len = len,.count = 1 };
    }
    MPIR_ERR_CHKANDJUMP1(k > MM_RMA_NSEG_MAX, mpi_errno, MPI_ERR_TYPE, "**mm|rmadtype",
                         "**mm|rmadtype %d", (int) k);
    *segs_out = segs;
    *nseg_out = k;
    *bytes_out = bytes;
    segs = NULL;

  fn_exit:
    MPL_free(iov);
    MPL_free(segs);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* What one RMA_OP packet carries of an operation: the footprint of some blocks of a
 * derived target datatype (none for a predefined one), and the slices of the origin data
 * and of the result that belong to them (byte offsets in packed order). Most operations
 * are one part; issue_blocks says when there are more. */
typedef struct rma_part {
    MPI_Aint data_off, data_len;
    MPI_Aint result_off, result_len;
    mm_rma_seg_t *segs;         /* the blocks' footprint */
    uint32_t nseg;
} rma_part_t;

/* A part of a split operation is done (its request's on_complete): the user's request
 * completes with the last one and carries the first error. */
static void part_done(MPIR_Request * req)
{
    MPIR_Request *whole = req->dev.partner;

    req->dev.on_complete = NULL;
    req->dev.partner = NULL;
    if (whole->status.MPI_ERROR == MPI_SUCCESS)
        whole->status.MPI_ERROR = req->status.MPI_ERROR;
    mm_request_cc_done(whole);
}

/* Send one part. whole (split operations the user holds a request for) completes when
 * every part has; ureq (a single part) gets the part's own request. */
static int issue_part(MPIR_Win * win, const mm_rma_args_t * a, MPI_Datatype basic,
                      const rma_part_t * part, MPIR_Request * whole, MPIR_Request ** ureq)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint osize = 0, copy_len, desc_len = (MPI_Aint) part->nseg * sizeof(mm_rma_seg_t);
    int ocontig = 1, posted = 0;
    const void *udata = NULL;
    size_t ulen = 0;
    mm_vc_t *vc;
    mm_rma_tx_t *tx = NULL;
    mm_rma_hdr_t *hdr;
    MPIR_Request *req = NULL;
    mm_pkt_t pkt = {.kind = MM_PKT_RMA_OP };
    char *p;

    if (a->otype != MPI_DATATYPE_NULL) {
        MPIR_Datatype_get_size_macro(a->otype, osize);
        osize *= a->ocount;
    }
    copy_len = part->data_len;
    if (copy_len > 0 && a->op != MM_RMA_CAS && a->op != MM_RMA_RMW2 && !a->copy_origin) {
        MPIR_Datatype_is_contig(a->otype, &ocontig);
        if (ocontig && copy_len > MM_RMA_COPY_LIMIT) {
            MPI_Aint true_lb;
            MPIR_Datatype_get_true_lb(a->otype, &true_lb);
            udata = (const char *) a->origin + true_lb + part->data_off;
            ulen = copy_len;
            copy_len = 0;
        }
    }

    mpi_errno = mm_rma_vc(win, a->target, &vc);
    MPIR_ERR_CHECK(mpi_errno);
    tx = tx_alloc(sizeof(mm_rma_hdr_t) + desc_len + copy_len);
    MPIR_ERR_CHKANDJUMP1(tx == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "RMA operation");
    hdr = (mm_rma_hdr_t *) tx->buf;
    hdr->op = a->op;
    hdr->nseg = part->nseg;
    hdr->target_disp = a->tdisp;
    hdr->target_count = a->tcount;
    hdr->target_type = part->nseg ? 0 : a->ttype;
    hdr->basic_type = basic == MPI_DATATYPE_NULL ? 0 : basic;  /* 0: none, on the wire */
    hdr->acc_op = a->acc_op;
    hdr->flags = a->hdr_flags;
    hdr->data_len = part->data_len;
    hdr->result_len = part->result_len;
    p = tx->buf + sizeof(mm_rma_hdr_t);
    if (desc_len) {
        memcpy(p, part->segs, desc_len);
        p += desc_len;
    }
    if (a->op == MM_RMA_CAS) {
        memcpy(p, a->origin, osize);
        memcpy(p + osize, a->compare, osize);
    } else if (a->op == MM_RMA_RMW2) {
        MPI_Aint actual;
        mpi_errno = MPIR_Typerep_pack(a->origin, a->ocount, a->otype, 0, p, osize, &actual);
        MPIR_ERR_CHECK(mpi_errno);
        mpi_errno = MPIR_Typerep_pack(a->compare, a->ocount, a->otype, 0, p + osize, osize,
                                      &actual);
        MPIR_ERR_CHECK(mpi_errno);
    } else if (copy_len > 0) {
        MPI_Aint actual;
        mpi_errno = MPIR_Typerep_pack(a->origin, a->ocount, a->otype, part->data_off, p,
                                      copy_len, &actual);
        MPIR_ERR_CHECK(mpi_errno);
    }

    if (part->result_len > 0 || ureq || whole) {
        req = mm_request_create(MPIR_REQUEST_KIND__RMA, win->comm_ptr);
        MPIR_ERR_CHKANDJUMP1(req == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                             "RMA request");
        mm_request_cc_add(req, 1);
        req->dev.id = mm_reqid_register(req);
        MPIR_ERR_CHKANDJUMP1(req->dev.id == 0, mpi_errno, MPI_ERR_OTHER, "**nomem",
                             "**nomem %s", "mm request id");
        req->dev.match_ctx = win->dev.key;
        req->dev.match_rank = a->target;
        req->dev.vc = vc;
        req->dev.data_sz = part->result_len;
        if (part->result_len > 0) {
            req->dev.buf = a->result;
            req->dev.count = a->rcount;
            req->dev.datatype = a->rtype;
            req->dev.buf_offset = part->result_off;
            MPIR_Datatype_add_ref_if_not_builtin(a->rtype);
        }
        if (whole) {
            req->dev.partner = whole;
            req->dev.on_complete = part_done;
            mm_request_cc_add(whole, 1);
        }
        pkt.sreq = req->dev.id;
        if (ureq)
            *ureq = req;
        else
            MPIR_Request_free(req);     /* only the engine holds it */
    }
    pkt.context_id = win->dev.key;
    pkt.rank = win->comm_ptr->rank;
    win->dev.peers[a->target].pending++;
    win->dev.pending++;
    posted = 1;         /* the method owns tx now, even if posting fails */
    mpi_errno = tx_post(vc, tx, &pkt, sizeof(mm_rma_hdr_t) + desc_len + copy_len, udata, ulen);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    return mpi_errno;
  fn_fail:
    if (tx && !posted)
        MPL_free(tx);
    goto fn_exit;
}

/* The bytes of [lo, hi) below len. */
static inline MPI_Aint slice_len(MPI_Aint len, MPI_Aint lo, MPI_Aint hi)
{
    return len <= lo ? 0 : MPL_MIN(len, hi) - lo;
}

/* A derived target datatype of more blocks than one packet may describe
 * (MM_RMA_NSEG_MAX, which bounds what a target allocates for a stranger's description)
 * goes as several packets of MM_RMA_NSEG_MAX blocks each. Put, get and the accumulates
 * apply each block on its own, and a block never ends inside an element of the type the
 * operation applies, so the parts are the operation: MPI orders accumulates element by
 * element, and the parts go in order on one VC. CAS and MPI_Rmw2 carry their operands
 * whole: they stay one packet (and fail in footprint_build if it is too long). */
static int issue_blocks(MPIR_Win * win, const mm_rma_args_t * a, MPI_Datatype basic,
                        MPI_Aint data_len, MPI_Aint result_len, MPIR_Request ** ureq)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint tsize, niov = 0, step, done = 0;
    MPIR_Request *whole = NULL;
    rma_part_t part = { 0 };

    MPIR_Datatype_get_size_macro(a->ttype, tsize);
    tsize *= a->tcount;
    if (tsize > 0) {
        mpi_errno = MPIR_Typerep_iov_len(a->tcount, a->ttype, tsize, &niov);
        MPIR_ERR_CHECK(mpi_errno);
    }
    step = a->op == MM_RMA_CAS || a->op == MM_RMA_RMW2 ? niov : MM_RMA_NSEG_MAX;
    if (niov <= step) {
        mpi_errno = footprint_build(a->tcount, a->ttype, 0, niov, &part.segs, &part.nseg,
                                    &done);
        MPIR_ERR_CHECK(mpi_errno);
        part.data_len = data_len;
        part.result_len = result_len;
        mpi_errno = issue_part(win, a, basic, &part, NULL, ureq);
        goto fn_exit;
    }

    if (ureq) {
        /* The user's request: one count for issuing, one per part; the parts' requests
         * finish it (part_done). */
        whole = mm_request_create(MPIR_REQUEST_KIND__RMA, win->comm_ptr);
        MPIR_ERR_CHKANDJUMP1(whole == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                             "RMA request");
        mm_request_cc_add(whole, 1);
    }
    while (done < tsize && mpi_errno == MPI_SUCCESS) {
        MPI_Aint bytes = 0;

        mpi_errno = footprint_build(a->tcount, a->ttype, done, step, &part.segs, &part.nseg,
                                    &bytes);
        if (mpi_errno)
            break;
        MPIR_Assert(bytes > 0);
        part.data_off = part.result_off = done;
        part.data_len = slice_len(data_len, done, done + bytes);
        part.result_len = slice_len(result_len, done, done + bytes);
        done += bytes;
        /* (a put shorter than its target buffer has nothing for the last blocks) */
        if (part.data_len > 0 || part.result_len > 0)
            mpi_errno = issue_part(win, a, basic, &part, whole, NULL);
        MPL_free(part.segs);
        part.segs = NULL;
    }
    if (whole) {
        mm_request_cc_done(whole);      /* issuing is over */
        if (mpi_errno == MPI_SUCCESS)
            *ureq = whole;
        else
            MPIR_Request_free(whole);   /* the user's reference: the error goes instead */
    }
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    MPL_free(part.segs);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_rma_issue(MPIR_Win * win, const mm_rma_args_t * a, MPIR_Request ** ureq)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint tsize, osize = 0, data_len = 0, result_len = 0;
    MPI_Datatype basic = MPI_DATATYPE_NULL;

    if (!a->implicit && !mm_rma_epoch_allows(win, a->target)) {
        mpi_errno = mm_rma_sync_error(__func__, "an RMA operation outside an access epoch "
                                      "to its target");
        goto fn_fail;
    }

    MPIR_Datatype_get_size_macro(a->ttype, tsize);
    tsize *= a->tcount;
    if (a->otype != MPI_DATATYPE_NULL) {
        MPIR_Datatype_get_size_macro(a->otype, osize);
        osize *= a->ocount;
    }
    switch (a->op) {
        case MM_RMA_PUT:
            data_len = osize;
            break;
        case MM_RMA_GET:
            result_len = tsize;
            break;
        case MM_RMA_ACC:
        case MM_RMA_GET_ACC:
            data_len = a->acc_op == MPI_NO_OP ? 0 : osize;
            result_len = a->op == MM_RMA_GET_ACC ? tsize : 0;
            break;
        case MM_RMA_CAS:
            data_len = 2 * osize;
            result_len = tsize;
            basic = a->ttype;
            break;
        case MM_RMA_RMW2:
            data_len = 2 * osize;
            result_len = tsize;
            basic = mm_rma_basic_type(a->ttype);
            break;
    }
    if (data_len == 0 && result_len == 0 && a->op != MM_RMA_CAS) {
        /* Nothing moves and nothing changes at the target. */
        if (ureq)
            mpi_errno = request_done_now(win, ureq);
        goto fn_exit;
    }

    if (a->op == MM_RMA_ACC || a->op == MM_RMA_GET_ACC) {
        MPI_Aint bsize = 0;

        /* Both sides must be made of the one element type the op is defined on (a struct
         * of mixed types has none: MPICH's basic type is then MPI_DATATYPE_NULL). */
        basic = mm_rma_basic_type(data_len > 0 ? a->otype : a->ttype);
        if (basic != MPI_DATATYPE_NULL)
            MPIR_Datatype_get_size_macro(basic, bsize);
        MPIR_ERR_CHKANDJUMP(bsize <= 0, mpi_errno, MPI_ERR_TYPE, "**mm|rmaacctype");
        MPIR_ERR_CHKANDJUMP(mm_rma_basic_type(a->ttype) != basic, mpi_errno, MPI_ERR_TYPE,
                            "**dtypemismatch");
        mpi_errno = (*MPIR_OP_HDL_TO_DTYPE_FN(a->acc_op)) (basic);
        MPIR_ERR_CHECK(mpi_errno);
        /* The target applies at most its buffer: no more origin data than that. */
        MPIR_ERR_CHKANDJUMP2(data_len > tsize, mpi_errno, MPI_ERR_TRUNCATE,
                             "**mm|rmaacclen", "**mm|rmaacclen %L %L", (long long) data_len,
                             (long long) tsize);
    }
    /* A put stores at most the target buffer: more origin data is an error here, before
     * anything moves, rather than a truncation the target would report at the next flush. */
    MPIR_ERR_CHKANDJUMP2(a->op == MM_RMA_PUT && data_len > tsize, mpi_errno, MPI_ERR_TRUNCATE,
                         "**mm|rmaputlen", "**mm|rmaputlen %L %L", (long long) data_len,
                         (long long) tsize);
    if (result_len > 0 && a->op != MM_RMA_GET) {
        /* The old values go to the result buffer: it must hold them (a get's copy into the
         * origin buffer reports truncation itself). */
        MPI_Aint rsize;

        MPIR_Datatype_get_size_macro(a->rtype, rsize);
        rsize *= a->rcount;
        MPIR_ERR_CHKANDJUMP2(rsize < result_len, mpi_errno, MPI_ERR_TRUNCATE,
                             "**mm|rmaresult", "**mm|rmaresult %L %L", (long long) result_len,
                             (long long) rsize);
    }
    if (mm_rma_is_direct(win, a->target) && !(a->hdr_flags & MM_RMA_HDR_IMPLICIT_LOCK)) {
        mpi_errno = mm_rma_direct(win, a, basic, data_len, result_len);
        MPIR_ERR_CHECK(mpi_errno);
        if (ureq)
            mpi_errno = request_done_now(win, ureq);
        goto fn_exit;
    }
    if (win->dev.nic && !(a->hdr_flags & MM_RMA_HDR_IMPLICIT_LOCK)) {
        int done;

        if (a->op == MM_RMA_PUT || a->op == MM_RMA_GET)
            mpi_errno = mm_rma_nic_putget(win, a, ureq, &done);
        else
            mpi_errno = mm_rma_nic_issue(win, a, basic, &done);
        MPIR_ERR_CHECK(mpi_errno);
        if (done) {
            if (ureq)
                mpi_errno = request_done_now(win, ureq);
            goto fn_exit;
        }
    }
    if (MPIR_DATATYPE_IS_PREDEFINED(a->ttype)) {
        rma_part_t all = {.data_len = data_len,.result_len = result_len };
        mpi_errno = issue_part(win, a, basic, &all, NULL, ureq);
        goto fn_exit;
    }
    if (basic == MPI_DATATYPE_NULL)
        basic = mm_rma_basic_type(a->ttype);    /* put/get: to check for partial elements,
                                                 * if there is one type */
    mpi_errno = issue_blocks(win, a, basic, data_len, result_len, ureq);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Put(const void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
             MPI_Datatype target_datatype, MPIR_Win * win)
{
    mm_rma_args_t a = {.op = MM_RMA_PUT,.origin = origin_addr,.ocount = origin_count,
        .otype = origin_datatype,.target = target_rank,.tdisp = target_disp,
        .tcount = target_count,.ttype = target_datatype,.acc_op = MPI_OP_NULL,
        .rtype = MPI_DATATYPE_NULL
    };
    return mm_rma_issue(win, &a, NULL);
}

int MPID_Get(void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
             MPI_Datatype target_datatype, MPIR_Win * win)
{
    mm_rma_args_t a = {.op = MM_RMA_GET,.otype = MPI_DATATYPE_NULL,.result = origin_addr,
        .rcount = origin_count,.rtype = origin_datatype,.target = target_rank,
        .tdisp = target_disp,.tcount = target_count,.ttype = target_datatype,
        .acc_op = MPI_OP_NULL
    };
    return mm_rma_issue(win, &a, NULL);
}

int MPID_Accumulate(const void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPIR_Win * win)
{
    int err;

    if (origin_datatype == target_datatype && origin_count == target_count &&
        mm_rma_acc_direct_fast(win, origin_addr, NULL, target_count, target_datatype,
                               target_rank, target_disp, op, &err))
        return err;
    {
        mm_rma_args_t a = {.op = MM_RMA_ACC,.origin = origin_addr,.ocount = origin_count,
            .otype = origin_datatype,.target = target_rank,.tdisp = target_disp,
            .tcount = target_count,.ttype = target_datatype,.acc_op = op,
            .rtype = MPI_DATATYPE_NULL
        };
        return mm_rma_issue(win, &a, NULL);
    }
}

int MPID_Get_accumulate(const void *origin_addr, MPI_Aint origin_count,
                        MPI_Datatype origin_datatype, void *result_addr, MPI_Aint result_count,
                        MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        MPI_Aint target_count, MPI_Datatype target_datatype, MPI_Op op,
                        MPIR_Win * win)
{
    int err;

    if (result_datatype == target_datatype && result_count == target_count &&
        (op == MPI_NO_OP || (origin_datatype == target_datatype &&
                             origin_count == target_count)) &&
        mm_rma_acc_direct_fast(win, origin_addr, result_addr, target_count, target_datatype,
                               target_rank, target_disp, op, &err))
        return err;
    {
        mm_rma_args_t a = {.op = MM_RMA_GET_ACC,.origin = origin_addr,.ocount = origin_count,
            .otype = op == MPI_NO_OP ? MPI_DATATYPE_NULL : origin_datatype,
            .result = result_addr,.rcount = result_count,.rtype = result_datatype,
            .target = target_rank,.tdisp = target_disp,.tcount = target_count,
            .ttype = target_datatype,.acc_op = op
        };
        return mm_rma_issue(win, &a, NULL);
    }
}

int MPID_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPIR_Win * win)
{
    return MPID_Get_accumulate(origin_addr, 1, datatype, result_addr, 1, datatype, target_rank,
                               target_disp, 1, datatype, op, win);
}

int MPID_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                          MPIR_Win * win)
{
    int err;

    if (mm_rma_cas_direct_fast(win, origin_addr, compare_addr, result_addr, datatype,
                               target_rank, target_disp, &err))
        return err;
    {
        mm_rma_args_t a = {.op = MM_RMA_CAS,.origin = origin_addr,.ocount = 1,
            .otype = datatype,.compare = compare_addr,.result = result_addr,.rcount = 1,
            .rtype = datatype,.target = target_rank,.tdisp = target_disp,.tcount = 1,
            .ttype = datatype,.acc_op = MPI_OP_NULL
        };
        return mm_rma_issue(win, &a, NULL);
    }
}

int MPID_Rput(const void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
              MPI_Datatype target_datatype, MPIR_Win * win, MPIR_Request ** request)
{
    mm_rma_args_t a = {.op = MM_RMA_PUT,.origin = origin_addr,.ocount = origin_count,
        .otype = origin_datatype,.target = target_rank,.tdisp = target_disp,
        .tcount = target_count,.ttype = target_datatype,.acc_op = MPI_OP_NULL,
        .rtype = MPI_DATATYPE_NULL
    };
    return mm_rma_issue(win, &a, request);
}

int MPID_Rget(void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
              MPI_Datatype target_datatype, MPIR_Win * win, MPIR_Request ** request)
{
    mm_rma_args_t a = {.op = MM_RMA_GET,.otype = MPI_DATATYPE_NULL,.result = origin_addr,
        .rcount = origin_count,.rtype = origin_datatype,.target = target_rank,
        .tdisp = target_disp,.tcount = target_count,.ttype = target_datatype,
        .acc_op = MPI_OP_NULL
    };
    return mm_rma_issue(win, &a, request);
}

int MPID_Raccumulate(const void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPIR_Win * win,
                     MPIR_Request ** request)
{
    mm_rma_args_t a = {.op = MM_RMA_ACC,.origin = origin_addr,.ocount = origin_count,
        .otype = origin_datatype,.target = target_rank,.tdisp = target_disp,
        .tcount = target_count,.ttype = target_datatype,.acc_op = op,
        .rtype = MPI_DATATYPE_NULL
    };
    return mm_rma_issue(win, &a, request);
}

int MPID_Rget_accumulate(const void *origin_addr, MPI_Aint origin_count,
                         MPI_Datatype origin_datatype, void *result_addr, MPI_Aint result_count,
                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Aint target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPIR_Win * win, MPIR_Request ** request)
{
    mm_rma_args_t a = {.op = MM_RMA_GET_ACC,.origin = origin_addr,.ocount = origin_count,
        .otype = op == MPI_NO_OP ? MPI_DATATYPE_NULL : origin_datatype,.result = result_addr,
        .rcount = result_count,.rtype = result_datatype,.target = target_rank,
        .tdisp = target_disp,.tcount = target_count,.ttype = target_datatype,.acc_op = op
    };
    return mm_rma_issue(win, &a, request);
}
