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
 * FALLBACK. The kernel may forbid CMA (ptrace restrictions, seccomp, another user). The
 * first CMA send on a VC is a probe: the sender queues nothing behind it until the receiver
 * answers through `done` (it worked; from then on CMA sends are pipelined) or `failed` (it
 * did not). On failure the receiver keeps its READ DATA CAR posted and the sender puts the
 * chain back at the head of its queue, envelope already sent, so the payload follows
 * through cells in the usual way, and the VC never tries CMA again. A failure after a
 * success on the same VC is an error, reported by the receiver.
 */
#define _GNU_SOURCE
#include "mpidimpl.h"
#include "shm_impl.h"
#include <errno.h>
#include <sys/uio.h>
#include <unistd.h>

#define SHM_CMA_IOV 64          /* iovec entries per process_vm_readv call */

static size_t desc_room(void)
{
    return (size_t) shm_state.seg->cell_size - sizeof(mm_pkt_t) - sizeof(shm_cma_desc_t);
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

        /* Only a probe fails, and nothing was queued behind a probe. */
        MPIR_Assert(s->cma_state == SHM_CMA_PROBING && head && head->qnext == NULL);
        s->cma_failed_seen = failed;
        s->cma_state = SHM_CMA_OFF;
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

        MPIR_Assert(s->cma_head != NULL);
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
