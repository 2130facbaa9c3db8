/*
 * Intercommunicator creation support: the two leaders swap their groups' lpids over the
 * peer communicator, then each leader broadcasts the remote group to its own group.
 * lpids are world ranks, valid in every process of the job, so no translation is needed.
 * The group whose leader has the smaller lpid is the "low" group.
 */
#include "mpidimpl.h"

int MPID_Intercomm_exchange_map(MPIR_Comm * local_comm, int local_leader, MPIR_Comm * peer_comm,
                                int remote_leader, int *remote_size, uint64_t ** remote_lpids,
                                int *is_low_group)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Errflag_t errflag = MPIR_ERR_NONE;
    const int tag = 0 | MPIR_TAG_COLL_BIT;
    /* hdr: [0] group size, [1] lpid of the group's leader */
    int my_hdr[2], peer_hdr[2] = { 0, 0 };
    uint64_t *my_lpids = NULL;
    uint64_t *lpids = NULL;

    if (local_comm->rank == local_leader) {
        int n = local_comm->local_size;
        my_lpids = MPL_malloc(n * sizeof(uint64_t), MPL_MEM_COMM);
        MPIR_ERR_CHKANDJUMP1(my_lpids == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                             "**nomem %s", "mm intercomm lpids");
        for (int i = 0; i < n; i++)
            MPID_Comm_get_lpid(local_comm, i, &my_lpids[i], FALSE);
        my_hdr[0] = n;
        my_hdr[1] = (int) my_lpids[local_leader];

        mpi_errno = MPIC_Sendrecv(my_hdr, 2, MPI_INT, remote_leader, tag, peer_hdr, 2, MPI_INT,
                                  remote_leader, tag, peer_comm, MPI_STATUS_IGNORE, &errflag);
        MPIR_ERR_CHECK(mpi_errno);
        lpids = MPL_malloc(peer_hdr[0] * sizeof(uint64_t), MPL_MEM_COMM);
        MPIR_ERR_CHKANDJUMP1(lpids == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                             "**nomem %s", "mm intercomm lpids");
        mpi_errno = MPIC_Sendrecv(my_lpids, n, MPI_UINT64_T, remote_leader, tag,
                                  lpids, peer_hdr[0], MPI_UINT64_T, remote_leader, tag,
                                  peer_comm, MPI_STATUS_IGNORE, &errflag);
        MPIR_ERR_CHECK(mpi_errno);
        peer_hdr[1] = my_hdr[1] < peer_hdr[1];  /* now: are we the low group? */
    }

    /* Everyone in the local group learns the remote group from its leader. */
    mpi_errno = MPIR_Bcast(peer_hdr, 2, MPI_INT, local_leader, local_comm, &errflag);
    MPIR_ERR_CHECK(mpi_errno);
    if (lpids == NULL) {
        lpids = MPL_malloc(peer_hdr[0] * sizeof(uint64_t), MPL_MEM_COMM);
        MPIR_ERR_CHKANDJUMP1(lpids == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                             "**nomem %s", "mm intercomm lpids");
    }
    mpi_errno = MPIR_Bcast(lpids, peer_hdr[0], MPI_UINT64_T, local_leader, local_comm, &errflag);
    MPIR_ERR_CHECK(mpi_errno);

    *remote_size = peer_hdr[0];
    *remote_lpids = lpids;
    *is_low_group = peer_hdr[1];
    lpids = NULL;

  fn_exit:
    MPL_free(my_lpids);
    return mpi_errno;
  fn_fail:
    MPL_free(lpids);
    goto fn_exit;
}
