/*
 * shm method, single-copy rendezvous payloads with cross-memory attach (CMA):
 * process_vm_readv(2) copies straight from the sender's buffer into the receiver's, once,
 * instead of twice through cells.
 *
 * Only DATA packets (the payload of a rendezvous, so the receive is posted and its buffer
 * known) take this path. The sender writes one cell: the envelope, flagged SHM_CELL_CMA,
 * followed by a shm_cma_desc_t naming its pid and the iovec of its buffer. The receiver
 * hands the envelope to the engine as usual (which posts the READ DATA CAR), then reads the
 * payload from the sender's memory and bumps the pair's `done` counter in the segment. The
 * sender keeps each such chain in a FIFO until `done` passes it, and only then completes
 * it: until then the receiver may still be reading its buffer. No pointer from the wire
 * is ever dereferenced by the process that receives it: the addresses in a descriptor are
 * only handed to the kernel, which checks them against the sender's address space.
 *
 * SHARED COPY. One process_vm_readv moves about 13 GB/s here, bounded by the kernel's
 * per-page work on the reading core, while the sender sits idle in its progress loop
 * waiting for `done`. So once CMA has worked on a VC, a large payload whose source and
 * destination are each one contiguous piece is offered to the sender too: the receiver
 * publishes the destination in the pair's line and both processes claim chunks of it
 * by compare-and-swap, the receiver reading them, the sender writing
 * them with process_vm_writev. The chunk counter carries the payload's number, so a claim
 * made for one payload can never land in the next. A sender that is busy elsewhere simply
 * claims nothing; one whose write fails leaves its chunk to the receiver (`redo`) and stops
 * helping. The receiver completes the payload only when every claimed chunk is copied.
 *
 * FALLBACK. The kernel may forbid CMA (ptrace restrictions, seccomp, another user). The
 * first CMA send on a VC is a probe: the sender queues nothing behind it until the receiver
 * answers through `done` (it worked; from then on CMA sends are pipelined) or `failed` (it
 * did not). On failure the receiver keeps its READ DATA CAR posted and the sender puts the
 * chain back at the head of its queue, envelope already sent, so the payload follows
 * through cells in the usual way, and the VC never tries CMA again. A failure after a
 * success on the same VC is an error, reported by the receiver.
 */
#define _GNU_SOURCE
/* MPL's valgrind client requests (MPL_VG_*), a few no-op instructions outside valgrind */
#define MPL_VG_ENABLED 1
#include "mpidimpl.h"
#include "shm_impl.h"
#include <errno.h>
#include <signal.h>
#include <sys/uio.h>
#include <unistd.h>

#define SHM_CMA_IOV 64          /* iovec entries per process_vm_readv call */
/* Shared copy: chunks of half the payload, at least 32 KiB and at most 256 KiB (measured
 * on the 2-core machine, 2026-12-04: smaller chunks cost a claim and a system call each for
 * no more parallelism; larger ones leave one side idle at the end). Payloads shorter than
 * two minimal chunks are not shared. */
#define SHM_CMA_CHUNK_MIN (32 * 1024)
#define SHM_CMA_CHUNK_MAX (256 * 1024)
#define SHM_CMA_CLAIM(num) ((uint64_t) ((num) + 1) << 32)

/* Copy len bytes between local memory and address `remote` of process pid: a read (from
 * the peer) or a write (to it). Returns 0 or an errno. */
static int chunk_copy(pid_t pid, int write, char *local, uint64_t remote, size_t len)
{
    while (len > 0) {
        struct iovec l = { local, len }, r = { (void *) (uintptr_t) remote, len };
        ssize_t n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
            : process_vm_readv(pid, &l, 1, &r, 1, 0);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : EIO;
        local += n;
        remote += (uint64_t) n;
        len -= (size_t) n;
    }
    return 0;
}

/* Claim the next chunk of the payload numbered num; returns the chunk or -1 if none is
 * left (or the pair no longer offers that payload). */
static int64_t chunk_claim(shm_pair_t * pair, uint32_t num)
{
    uint64_t c = atomic_load_explicit(&pair->claim, memory_order_acquire);

    for (;;) {
        if ((c & ~(uint64_t) UINT32_MAX) != SHM_CMA_CLAIM(num) ||
            (uint32_t) c >= atomic_load_explicit(&pair->nchunks, memory_order_relaxed))
            return -1;
        if (atomic_compare_exchange_weak_explicit(&pair->claim, &c, c + 1,
                                                  memory_order_acq_rel, memory_order_acquire))
            return (int64_t) (uint32_t) c;
    }
}

/* The single contiguous piece a payload buffer still has to move, or NULL. */
static char *contig_rest(const mm_buf_t * b, size_t * len)
{
    struct iovec iov[2];
    int n = mm_buf_to_iov(b, iov, 2);

    if (n != 1)
        return NULL;
    *len = iov[0].iov_len;
    return iov[0].iov_base;
}

/* Sender: copy chunks of the payload the receiver is reading, if it is our oldest one. */
static void cma_help(mm_vc_t * vc, shm_pair_t * pair, int *made_progress)
{
    shm_vc_t *s = shm_vc(vc);
    uint32_t num = s->cma_done_seen;
    char *src;
    size_t len;
    int64_t c;

    if (s->cma_help_off || s->cma_head == NULL ||
        (atomic_load_explicit(&pair->claim, memory_order_relaxed) & ~(uint64_t) UINT32_MAX) !=
        SHM_CMA_CLAIM(num))
        return;
    src = contig_rest(&s->cma_head->next->buf, &len);
    while ((c = chunk_claim(pair, num)) >= 0) {
        size_t chunk = atomic_load_explicit(&pair->chunk, memory_order_relaxed);
        size_t off = (size_t) c * chunk;
        uint64_t dst = atomic_load_explicit(&pair->dst, memory_order_relaxed);
        int err = EINVAL;

        /* The offer must describe the very buffer we sent (the receiver copied it from
         * our descriptor); otherwise leave the chunk to the receiver. */
        if (src && (uint64_t) (uintptr_t) src == atomic_load_explicit(&pair->src,
                                                                      memory_order_relaxed)
            && len == atomic_load_explicit(&pair->len, memory_order_relaxed) && off < len)
            err = chunk_copy((pid_t) atomic_load_explicit(&pair->dst_pid, memory_order_relaxed),
                             1, src + off, dst + off, MPL_MIN(chunk, len - off));
        if (err) {
            s->cma_help_off = 1;
            atomic_store_explicit(&pair->redo, (uint32_t) c + 1, memory_order_relaxed);
        }
        atomic_fetch_add_explicit(&pair->finished, 1, memory_order_release);
        *made_progress = 1;
        if (err)
            return;
    }
}

static size_t desc_room(void)
{
    return (size_t) shm_state.cell_size - sizeof(mm_pkt_t) - sizeof(shm_cma_desc_t);
}

int shm_cma_usable(mm_vc_t * vc, const mm_car_t * head)
{
    shm_vc_t *s = shm_vc(vc);
    const mm_car_t *data = head->next;

    if (!shm_state.cma_enabled || s->cma_state == SHM_CMA_OFF || head->pkt.kind != MM_PKT_DATA
        || data == NULL || mm_buf_remaining(&data->buf) == 0)
        return 0;
    /* The whole iovec must fit the descriptor cell. */
    return (size_t) (data->buf.iov_count - data->buf.iov_idx) * sizeof(shm_cma_seg_t) <=
        desc_room();
}

/* Fill cell with head's envelope and a descriptor of its payload. */
void shm_cma_fill(shm_cell_t * cell, const mm_car_t * head)
{
    const mm_buf_t *b = &head->next->buf;
    shm_cma_desc_t *d = (shm_cma_desc_t *) (cell->data + sizeof(mm_pkt_t));
    uint32_t n = 0;

    memcpy(cell->data, &head->pkt, sizeof(mm_pkt_t));
    for (int i = b->iov_idx; i < b->iov_count; i++) {
        size_t off = (i == b->iov_idx) ? b->iov_off : 0;
        if (b->iov[i].iov_len == off)
            continue;
        d->seg[n].base = (uint64_t) (uintptr_t) ((char *) b->iov[i].iov_base + off);
        d->seg[n].len = b->iov[i].iov_len - off;
        n++;
    }
    d->pid = (int32_t) shm_state.pid;
    d->nseg = n;
    d->len = mm_buf_remaining(b);
    cell->len = (uint32_t) (sizeof(mm_pkt_t) + sizeof(*d) + n * sizeof(shm_cma_seg_t));
    cell->flags = SHM_CELL_ENVELOPE | SHM_CELL_CMA;
}

/* Sender: complete the chains the receiver has read; on a failed probe, requeue the chain
 * for a copy through cells. */
int shm_cma_reap(mm_vc_t * vc, int *made_progress)
{
    int mpi_errno = MPI_SUCCESS;
    shm_vc_t *s = shm_vc(vc);
    shm_pair_t *pair = shm_pair(shm_state.my_local, s->local_rank);
    uint32_t failed = atomic_load_explicit(&pair->failed, memory_order_acquire);
    uint32_t done = atomic_load_explicit(&pair->done, memory_order_acquire);

    if (failed != s->cma_failed_seen) {
        mm_car_t *head = s->cma_head;

        /* Only a probe fails, and nothing was queued behind a probe. The counters live in
         * memory the receiver writes: one that says otherwise is its error, not ours. */
        MPIR_ERR_CHKANDJUMP3(s->cma_state != SHM_CMA_PROBING || head == NULL ||
                             head->qnext != NULL, mpi_errno, MPI_ERR_OTHER, "**mm|badpkt",
                             "**mm|badpkt %d %d %d", vc->lpid, -1, -1);
        s->cma_failed_seen = failed;
        s->cma_state = SHM_CMA_OFF;
        vc->eager_limit = shm_eager_limit(0);
        s->cma_head = s->cma_tail = NULL;
        head->qnext = s->wq_head;
        s->wq_head = head;
        if (s->wq_tail == NULL)
            s->wq_tail = head;
        s->hdr_sent = 1;
        *made_progress = 1;
    }
    while (s->cma_done_seen != done) {
        mm_car_t *head, *data;

        MPIR_ERR_CHKANDJUMP3(s->cma_head == NULL, mpi_errno, MPI_ERR_OTHER, "**mm|badpkt",
                             "**mm|badpkt %d %d %d", vc->lpid, -1, -1);
        head = mm_car_fifo_pop(&s->cma_head, &s->cma_tail);
        data = head->next;
        s->cma_done_seen++;
        if (s->cma_state == SHM_CMA_PROBING)
            s->cma_state = SHM_CMA_ON;
        mm_buf_advance(&data->buf, mm_buf_remaining(&data->buf));
        *made_progress = 1;
        mpi_errno = mm_cq_complete_chain(head);
        MPIR_ERR_CHECK(mpi_errno);
    }
    cma_help(vc, pair, made_progress);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Receiver: copy the one-piece payload d describes into dst together with the sender
 * (see SHARED COPY above); returns once every chunk is in. */
static int shared_read(mm_vc_t * vc, shm_pair_t * pair, const shm_cma_desc_t * d, char *dst)
{
    int mpi_errno = MPI_SUCCESS;
    uint32_t num = atomic_load_explicit(&pair->done, memory_order_relaxed);
    size_t chunk = MPL_MIN(MPL_MAX(d->len / 2, SHM_CMA_CHUNK_MIN), SHM_CMA_CHUNK_MAX);
    uint32_t nchunks = (uint32_t) ((d->len + chunk - 1) / chunk);
    uint64_t src = d->seg[0].base;
    uint32_t redo;
    int64_t c;
    int err = 0;

    atomic_store_explicit(&pair->src, src, memory_order_relaxed);
    atomic_store_explicit(&pair->dst, (uint64_t) (uintptr_t) dst, memory_order_relaxed);
    atomic_store_explicit(&pair->len, d->len, memory_order_relaxed);
    atomic_store_explicit(&pair->dst_pid, (int32_t) shm_state.pid, memory_order_relaxed);
    atomic_store_explicit(&pair->nchunks, nchunks, memory_order_relaxed);
    atomic_store_explicit(&pair->chunk, (uint32_t) chunk, memory_order_relaxed);
    atomic_store_explicit(&pair->finished, 0, memory_order_relaxed);
    atomic_store_explicit(&pair->redo, 0, memory_order_relaxed);
    /* Publishes the fields above with the offer. */
    atomic_store_explicit(&pair->claim, SHM_CMA_CLAIM(num), memory_order_release);

    /* After a failed copy, keep claiming without copying: the sender must have no chunk
     * left to write into dst once we return. */
    while ((c = chunk_claim(pair, num)) >= 0) {
        size_t off = (size_t) c * chunk;

        if (!err)
            err = chunk_copy((pid_t) d->pid, 0, dst + off, src + off,
                             MPL_MIN(chunk, d->len - off));
        atomic_fetch_add_explicit(&pair->finished, 1, memory_order_relaxed);
    }
    /* Every chunk is claimed; wait for the sender's last one (a chunk's copy, unless the
     * scheduler took the sender's core meanwhile). A sender that died holding a chunk
     * would never finish it: check now and then that it still exists. */
    for (unsigned spins = 0;
         atomic_load_explicit(&pair->finished, memory_order_acquire) != nchunks; spins++) {
        if (spins < 100)
            continue;
        mm_yield_core();
        if (spins % 4096 == 0 && kill((pid_t) d->pid, 0) != 0 && errno == ESRCH) {
            err = ESRCH;
            break;
        }
    }
    redo = atomic_load_explicit(&pair->redo, memory_order_relaxed);
    if (!err && redo) {
        size_t off = (size_t) (redo - 1) * chunk;
        err = chunk_copy((pid_t) d->pid, 0, dst + off, src + off, MPL_MIN(chunk, d->len - off));
    }
    MPIR_ERR_CHKANDJUMP2(err, mpi_errno, MPI_ERR_OTHER, "**mm|shm_cma", "**mm|shm_cma %d %s",
                         vc->lpid, MPL_strerror(err));
    /* The sender's chunks reached dst through its process_vm_writev, which memcheck in
     * this process cannot see: without this, every byte of them reads as uninitialised
     * (a staging buffer, or a receive buffer the program never wrote). */
    MPL_VG_MAKE_MEM_DEFINED(dst, d->len);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Receiver: the envelope of cell (at src) has been delivered and vc->rdata posted; pull
 * the payload the descriptor names. */
int shm_cma_read(mm_vc_t * vc, int src, const shm_cell_t * cell)
{
    int mpi_errno = MPI_SUCCESS;
    shm_vc_t *s = shm_vc(vc);
    const shm_cma_desc_t *d = (const shm_cma_desc_t *) (cell->data + sizeof(mm_pkt_t));
    mm_car_t *rdata = vc->rdata;
    shm_pair_t *pair = shm_pair(src, shm_state.my_local);
    uint64_t sum = 0;
    uint32_t ri = 0;
    size_t roff = 0;

    /* Validate the descriptor against the cell and the posted receive. */
    if (cell->len < sizeof(mm_pkt_t) + sizeof(*d) ||
        d->nseg > (cell->len - sizeof(mm_pkt_t) - sizeof(*d)) / sizeof(shm_cma_seg_t))
        goto bad;
    for (uint32_t i = 0; i < d->nseg; i++)
        sum += d->seg[i].len;
    if (rdata == NULL || sum != d->len || d->len != mm_buf_remaining(&rdata->buf) ||
        d->len != vc->rhead.pkt.data_sz)
        goto bad;

    if (s->cma_rx_ok && d->nseg == 1 && d->len >= 2 * SHM_CMA_CHUNK_MIN) {
        size_t dlen;
        char *dst = contig_rest(&rdata->buf, &dlen);

        if (dst) {
            mpi_errno = shared_read(vc, pair, d, dst);
            MPIR_ERR_CHECK(mpi_errno);
            mm_buf_advance(&rdata->buf, dlen);
        }
    }
    while (mm_buf_remaining(&rdata->buf) > 0) {
        struct iovec liov[SHM_CMA_IOV], riov[SHM_CMA_IOV];
        int nl = mm_buf_to_iov(&rdata->buf, liov, SHM_CMA_IOV), nr = 0;
        size_t want = 0, r = roff;
        ssize_t n;

        for (int i = 0; i < nl; i++)
            want += liov[i].iov_len;
        /* Remote entries covering at most `want` bytes from the remote cursor. */
        for (uint32_t j = ri; j < d->nseg && nr < SHM_CMA_IOV && want > 0; j++, r = 0) {
            size_t take = MPL_MIN(d->seg[j].len - r, want);
            riov[nr].iov_base = (void *) (uintptr_t) (d->seg[j].base + r);
            riov[nr].iov_len = take;
            want -= take;
            nr++;
        }
        n = process_vm_readv((pid_t) d->pid, liov, nl, riov, nr, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int err = n < 0 ? errno : EIO;
            if (!s->cma_rx_ok && rdata->buf.done == 0 &&
                (err == EPERM || err == ENOSYS || err == EACCES || err == EFAULT)) {
                /* The kernel will not let us (or the sender's memory is not where it
                 * says): tell the sender to send the payload through cells. */
                s->cma_rx_off = 1;
                atomic_fetch_add_explicit(&pair->failed, 1, memory_order_release);
                goto fn_exit;
            }
            MPIR_ERR_SETANDJUMP2(mpi_errno, MPI_ERR_OTHER, "**mm|shm_cma", "**mm|shm_cma %d %s",
                                 vc->lpid, MPL_strerror(err));
        }
        mm_buf_advance(&rdata->buf, (size_t) n);
        /* Advance the remote cursor by n. */
        for (size_t left = (size_t) n; left > 0;) {
            size_t step = MPL_MIN(d->seg[ri].len - roff, left);
            roff += step;
            left -= step;
            if (roff == d->seg[ri].len) {
                ri++;
                roff = 0;
            }
        }
    }
    s->cma_rx_ok = 1;
    vc->rdata = NULL;
    /* Our copy is complete: the sender may reuse its buffer. */
    atomic_fetch_add_explicit(&pair->done, 1, memory_order_release);
    mpi_errno = mm_cq_complete(rdata);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
  bad:
    MPIR_ERR_SETANDJUMP3(mpi_errno, MPI_ERR_OTHER, "**mm|badpkt", "**mm|badpkt %d %d %d",
                         vc->lpid, vc->rhead.pkt.version, vc->rhead.pkt.kind);
}
