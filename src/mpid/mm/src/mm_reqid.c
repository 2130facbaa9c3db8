/*
 * Request ids: how peers name our requests on the wire (rendezvous CTS/DATA, sync acks).
 *
 * An id is a slot index in the low 32 bits and that slot's generation in the high 32 bits.
 * A packet naming a freed, reused or never-issued slot fails the generation check and is
 * reported as an error instead of touching memory, which a raw pointer from the wire could
 * not guarantee. Generations start at 1, so 0 is never a valid id.
 */
#include "mpidimpl.h"

typedef struct reqid_slot {
    MPIR_Request *req;          /* NULL while free */
    uint32_t generation;
    uint32_t next_free;
} reqid_slot_t;

static reqid_slot_t *slots;
static uint32_t nslots;
static uint32_t free_head;      /* UINT32_MAX: no free slot */

int mm_reqid_init(void)
{
    slots = NULL;
    nslots = 0;
    free_head = UINT32_MAX;
    return MPI_SUCCESS;
}

void mm_reqid_finalize(void)
{
    MPL_free(slots);
    slots = NULL;
    nslots = 0;
}

static int reqid_grow(void)
{
    uint32_t n = nslots ? nslots * 2 : 256;
    reqid_slot_t *s = MPL_realloc(slots, n * sizeof(*s), MPL_MEM_OTHER);

    if (s == NULL)
        return 0;
    for (uint32_t i = nslots; i < n; i++) {
        s[i].req = NULL;
        s[i].generation = 1;
        s[i].next_free = (i + 1 < n) ? i + 1 : free_head;
    }
    free_head = nslots;
    slots = s;
    nslots = n;
    return 1;
}

uint64_t mm_reqid_register(MPIR_Request * req)
{
    uint32_t i;

    if (free_head == UINT32_MAX && !reqid_grow())
        return 0;
    i = free_head;
    free_head = slots[i].next_free;
    slots[i].req = req;
    return ((uint64_t) slots[i].generation << 32) | i;
}

MPIR_Request *mm_reqid_lookup(uint64_t id)
{
    uint32_t i = (uint32_t) id;
    uint32_t gen = (uint32_t) (id >> 32);

    if (i >= nslots || slots[i].generation != gen)
        return NULL;
    return slots[i].req;
}

void mm_reqid_release(uint64_t id)
{
    uint32_t i = (uint32_t) id;

    MPIR_Assert(i < nslots && slots[i].req != NULL &&
                slots[i].generation == (uint32_t) (id >> 32));
    slots[i].req = NULL;
    if (++slots[i].generation == 0)
        slots[i].generation = 1;
    slots[i].next_free = free_head;
    free_head = i;
}

/* Find the request a peer's packet names and check that it waits for this very packet
 * from this peer: ids come from the wire, and sends, receives and RMA requests share the
 * table, so a stray or duplicated CTS, SYNC_ACK or DATA must fail here rather than act on
 * a request of another kind or in another state. The request must have all flags of
 * `need` and none of `forbid`. */
int mm_reqid_lookup_named(mm_vc_t * vc, uint64_t id, MPIR_Request_kind_t kind, unsigned need,
                        unsigned forbid, const char *what, MPIR_Request ** req_out)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Request *req = mm_reqid_lookup(id);

    MPIR_ERR_CHKANDJUMP3(req == NULL, mpi_errno, MPI_ERR_OTHER, "**mm|badreqid",
                         "**mm|badreqid %d %s %L", vc->lpid, what, (long long) id);
    MPIR_ERR_CHKANDJUMP3(req->kind != kind || req->dev.vc != vc ||
                         (req->dev.flags & need) != need || (req->dev.flags & forbid) != 0,
                         mpi_errno, MPI_ERR_OTHER, "**mm|unwanted", "**mm|unwanted %d %s %L",
                         vc->lpid, what, (long long) id);
    *req_out = req;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
