/*
 * MPI_Allgather in the device: on one node through the communicator's node segment
 * (coll/mm_coll.h, its area), everything else through MPIR_Allgather_impl.
 *
 * Every process's block goes in rounds of up to `region` bytes: in round G, on set
 * G % 2, process r packs the round's piece of its block into its region r and passes
 * stage 1; once all have, it unpacks every region's piece into the place of that block in
 * its receive buffer. One wait per round, no message; any datatypes (packed and
 * unpacked), MPI_IN_PLACE (r's block is already in place, and is only read). Region r is
 * written again in round G + 2, after every process has passed stage 1 of round G + 1
 * (mm_coll_round), which each does only after its reads of round G.
 * Measured 2026-12-07, bound to the 2 cores, time per call (slowest process): see
 * README ("Collectives").
 */
#include "mpidimpl.h"
#include "mm_coll.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_MM_ALLGATHER_SHM_MIN
      category    : MM
      type        : int
      default     : 0
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Bytes per process from which MPI_Allgather on an intracommunicator of two or more
        processes, all on one node, runs through the communicator's node segment (every
        process copies its block in and every block out; the segment is made at the first
        such call on a communicator). -1: never.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

static int allgather_seg(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                         void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                         MPI_Aint nbytes, MPIR_Comm * comm, mm_coll_comm_t * cc)
{
    int mpi_errno = MPI_SUCCESS, err, p = comm->local_size, me = comm->rank;
    MPI_Aint extent, per = (MPI_Aint) cc->region, actual;
    char *mine;

    MPIR_Datatype_get_extent_macro(recvtype, extent);
    mine = (char *) recvbuf + me * recvcount * extent;
    for (MPI_Aint off = 0; off < nbytes; off += per) {
        MPI_Aint len = MPL_MIN(per, nbytes - off);
        uint64_t g;
        int set;

        err = mm_coll_round(cc, me, p, &g);
        if (err)
            return err;
        set = (int) (g % 2);

        /* After a failed pack or unpack the rounds still go on: the others wait for us. */
        if (mpi_errno == MPI_SUCCESS) {
            if (sendbuf == MPI_IN_PLACE)
                mpi_errno = MPIR_Typerep_pack(mine, recvcount, recvtype, off,
                                              mm_coll_region(cc, p, set, me), len, &actual);
            else
                mpi_errno = MPIR_Typerep_pack(sendbuf, sendcount, sendtype, off,
                                              mm_coll_region(cc, p, set, me), len, &actual);
        }
        err = mm_coll_step(cc, me, p, g, 1, 1);
        if (err)
            return err;
        for (int q = 0; q < p && mpi_errno == MPI_SUCCESS; q++) {
            if (q == me && sendbuf == MPI_IN_PLACE)
                continue;
            mpi_errno = MPIR_Typerep_unpack(mm_coll_region(cc, p, set, q), len,
                                            (char *) recvbuf + q * recvcount * extent,
                                            recvcount, recvtype, off, &actual);
        }
    }
    return mpi_errno;
}

int mm_coll_allgather(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                      MPIR_Comm * comm, MPIR_Errflag_t * errflag)
{
    int mpi_errno;
    MPI_Aint nbytes;
    mm_coll_comm_t *cc = NULL;

    /* The receive signature is the same everywhere (each block's bytes). */
    MPIR_Datatype_get_size_macro(recvtype, nbytes);
    nbytes *= recvcount;
    if (comm->comm_kind != MPIR_COMM_KIND__INTRACOMM || comm->local_size < 2 ||
        MPIR_CVAR_MM_ALLGATHER_SHM_MIN < 0 || nbytes < MPIR_CVAR_MM_ALLGATHER_SHM_MIN ||
        nbytes == 0 || !mm_coll_one_node(comm))
        return MPIR_Allgather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   comm, errflag);
    mpi_errno = mm_coll_seg(comm, &cc);
    if (mpi_errno == MPI_SUCCESS && cc == NULL)
        return MPIR_Allgather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   comm, errflag);
    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = allgather_seg(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                  nbytes, comm, cc);
    mm_coll_errflag(mpi_errno, errflag);
    return mpi_errno;
}
