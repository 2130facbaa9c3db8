/*
 * MPI_Allreduce by single-copy reads (the methods' get(), mm_method.h), for the sizes where
 * it beats MPIR's algorithms; everything else goes to MPIR_Allreduce_impl.
 *
 * Why: MPIR's algorithms for large vectors (reduce-scatter + allgather, recursive
 * doubling) take 2 log p or 2 (p - 1) rounds of messages, each a synchronisation and, on
 * shm, two copies through cells. On a node whose processes outnumber its cores every round
 * waits for a process that is not running: 4 processes on 2 cores took 209 us for 64 KiB
 * and 1190 us for 1 MiB against Open MPI's 106 and 509 (2026-12-05). Here each process
 * owns one slice of the vector (slice r of count elements, in rank order), and:
 *
 *   1. registers, for each peer j, slice j of its input (what j will read) and slice r of
 *      its result buffer (what every peer will read), and swaps the rendezvous data with
 *      an alltoall;
 *   2. reads slice r of every peer's input straight from the peer's memory (get) and
 *      reduces it, in rank order, into a buffer of its own; writes that into slice r of
 *      its result buffer;
 *   3. agrees with the others that every read worked (a one-integer allreduce, which is
 *      also the step's barrier: every result slice is written after it);
 *   4. reads slice j of the result from every peer j into its own result buffer;
 *   5. waits in a barrier until every peer has read its slice, and releases the
 *      registrations.
 * Three small collectives in all, whatever p, and every byte crosses between processes
 * once for the reduction and once for the result, by the method's single copy
 * (process_vm_readv on shm).
 *
 * Reduction order: slice r is x_0 op (x_1 op (... op x_{p-1})), which MPI allows for any
 * op (ops are associative), commutative or not: MPIR_Reduce_local(in, inout) makes
 * inout = in op inout, applied from the highest rank down.
 *
 * When the device path is not possible everywhere (a method without get, a peer whose
 * memory this process may not read, CMA switched off in one process), step 3 says so
 * before any input was changed, and every process runs MPIR's algorithm instead. With
 * MPI_IN_PLACE the input is the result buffer: a process writes only its own slice r,
 * which no other process reads as input, and keeps a copy of it until step 3 has agreed.
 *
 * Taken for intracommunicators of 2 or more processes, every peer's VC bound to a method
 * with MM_METHOD_CAP_GET, a datatype whose elements are contiguous and gapless (size ==
 * extent), count >= p, and slices of at least MPIR_CVAR_MM_ALLREDUCE_GET_MIN bytes (32
 * KiB). Every process decides from the same numbers (the signature and count of an
 * allreduce match), except for the VCs, which step 3 reconciles.
 *
 * Measured 2026-12-07 (MPI_SUM of doubles, bound to the 2 cores, time per call, this path
 * against MPIR's algorithms on mm): 2 processes 64 KiB 13.8 us vs 16.2, 1 MiB 103-110 vs
 * 117-124; 4 processes 64 KiB 53.7 vs 53.6, 128 KiB 88.7 vs 112, 1 MiB 378 vs 401, 16 MiB
 * 8940 vs 12596; 8 processes 64 KiB 244 vs 170, 256 KiB 455 vs 453, 1 MiB 1272 vs 1559,
 * 16 MiB 20644 vs 28550. Its three small collectives cost more than the copies they save
 * when slices are small and processes many, hence a threshold per slice.
 */
#include "mpidimpl.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_MM_ALLREDUCE_GET_MIN
      category    : MM
      type        : int
      default     : 32768
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Bytes per process (the vector's bytes divided by the number of processes) from
        which MPI_Allreduce on an intracommunicator whose processes all reach each other
        by a method with single-copy reads (shm's CMA) runs as the device's slice-owner
        algorithm (each process reduces one slice, read from the others' memory, then
        reads the others' slices); smaller ones, and any the device cannot take, use
        MPIR's algorithms. -1: never.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

/* What one process offers one peer: its registrations' rendezvous data. */
typedef struct ar_offer {
    int ok;                     /* both registrations worked */
    uint32_t in_len, res_len;
    char in[MM_RNDV_DATA_MAX];  /* slice j of the input, for peer j */
    char res[MM_RNDV_DATA_MAX]; /* slice r of the result, for every peer */
} ar_offer_t;

typedef struct ar_state {
    int pending;                /* reads not complete yet */
} ar_state_t;

/* Per peer: the views registered for it and the read from it. */
typedef struct ar_peer {
    mm_vc_t *vc;
    mm_buf_t in_view, res_view;
    mm_car_t car;
    ar_state_t *st;             /* the allreduce the read belongs to */
} ar_peer_t;

/* Staging memory (the slice being reduced, the slice read, the in-place copy), kept from
 * one call to the next: fresh memory of this size comes from mmap and goes back with
 * munmap each time, and faulting its pages in took most of the call (perf, 1 MiB on 2
 * processes: 426 us against 112 for MPIR's algorithm). A call that finds it in use (a
 * collective of another thread, on another communicator) allocates its own. */
static char *stage;
static size_t stage_len;
static int stage_busy;

static int stage_free(void *unused)
{
    MPL_free(stage);
    stage = NULL;
    stage_len = 0;
    return 0;
}

static char *stage_take(size_t len, int *own)
{
    *own = 0;
    if (stage_busy) {
        *own = 1;
        return MPL_malloc(len, MPL_MEM_COLL);
    }
    if (stage_len < len) {
        if (stage == NULL)
            MPIR_Add_finalize(stage_free, NULL, MPIR_FINALIZE_CALLBACK_PRIO + 1);
        MPL_free(stage);
        stage = MPL_malloc(len, MPL_MEM_COLL);
        stage_len = stage ? len : 0;
    }
    if (stage)
        stage_busy = 1;
    return stage;
}

static void stage_give(char *buf, int own)
{
    if (own)
        MPL_free(buf);
    else if (buf)
        stage_busy = 0;
}

static int read_done(mm_car_t * car)
{
    ar_peer_t *pr = (ar_peer_t *) ((char *) car - offsetof(ar_peer_t, car));

    pr->st->pending--;
    return MPI_SUCCESS;
}

/* Elements of slice i of count elements in p slices, and where it starts. */
static void slice_of(MPI_Aint count, int p, int i, MPI_Aint * first, MPI_Aint * n)
{
    MPI_Aint base = count / p, extra = count % p;

    *n = base + (i < extra);
    *first = i * base + MPL_MIN(i, extra);
}

/* Read len bytes from peer pr (its offer rndv) into dst; *refused when the method cannot
 * read that peer's memory. The read completes now or from progress (pending). */
static int read_from(ar_state_t * st, ar_peer_t * pr, const char *rndv, uint32_t rndv_len,
                     void *dst, size_t len, int *refused)
{
    int mpi_errno;

    memset(&pr->car, 0, sizeof(pr->car));
    pr->st = st;
    pr->car.kind = MM_CAR_DATA;
    pr->car.dir = MM_CAR_READ;
    pr->car.vc = pr->vc;
    pr->car.done = read_done;
    mm_buf_init_contig(&pr->car.buf, dst, len);
    st->pending++;
    mpi_errno = pr->vc->method->get(&pr->car, rndv, rndv_len, refused);
    if (mpi_errno || *refused)
        st->pending--;
    return mpi_errno;
}

static int wait_reads(ar_state_t * st)
{
    int mpi_errno = MPI_SUCCESS;
    MPID_Progress_state state;

    MPID_Progress_start(&state);
    while (st->pending > 0 && mpi_errno == MPI_SUCCESS)
        mpi_errno = MPID_Progress_wait(&state);
    MPID_Progress_end(&state);
    return mpi_errno;
}

/* Is the device path possible here, as far as this process can tell from the arguments
 * (the same everywhere) and its own VCs? */
static int get_path_possible(MPIR_Comm * comm, MPI_Aint count, MPI_Datatype dt,
                             MPI_Aint * elem_size)
{
    MPI_Aint size, extent, true_lb;
    int is_contig;

    if (comm->comm_kind != MPIR_COMM_KIND__INTRACOMM || comm->local_size < 2 ||
        MPIR_CVAR_MM_ALLREDUCE_GET_MIN < 0 || count < comm->local_size)
        return 0;
    MPIR_Datatype_get_size_macro(dt, size);
    MPIR_Datatype_get_extent_macro(dt, extent);
    MPIR_Datatype_is_contig(dt, &is_contig);
    MPIR_Datatype_get_true_lb(dt, &true_lb);
    if (!is_contig || size != extent || true_lb != 0 || size == 0 ||
        size * count / comm->local_size < MPIR_CVAR_MM_ALLREDUCE_GET_MIN)
        return 0;
    *elem_size = size;
    return 1;
}

static int allreduce_get(const void *sendbuf, void *recvbuf, MPI_Aint count,
                         MPI_Datatype dt, MPI_Aint esz, MPI_Op op, MPIR_Comm * comm,
                         MPIR_Errflag_t * errflag, int *fallback)
{
    int mpi_errno = MPI_SUCCESS, p = comm->local_size, r = comm->rank, ok = 1;
    const char *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    char *res = recvbuf;
    MPI_Aint my_first, my_n;
    ar_peer_t *peers = NULL;
    ar_offer_t *mine = NULL, *theirs = NULL;
    char *acc = NULL, *tmp = NULL, *saved = NULL, *staging = NULL;
    int own_staging = 0;
    ar_state_t st = { 0 };
    int wrote = 0;              /* slice r of the result buffer holds the result */

    *fallback = 0;
    slice_of(count, p, r, &my_first, &my_n);
    peers = MPL_calloc(p, sizeof(*peers), MPL_MEM_COLL);
    mine = MPL_calloc(p, sizeof(*mine), MPL_MEM_COLL);
    theirs = MPL_calloc(p, sizeof(*theirs), MPL_MEM_COLL);
    MPIR_ERR_CHKANDJUMP1(!peers || !mine || !theirs, mpi_errno, MPI_ERR_OTHER, "**nomem",
                         "**nomem %s", "allreduce offers");
    /* Without its staging memory this process still takes part, to say no in step 3. */
    staging = stage_take((sendbuf == MPI_IN_PLACE ? 3 : 2) * my_n * esz, &own_staging);
    if (staging) {
        acc = staging;
        tmp = staging + my_n * esz;
        if (sendbuf == MPI_IN_PLACE)
            saved = staging + 2 * my_n * esz;
    } else
        ok = 0;

    /* 1. Registrations, and the swap of their rendezvous data. */
    for (int j = 0; j < p && ok; j++) {
        MPI_Aint first, n;
        size_t len;

        if (j == r)
            continue;
        mpi_errno = mm_vc_get(mm_comm_lpid(comm, j), &peers[j].vc);
        MPIR_ERR_CHECK(mpi_errno);
        if (!(peers[j].vc->method->caps & MM_METHOD_CAP_GET)) {
            ok = 0;
            break;
        }
        slice_of(count, p, j, &first, &n);
        mm_buf_init_contig(&peers[j].in_view, (char *) in + first * esz, n * esz);
        len = 0;
        mpi_errno = peers[j].vc->method->mem_register(peers[j].vc, &peers[j].in_view,
                                                      mine[j].in, &len);
        MPIR_ERR_CHECK(mpi_errno);
        mine[j].in_len = (uint32_t) len;
        mm_buf_init_contig(&peers[j].res_view, res + my_first * esz, my_n * esz);
        len = 0;
        mpi_errno = peers[j].vc->method->mem_register(peers[j].vc, &peers[j].res_view,
                                                      mine[j].res, &len);
        MPIR_ERR_CHECK(mpi_errno);
        mine[j].res_len = (uint32_t) len;
        if (mine[j].in_len == 0 || mine[j].res_len == 0)
            ok = 0;     /* a registration declined */
    }
    /* A process that cannot offer everything offers nothing: only its ok flag counts. */
    for (int j = 0; j < p; j++)
        mine[j].ok = ok;
    mpi_errno = MPIR_Alltoall_impl(mine, sizeof(ar_offer_t), MPI_BYTE, theirs,
                                   sizeof(ar_offer_t), MPI_BYTE, comm, errflag);
    MPIR_ERR_CHECK(mpi_errno);
    for (int j = 0; j < p && ok; j++)
        if (j != r && !theirs[j].ok)
            ok = 0;

    /* 2. Reduce slice r, from the highest rank down, into acc. */
    for (int j = p - 1; j >= 0 && ok; j--) {
        /* The highest rank's slice goes straight into acc; the others into tmp. */
        char *x = j == p - 1 ? acc : tmp;
        int refused = 0;

        if (j == r) {
            x = (char *) in + my_first * esz;
        } else {
            mpi_errno = read_from(&st, &peers[j], theirs[j].in, theirs[j].in_len, x,
                                  my_n * esz, &refused);
            if (mpi_errno == MPI_SUCCESS && !refused)
                mpi_errno = wait_reads(&st);
            MPIR_ERR_CHECK(mpi_errno);
            if (refused) {
                ok = 0;
                break;
            }
        }
        if (j == p - 1) {
            if (x != acc)
                memcpy(acc, x, my_n * esz);
        } else {
            mpi_errno = MPIR_Reduce_local(x, acc, my_n, dt, op);
            MPIR_ERR_CHECK(mpi_errno);
        }
    }
    if (ok) {
        if (saved)
            memcpy(saved, res + my_first * esz, my_n * esz);
        memcpy(res + my_first * esz, acc, my_n * esz);
        wrote = 1;
    }

    /* 3. Agree; every result slice is in place after this. */
    mpi_errno = MPIR_Allreduce_impl(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm, errflag);
    MPIR_ERR_CHECK(mpi_errno);
    if (!ok) {
        if (wrote && saved)     /* MPI_IN_PLACE: the input is needed again */
            memcpy(res + my_first * esz, saved, my_n * esz);
        *fallback = 1;
        goto fn_exit;
    }

    /* 4. The other slices of the result. */
    for (int j = 0; j < p; j++) {
        MPI_Aint first, n;
        int refused = 0;

        if (j == r)
            continue;
        slice_of(count, p, j, &first, &n);
        mpi_errno = read_from(&st, &peers[j], theirs[j].res, theirs[j].res_len,
                              res + first * esz, n * esz, &refused);
        MPIR_ERR_CHECK(mpi_errno);
        /* The same peers' memory was read in step 2: a refusal now is an error. */
        MPIR_ERR_CHKANDJUMP1(refused, mpi_errno, MPI_ERR_OTHER, "**mm|coll_get",
                             "**mm|coll_get %d", j);
    }
    mpi_errno = wait_reads(&st);
    MPIR_ERR_CHECK(mpi_errno);

    /* 5. Nobody leaves while a peer may still read its memory. */
    mpi_errno = MPIR_Barrier_impl(comm, errflag);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    for (int j = 0; peers && j < p; j++) {
        if (j == r || peers[j].vc == NULL)
            continue;
        if (peers[j].in_view.mem)
            peers[j].vc->method->mem_deregister(peers[j].vc, &peers[j].in_view);
        if (peers[j].res_view.mem)
            peers[j].vc->method->mem_deregister(peers[j].vc, &peers[j].res_view);
    }
    MPL_free(peers);
    MPL_free(mine);
    MPL_free(theirs);
    stage_give(staging, own_staging);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_coll_allreduce(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype dt,
                      MPI_Op op, MPIR_Comm * comm, MPIR_Errflag_t * errflag)
{
    int mpi_errno, fallback = 0;
    MPI_Aint esz;

    if (!get_path_possible(comm, count, dt, &esz))
        return MPIR_Allreduce_impl(sendbuf, recvbuf, count, dt, op, comm, errflag);
    mpi_errno = allreduce_get(sendbuf, recvbuf, count, dt, esz, op, comm, errflag, &fallback);
    if (mpi_errno == MPI_SUCCESS && fallback)
        mpi_errno = MPIR_Allreduce_impl(sendbuf, recvbuf, count, dt, op, comm, errflag);
    if (mpi_errno && *errflag == MPIR_ERR_NONE)
        *errflag = MPIX_ERR_PROC_FAILED == MPIR_ERR_GET_CLASS(mpi_errno) ?
            MPIR_ERR_PROC_FAILED : MPIR_ERR_OTHER;
    return mpi_errno;
}
