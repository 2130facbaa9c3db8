/*
 * MPI_Barrier in the device: on one node through the communicator's node segment
 * (coll/mm_coll.h, its step words), everything else through MPIR_Barrier_impl.
 *
 * A barrier is one round of the area that moves no data: a process takes the round
 * (mm_coll_round), announces stage 1 and waits until every process has. MPIR's
 * dissemination barrier takes log2 p rounds of messages, each of which waits for a
 * partner to be scheduled; this waits once for all of them, and a process that arrives
 * last finds everyone's word already there and leaves at once.
 */
#include "mpidimpl.h"
#include "mm_coll.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_MM_BARRIER_SHM
      category    : MM
      type        : boolean
      default     : true
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        MPI_Barrier on an intracommunicator of two or more processes, all on one node,
        waits on the step words of the communicator's node segment (made at the first
        collective on it that uses one) instead of exchanging messages.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

int mm_coll_barrier(MPIR_Comm * comm, MPIR_Errflag_t * errflag)
{
    int mpi_errno;
    mm_coll_comm_t *cc = NULL;
    uint64_t g;

    if (!MPIR_CVAR_MM_BARRIER_SHM || comm->comm_kind != MPIR_COMM_KIND__INTRACOMM ||
        comm->local_size < 2 || !mm_coll_one_node(comm))
        return MPIR_Barrier_impl(comm, errflag);
    mpi_errno = mm_coll_seg(comm, &cc);
    if (mpi_errno == MPI_SUCCESS && cc == NULL)
        return MPIR_Barrier_impl(comm, errflag);
    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = mm_coll_round(cc, comm->rank, comm->local_size, &g);
    if (mpi_errno == MPI_SUCCESS)
        mpi_errno = mm_coll_step(cc, comm->rank, comm->local_size, g, 1, 1);
    mm_coll_errflag(mpi_errno, errflag);
    return mpi_errno;
}
