/*
 * shm method, fast boxes: one ring of message slots per ordered pair of local processes,
 * for small messages: envelope + payload up to SHM_FBOX_DATA bytes in one slot (every
 * control packet), up to SHM_FBOX_MSG_MAX in a span of consecutive slots (shm_impl.h).
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
        mm_buf_remaining(&head->next->buf) <= SHM_FBOX_MSG_MAX - sizeof(mm_pkt_t);
}

/* The slots a message of len bytes (envelope + payload) covers. */
static inline uint32_t data_slots(size_t len)
{
    return (uint32_t) ((offsetof(shm_fslot_t, data) + len + SHM_FBOX_SLOT_BYTES - 1) /
                       SHM_FBOX_SLOT_BYTES);
}

/* The slots its span takes: a longer one is padded to a whole SHM_FBOX_SPAN_ALIGN slots
 * (SPANS in shm_impl.h). */
static inline uint32_t span_slots(size_t len)
{
    uint32_t k = data_slots(len);

    return k <= SHM_FBOX_DENSE_MAX ? k :
        (k + SHM_FBOX_SPAN_ALIGN - 1) & ~(SHM_FBOX_SPAN_ALIGN - 1);
}

/* A span's bytes, from its first slot on. Not slot->data: they run past that array. */
static inline char *span_data(shm_fslot_t * slot)
{
    return (char *) slot + offsetof(shm_fslot_t, data);
}

/* Sender: the first slot of a free span for a message of len bytes to local rank r, or
 * NULL when the ring has no room for it. A span that would wrap is preceded by a skip
 * filling the rest of the ring (published here, once there is room for both). */
static inline shm_fslot_t *slot_take(int r, size_t len)
{
    shm_fbox_t *fb = shm_fbox(shm_state.my_local, r);
    uint32_t pos = shm_state.tx_pos[r], nslots = shm_state.fbox_slots;
    uint32_t idx = pos & (nslots - 1), k = span_slots(len);
    uint32_t skip = idx + k > nslots ? nslots - idx : 0;

    if (pos - shm_state.tx_consumed[r] + skip + k > nslots) {
        shm_state.tx_consumed[r] = atomic_load_explicit(&fb->consumed, memory_order_acquire);
        if (pos - shm_state.tx_consumed[r] + skip + k > nslots)
            return NULL;
    }
    if (skip) {
        fb->slot[idx].len = SHM_FSLOT_SKIP;
        atomic_store_explicit(&fb->slot[idx].stamp, pos + 1, memory_order_release);
        shm_state.tx_pos[r] = pos + skip;
        idx = 0;
    }
    return &fb->slot[idx];
}

/* Sender: the span slot_take gave holds len bytes of message: number it and hand it over. */
static inline void slot_publish(int r, shm_fslot_t * slot, size_t len)
{
    uint32_t pos = shm_state.tx_pos[r], k = span_slots(len);

    slot->len = (uint32_t) len;
    slot->seq = shm_state.tx_seq[r]++;
    atomic_store_explicit(&slot->stamp, pos + 1, memory_order_release);
    shm_state.tx_pos[r] = pos + k;
}

int shm_send_inline(mm_vc_t * vc, const mm_pkt_t * pkt, const void *data, size_t len)
{
    shm_vc_t *s = shm_vc(vc);
    shm_fslot_t *slot;
    char *dst;

    if (s->wq_head || shm_state.fboxes == NULL || len > SHM_FBOX_MSG_MAX - sizeof(mm_pkt_t))
        return 0;
    slot = slot_take(s->local_rank, sizeof(mm_pkt_t) + len);
    if (slot == NULL)
        return 0;
    dst = span_data(slot);
    memcpy(dst, pkt, sizeof(mm_pkt_t));
    if (len > 0)        /* data may be NULL then (MPI_Send(NULL, 0, ...)) */
        memcpy(dst + sizeof(mm_pkt_t), data, len);
    slot_publish(s->local_rank, slot, sizeof(mm_pkt_t) + len);
    return 1;
}

/* Sender: put head's message in the box to vc's peer if a slot is free. On success the
 * message is out and its CARs are complete. */
int shm_fbox_try_send(mm_vc_t * vc, mm_car_t * head, int *sent)
{
    int mpi_errno = MPI_SUCCESS;
    int r = shm_vc(vc)->local_rank;
    mm_car_t *data = head->next;
    size_t len = sizeof(mm_pkt_t) + (data ? mm_buf_remaining(&data->buf) : 0);
    shm_fslot_t *slot = slot_take(r, len);

    *sent = 0;
    if (slot == NULL)
        return MPI_SUCCESS;
    memcpy(span_data(slot), &head->pkt, sizeof(mm_pkt_t));
    if (data)
        mm_buf_copy(&data->buf, span_data(slot) + sizeof(mm_pkt_t), len - sizeof(mm_pkt_t), 0);
    slot_publish(r, slot, len);
    *sent = 1;

    mpi_errno = mm_cq_complete_chain(head);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The k slots from pos on are read: the sender may fill them again. */
static void slot_release(shm_fbox_t * fb, int src, uint32_t pos, uint32_t k)
{
    shm_state.rx_pos[src] = pos + k;
    atomic_store_explicit(&fb->consumed, pos + k, memory_order_release);
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
    uint32_t len, k;

    *delivered = 0;
    if (shm_state.fboxes == NULL)
        return MPI_SUCCESS;
    fb = shm_fbox(src, shm_state.my_local);
    slot = &fb->slot[pos & (shm_state.fbox_slots - 1)];
    if (atomic_load_explicit(&slot->stamp, memory_order_acquire) != pos + 1)
        return MPI_SUCCESS;
    len = slot->len;    /* read once: the sender can write the slot */
    if (len == SHM_FSLOT_SKIP) {
        /* The rest of the ring held no message; the next is at its start. */
        slot_release(fb, src, pos, shm_state.fbox_slots - (pos & (shm_state.fbox_slots - 1)));
        *delivered = 1;
        return MPI_SUCCESS;
    }
    if (slot->seq != shm_state.rx_seq[src])
        return MPI_SUCCESS;
    mpi_errno = shm_peer_vc(src, &vc);
    MPIR_ERR_CHECK(mpi_errno);
    if (vc->rdata)
        goto fn_exit;   /* the previous message's payload is still in the queue */
    k = span_slots(len);
    MPIR_ERR_CHKANDJUMP3(len < sizeof(mm_pkt_t) || len > SHM_FBOX_MSG_MAX ||
                         (pos & (shm_state.fbox_slots - 1)) + k > shm_state.fbox_slots,
                         mpi_errno, MPI_ERR_OTHER, "**mm|badpkt", "**mm|badpkt %d %d %d",
                         vc->lpid, -1, -1);
    shm_state.rx_seq[src]++;
    /* The envelope is copied out of memory the sender can still write; the payload is
     * read where it lies (a sender that changes it only garbles its own message). */
    memcpy(&pkt, span_data(slot), sizeof(mm_pkt_t));
    mpi_errno = mm_cq_deliver(vc, &pkt, span_data(slot) + sizeof(mm_pkt_t),
                              len - sizeof(mm_pkt_t));
    /* Stamp words the payload covered get a value of the wrong residue (STALE STAMPS);
     * a padded span's slots past its payload were not written and keep theirs. */
    for (uint32_t i = 1, covered = data_slots(len); i < covered; i++)
        atomic_store_explicit(&slot[i].stamp, pos + i, memory_order_relaxed);
    slot_release(fb, src, pos, k);
    *delivered = 1;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Receiver: up to max messages from src's box. The common idle case is one load, without
 * the call: is the next slot filled at all? */
MPL_STATIC_INLINE_PREFIX int box_take(int src, int max, int *made_progress)
{
    uint32_t pos = shm_state.rx_pos[src];
    shm_fslot_t *next = &shm_fbox(src, shm_state.my_local)->slot[pos &
                                                                (shm_state.fbox_slots - 1)];
    int delivered = 1, mpi_errno = MPI_SUCCESS;

    if (atomic_load_explicit(&next->stamp, memory_order_relaxed) != pos + 1)
        return MPI_SUCCESS;
    for (int n = 0; n < max && delivered && mpi_errno == MPI_SUCCESS; n++) {
        mpi_errno = shm_fbox_recv(src, &delivered);
        if (delivered)
            *made_progress = 1;
    }
    return mpi_errno;
}

/* Receiver, targeted polling (mm_method.h): vc's box alone, and the cell queue when it
 * holds anything (a larger message from vc comes that way). The idle case is one load. */
int shm_poll_vc(mm_vc_t * vc, int *made_progress)
{
    int mpi_errno = MPI_SUCCESS;

    if (shm_state.fboxes)
        mpi_errno = box_take(shm_vc(vc)->local_rank, 1, made_progress);
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
    for (int src = 0; src < shm_state.nlocal && mpi_errno == MPI_SUCCESS; src++)
        if (src != shm_state.my_local)
            mpi_errno = box_take(src, SHM_FBOX_BATCH, made_progress);
    return mpi_errno;
}
