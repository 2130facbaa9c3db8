/*
 * shm method: setup and teardown of the node segment, reachability, the method table.
 */
#include "mpidimpl.h"
#include "shm_impl.h"
#include "mpidu_init_shm.h"
#include <sys/prctl.h>
#include <unistd.h>

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_MM_SHM_EAGER_LIMIT
      category    : MM
      type        : int
      default     : -1
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Largest message (bytes) the shm method sends eagerly; larger ones use the
        rendezvous protocol, so their payload only moves once the receive is posted.
        -1 (default) chooses from measurements: 8192 where rendezvous payloads move
        with one CMA copy (MPIR_CVAR_MM_SHM_CMA on), 65536 where they go through cells
        (CMA off). Where the kernel refuses CMA the limit stays 8192, and a larger
        payload comes through cells once the receiver asks for it.

    - name        : MPIR_CVAR_MM_SHM_CELLS
      category    : MM
      type        : int
      default     : 64
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Number of shared-memory cells each process owns for sending to its node peers.

    - name        : MPIR_CVAR_MM_SHM_CELL_SIZE
      category    : MM
      type        : int
      default     : 32768
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Payload bytes per shared-memory cell (rounded up to a multiple of 64, at least
        256).

    - name        : MPIR_CVAR_MM_SHM_CMA
      category    : MM
      type        : boolean
      default     : true
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        Move rendezvous payloads between processes of a node with one copy through
        cross-memory attach (process_vm_readv/writev) instead of two pipelined copies
        through shared-memory cells. A contiguous payload is copied by both processes at
        once, in chunks: the receiver reads some, the sender, waiting in MPI, writes the
        others. Where the kernel refuses CMA, the receiver asks for the payload through
        cells instead, from the first refusal on. Set to 0 to keep every payload in cells.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

shm_state_t shm_state;

static int shm_init(char *card)
{
    int mpi_errno = MPI_SUCCESS;
    int nlocal = MPIR_Process.local_size;
    int ncells = MPL_MAX(MPIR_CVAR_MM_SHM_CELLS, 2);
    size_t cell_size = MPL_MAX(MPIR_CVAR_MM_SHM_CELL_SIZE, 256);
    size_t hdr, pairs, fboxes, len;
    int me = MPIR_Process.local_rank;

    cell_size = MPL_ROUND_UP_ALIGN(cell_size, SHM_CACHELINE);
    memset(&shm_state, 0, sizeof(shm_state));
    shm_state.my_local = me;
    shm_state.cell_stride = sizeof(shm_cell_t) + cell_size;
    hdr = MPL_ROUND_UP_ALIGN(sizeof(shm_seg_t), SHM_CACHELINE);
    pairs = MPL_ROUND_UP_ALIGN((size_t) nlocal * nlocal * sizeof(shm_pair_t), SHM_CACHELINE);
    shm_state.fbox_slots = SHM_FBOX_SLOTS_MAX;
    while (shm_state.fbox_slots > SHM_FBOX_SLOTS_MIN &&
           (size_t) nlocal * nlocal * shm_state.fbox_slots * sizeof(shm_fslot_t) >
           SHM_FBOX_BUDGET)
        shm_state.fbox_slots /= 2;
    shm_state.fbox_stride = sizeof(shm_fbox_t) + shm_state.fbox_slots * sizeof(shm_fslot_t);
    fboxes = nlocal <= SHM_FBOX_MAX_LOCAL ? (size_t) nlocal * nlocal * shm_state.fbox_stride : 0;
    len = hdr + nlocal * sizeof(shm_rank_t) + pairs + fboxes +
        (size_t) nlocal * ncells * shm_state.cell_stride;
    shm_state.nlocal = nlocal;
    shm_state.pid = getpid();
    shm_state.cma_enabled = MPIR_CVAR_MM_SHM_CMA;
#ifdef PR_SET_PTRACER
    /* Under Yama's ptrace_scope=1 only ancestors may attach: our peers are siblings
     * (children of the same hydra proxy), so name them all. Failure is harmless: the
     * first CMA transfer finds out and falls back to cells. */
    if (shm_state.cma_enabled)
        prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
#endif

    mpi_errno = MPIDU_Init_shm_init();
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIDU_Init_shm_alloc(len, &shm_state.seg_base);
    MPIR_ERR_CHECK(mpi_errno);

    shm_state.seg = shm_state.seg_base;
    shm_state.ranks = (shm_rank_t *) ((char *) shm_state.seg_base + hdr);
    shm_state.pairs = (shm_pair_t *) (shm_state.ranks + nlocal);
    shm_state.fboxes = fboxes ? (char *) shm_state.pairs + pairs : NULL;
    shm_state.cells = (char *) shm_state.pairs + pairs + fboxes;
    shm_state.tx_seq = MPL_calloc(5 * nlocal, sizeof(uint32_t), MPL_MEM_SHM);
    MPIR_ERR_CHKANDJUMP1(shm_state.tx_seq == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                         "**nomem %s", "mm shm message numbers");
    shm_state.rx_seq = shm_state.tx_seq + nlocal;
    shm_state.tx_pos = shm_state.tx_seq + 2 * nlocal;
    shm_state.tx_consumed = shm_state.tx_seq + 3 * nlocal;
    shm_state.rx_pos = shm_state.tx_seq + 4 * nlocal;
    shm_state.peer_vc = MPL_calloc(nlocal, sizeof(mm_vc_t *), MPL_MEM_SHM);
    MPIR_ERR_CHKANDJUMP1(shm_state.peer_vc == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                         "**nomem %s", "mm shm peer table");

    shm_state.ncells = ncells;
    shm_state.ncells_all = nlocal * ncells;
    shm_state.cell_size = (uint32_t) cell_size;

    /* Each process initializes its own queues and cells; the barrier below publishes
     * them before anyone sends. */
    if (me == 0) {
        shm_state.seg->magic = SHM_SEG_MAGIC;
        shm_state.seg->nlocal = nlocal;
        shm_state.seg->ncells = ncells;
        shm_state.seg->cell_size = (int32_t) cell_size;
    }
    for (int i = 0; i < nlocal; i++) {
        /* The pairs this process receives on are its to initialize. */
        memset(shm_pair(i, me), 0, sizeof(shm_pair_t));
        if (shm_state.fboxes == NULL)
            continue;
        atomic_store_explicit(&shm_fbox(i, me)->consumed, 0, memory_order_relaxed);
        for (uint32_t k = 0; k < shm_state.fbox_slots; k++)
            atomic_store_explicit(&shm_fbox(i, me)->slot[k].stamp, 0, memory_order_relaxed);
    }
    shm_queue_init(&shm_state.ranks[me].recvq);
    shm_queue_init(&shm_state.ranks[me].freeq);
    for (int i = 0; i < ncells; i++) {
        int32_t idx = me * ncells + i;
        shm_cell(idx)->src = me;
        shm_queue_push(&shm_state.ranks[me].freeq, idx);
    }
    shm_life_publish();
    mpi_errno = MPIDU_Init_shm_barrier();
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERR_CHKANDJUMP1(shm_state.seg->magic != SHM_SEG_MAGIC ||
                         shm_state.seg->nlocal != nlocal || shm_state.seg->ncells != ncells ||
                         shm_state.seg->cell_size != (int32_t) cell_size, mpi_errno,
                         MPI_ERR_OTHER, "**mm|shm_init", "**mm|shm_init %s",
                         "processes of this node disagree on the segment layout (check that "
                         "MPIR_CVAR_MM_SHM_* are the same everywhere)");
    mpi_errno = shm_life_init();
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int shm_finalize(void)
{
    int mpi_errno = MPI_SUCCESS;

    shm_life_leave();
    mpi_errno = MPIDU_Init_shm_free(shm_state.seg_base);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIDU_Init_shm_finalize();
    MPIR_ERR_CHECK(mpi_errno);
    MPL_free(shm_state.peer_vc);
    MPL_free(shm_state.peer_pid);
    MPL_free(shm_state.tx_seq);
    while (shm_state.cma_regs) {
        /* sends that never completed (a peer lost, the job aborting) */
        shm_cma_reg_t *reg = shm_state.cma_regs;
        shm_state.cma_regs = reg->next;
        MPL_free(reg);
    }
    memset(&shm_state, 0, sizeof(shm_state));

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Same node per the PMI node map (MPIR_CVAR_NUM_CLIQUES & co. can split a host into
 * several fake nodes, which is how mixed shm/tcp jobs are tested on one machine). */
static int shm_can_reach(int lpid, const char *card)
{
    /* The segment is this job's: another job's processes are not in it, same host or not. */
    if (lpid >= MPIR_Process.size)
        return 0;
    return MPIR_Process.node_map[lpid] == MPIR_Process.node_map[MPIR_Process.rank];
}

static int shm_connect(mm_vc_t * vc, const char *card)
{
    shm_vc_t *s = shm_vc(vc);

    memset(s, 0, sizeof(*s));
    s->local_rank = -1;
    for (int i = 0; i < MPIR_Process.local_size; i++) {
        if (MPIR_Process.node_local_map[i] == vc->lpid) {
            s->local_rank = i;
            break;
        }
    }
    MPIR_Assert(s->local_rank >= 0);
    vc->eager_limit = shm_eager_limit(shm_state.cma_enabled);
    /* The peer may run with CMA off (MPIR_CVAR_MM_SHM_CMA=0 in its environment only), and
     * then sends eagerly up to the cells' limit: accept either. */
    vc->eager_limit_rx = MPL_MAX(shm_eager_limit(0), shm_eager_limit(1));
    shm_state.peer_vc[s->local_rank] = vc;
    return MPI_SUCCESS;
}

static int shm_progress(int *made_progress)
{
    int mpi_errno = shm_read_progress(made_progress);

    /* Each step only when it has something to do: this runs in every wait loop's spin. */
    if (mpi_errno == MPI_SUCCESS && shm_state.active_head)
        mpi_errno = shm_write_progress(made_progress);
    if (mpi_errno == MPI_SUCCESS && shm_state.cma_regs)
        shm_cma_help(made_progress);
    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = shm_life_poll(*made_progress);
    return mpi_errno;
}

/* Finish the writes queued on vc; the peer drains its queue in its own close or progress. */
static int shm_close(mm_vc_t * vc)
{
    int mpi_errno = MPI_SUCCESS;

    while (shm_vc(vc)->wq_head) {
        int made_progress = 0;
        mpi_errno = shm_progress(&made_progress);
        MPIR_ERR_CHECK(mpi_errno);
        if (!made_progress)
            mm_yield_core();
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

const mm_method_t mm_shm_method = {
    .name = "shm",
    .eager_limit = 65536,
    .caps = MM_METHOD_CAP_GET,
    .init = shm_init,
    .finalize = shm_finalize,
    .can_reach = shm_can_reach,
    .connect = shm_connect,
    .post_write = shm_post_write,
    .send_inline = shm_send_inline,
    .post_read = shm_post_read,
    .progress = shm_progress,
    .poll_vc = shm_poll_vc,
    .wait_fd = NULL,            /* cells arrive in memory: shm must be polled */
    .close = shm_close,
    .mem_register = shm_mem_register,
    .mem_deregister = shm_mem_deregister,
    .get = shm_get,
};
