/*
 * shm method, write side: each VC keeps a FIFO of CAR chains; its head chain is copied
 * into the sender's own free cells, envelope first, and the cells are enqueued on the
 * receiver's queue. When the sender runs out of free cells it stops and the VC stays on
 * the active list until progress finds cells again (the receiver returns them as it reads).
 * (Large payloads usually never come here: the receiver reads them with get(), shm_cma.c.)
 */
#include "mpidimpl.h"
#include "shm_impl.h"

static void active_add(mm_vc_t * vc)
{
    shm_vc_t *s = shm_vc(vc);

    if (!s->on_active_list) {
        s->on_active_list = 1;
        s->active_next = shm_state.active_head;
        shm_state.active_head = vc;
    }
}

/* Copy as much of vc's queued chains into cells as free cells allow. */
static int vc_push(mm_vc_t * vc, int *made_progress)
{
    int mpi_errno = MPI_SUCCESS;
    shm_vc_t *s = shm_vc(vc);
    shm_queue_t *dst = &shm_state.ranks[s->local_rank].recvq;
    shm_queue_t *mine = &shm_state.ranks[shm_state.my_local].freeq;
    size_t cell_size = shm_state.cell_size;

    while (s->wq_head) {
        mm_car_t *head = s->wq_head;
        mm_car_t *data = head->next;
        shm_cell_t *cell;
        int32_t idx;
        size_t off = 0;

        if (s->hdr_sent && (data == NULL || mm_buf_remaining(&data->buf) == 0)) {
            /* Chain fully copied out: the caller's buffers are free again. */
            mm_car_fifo_pop(&s->wq_head, &s->wq_tail);
            s->hdr_sent = 0;
            mpi_errno = mm_cq_complete_chain(head);
            MPIR_ERR_CHECK(mpi_errno);
            continue;
        }

        idx = shm_queue_pop(mine);
        if (idx == SHM_NIL)
            break;
        /* Peers return our cells to this queue: one that is not ours is not to be filled. */
        MPIR_ERR_CHKANDJUMP1(idx == SHM_BAD || idx / shm_state.ncells != shm_state.my_local,
                             mpi_errno, MPI_ERR_OTHER, "**mm|shmq", "**mm|shmq %s", "free");
        cell = shm_cell(idx);
        cell->flags = 0;
        if (!s->hdr_sent) {
            memcpy(cell->data, &head->pkt, sizeof(mm_pkt_t));
            off = sizeof(mm_pkt_t);
            cell->flags = SHM_CELL_ENVELOPE;
            cell->seq = shm_state.tx_seq[s->local_rank]++;
            s->hdr_sent = 1;
        }
        if (data)
            off += mm_buf_copy(&data->buf, cell->data + off, cell_size - off, 0);
        cell->len = (uint32_t) off;
        cell->src = shm_state.my_local;
        shm_queue_push(dst, idx);
        *made_progress = 1;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int shm_post_write(mm_car_t * head)
{
    mm_vc_t *vc = head->vc;
    shm_vc_t *s = shm_vc(vc);
    int made_progress = 0;

    /* Small, and nothing of this VC queued ahead of it: the fast box, if it is free. */
    if (s->wq_head == NULL && shm_fbox_fits(head)) {
        int sent, mpi_errno = shm_fbox_try_send(vc, head, &sent);
        if (sent || mpi_errno)
            return mpi_errno;
    }
    mm_car_fifo_push(&s->wq_head, &s->wq_tail, head);
    active_add(vc);
    /* Start copying now: for small messages this is the whole send. */
    return vc_push(vc, &made_progress);
}

int shm_write_progress(int *made_progress)
{
    int mpi_errno = MPI_SUCCESS;
    mm_vc_t *vc = shm_state.active_head;

    shm_state.active_head = NULL;
    while (vc) {
        shm_vc_t *s = shm_vc(vc);
        mm_vc_t *next = s->active_next;

        s->on_active_list = 0;
        mpi_errno = vc_push(vc, made_progress);
        MPIR_ERR_CHECK(mpi_errno);
        if (s->wq_head)
            active_add(vc);
        vc = next;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
