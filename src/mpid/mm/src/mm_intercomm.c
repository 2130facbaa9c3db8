/*
 * Telling two groups about each other: MPI_Intercomm_create's exchange, and the same
 * exchange for MPI_Comm_accept/connect (mm_dynproc.c).
 *
 * lpids are private to each process (mm_vc.h), so the leaders swap gpids, then
 * descriptions: a member's description carries its cards whenever some process of the
 * receiving group belongs to another job than the member (it could not find the member
 * in its own job's PMI space). Within one job that is never, and the exchange costs two
 * small messages more than swapping lpids would. Each leader then broadcasts the remote
 * descriptions to its group, and every process turns them into lpids of its own, making
 * VCs for processes it meets for the first time. The group whose leader has the smaller
 * gpid is the "low" group, a rule both sides evaluate alike.
 */
#include "mpidimpl.h"

/* The gpids of comm's local group. */
static int group_gpids(MPIR_Comm * comm, uint64_t ** gpids_out)
{
    int mpi_errno = MPI_SUCCESS;
    int n = comm->local_size;
    uint64_t *gpids = MPL_malloc(n * sizeof(uint64_t), MPL_MEM_COMM);

    MPIR_ERR_CHKANDJUMP1(gpids == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm group gpids");
    for (int i = 0; i < n; i++) {
        uint64_t lpid;
        MPID_Comm_get_lpid(comm, i, &lpid, FALSE);
        gpids[i] = mm_vc_at((int) lpid)->gpid;
    }
    *gpids_out = gpids;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The descriptions of comm's local group for an audience of n processes, as consecutive
 * NUL-terminated strings. */
static int group_descrs(MPIR_Comm * comm, const uint64_t * audience, int n, char **blob_out,
                        int *len_out)
{
    int mpi_errno = MPI_SUCCESS;
    int cap = comm->local_size * 128, len = 0;
    char *blob = MPL_malloc(cap, MPL_MEM_COMM);

    MPIR_ERR_CHKANDJUMP1(blob == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm group descriptions");
    for (int i = 0; i < comm->local_size; i++) {
        uint64_t lpid;
        uint32_t job;
        int with_cards = 0, m;

        MPID_Comm_get_lpid(comm, i, &lpid, FALSE);
        job = MM_GPID_JOB(mm_vc_at((int) lpid)->gpid);
        for (int j = 0; j < n && !with_cards; j++)
            with_cards = MM_GPID_JOB(audience[j]) != job;
        for (;;) {
            m = mm_vc_describe((int) lpid, with_cards, blob + len, cap - len);
            if (m >= 0)
                break;
            cap *= 2;
            char *grown = MPL_realloc(blob, cap, MPL_MEM_COMM);
            MPIR_ERR_CHKANDJUMP1(grown == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                                 "**nomem %s", "mm group descriptions");
            blob = grown;
        }
        len += m + 1;   /* keep the NUL */
    }
    *blob_out = blob;
    *len_out = len;
    blob = NULL;

  fn_exit:
    MPL_free(blob);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_group_swap(MPIR_Comm * local_comm, MPIR_Comm * peer_comm, int peer_rank, int tag,
                  mm_group_info_t * info)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Errflag_t errflag = MPIR_ERR_NONE;
    uint64_t *mine = NULL, *theirs = NULL;
    char *my_blob = NULL;
    int hdr[2], peer_hdr[2];
    /* group size and the leader's gpid */
    uint64_t lead[2] = { (uint64_t) local_comm->local_size, mm_my_gpid }, peer_lead[2];

    mpi_errno = group_gpids(local_comm, &mine);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIC_Sendrecv(lead, 2, MPI_UINT64_T, peer_rank, tag, peer_lead, 2,
                              MPI_UINT64_T, peer_rank, tag, peer_comm, MPI_STATUS_IGNORE,
                              &errflag);
    MPIR_ERR_CHECK(mpi_errno);
    hdr[0] = local_comm->local_size;
    peer_hdr[0] = peer_lead[0] > INT_MAX ? -1 : (int) peer_lead[0];
    MPIR_ERR_CHKANDJUMP1(peer_hdr[0] <= 0, mpi_errno, MPI_ERR_OTHER, "**mm|badgroup",
                         "**mm|badgroup %d", peer_hdr[0]);
    theirs = MPL_malloc(peer_hdr[0] * sizeof(uint64_t), MPL_MEM_COMM);
    MPIR_ERR_CHKANDJUMP1(theirs == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm group gpids");
    mpi_errno = MPIC_Sendrecv(mine, hdr[0], MPI_UINT64_T, peer_rank, tag, theirs, peer_hdr[0],
                              MPI_UINT64_T, peer_rank, tag, peer_comm, MPI_STATUS_IGNORE,
                              &errflag);
    MPIR_ERR_CHECK(mpi_errno);

    mpi_errno = group_descrs(local_comm, theirs, peer_hdr[0], &my_blob, &hdr[1]);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIC_Sendrecv(&hdr[1], 1, MPI_INT, peer_rank, tag, &peer_hdr[1], 1, MPI_INT,
                              peer_rank, tag, peer_comm, MPI_STATUS_IGNORE, &errflag);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_ERR_CHKANDJUMP1(peer_hdr[1] <= 0, mpi_errno, MPI_ERR_OTHER, "**mm|badgroup",
                         "**mm|badgroup %d", peer_hdr[1]);
    info->blob = MPL_calloc(1, peer_hdr[1], MPL_MEM_COMM);
    MPIR_ERR_CHKANDJUMP1(info->blob == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                         "**nomem %s", "mm group descriptions");
    mpi_errno = MPIC_Sendrecv(my_blob, hdr[1], MPI_CHAR, peer_rank, tag, info->blob,
                              peer_hdr[1], MPI_CHAR, peer_rank, tag, peer_comm,
                              MPI_STATUS_IGNORE, &errflag);
    MPIR_ERR_CHECK(mpi_errno);
    info->remote_size = peer_hdr[0];
    info->blob_len = peer_hdr[1];
    info->is_low_group = mm_my_gpid < peer_lead[1];

  fn_exit:
    MPL_free(mine);
    MPL_free(theirs);
    MPL_free(my_blob);
    return mpi_errno;
  fn_fail:
    MPL_free(info->blob);
    info->blob = NULL;
    goto fn_exit;
}

int mm_group_bcast(MPIR_Comm * local_comm, int root, mm_group_info_t * info)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Errflag_t errflag = MPIR_ERR_NONE;
    int hdr[3];

    if (local_comm->rank == root) {
        hdr[0] = info->remote_size;
        hdr[1] = info->blob_len;
        hdr[2] = info->is_low_group;
    }
    mpi_errno = MPIR_Bcast(hdr, 3, MPI_INT, root, local_comm, &errflag);
    MPIR_ERR_CHECK(mpi_errno);
    if (local_comm->rank != root) {
        info->remote_size = hdr[0];
        info->blob_len = hdr[1];
        info->is_low_group = hdr[2];
        info->blob = MPL_calloc(1, hdr[1], MPL_MEM_COMM);
        MPIR_ERR_CHKANDJUMP1(info->blob == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                             "**nomem %s", "mm group descriptions");
    }
    mpi_errno = MPIR_Bcast(info->blob, info->blob_len, MPI_CHAR, root, local_comm, &errflag);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_group_lpids(const mm_group_info_t * info, uint64_t ** lpids_out)
{
    int mpi_errno = MPI_SUCCESS;
    uint64_t *lpids = MPL_malloc(info->remote_size * sizeof(uint64_t), MPL_MEM_COMM);
    size_t pos = 0;

    MPIR_ERR_CHKANDJUMP1(lpids == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm intercomm lpids");
    for (int i = 0; i < info->remote_size; i++) {
        uint64_t gpid;
        const char *cards;
        int lpid;

        MPIR_ERR_CHKANDJUMP1(info->blob_len <= 0 ||
                             mm_wire_group_next(info->blob, (size_t) info->blob_len, &pos, &gpid,
                                                &cards) != MM_WIRE_OK, mpi_errno,
                             MPI_ERR_OTHER, "**mm|badgroup", "**mm|badgroup %d", i);
        mpi_errno = mm_vc_lookup(gpid, cards, 1, &lpid);
        MPIR_ERR_CHECK(mpi_errno);
        lpids[i] = (uint64_t) lpid;
    }
    *lpids_out = lpids;
    lpids = NULL;

  fn_exit:
    MPL_free(lpids);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Intercomm_exchange_map(MPIR_Comm * local_comm, int local_leader, MPIR_Comm * peer_comm,
                                int remote_leader, int *remote_size, uint64_t ** remote_lpids,
                                int *is_low_group)
{
    int mpi_errno = MPI_SUCCESS;
    const int tag = 0 | MPIR_TAG_COLL_BIT;
    mm_group_info_t info = { 0 };

    if (local_comm->rank == local_leader) {
        mpi_errno = mm_group_swap(local_comm, peer_comm, remote_leader, tag, &info);
        MPIR_ERR_CHECK(mpi_errno);
    }
    mpi_errno = mm_group_bcast(local_comm, local_leader, &info);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = mm_group_lpids(&info, remote_lpids);
    MPIR_ERR_CHECK(mpi_errno);
    *remote_size = info.remote_size;
    *is_low_group = info.is_low_group;

  fn_exit:
    MPL_free(info.blob);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
