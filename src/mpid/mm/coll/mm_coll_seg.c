/*
 * coll/: a communicator's node segment (mm_coll.h, THE NODE SEGMENT), and coll/'s
 * per-communicator state, which holds it.
 *
 * Rank 0 creates the segment under a name of its own (shm_open), the name is broadcast,
 * the others map it, and once all have said whether they could, the name is removed: a
 * process that dies later leaves nothing behind in /dev/shm. A communicator on which any
 * process failed gets seg_state -1 everywhere and never tries again.
 */
#include "mpidimpl.h"
#include "mm_subsys.h"
#include "mm_coll.h"
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

static void coll_comm_free(MPIR_Comm * comm)
{
    mm_coll_comm_t *cc = comm->dev.coll;

    if (cc == NULL)
        return;
    if (cc->ctl)
        munmap(cc->ctl, cc->seg_len);
    MPL_free(cc);
    comm->dev.coll = NULL;
}

void mm_coll_init(void)
{
    mm_comm_register_free(coll_comm_free);
}

/* Map the segment: create it first on rank 0. Returns the mapping or NULL; *failed names
 * the step that failed. */
static void *seg_map(MPIR_Comm * comm, char *name, size_t name_len, size_t len,
                     const char **failed, MPIR_Errflag_t * errflag, int *mpi_errno)
{
    static unsigned counter;
    int fd = -1;
    void *seg = MAP_FAILED;

    *failed = NULL;
    if (comm->rank == 0) {
        snprintf(name, name_len, "/mm-coll-%d-%u", (int) getpid(), counter++);
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0)
            *failed = "shm_open";
        else if (ftruncate(fd, (off_t) len) != 0)
            *failed = "ftruncate";
        if (*failed) {
            if (fd >= 0) {
                close(fd);
                fd = -1;
                shm_unlink(name);
            }
            name[0] = 0;
        }
    }
    *mpi_errno = MPIR_Bcast_impl(name, (MPI_Aint) name_len, MPI_CHAR, 0, comm, errflag);
    if (*mpi_errno)
        name[0] = 0;
    if (name[0] == 0 && *failed == NULL)
        *failed = "shm_open (on rank 0)";
    if (name[0] && comm->rank != 0 && (fd = shm_open(name, O_RDWR, 0600)) < 0)
        *failed = "shm_open";
    if (fd >= 0 && *failed == NULL) {
        seg = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (seg == MAP_FAILED)
            *failed = "mmap";
    }
    if (fd >= 0)
        close(fd);
    return seg == MAP_FAILED ? NULL : seg;
}

int mm_coll_seg(MPIR_Comm * comm, mm_coll_comm_t ** cc_out)
{
    int mpi_errno = MPI_SUCCESS, ok;
    MPIR_Errflag_t errflag = MPIR_ERR_NONE;
    mm_coll_comm_t *cc = comm->dev.coll;
    int p = comm->local_size;
    size_t ring = MM_SEG_SLOTS * (sizeof(mm_seg_ctl_t) + MM_SEG_CHUNK);
    size_t region = (MM_SEG_AREA / (2 * (size_t) p)) & ~(size_t) 63;
    size_t len = ring + p * sizeof(mm_seg_step_t) + 2 * p * region;
    char name[64] = "";
    const char *failed;
    void *seg;

    *cc_out = NULL;
    if (cc == NULL) {
        /* Every process must still take part in the agreement below, so a process that
         * cannot allocate this goes on without it and says no. */
        cc = MPL_calloc(1, sizeof(*cc), MPL_MEM_COLL);
        comm->dev.coll = cc;
    }
    if (cc && cc->seg_state != 0) {
        *cc_out = cc->seg_state > 0 ? cc : NULL;
        return MPI_SUCCESS;
    }

    seg = seg_map(comm, name, sizeof(name), len, &failed, &errflag, &mpi_errno);
    ok = seg != NULL && cc != NULL && mpi_errno == MPI_SUCCESS;
    {
        int err = MPIR_Allreduce_impl(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm, &errflag);

        if (mpi_errno == MPI_SUCCESS)
            mpi_errno = err;
    }
    if (comm->rank == 0 && name[0])
        shm_unlink(name);
    if (cc == NULL && mpi_errno == MPI_SUCCESS)
        /* The others now know not to use a segment here; this process cannot even
         * remember that, so the collective fails in it. */
        MPIR_ERR_SET1(mpi_errno, MPI_ERR_NO_MEM, "**nomem", "**nomem %s", "coll state");
    if (mpi_errno || !ok) {
        if (seg)
            munmap(seg, len);
        if (cc)
            cc->seg_state = mpi_errno ? 0 : -1;        /* an error: ask again next time */
        goto fn_exit;
    }
    cc->ctl = seg;
    cc->data = (char *) seg + MM_SEG_SLOTS * sizeof(mm_seg_ctl_t);
    cc->seg_len = len;
    cc->next_chunk = 0;
    cc->steps = (mm_seg_step_t *) ((char *) seg + ring);
    cc->area = (char *) (cc->steps + p);
    cc->region = region;
    cc->next_round = 0;
    cc->seen = 0;
    cc->seg_state = 1;
    *cc_out = cc;

  fn_exit:
    return mpi_errno;
}

/* Check the word a few times between polls of the engine: a poll costs about as much as
 * the copy of a few KiB, and the word usually changes within one. */
#define SEG_CHECKS_PER_POLL 16

int mm_coll_seg_wait(_Atomic uint64_t * word, uint64_t want)
{
    int mpi_errno = MPI_SUCCESS;
    MPID_Progress_state state;

    MPID_Progress_start(&state);
    while (atomic_load_explicit(word, memory_order_acquire) < want) {
        for (int i = 0; i < SEG_CHECKS_PER_POLL; i++)
            if (atomic_load_explicit(word, memory_order_acquire) >= want)
                goto fn_exit;
        mpi_errno = mm_progress_idle(&state);
        if (mpi_errno)
            break;
    }

  fn_exit:
    MPID_Progress_end(&state);
    return mpi_errno;
}

/* Wait until every other process's step word is at least want. */
static int steps_wait(mm_coll_comm_t * cc, int me, int p, uint64_t want)
{
    if (cc->seen >= want)
        return MPI_SUCCESS;
    for (int q = 0; q < p; q++) {
        int mpi_errno;

        if (q == me)
            continue;
        mpi_errno = mm_coll_seg_wait(&cc->steps[q].step, want);
        if (mpi_errno)
            return mpi_errno;
    }
    cc->seen = want;
    return MPI_SUCCESS;
}

int mm_coll_round(mm_coll_comm_t * cc, int me, int p, uint64_t * g_out)
{
    uint64_t g = cc->next_round++;

    *g_out = g;
    return g == 0 ? MPI_SUCCESS : steps_wait(cc, me, p, 2 * (g - 1) + 1);
}

int mm_coll_step(mm_coll_comm_t * cc, int me, int p, uint64_t g, int s, int wait)
{
    uint64_t want = 2 * g + (uint64_t) s;

    atomic_store_explicit(&cc->steps[me].step, want, memory_order_release);
    return wait ? steps_wait(cc, me, p, want) : MPI_SUCCESS;
}
