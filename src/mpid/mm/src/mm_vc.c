/*
 * The VC table: one virtual connection per peer process, bound to a method on first use.
 * World ranks sit in one array; VCs of other jobs (dynamic processes) are allocated one by
 * one as they are met, since methods and CARs keep pointers to VCs, which must not move.
 * mm_vc.h explains lpids and gpids.
 */
#include "mpidimpl.h"

mm_vc_t *mm_world_vcs;          /* lpid 0..size-1; src/mm_vc_table.h reads it inline */
static mm_vc_t **dyn_vcs;       /* lpid size + i */
static int dyn_count, dyn_cap;
uint64_t mm_my_gpid;

#define MM_JOB_KEY "mm-job"

static void vc_setup(mm_vc_t * vc, int lpid, uint64_t gpid)
{
    memset(vc, 0, sizeof(*vc));
    vc->lpid = lpid;
    vc->gpid = gpid;
    vc->state = MM_VC_STATE_UNBOUND;
    vc->rhead.kind = MM_CAR_HEAD;
    vc->rhead.dir = MM_CAR_READ;
    vc->rhead.vc = vc;
}

/* Rank 0 draws the job id and publishes it; the others read it once the methods' PMI
 * barrier has made it visible (mm_vc_init_names). */
int mm_vc_init(void)
{
    int mpi_errno = MPI_SUCCESS;
    int size = MPIR_Process.size;

    mm_world_vcs = MPL_calloc(size, sizeof(mm_vc_t), MPL_MEM_ADDRESS);
    MPIR_ERR_CHKANDJUMP1(mm_world_vcs == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                         "**nomem %s", "mm VC table");
    for (int i = 0; i < size; i++)
        vc_setup(&mm_world_vcs[i], i, (uint32_t) i);       /* the job id joins later */
    if (MPIR_Process.rank == 0) {
        char val[16];
        mm_my_gpid = mm_random64() << 32;
        snprintf(val, sizeof(val), "%08x", (unsigned) MM_GPID_JOB(mm_my_gpid));
        if (size > 1) {
            mpi_errno = MPIR_pmi_kvs_put(MM_JOB_KEY, val);
            MPIR_ERR_CHECK(mpi_errno);
        }
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_vc_init_names(void)
{
    int mpi_errno = MPI_SUCCESS;
    uint64_t job;

    if (MPIR_Process.rank != 0) {
        char val[16];
        mpi_errno = MPIR_pmi_kvs_get(0, MM_JOB_KEY, val, sizeof(val));
        MPIR_ERR_CHECK(mpi_errno);
        mm_my_gpid = (uint64_t) strtoul(val, NULL, 16) << 32;
    }
    job = mm_my_gpid;
    mm_my_gpid |= (uint32_t) MPIR_Process.rank;
    for (int i = 0; i < MPIR_Process.size; i++)
        mm_world_vcs[i].gpid = job | (uint32_t) i;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_vc_count(void)
{
    return MPIR_Process.size + dyn_count;
}

mm_vc_t *mm_vc_dyn_at(int lpid)
{
    MPIR_Assert(lpid >= MPIR_Process.size && lpid < mm_vc_count());
    return dyn_vcs[lpid - MPIR_Process.size];
}

mm_vc_t *mm_vc_at(int lpid)
{
    return lpid < MPIR_Process.size ? &mm_world_vcs[lpid] : mm_vc_dyn_at(lpid);
}

int mm_vc_get(int lpid, mm_vc_t ** vc_out)
{
    int mpi_errno = MPI_SUCCESS;
    mm_vc_t *vc = mm_vc_at(lpid);

    if (unlikely(vc->state == MM_VC_STATE_UNBOUND)) {
        mpi_errno = mm_methods_select(vc);
        MPIR_ERR_CHECK(mpi_errno);
    }
    *vc_out = vc;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_vc_lookup(uint64_t gpid, const char *cards, int create, int *lpid)
{
    int mpi_errno = MPI_SUCCESS;
    mm_vc_t *vc;

    if (MM_GPID_JOB(gpid) == MM_GPID_JOB(mm_my_gpid)) {
        int rank = MM_GPID_RANK(gpid);
        MPIR_ERR_CHKANDJUMP2(rank < 0 || rank >= MPIR_Process.size, mpi_errno, MPI_ERR_OTHER,
                             "**mm|badgpid", "**mm|badgpid %L %d", (long long) gpid,
                             MPIR_Process.size);
        *lpid = rank;
        goto fn_exit;
    }
    /* The latest VC of that process that is still open: a closed one (after a disconnect)
     * stays closed, and meeting the process again makes a new one. */
    for (int i = dyn_count - 1; i >= 0; i--) {
        vc = dyn_vcs[i];
        if (vc->gpid == gpid && vc->state != MM_VC_STATE_CLOSED) {
            if (cards && vc->cards == NULL) {
                vc->cards = MPL_strdup(cards);
                MPIR_ERR_CHKANDJUMP1(vc->cards == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                                     "**nomem %s", "mm VC cards");
            }
            *lpid = vc->lpid;
            goto fn_exit;
        }
    }
    *lpid = -1;
    if (!create)
        goto fn_exit;

    if (dyn_count == dyn_cap) {
        int cap = dyn_cap ? 2 * dyn_cap : 16;
        mm_vc_t **grown = MPL_realloc(dyn_vcs, cap * sizeof(*grown), MPL_MEM_ADDRESS);
        MPIR_ERR_CHKANDJUMP1(grown == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                             "mm VC table");
        dyn_vcs = grown;
        dyn_cap = cap;
    }
    vc = MPL_malloc(sizeof(*vc), MPL_MEM_ADDRESS);
    MPIR_ERR_CHKANDJUMP1(vc == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm VC");
    vc_setup(vc, MPIR_Process.size + dyn_count, gpid);
    if (cards) {
        vc->cards = MPL_strdup(cards);
        if (vc->cards == NULL) {
            MPL_free(vc);
            MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                                 "mm VC cards");
        }
    }
    dyn_vcs[dyn_count++] = vc;
    *lpid = vc->lpid;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_vc_describe(int lpid, int with_cards, char *buf, size_t len)
{
    mm_vc_t *vc = mm_vc_at(lpid);
    int n = snprintf(buf, len, "%016llx", (unsigned long long) vc->gpid), m;

    if (n < 0 || (size_t) n >= len)
        return -1;
    if (!with_cards)
        return n;
    if (lpid >= MPIR_Process.size) {
        m = snprintf(buf + n, len - n, "%s", vc->cards ? vc->cards : "");
        return (m < 0 || (size_t) m >= len - n) ? -1 : n + m;
    }
    m = mm_methods_cards(lpid, buf + n, len - n);
    return m < 0 ? -1 : n + m;
}

/* A bound VC's method finishes its queued writes and lets it go. */
static int vc_close(mm_vc_t * vc)
{
    vc->state = MM_VC_STATE_CLOSED;
    return vc->method->close(vc);
}

void mm_vc_comm_ref(const int *lpids, int n)
{
    for (int i = 0; i < n; i++)
        if (lpids[i] >= MPIR_Process.size)
            mm_vc_at(lpids[i])->comm_refs++;
}

/* Close the dynamic VCs no communicator names any more: their processes are disconnected
 * from us (MPI_Comm_disconnect), and a peer job must be able to finalize without waiting
 * for ours. */
int mm_vc_comm_unref(const int *lpids, int n)
{
    int mpi_errno = MPI_SUCCESS;

    for (int i = 0; i < n; i++) {
        mm_vc_t *vc;
        if (lpids[i] < MPIR_Process.size)
            continue;
        vc = mm_vc_at(lpids[i]);
        MPIR_Assert(vc->comm_refs > 0);
        if (--vc->comm_refs == 0 && vc->state == MM_VC_STATE_BOUND) {
            mpi_errno = vc_close(vc);
            MPIR_ERR_CHECK(mpi_errno);
        }
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Close every bound VC: each method finishes the writes still queued on it. The table
 * stays, because methods still deliver what peers send until they close too. */
int mm_vc_close_all(void)
{
    int mpi_errno = MPI_SUCCESS;

    for (int i = 0; i < mm_vc_count(); i++) {
        mm_vc_t *vc = mm_vc_at(i);
        if (vc->state == MM_VC_STATE_BOUND) {
            mpi_errno = vc_close(vc);
            MPIR_ERR_CHECK(mpi_errno);
        }
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Release the table once every method is down. */
int mm_vc_finalize(void)
{
    for (int i = 0; i < dyn_count; i++) {
        MPL_free(dyn_vcs[i]->cards);
        MPL_free(dyn_vcs[i]);
    }
    MPL_free(dyn_vcs);
    MPL_free(mm_world_vcs);
    dyn_vcs = NULL;
    mm_world_vcs = NULL;
    dyn_count = dyn_cap = 0;
    return MPI_SUCCESS;
}
