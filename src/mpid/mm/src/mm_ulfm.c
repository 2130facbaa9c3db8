/*
 * mm device: user-level failure mitigation (MPIX_Comm_revoke, MPIX_Comm_failure_ack,
 * MPIX_Comm_failure_get_acked, and the failed-process agreement under MPIX_Comm_agree and
 * MPIX_Comm_shrink).
 *
 * mm notices a lost peer (tcp: the connection ended without a goodbye; shm: the process is
 * gone without having finalized, methods/shm/shm_life.c) and raises MPIX_ERR_PROC_FAILED,
 * after which every idle wait fails (mm_progress_peer_lost): the job ends instead of
 * hanging. It does not, however, keep the per-communicator list of failed processes that
 * ULFM's queries and its agreement need, so the set of failed processes any rank reports is
 * always empty, and the three queries below answer exactly that. Revoking a communicator needs a notification protocol between the
 * ranks, which mm does not have yet, so MPID_Comm_revoke fails with **notimpl.
 */

#include "mpidimpl.h"

int MPID_Comm_revoke(MPIR_Comm *comm, int is_remote)
{
    return mm_notimpl(__func__);
}

/* Acknowledging marks the failures known so far as seen, which re-enables MPI_ANY_SOURCE
 * receives on the communicator. With no known failures there is nothing to mark, and
 * MPI_ANY_SOURCE is never disabled (MPID_Comm_AS_enabled is always true). */
int MPID_Comm_failure_ack(MPIR_Comm *comm)
{
    MPIR_FUNC_ENTER;
    MPIR_FUNC_EXIT;
    return MPI_SUCCESS;
}

/* The acknowledged failures are a subset of the known ones, which are none. MPIR_Group_empty
 * (MPI_GROUP_EMPTY) is a builtin object that MPIR neither reference-counts nor frees, so it is
 * returned as is; the callers in MPIR test for it before releasing a group. */
int MPID_Comm_failure_get_acked(MPIR_Comm *comm, MPIR_Group **failed_group)
{
    MPIR_FUNC_ENTER;
    *failed_group = MPIR_Group_empty;
    MPIR_FUNC_EXIT;
    return MPI_SUCCESS;
}

/* Meant to agree, over the communicator and with messages on `tag`, on the union of the
 * failures each member knows of. Every member runs this same device and knows of none, so the
 * union is empty everywhere and no message needs to be exchanged. */
int MPID_Comm_get_all_failed_procs(MPIR_Comm *comm, MPIR_Group **failed_group, int tag)
{
    MPIR_FUNC_ENTER;
    *failed_group = MPIR_Group_empty;
    MPIR_FUNC_EXIT;
    return MPI_SUCCESS;
}
