/*
 * shm method, read side: drain this process's receive queue, hand envelopes to the engine
 * and copy payload into the READ DATA CAR the engine posts, then return each cell to the
 * process that owns it.
 */
#include "mpidimpl.h"
#include "shm_impl.h"

/* Cells handled per progress call: bounded so one busy peer cannot starve the writes
 * (and the other methods) of this process. */
#define SHM_READ_BATCH 32

int shm_post_read(mm_car_t * car)
{
    car->vc->rdata = car;
    return MPI_SUCCESS;
}

int shm_peer_vc(int src, mm_vc_t ** vc_out)
{
    int mpi_errno = MPI_SUCCESS;
    mm_vc_t *vc;

    /* src comes from a cell, which another process wrote. */
    MPIR_ERR_CHKANDJUMP3(src < 0 || src >= shm_state.nlocal || src == shm_state.my_local,
                         mpi_errno, MPI_ERR_OTHER, "**mm|badpkt", "**mm|badpkt %d %d %d", -1,
                         -1, -1);
    vc = shm_state.peer_vc[src];
    if (vc == NULL) {
        /* First message from this peer: bind its VC (selection is symmetric, so the peer
         * that wrote to us through shm is bound to shm here too, unless it is broken). */
        mpi_errno = mm_vc_get(MPIR_Process.node_local_map[src], &vc);
        MPIR_ERR_CHECK(mpi_errno);
        MPIR_ERR_CHKANDJUMP3(vc->method != &mm_shm_method, mpi_errno, MPI_ERR_OTHER,
                             "**mm|badpkt", "**mm|badpkt %d %d %d", vc->lpid, -1, -1);
    }
    *vc_out = vc;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int cell_deliver(shm_cell_t * cell, int src)
{
    int mpi_errno = MPI_SUCCESS;
    mm_vc_t *vc;
    size_t off = 0;
    uint32_t len = cell->len;   /* read once: the sender can write the cell */

    mpi_errno = shm_peer_vc(src, &vc);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERR_CHKANDJUMP3(len > shm_state.cell_size, mpi_errno,
                         MPI_ERR_OTHER, "**mm|badpkt", "**mm|badpkt %d %d %d", vc->lpid, -1,
                         -1);
    if (cell->flags & SHM_CELL_ENVELOPE) {
        /* Messages before this one went by the fast box (the ring was free then, and
         * full for this one): they are all there now, in order. */
        while (cell->seq != shm_state.rx_seq[src]) {
            int delivered;
            mpi_errno = shm_fbox_recv(src, &delivered);
            MPIR_ERR_CHECK(mpi_errno);
            MPIR_ERR_CHKANDJUMP3(!delivered, mpi_errno, MPI_ERR_OTHER, "**mm|badpkt",
                                 "**mm|badpkt %d %d %d", vc->lpid, -1, -1);
        }
        shm_state.rx_seq[src]++;
        MPIR_ERR_CHKANDJUMP3(vc->rdata != NULL || len < sizeof(mm_pkt_t), mpi_errno,
                             MPI_ERR_OTHER, "**mm|badpkt", "**mm|badpkt %d %d %d", vc->lpid,
                             -1, -1);
        memcpy(&vc->rhead.pkt, cell->data, sizeof(mm_pkt_t));
        off = sizeof(mm_pkt_t);
        mpi_errno = mm_cq_complete(&vc->rhead);
        MPIR_ERR_CHECK(mpi_errno);
    }
    if (off < len) {
        mm_car_t *rdata = vc->rdata;
        size_t n = len - off;

        MPIR_ERR_CHKANDJUMP3(rdata == NULL || n > mm_buf_remaining(&rdata->buf), mpi_errno,
                             MPI_ERR_OTHER, "**mm|badpkt", "**mm|badpkt %d %d %d", vc->lpid,
                             vc->rhead.pkt.version, vc->rhead.pkt.kind);
        mm_buf_copy(&rdata->buf, cell->data + off, n, 1);
        if (mm_buf_remaining(&rdata->buf) == 0) {
            vc->rdata = NULL;
            mpi_errno = mm_cq_complete(rdata);
            MPIR_ERR_CHECK(mpi_errno);
        }
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int shm_read_progress(int *made_progress)
{
    int mpi_errno = MPI_SUCCESS;
    shm_queue_t *q = &shm_state.ranks[shm_state.my_local].recvq;

    mpi_errno = shm_fbox_poll(made_progress);
    MPIR_ERR_CHECK(mpi_errno);
    /* The common idle case in one load, without the call (see shm_queue_pop). */
    if (atomic_load_explicit(&q->head, memory_order_relaxed) == SHM_NIL)
        goto fn_exit;
    for (int n = 0; n < SHM_READ_BATCH; n++) {
        int32_t idx = shm_queue_pop(q);

        if (idx == SHM_NIL)
            break;
        MPIR_ERR_CHKANDJUMP1(idx == SHM_BAD, mpi_errno, MPI_ERR_OTHER, "**mm|shmq",
                             "**mm|shmq %s", "receive");
        /* The sender named in the cell is read once: its process can still write it. */
        mpi_errno = cell_deliver(shm_cell(idx), shm_cell(idx)->src);
        /* The bytes are out (or the packet was rejected): the owner may refill it. Each
         * process owns ncells consecutive cells, whatever the cell says of its sender. */
        shm_queue_push(&shm_state.ranks[idx / shm_state.ncells].freeq, idx);
        MPIR_ERR_CHECK(mpi_errno);
        *made_progress = 1;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
