/*
 * mm device: RMA windows — creation of every flavor, attach/detach, free, shared query,
 * info hints (the registry that maps a window's wire key to it is mm_win_registry.c).
 *
 * A window works on a duplicate of the user's communicator. Its context id is the same
 * in every member, so it names the window in RMA packets (mm_pkt_t.context_id) without
 * any exchange. A window is registered before the collective that ends its creation, so
 * no member can send it a packet before it exists; MPI_Win_free ends with a barrier after
 * all of its traffic is answered, so no packet outlives it.
 *
 * Memory: MPI_Win_create exposes the user's buffer, MPI_Win_create_dynamic whatever is
 * attached (target displacements are addresses), MPI_Win_allocate_shared one POSIX
 * shared-memory segment per window, laid out rank after rank, that every member maps, and
 * MPI_Win_allocate one such segment per node, shared by the members on that node. The
 * segment starts with the accumulate stripes and the members' reader counters
 * (mm_rma_atomic.c), so every process that may apply an accumulate to the segment follows
 * the same rule. Whatever a process maps it reaches with loads and stores
 * (mm_rma_direct.c).
 */

#include "mm_rma.h"
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <errno.h>

/* Members' parts of a shared window's segment start on this alignment (after the
 * accumulate locks and the lock words, mm_win_seg_header). */
#define MM_SHM_WIN_HEADER 64
#define MM_SHM_WIN_PAGE 4096

/* --- info hints --- */

static int info_bool(MPIR_Info * info, const char *key, int *val)
{
    char buf[MPI_MAX_INFO_VAL + 1];
    int flag = 0;

    MPIR_Info_get_impl(info, key, MPI_MAX_INFO_VAL, buf, &flag);
    if (flag) {
        if (strcmp(buf, "true") == 0)
            *val = 1;
        else if (strcmp(buf, "false") == 0)
            *val = 0;
    }
    return flag;
}

static void win_info_apply(MPIR_Win * win, MPIR_Info * info)
{
    char buf[MPI_MAX_INFO_VAL + 1];
    int flag = 0;

    if (info == NULL)
        return;
    info_bool(info, "no_locks", &win->dev.info_no_locks);
    info_bool(info, "same_size", &win->dev.info_same_size);
    info_bool(info, "same_disp_unit", &win->dev.info_same_disp_unit);
    info_bool(info, "alloc_shared_noncontig", &win->dev.info_alloc_shared_noncontig);

    MPIR_Info_get_impl(info, "accumulate_ordering", MPI_MAX_INFO_VAL, buf, &flag);
    if (flag) {
        int order = 0;
        char *save = NULL;
        for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            if (strcmp(tok, "rar") == 0)
                order |= MM_ACC_ORDER_RAR;
            else if (strcmp(tok, "raw") == 0)
                order |= MM_ACC_ORDER_RAW;
            else if (strcmp(tok, "war") == 0)
                order |= MM_ACC_ORDER_WAR;
            else if (strcmp(tok, "waw") == 0)
                order |= MM_ACC_ORDER_WAW;
        }
        win->dev.info_acc_ordering = order;
    }
    MPIR_Info_get_impl(info, "accumulate_ops", MPI_MAX_INFO_VAL, buf, &flag);
    if (flag) {
        if (strcmp(buf, "same_op") == 0)
            win->dev.info_acc_ops_same_op = 1;
        else if (strcmp(buf, "same_op_no_op") == 0)
            win->dev.info_acc_ops_same_op = 0;
    }
    /* read at creation only: who updates the words is decided once (mm_rma_nic.c) */
    MPIR_Info_get_impl(info, "mm_nic_atomics", MPI_MAX_INFO_VAL, buf, &flag);
    if (flag)
        win->dev.info_nic_atomics = strcmp(buf, "true") == 0;
}

int MPID_Win_get_info(MPIR_Win * win, MPIR_Info ** info_used)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Info *info = NULL;
    char order[32] = "";
    static const struct {
        int bit;
        const char *name;
    } orders[] = { {MM_ACC_ORDER_RAR, "rar"}, {MM_ACC_ORDER_RAW, "raw"},
    {MM_ACC_ORDER_WAR, "war"}, {MM_ACC_ORDER_WAW, "waw"}
    };

    mpi_errno = MPIR_Info_alloc(&info);
    MPIR_ERR_CHECK(mpi_errno);
    for (int i = 0; i < 4; i++)
        if (win->dev.info_acc_ordering & orders[i].bit) {
            if (order[0])
                strcat(order, ",");
            strcat(order, orders[i].name);
        }
    mpi_errno = MPIR_Info_set_impl(info, "no_locks", win->dev.info_no_locks ? "true" : "false");
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_Info_set_impl(info, "accumulate_ordering", order[0] ? order : "none");
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_Info_set_impl(info, "accumulate_ops",
                                   win->dev.info_acc_ops_same_op ? "same_op" : "same_op_no_op");
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_Info_set_impl(info, "same_size", win->dev.info_same_size ? "true" : "false");
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_Info_set_impl(info, "same_disp_unit",
                                   win->dev.info_same_disp_unit ? "true" : "false");
    MPIR_ERR_CHECK(mpi_errno);
    if (win->create_flavor == MPI_WIN_FLAVOR_SHARED) {
        mpi_errno = MPIR_Info_set_impl(info, "alloc_shared_noncontig",
                                       win->dev.info_alloc_shared_noncontig ? "true" : "false");
        MPIR_ERR_CHECK(mpi_errno);
    }
    *info_used = info;

  fn_exit:
    return mpi_errno;
  fn_fail:
    if (info)
        MPIR_Info_free_impl(info);
    *info_used = NULL;
    goto fn_exit;
}

int MPID_Win_set_info(MPIR_Win * win, MPIR_Info * info)
{
    win_info_apply(win, info);
    return MPI_SUCCESS;
}

/* --- creation --- */

/* The parts every flavor shares: the object, the duplicate communicator, the peers. The
 * window is not registered yet (win_publish does that). */
static int win_init(MPI_Aint size, int disp_unit, int flavor, MPIR_Info * info,
                    MPIR_Comm * comm, MPIR_Win ** win_out)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Win *win;

    win = (MPIR_Win *) MPIR_Handle_obj_alloc(&MPIR_Win_mem);
    MPIR_ERR_CHKANDJUMP1(win == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "MPI_Win");
    MPIR_Object_set_ref(win, 1);
    {
        int thr_err;
        MPID_Thread_mutex_create(&win->mutex, &thr_err);
        MPIR_Assert(thr_err == 0);
    }
    memset(&win->dev, 0, sizeof(win->dev));
    win->errhandler = NULL;
    win->base = NULL;
    win->size = size;
    win->disp_unit = disp_unit;
    win->create_flavor = flavor;
    win->model = MPI_WIN_UNIFIED;
    win->attributes = NULL;
    win->name[0] = 0;
    win->comm_ptr = NULL;

    mpi_errno = MPIR_Comm_dup_impl(comm, &win->comm_ptr);
    if (mpi_errno) {
        MPID_Win_free(&win);
        goto fn_fail;
    }
    win->dev.key = win->comm_ptr->context_id;
    win->dev.peers = MPL_calloc(win->comm_ptr->local_size, sizeof(mm_win_peer_t), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(win->dev.peers == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                         "**nomem %s", "window peers");
    win->dev.acc_lock = win->dev.acc_lock_local;
    win->dev.acc_slots = NULL;
    win->dev.info_acc_ordering = MM_ACC_ORDER_RAR | MM_ACC_ORDER_RAW | MM_ACC_ORDER_WAR |
        MM_ACC_ORDER_WAW;
    win->dev.info_nic_atomics = -1;
    win_info_apply(win, info);
    *win_out = win;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Register the window, then let the members know: after the barrier, any of them may
 * send it operations. */
static int win_publish(MPIR_Win * win)
{
    MPIR_Errflag_t errflag = MPIR_ERR_NONE;
    mm_win_peer_t *self = &win->dev.peers[win->comm_ptr->rank];
    int mpi_errno;

    /* Our own memory is always reachable directly (dynamic windows have no one base). */
    if (self->shm_base == NULL && win->create_flavor != MPI_WIN_FLAVOR_DYNAMIC &&
        win->size > 0) {
        self->shm_base = win->base;
        self->shm_size = win->size;
        self->shm_disp_unit = win->disp_unit;
    }

    mm_rma_lockwords_init(win);
    mpi_errno = mm_rma_nic_setup(win, win->dev.info_nic_atomics >= 0 ?
                                 win->dev.info_nic_atomics : MPIR_CVAR_MM_NIC_ATOMICS);
    if (mpi_errno)
        return mpi_errno;
    mm_win_register(win);
    return MPIR_Barrier(win->comm_ptr, &errflag);
}

int MPID_Win_create(void *base, MPI_Aint size, int disp_unit, MPIR_Info * info,
                    MPIR_Comm * comm, MPIR_Win ** win)
{
    int mpi_errno = win_init(size, disp_unit, MPI_WIN_FLAVOR_CREATE, info, comm, win);

    if (mpi_errno)
        return mpi_errno;
    (*win)->base = base;
    return win_publish(*win);
}

/* Create (rank 0) or open the window's segment and map it everywhere. The name is
 * removed once all members have it mapped, so nothing is left behind if a process dies. */
static int shm_segment(MPIR_Win * win, MPIR_Comm * comm, size_t len)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Errflag_t errflag = MPIR_ERR_NONE;
    static unsigned counter;
    char name[64] = "";
    const char *failed = NULL;
    int err = 0, fd = -1, ok[2];
    void *seg = MAP_FAILED;

    if (comm->rank == 0) {
        snprintf(name, sizeof(name), "/mm-win-%d-%u", (int) getpid(), counter++);
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0) {
            failed = "shm_open";
            err = errno;
        } else if (ftruncate(fd, (off_t) len) != 0) {
            failed = "ftruncate";
            err = errno;
        }
        if (failed) {
            if (fd >= 0)
                shm_unlink(name);
            name[0] = 0;
        }
    }
    mpi_errno = MPIR_Bcast(name, sizeof(name), MPI_CHAR, 0, comm, &errflag);
    MPIR_ERR_CHECK(mpi_errno);
    if (name[0] == 0 && failed == NULL) {
        failed = "shm_open (on rank 0)";
        err = EIO;
    }
    if (name[0] && comm->rank != 0) {
        fd = shm_open(name, O_RDWR, 0600);
        if (fd < 0) {
            failed = "shm_open";
            err = errno;
        }
    }
    if (fd >= 0 && !failed) {
        seg = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (seg == MAP_FAILED) {
            failed = "mmap";
            err = errno;
        }
    }
    if (fd >= 0)
        close(fd);
    /* Everyone must know whether everyone succeeded before the name goes away; and
     * whether every member can take part in the asymmetric reader rule (mm_rma_atomic.c),
     * which works only if all do. */
    ok[0] = failed == NULL;
    ok[1] = mm_rma_membarrier_ready();
    mpi_errno = MPIR_Allreduce(MPI_IN_PLACE, ok, 2, MPI_INT, MPI_LAND, comm, &errflag);
    MPIR_ERR_CHECK(mpi_errno);
    if (comm->rank == 0 && name[0])
        shm_unlink(name);
    if (!ok[0]) {
        if (seg != MAP_FAILED)
            munmap(seg, len);
        MPIR_ERR_SETANDJUMP2(mpi_errno, MPI_ERR_NO_MEM, "**mm|rmashm", "**mm|rmashm %s %s",
                             failed ? failed : "another member's mapping",
                             failed ? strerror(err) : "see that process");
    }
    win->dev.shm_seg = seg;
    win->dev.shm_len = len;
    win->dev.acc_asym = ok[1];

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_allocate_shared(MPI_Aint size, int disp_unit, MPIR_Info * info, MPIR_Comm * comm,
                             void *baseptr, MPIR_Win ** win_out)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Errflag_t errflag = MPIR_ERR_NONE;
    MPIR_Win *win = NULL;
    MPI_Aint *sizes = NULL;
    size_t off, len;
    int n;

    mpi_errno = win_init(size, disp_unit, MPI_WIN_FLAVOR_SHARED, info, comm, &win);
    MPIR_ERR_CHECK(mpi_errno);
    n = win->comm_ptr->local_size;
    sizes = MPL_malloc(2 * n * sizeof(MPI_Aint), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(sizes == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "shared window sizes");
    sizes[2 * win->comm_ptr->rank] = size;
    sizes[2 * win->comm_ptr->rank + 1] = disp_unit;
    mpi_errno = MPIR_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, sizes, 2, MPI_AINT,
                               win->comm_ptr, &errflag);
    MPIR_ERR_CHECK(mpi_errno);

    /* Contiguous unless asked otherwise: rank r's memory starts where r-1's ends. With
     * alloc_shared_noncontig each part starts on its own page. */
    off = MPL_ROUND_UP_ALIGN(mm_win_seg_header(n), MM_SHM_WIN_PAGE);
    for (int r = 0; r < n; r++) {
        if (win->dev.info_alloc_shared_noncontig)
            off = MPL_ROUND_UP_ALIGN(off, MM_SHM_WIN_PAGE);
        win->dev.peers[r].shm_size = sizes[2 * r];
        win->dev.peers[r].shm_disp_unit = (int) sizes[2 * r + 1];
        win->dev.peers[r].shm_base = (void *) off;      /* an offset until mapped */
        off += sizes[2 * r];
    }
    len = off;
    mpi_errno = shm_segment(win, win->comm_ptr, len);
    MPIR_ERR_CHECK(mpi_errno);
    for (int r = 0; r < n; r++)
        win->dev.peers[r].shm_base = (char *) win->dev.shm_seg +
            (size_t) win->dev.peers[r].shm_base;
    mm_rma_acc_slots_init(win, win->dev.shm_seg, n, win->comm_ptr->rank);
    win->base = win->dev.peers[win->comm_ptr->rank].shm_base;
    *(void **) baseptr = win->base;
    *win_out = win;
    mpi_errno = win_publish(win);
    win = NULL;

  fn_exit:
    MPL_free(sizes);
    return mpi_errno;
  fn_fail:
    if (win)
        MPID_Win_free(&win);
    goto fn_exit;
}

/* MPI_Win_allocate: the members on one node share one segment, laid out as
 * MPI_Win_allocate_shared would among them, so each reaches the others' memory with loads
 * and stores (mm_rma_direct.c) and only origins on other nodes send operations. A member
 * alone on its node, or a node where no segment can be made, uses private memory. */
static int alloc_node_segment(MPIR_Win * win, MPI_Aint size, int disp_unit)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Errflag_t errflag = MPIR_ERR_NONE;
    MPIR_Comm *node = NULL;
    MPI_Aint *recs = NULL;
    size_t off;
    int node_id, n;

    mpi_errno = MPID_Get_node_id(win->comm_ptr, win->comm_ptr->rank, &node_id);
    MPIR_ERR_CHECK(mpi_errno);
    if (mm_comm_has_other_jobs(win->comm_ptr))
        node_id = win->comm_ptr->rank;  /* node ids of two jobs are not comparable: no
                                         * shared segment */
    mpi_errno = MPIR_Comm_split_impl(win->comm_ptr, node_id, win->comm_ptr->rank, &node);
    MPIR_ERR_CHECK(mpi_errno);
    n = node->local_size;
    if (n == 1)
        goto fn_exit;
    recs = MPL_malloc(3 * n * sizeof(MPI_Aint), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(recs == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "window node layout");
    recs[3 * node->rank] = win->comm_ptr->rank;
    recs[3 * node->rank + 1] = size;
    recs[3 * node->rank + 2] = disp_unit;
    mpi_errno = MPIR_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recs, 3, MPI_AINT, node,
                               &errflag);
    MPIR_ERR_CHECK(mpi_errno);
    off = mm_win_seg_header(n);
    for (int i = 0; i < n; i++) {
        /* Each member's part starts a granule of the accumulate stripes (mm_rma.h), so an
         * accumulate of up to a granule at an aligned displacement takes one stripe, not two. */
        off = MPL_ROUND_UP_ALIGN(off, MM_ACC_GRANULE);
        off += recs[3 * i + 1];
    }
    if (shm_segment(win, node, off) != MPI_SUCCESS)
        goto fn_exit;   /* every member of the node saw it fail: all keep private memory */
    off = mm_win_seg_header(n);
    for (int i = 0; i < n; i++) {
        mm_win_peer_t *peer = &win->dev.peers[recs[3 * i]];

        off = MPL_ROUND_UP_ALIGN(off, MM_ACC_GRANULE);
        peer->shm_base = (char *) win->dev.shm_seg + off;
        peer->shm_size = recs[3 * i + 1];
        peer->shm_disp_unit = (int) recs[3 * i + 2];
        off += recs[3 * i + 1];
    }
    mm_rma_acc_slots_init(win, win->dev.shm_seg, n, node->rank);

  fn_exit:
    MPL_free(recs);
    if (node)
        MPIR_Comm_release(node);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_allocate(MPI_Aint size, int disp_unit, MPIR_Info * info, MPIR_Comm * comm,
                      void *baseptr, MPIR_Win ** win)
{
    int mpi_errno = MPI_SUCCESS;
    void *base = NULL;

    mpi_errno = win_init(size, disp_unit, MPI_WIN_FLAVOR_ALLOCATE, info, comm, win);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = alloc_node_segment(*win, size, disp_unit);
    if (mpi_errno) {
        MPID_Win_free(win);
        goto fn_fail;
    }
    if ((*win)->dev.shm_seg) {
        base = (*win)->dev.peers[(*win)->comm_ptr->rank].shm_base;
    } else if (size > 0) {
        if (posix_memalign(&base, MM_SHM_WIN_HEADER, (size_t) size) != 0)
            base = NULL;
        if (base == NULL) {
            MPID_Win_free(win);
            MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s",
                                 "MPI_Win_allocate memory");
        }
        (*win)->dev.alloc_base = base;
    }
    (*win)->base = base;
    *(void **) baseptr = base;
    mpi_errno = win_publish(*win);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_create_dynamic(MPIR_Info * info, MPIR_Comm * comm, MPIR_Win ** win)
{
    int mpi_errno = win_init(0, 1, MPI_WIN_FLAVOR_DYNAMIC, info, comm, win);

    if (mpi_errno)
        return mpi_errno;
    (*win)->base = MPI_BOTTOM;
    return win_publish(*win);
}

int MPID_Win_attach(MPIR_Win * win, void *base, MPI_Aint size)
{
    int mpi_errno = MPI_SUCCESS;
    mm_win_region_t *r;

    MPIR_ERR_CHKANDJUMP1(win->create_flavor != MPI_WIN_FLAVOR_DYNAMIC, mpi_errno,
                         MPI_ERR_RMA_FLAVOR, "**winflavor", "**winflavor %s", "dynamic");
    if (size == 0)
        goto fn_exit;
    r = MPL_malloc(sizeof(*r), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(r == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "attached region");
    r->base = base;
    r->size = size;
    r->next = win->dev.regions;
    win->dev.regions = r;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_detach(MPIR_Win * win, const void *base)
{
    int mpi_errno = MPI_SUCCESS;

    MPIR_ERR_CHKANDJUMP1(win->create_flavor != MPI_WIN_FLAVOR_DYNAMIC, mpi_errno,
                         MPI_ERR_RMA_FLAVOR, "**winflavor", "**winflavor %s", "dynamic");
    for (mm_win_region_t ** p = &win->dev.regions; *p; p = &(*p)->next)
        if ((*p)->base == base) {
            mm_win_region_t *r = *p;
            *p = r->next;
            MPL_free(r);
            goto fn_exit;
        }
    /* Detaching memory that was never attached (or had size 0) is harmless. */

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_shared_query(MPIR_Win * win, int rank, MPI_Aint * size, int *disp_unit,
                          void *baseptr)
{
    if (win->create_flavor != MPI_WIN_FLAVOR_SHARED) {
        /* Only our own memory is directly reachable from this process. */
        int mine = rank == win->comm_ptr->rank;
        *size = mine ? win->size : 0;
        *disp_unit = mine ? win->disp_unit : 1;
        *(void **) baseptr = mine ? win->base : NULL;
        return MPI_SUCCESS;
    }
    if (rank == MPI_PROC_NULL) {
        /* The lowest rank with memory; its part starts the segment's data. */
        rank = 0;
        for (int r = 0; r < win->comm_ptr->local_size; r++)
            if (win->dev.peers[r].shm_size > 0) {
                rank = r;
                break;
            }
    }
    *size = win->dev.peers[rank].shm_size;
    *disp_unit = win->dev.peers[rank].shm_disp_unit;
    /* A member without memory has no address in the segment worth handing out. */
    *(void **) baseptr = *size > 0 ? win->dev.peers[rank].shm_base : NULL;
    return MPI_SUCCESS;
}

int MPID_Win_free(MPIR_Win ** win_ptr)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Win *win = *win_ptr;
    int registered = mm_win_lookup(win->dev.key) == win && win->comm_ptr;

    if (registered) {
        MPIR_Errflag_t errflag = MPIR_ERR_NONE;

        if (win->dev.access == MM_ACCESS_PSCW || win->dev.access == MM_ACCESS_LOCK ||
            win->dev.access == MM_ACCESS_LOCK_ALL || win->dev.exposure == MM_EXPOSE_POST)
            return mm_rma_sync_error(__func__, "MPI_Win_free inside an access or exposure epoch");
        mpi_errno = mm_rma_flush_wait(win, -1);
        MPIR_ERR_CHECK(mpi_errno);
        mpi_errno = MPIR_Barrier(win->comm_ptr, &errflag);
        MPIR_ERR_CHECK(mpi_errno);
        mm_win_unregister(win);
    }
    while (win->dev.regions) {
        mm_win_region_t *r = win->dev.regions;
        win->dev.regions = r->next;
        MPL_free(r);
    }
    while (win->dev.lockq_head) {
        mm_lock_waiter_t *w = win->dev.lockq_head;
        win->dev.lockq_head = w->next;
        MPL_free(w->op);
        MPL_free(w);
    }
    mm_rma_nic_free(win);       /* before the memory it registered goes */
    if (win->dev.shm_seg)
        munmap(win->dev.shm_seg, win->dev.shm_len);
    free(win->dev.alloc_base);  /* posix_memalign */
    MPL_free(win->dev.peers);
    MPL_free(win->dev.start_ranks);
    if (win->comm_ptr)
        MPIR_Comm_release(win->comm_ptr);
    {
        int thr_err;
        MPID_Thread_mutex_destroy(&win->mutex, &thr_err);
    }
    MPIR_Handle_obj_free(&MPIR_Win_mem, win);
    *win_ptr = NULL;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
