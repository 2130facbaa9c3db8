/*
 * shm method, fast boxes: one ring of message slots per ordered pair of local processes,
 * for the smallest messages (envelope + payload up to SHM_FBOX_DATA bytes, which covers
 * every control packet).
 *
 * Why: a message through the cell queues costs a pop from the sender's free queue, a push
 * onto the receiver's queue, a pop there and a push back, each an atomic operation on a
 * cache line the other process also writes. A slot costs the sender its stores and the
 * receiver one load of the line they went to: for a message of up to 12 bytes, one cache
 * line changes hands. The receiver's consumed count lives on a line of its own that the
 * sender reads only when it has filled every slot it knows to be free. The sender uses
 * the box only when nothing of that VC waits in its own queue, and never blocks on it: a
 * full ring just means the queue is used.
 *
 * ORDER. Boxes and queues are two paths between the same pair, so every message from s to
 * r carries its number (tx_seq[r] at s; a slot's seq, an envelope cell's seq) and r
 * delivers in number order (rx_seq[s]): a slot whose number is not the next one waits
 * behind the cells still queued, and an envelope cell that finds a gap knows the missing
 * message is in the box (the sender filled the slot before it queued the cell, and the
 * cell's release publishes that). A slot also waits while the previous message's payload
 * is still arriving through cells.
 */
#include "mpidimpl.h"
#include "shm_impl.h"

int shm_fbox_fits(const mm_car_t * head)
{
    if (shm_state.fboxes == NULL)
        return 0;
    return head->next == NULL ||
        mm_buf_remaining(&head->next->buf) <= SHM_FBOX_DATA - sizeof(mm_pkt_t);
}

/* Sender: the next free slot of the box to local rank r, or NULL when the ring is full. */
static inline shm_fslot_t *slot_take(int r)
{
    shm_fbox_t *fb = shm_fbox(shm_state.my_local, r);
    uint32_t pos = shm_state.tx_pos[r];

    if (pos - shm_state.tx_consumed[r] >= shm_state.fbox_slots) {
        shm_state.tx_consumed[r] = atomic_load_explicit(&fb->consumed, memory_order_acquire);
        if (pos - shm_state.tx_consumed[r] >= shm_state.fbox_slots)
            return NULL;
    }
    return &fb->slot[pos & (shm_state.fbox_slots - 1)];
}

/* Sender: the slot slot_take gave holds len bytes of message: number it and hand it over. */
static inline void slot_publish(int r, shm_fslot_t * slot, size_t len)
{
    uint32_t pos = shm_state.tx_pos[r];

    slot->len = (uint32_t) len;
    slot->seq = shm_state.tx_seq[r]++;
    atomic_store_explicit(&slot->stamp, pos + 1, memory_order_release);
    shm_state.tx_pos[r] = pos + 1;
}

int shm_send_inline(mm_vc_t * vc, const mm_pkt_t * pkt, const void *data, size_t len)
{
    shm_vc_t *s = shm_vc(vc);
    shm_fslot_t *slot;

    if (s->wq_head || shm_state.fboxes == NULL || len > SHM_FBOX_DATA - sizeof(mm_pkt_t))
        return 0;
    slot = slot_take(s->local_rank);
    if (slot == NULL)
        return 0;
    memcpy(slot->data, pkt, sizeof(mm_pkt_t));
    if (len > 0)        /* data may be NULL then (MPI_Send(NULL, 0, ...)) */
        memcpy(slot->data + sizeof(mm_pkt_t), data, len);
    slot_publish(s->local_rank, slot, sizeof(mm_pkt_t) + len);
    return 1;
}

/* Sender: put head's message in the box to vc's peer if a slot is free. On success the
 * message is out and its CARs are complete. */
int shm_fbox_try_send(mm_vc_t * vc, mm_car_t * head, int *sent)
{
    int mpi_errno = MPI_SUCCESS;
    int r = shm_vc(vc)->local_rank;
    shm_fslot_t *slot = slot_take(r);
    mm_car_t *data = head->next;
    size_t len = sizeof(mm_pkt_t);

    *sent = 0;
    if (slot == NULL)
        return MPI_SUCCESS;
    memcpy(slot->data, &head->pkt, sizeof(mm_pkt_t));
    if (data)
        len += mm_buf_copy(&data->buf, slot->data + sizeof(mm_pkt_t), SHM_FBOX_DATA - len, 0);
    slot_publish(r, slot, len);
    *sent = 1;

    mpi_errno = mm_cq_complete_chain(head);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The slot at pos is read: the sender may fill it again. */
static void slot_release(shm_fbox_t * fb, int src, uint32_t pos)
{
    shm_state.rx_pos[src] = pos + 1;
    atomic_store_explicit(&fb->consumed, pos + 1, memory_order_release);
}

/* Receiver: deliver the next slot from src if it holds the next message and nothing of
 * the previous one is still to come. *delivered says whether it did. */
int shm_fbox_recv(int src, int *delivered)
{
    int mpi_errno = MPI_SUCCESS;
    shm_fbox_t *fb;
    uint32_t pos = shm_state.rx_pos[src];
    shm_fslot_t *slot;
    mm_vc_t *vc;
    mm_pkt_t pkt;
    uint32_t len;

    *delivered = 0;
    if (shm_state.fboxes == NULL)
        return MPI_SUCCESS;
    fb = shm_fbox(src, shm_state.my_local);
    slot = &fb->slot[pos & (shm_state.fbox_slots - 1)];
    if (atomic_load_explicit(&slot->stamp, memory_order_acquire) != pos + 1 ||
        slot->seq != shm_state.rx_seq[src])
        return MPI_SUCCESS;
    mpi_errno = shm_peer_vc(src, &vc);
    MPIR_ERR_CHECK(mpi_errno);
    if (vc->rdata)
        goto fn_exit;   /* the previous message's payload is still in the queue */
    len = slot->len;    /* read once: the sender can write the slot */
    MPIR_ERR_CHKANDJUMP3(len < sizeof(mm_pkt_t) || len > SHM_FBOX_DATA, mpi_errno,
                         MPI_ERR_OTHER, "**mm|badpkt", "**mm|badpkt %d %d %d", vc->lpid, -1,
                         -1);
    shm_state.rx_seq[src]++;
    /* The envelope is copied out of memory the sender can still write; the payload is
     * read where it lies (a sender that changes it only garbles its own message). */
    memcpy(&pkt, slot->data, sizeof(mm_pkt_t));
    mpi_errno = mm_cq_deliver(vc, &pkt, slot->data + sizeof(mm_pkt_t), len - sizeof(mm_pkt_t));
    slot_release(fb, src, pos);
    *delivered = 1;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Receiver, targeted polling (mm_method.h): vc's box alone, and the cell queue when it
 * holds anything (a larger message from vc comes that way). The idle case is one load. */
int shm_poll_vc(mm_vc_t * vc, int *made_progress)
{
    int src = shm_vc(vc)->local_rank, delivered = 0, mpi_errno = MPI_SUCCESS;

    if (shm_state.fboxes) {
        uint32_t pos = shm_state.rx_pos[src];
        shm_fslot_t *next = &shm_fbox(src, shm_state.my_local)->slot[pos &
                                                                    (shm_state.fbox_slots -
                                                                     1)];

        if (atomic_load_explicit(&next->stamp, memory_order_relaxed) == pos + 1) {
            mpi_errno = shm_fbox_recv(src, &delivered);
            if (delivered)
                *made_progress = 1;
        }
    }
    if (mpi_errno == MPI_SUCCESS &&
        atomic_load_explicit(&shm_state.ranks[shm_state.my_local].recvq.head,
                             memory_order_relaxed) != SHM_NIL)
        mpi_errno = shm_read_progress(made_progress);
    return mpi_errno;
}

/* Receiver: every peer's box, up to SHM_FBOX_BATCH messages from each: a stream of small
 * messages is taken in runs instead of one per progress call, and no peer can keep us
 * from the others (nor from the cell queue and the writes after this). */
#define SHM_FBOX_BATCH 16

int shm_fbox_poll(int *made_progress)
{
    int mpi_errno = MPI_SUCCESS;

    if (shm_state.fboxes == NULL)
        return MPI_SUCCESS;
    for (int src = 0; src < shm_state.nlocal; src++) {
        uint32_t pos = shm_state.rx_pos[src];
        shm_fslot_t *next = &shm_fbox(src, shm_state.my_local)->slot[pos &
                                                                    (shm_state.fbox_slots - 1)];
        int delivered = 1;

        if (src == shm_state.my_local)
            continue;
        /* The common idle case without the call: is the next slot filled at all? */
        if (atomic_load_explicit(&next->stamp, memory_order_relaxed) != pos + 1)
            continue;
        for (int n = 0; n < SHM_FBOX_BATCH && delivered; n++) {
            mpi_errno = shm_fbox_recv(src, &delivered);
            if (mpi_errno)
                return mpi_errno;
            if (delivered)
                *made_progress = 1;
        }
    }
    return mpi_errno;
}
