/*
 * MPI_Allreduce in the device, for the cases where its algorithms beat MPIR's; everything
 * else goes to MPIR_Allreduce_impl. On one node: through the communicator's node segment
 * (THROUGH THE NODE SEGMENT below), from MPIR_CVAR_MM_REDUCE_SHM_MIN bytes. Elsewhere,
 * where every peer is reached by a method that can read its memory: by single-copy reads
 * (the methods' get(), mm_method.h), as follows.
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
#include "mm_coll.h"

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

    - name        : MPIR_CVAR_MM_REDUCE_SHM_MIN
      category    : MM
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Bytes (of the whole vector) from which MPI_Allreduce, MPI_Reduce and
        MPI_Reduce_scatter(_block) on an intracommunicator of two or more processes, all on one node, with a datatype whose elements are contiguous and
        gapless, run through the communicator's node segment (every process copies its
        input in and reduces one slice of it from all inputs; the result is copied out;
        the segment is made at the first such call on a communicator). -1: never.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

/* What one process offers one peer: its registrations' rendezvous data. */
typedef struct ar_offer {
    int ok;                     /* both registrations worked */
    uint32_t in_len, res_len;
    char in[MM_RNDV_DATA_MAX];  /* slice j of the input, for peer j */
    char res[MM_RNDV_DATA_MAX]; /* slice r of the result, for every peer */
} ar_offer_t;

/* Per peer: the views registered for it and the read from it. */
typedef struct ar_peer {
    mm_vc_t *vc;
    mm_buf_t in_view, res_view;
    mm_coll_read_t rd;          /* the read from it */
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

/* Elements of slice i of count elements in p slices, and where it starts. */
static void slice_of(MPI_Aint count, int p, int i, MPI_Aint * first, MPI_Aint * n)
{
    MPI_Aint base = count / p, extra = count % p;

    *n = base + (i < extra);
    *first = i * base + MPL_MIN(i, extra);
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
    int pending = 0;            /* reads not complete yet */
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
            mpi_errno = mm_coll_read_start(&peers[j].rd, peers[j].vc, &pending, theirs[j].in,
                                           theirs[j].in_len, x, my_n * esz, &refused);
            if (mpi_errno == MPI_SUCCESS)
                mpi_errno = mm_coll_read_wait(&pending);
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
        mpi_errno = mm_coll_read_start(&peers[j].rd, peers[j].vc, &pending, theirs[j].res,
                                       theirs[j].res_len, res + first * esz, n * esz,
                                       &refused);
        MPIR_ERR_CHECK(mpi_errno);
        /* The same peers' memory was read in step 2: a refusal now is an error. */
        MPIR_ERR_CHKANDJUMP1(refused, mpi_errno, MPI_ERR_OTHER, "**mm|coll_get",
                             "**mm|coll_get %d", j);
    }
    mpi_errno = mm_coll_read_wait(&pending);
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

/*
 * THROUGH THE NODE SEGMENT (mm_coll.h, its area), for MPI_Allreduce, MPI_Reduce and
 * MPI_Reduce_scatter(_block) alike (they differ in which part of the result a process
 * copies out):
 * the vector goes in rounds of `region` bytes. In round G, on set G % 2 of the area,
 * process r
 *   1. copies its part of the round's input into its region r, and passes stage 1;
 *   2. once all have, reduces slice r of the round (slice_of) from the highest region
 *      down into region p - 1, in place: acc = x_j op acc for j = p - 2 ... 0, the order
 *      MPI allows for any op; slice r of every region is read and written by r alone;
 *      then passes stage 2;
 *   3. once all have, copies region p - 1, the round's whole result, out: every process
 *      for an allreduce, the root alone for a reduce (the others go on without waiting).
 * A round of at most SEG_SMALL bytes has no stage 2: after stage 1 every process that
 * wants the result reduces the whole round itself, in the same order, straight into its
 * output, and the others do not wait at all. Each wait costs a turn of every process on
 * the cores (most of an 8-byte allreduce on 4 processes and 2 cores), and reducing p small
 * vectors costs less.
 * Region r of set G % 2 is written again in round G + 2, once r has seen every process
 * pass stage 1 of round G + 1 (mm_coll_round), which each does only after its reads of
 * round G. With
 * MPI_IN_PLACE a round's input is in the segment before its result overwrites it. No
 * message at all.
 */
#define SEG_SMALL 4096

/* Reduce the count elements of every process's input (sendbuf, or the receive buffer with
 * MPI_IN_PLACE) and store elements [lo, hi) of the result at out (element lo first):
 * the whole vector for an allreduce and a reduce's root, nothing for its other processes,
 * the process's block for a reduce-scatter. With MPI_IN_PLACE and out at the start of
 * the input (a reduce-scatter), result element i lands at i - lo <= i, whose input was
 * copied in by the end of the round that computes i; and, as MPICH's own algorithms
 * leave it (programs rely on it: MPICH's cxx/coll/redscatblk reads it there), at i too,
 * where the two places do not overlap. */
static int reduce_seg(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype dt,
                      MPI_Aint esz, MPI_Op op, MPI_Aint lo, MPI_Aint hi, MPIR_Comm * comm,
                      mm_coll_comm_t * cc)
{
    /* where the block's place and the start of the buffer do not overlap */
    int scatter_in_place = sendbuf == MPI_IN_PLACE && lo > 0 && lo >= hi - lo;
    int mpi_errno = MPI_SUCCESS, err, p = comm->local_size, me = comm->rank;
    MPI_Aint per_round = (MPI_Aint) cc->region / esz;
    char *out = recvbuf;        /* the type's data start at its address (seg_path_possible) */
    const char *in = sendbuf == MPI_IN_PLACE ? out : sendbuf;

    for (MPI_Aint done = 0; done < count;) {
        MPI_Aint n = MPL_MIN(per_round, count - done), first, sn;
        MPI_Aint w_lo = MPL_MAX(lo, done), w_hi = MPL_MIN(hi, done + n);  /* wanted here */
        int small = n * esz <= SEG_SMALL, wants = w_lo < w_hi, set;
        uint64_t g;
        char *acc;

        err = mm_coll_round(cc, me, p, &g);
        if (err)
            return err;
        set = (int) (g % 2);
        memcpy(mm_coll_region(cc, p, set, me), in + done * esz, n * esz);
        /* In a small round, a process that wants nothing of it needs nothing from the
         * others. */
        err = mm_coll_step(cc, me, p, g, 1, !small || wants);
        if (err)
            return err;
        if (small) {
            if (wants) {
                MPI_Aint at = (w_lo - done) * esz, k = w_hi - w_lo;

                acc = out + (w_lo - lo) * esz;
                memcpy(acc, mm_coll_region(cc, p, set, p - 1) + at, k * esz);
                for (int j = p - 2; j >= 0 && mpi_errno == MPI_SUCCESS; j--)
                    mpi_errno = MPIR_Reduce_local(mm_coll_region(cc, p, set, j) + at, acc, k,
                                                  dt, op);
                if (scatter_in_place)
                    memcpy(out + w_lo * esz, acc, k * esz);
            }
            done += n;
            continue;
        }
        slice_of(n, p, me, &first, &sn);
        acc = mm_coll_region(cc, p, set, p - 1) + first * esz;
        for (int j = p - 2; j >= 0 && sn > 0 && mpi_errno == MPI_SUCCESS; j--)
            mpi_errno = MPIR_Reduce_local(mm_coll_region(cc, p, set, j) + first * esz, acc, sn,
                                          dt, op);
        /* After a failed reduction the steps still go on: the others wait for them. */
        err = mm_coll_step(cc, me, p, g, 2, wants);
        if (err)
            return err;
        if (wants)
            memcpy(out + (w_lo - lo) * esz,
                   mm_coll_region(cc, p, set, p - 1) + (w_lo - done) * esz,
                   (w_hi - w_lo) * esz);
        if (wants && scatter_in_place)
            memcpy(out + w_lo * esz, mm_coll_region(cc, p, set, p - 1) + (w_lo - done) * esz,
                   (w_hi - w_lo) * esz);
        done += n;
    }
    return mpi_errno;
}

/* Does this reduction go through comm's node segment? The same answer everywhere. */
static int seg_path_possible(MPIR_Comm * comm, MPI_Aint count, MPI_Datatype dt,
                             MPI_Aint * elem_size)
{
    MPI_Aint size, extent, true_lb;
    int is_contig;

    if (comm->comm_kind != MPIR_COMM_KIND__INTRACOMM || comm->local_size < 2 ||
        MPIR_CVAR_MM_REDUCE_SHM_MIN < 0 || count < 1)
        return 0;
    MPIR_Datatype_get_size_macro(dt, size);
    MPIR_Datatype_get_extent_macro(dt, extent);
    MPIR_Datatype_get_true_lb(dt, &true_lb);
    MPIR_Datatype_is_contig(dt, &is_contig);
    /* The regions hold elements from byte 0, and MPIR_Reduce_local reads a buffer at its
     * address + true lb: a type whose data start elsewhere (a user op's struct with a
     * displacement) goes to MPIR, as on the path by reads. */
    if (!is_contig || size != extent || true_lb != 0 || size == 0 ||
        size * count < MPIR_CVAR_MM_REDUCE_SHM_MIN ||
        (size_t) size > MM_SEG_AREA / (2 * (size_t) comm->local_size) - 64)
        return 0;
    *elem_size = size;
    return mm_coll_one_node(comm);
}

int mm_coll_allreduce(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype dt,
                      MPI_Op op, MPIR_Comm * comm, MPIR_Errflag_t * errflag)
{
    int mpi_errno, fallback = 0;
    MPI_Aint esz;

    if (seg_path_possible(comm, count, dt, &esz)) {
        mm_coll_comm_t *cc;

        mpi_errno = mm_coll_seg(comm, &cc);
        if (mpi_errno == MPI_SUCCESS && cc)
            mpi_errno = reduce_seg(sendbuf, recvbuf, count, dt, esz, op, 0, count, comm, cc);
        if (mpi_errno || cc)
            goto fn_exit;
        /* no segment on this communicator: as across nodes */
    }
    if (!get_path_possible(comm, count, dt, &esz))
        return MPIR_Allreduce_impl(sendbuf, recvbuf, count, dt, op, comm, errflag);
    mpi_errno = allreduce_get(sendbuf, recvbuf, count, dt, esz, op, comm, errflag, &fallback);
    if (mpi_errno == MPI_SUCCESS && fallback)
        mpi_errno = MPIR_Allreduce_impl(sendbuf, recvbuf, count, dt, op, comm, errflag);
  fn_exit:
    mm_coll_errflag(mpi_errno, errflag);
    return mpi_errno;
}

/* The collectives below go through the segment when seg_path_possible() says so and the
 * communicator has one; run(...) is their segment algorithm, mpir their MPIR fallback. */
#define SEG_OR_MPIR(count_, dt_, comm_, errflag_, run, mpir)                    \
    do {                                                                        \
        MPI_Aint esz;                                                           \
        mm_coll_comm_t *cc = NULL;                                              \
        if (seg_path_possible(comm_, count_, dt_, &esz))                        \
            mpi_errno = mm_coll_seg(comm_, &cc);                                \
        if (mpi_errno == MPI_SUCCESS && cc == NULL)                             \
            return mpir;                                                        \
        if (mpi_errno == MPI_SUCCESS)                                           \
            mpi_errno = run;                                                    \
        mm_coll_errflag(mpi_errno, errflag_);                                   \
    } while (0)

int mm_coll_reduce(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype dt,
                   MPI_Op op, int root, MPIR_Comm * comm, MPIR_Errflag_t * errflag)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint hi = comm->rank == root ? count : 0;

    SEG_OR_MPIR(count, dt, comm, errflag,
                reduce_seg(sendbuf, recvbuf, count, dt, esz, op, 0, hi, comm, cc),
                MPIR_Reduce_impl(sendbuf, recvbuf, count, dt, op, root, comm, errflag));
    return mpi_errno;
}

int mm_coll_reduce_scatter_block(const void *sendbuf, void *recvbuf, MPI_Aint recvcount,
                                 MPI_Datatype dt, MPI_Op op, MPIR_Comm * comm,
                                 MPIR_Errflag_t * errflag)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint count = recvcount * comm->local_size, lo = recvcount * comm->rank;

    SEG_OR_MPIR(count, dt, comm, errflag,
                reduce_seg(sendbuf, recvbuf, count, dt, esz, op, lo, lo + recvcount, comm, cc),
                MPIR_Reduce_scatter_block_impl(sendbuf, recvbuf, recvcount, dt, op, comm,
                                               errflag));
    return mpi_errno;
}

int mm_coll_reduce_scatter(const void *sendbuf, void *recvbuf, const MPI_Aint recvcounts[],
                           MPI_Datatype dt, MPI_Op op, MPIR_Comm * comm,
                           MPIR_Errflag_t * errflag)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint count = 0, lo = 0;

    for (int i = 0; i < comm->local_size; i++) {
        if (i == comm->rank)
            lo = count;
        count += recvcounts[i];
    }
    SEG_OR_MPIR(count, dt, comm, errflag,
                reduce_seg(sendbuf, recvbuf, count, dt, esz, op, lo, lo + recvcounts[comm->rank],
                           comm, cc),
                MPIR_Reduce_scatter_impl(sendbuf, recvbuf, recvcounts, dt, op, comm, errflag));
    return mpi_errno;
}
