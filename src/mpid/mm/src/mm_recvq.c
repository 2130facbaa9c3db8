/*
 * Posted and unexpected receive queues.
 *
 * Both are FIFO lists searched from the head, so the oldest posted receive gets the first
 * matching message and a receive gets the oldest matching message: with each VC delivering
 * its packets in order, that is MPI's non-overtaking rule per (sender, communicator), for
 * any mix of methods and for MPI_ANY_SOURCE. Matching ignores the error bits MPICH's
 * collectives set in tags (MPIR_TAG_MASK_ERROR_BITS).
 */
#include "mpidimpl.h"

typedef struct recvq {
    MPIR_Request *head;
    MPIR_Request *tail;
} recvq_t;

static recvq_t posted_q;
static recvq_t unexp_q;

static inline int envelope_matches(int want_ctx, int want_rank, int want_tag,
                                   int ctx, int rank, int tag)
{
    return want_ctx == ctx &&
        (want_rank == MPI_ANY_SOURCE || want_rank == rank) &&
        (want_tag == MPI_ANY_TAG || want_tag == MPIR_TAG_MASK_ERROR_BITS(tag));
}

static void recvq_append(recvq_t * q, MPIR_Request * req)
{
    req->dev.qnext = NULL;
    if (q->tail)
        q->tail->dev.qnext = req;
    else
        q->head = req;
    q->tail = req;
}

static void recvq_unlink(recvq_t * q, MPIR_Request * prev, MPIR_Request * req)
{
    if (prev)
        prev->dev.qnext = req->dev.qnext;
    else
        q->head = req->dev.qnext;
    if (q->tail == req)
        q->tail = prev;
    req->dev.qnext = NULL;
}

void mm_recvq_post(MPIR_Request * rreq)
{
    recvq_append(&posted_q, rreq);
}

void mm_recvq_add_unexp(MPIR_Request * ureq)
{
    recvq_append(&unexp_q, ureq);
}

/* An arrived envelope looks for the oldest posted receive it satisfies. */
MPIR_Request *mm_recvq_match_posted(int ctx, int rank, int tag)
{
    MPIR_Request *prev = NULL;

    for (MPIR_Request * r = posted_q.head; r; prev = r, r = r->dev.qnext) {
        if (envelope_matches(r->dev.match_ctx, r->dev.match_rank, r->dev.match_tag,
                             ctx, rank, tag)) {
            recvq_unlink(&posted_q, prev, r);
            return r;
        }
    }
    return NULL;
}

/* A receive (or probe) pattern looks for the oldest unexpected message it accepts. */
MPIR_Request *mm_recvq_match_unexp(int ctx, int rank, int tag, int dequeue)
{
    MPIR_Request *prev = NULL;

    for (MPIR_Request * u = unexp_q.head; u; prev = u, u = u->dev.qnext) {
        if (envelope_matches(ctx, rank, tag,
                             u->dev.match_ctx, u->dev.match_rank, u->dev.match_tag)) {
            if (dequeue)
                recvq_unlink(&unexp_q, prev, u);
            return u;
        }
    }
    return NULL;
}

static int recvq_remove(recvq_t * q, MPIR_Request * req)
{
    MPIR_Request *prev = NULL;

    for (MPIR_Request * r = q->head; r; prev = r, r = r->dev.qnext) {
        if (r == req) {
            recvq_unlink(q, prev, r);
            return 1;
        }
    }
    return 0;
}

int mm_recvq_remove_posted(MPIR_Request * rreq)
{
    return recvq_remove(&posted_q, rreq);
}

int mm_recvq_remove_unexp(MPIR_Request * ureq)
{
    return recvq_remove(&unexp_q, ureq);
}

MPIR_Request *mm_recvq_take_unexp_seq(mm_vc_t * vc, uint64_t seq)
{
    MPIR_Request *prev = NULL;

    for (MPIR_Request * u = unexp_q.head; u; prev = u, u = u->dev.qnext) {
        if (u->dev.vc == vc && u->dev.msg_seq == seq) {
            recvq_unlink(&unexp_q, prev, u);
            return u;
        }
    }
    return NULL;
}
