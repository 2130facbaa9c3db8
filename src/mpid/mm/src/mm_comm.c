/*
 * Communicator hooks. The device's view of a communicator is its rank -> lpid tables:
 * dev.lpids for the group (remote group of an intercomm) and dev.local_lpids for the local
 * group of an intercomm. MPIR describes a new communicator as a list of maps from existing
 * ones (mapper_head): each map copies (DUP) or picks (IRREGULAR) entries of a source
 * table, local (L) or remote (R), into the new local or remote part, in list order.
 */
#include "mpidimpl.h"

/* The source table a map reads from. An intracomm's only table is its group. */
static const int *map_src_table(const MPIR_Comm_map_t * map, int *size)
{
    MPIR_Comm *src = map->src_comm;
    int from_local = map->dir == MPIR_COMM_MAP_DIR__L2L || map->dir == MPIR_COMM_MAP_DIR__L2R;

    if (src->comm_kind == MPIR_COMM_KIND__INTRACOMM || !from_local) {
        *size = src->comm_kind == MPIR_COMM_KIND__INTRACOMM ? src->local_size : src->remote_size;
        return src->dev.lpids;
    }
    *size = src->local_size;
    return src->dev.local_lpids;
}

static int map_to_local(const MPIR_Comm_map_t * map)
{
    return map->dir == MPIR_COMM_MAP_DIR__L2L || map->dir == MPIR_COMM_MAP_DIR__R2L;
}

static int map_size(const MPIR_Comm_map_t * map)
{
    int size;
    if (map->type == MPIR_COMM_MAP_TYPE__IRREGULAR)
        return map->src_mapping_size;
    map_src_table(map, &size);
    return size;
}

/* Build one part (local or remote) of comm from the maps that target it. Returns NULL in
 * *table_out when no map targets that part. */
static int build_part(MPIR_Comm * comm, int local_part, int **table_out)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm_map_t *map;
    int total = 0, pos = 0;
    int *table;

    *table_out = NULL;
    for (map = comm->mapper_head; map; map = map->next)
        if (map_to_local(map) == local_part)
            total += map_size(map);
    if (total == 0)
        goto fn_exit;

    table = MPL_malloc(total * sizeof(int), MPL_MEM_COMM);
    MPIR_ERR_CHKANDJUMP1(table == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm communicator lpid table");
    for (map = comm->mapper_head; map; map = map->next) {
        int src_size;
        const int *src = map_src_table(map, &src_size);

        if (map_to_local(map) != local_part)
            continue;
        if (map->type == MPIR_COMM_MAP_TYPE__DUP) {
            memcpy(table + pos, src, src_size * sizeof(int));
            pos += src_size;
        } else {
            for (int i = 0; i < map->src_mapping_size; i++) {
                MPIR_Assert(map->src_mapping[i] >= 0 && map->src_mapping[i] < src_size);
                table[pos++] = src[map->src_mapping[i]];
            }
        }
    }
    *table_out = table;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

static int world_table(int **table_out, int size, int first)
{
    int mpi_errno = MPI_SUCCESS;
    int *table = MPL_malloc(size * sizeof(int), MPL_MEM_COMM);

    MPIR_ERR_CHKANDJUMP1(table == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm communicator lpid table");
    for (int i = 0; i < size; i++)
        table[i] = first + i;
    *table_out = table;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Apply fn to the lpid tables of comm (for the references on dynamic VCs). */
static int comm_vcs(MPIR_Comm * comm, void (*fn) (const int *, int))
{
    if (comm->comm_kind == MPIR_COMM_KIND__INTRACOMM) {
        if (comm->dev.lpids)
            fn(comm->dev.lpids, comm->local_size);
    } else {
        if (comm->dev.lpids)
            fn(comm->dev.lpids, comm->remote_size);
        if (comm->dev.local_lpids)
            fn(comm->dev.local_lpids, comm->local_size);
    }
    return MPI_SUCCESS;
}

static void comm_vcs_unref(const int *lpids, int n)
{
    /* A close that fails (the peer is gone) has been reported where it mattered. */
    (void) mm_vc_comm_unref(lpids, n);
}

int MPID_Comm_commit_pre_hook(MPIR_Comm * comm)
{
    int mpi_errno = MPI_SUCCESS;
    int *local = NULL, *remote = NULL;

    MPIR_FUNC_ENTER;
    if (comm == MPIR_Process.comm_world) {
        mpi_errno = world_table(&comm->dev.lpids, MPIR_Process.size, 0);
        MPIR_ERR_CHECK(mpi_errno);
        goto fn_exit;
    }
    if (comm == MPIR_Process.comm_self) {
        mpi_errno = world_table(&comm->dev.lpids, 1, MPIR_Process.rank);
        MPIR_ERR_CHECK(mpi_errno);
        goto fn_exit;
    }

    mpi_errno = build_part(comm, 1, &local);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = build_part(comm, 0, &remote);
    MPIR_ERR_CHECK(mpi_errno);
    if (comm->comm_kind == MPIR_COMM_KIND__INTRACOMM) {
        MPIR_Assert(remote == NULL);
        comm->dev.lpids = local;
    } else {
        comm->dev.local_lpids = local;
        /* MPID_Create_intercomm_from_lpids may already have set the remote group. */
        if (remote) {
            MPL_free(comm->dev.lpids);
            comm->dev.lpids = remote;
        }
    }
    if (!comm->dev.vc_refs) {
        comm_vcs(comm, mm_vc_comm_ref);
        comm->dev.vc_refs = 1;
    }

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    MPL_free(local);
    MPL_free(remote);
    goto fn_exit;
}

int MPID_Comm_commit_post_hook(MPIR_Comm * comm)
{
    return MPI_SUCCESS;
}

static mm_comm_free_fn free_hooks[MM_COMM_FREE_HOOKS];
static int n_free_hooks;

void mm_comm_register_free(mm_comm_free_fn fn)
{
    MPIR_Assert(n_free_hooks < MM_COMM_FREE_HOOKS);
    free_hooks[n_free_hooks++] = fn;
}

int MPID_Comm_free_hook(MPIR_Comm * comm)
{
    for (int i = 0; i < n_free_hooks; i++)
        free_hooks[i] (comm);
    if (comm->dev.vc_refs) {
        comm_vcs(comm, comm_vcs_unref);
        comm->dev.vc_refs = 0;
    }
    MPL_free(comm->dev.lpids);
    MPL_free(comm->dev.local_lpids);
    comm->dev.lpids = NULL;
    comm->dev.local_lpids = NULL;
    return MPI_SUCCESS;
}

/* No communicator hint changes how the engine moves data yet. */
int MPID_Comm_set_hints(MPIR_Comm * comm, MPIR_Info * info)
{
    return MPI_SUCCESS;
}

int MPID_Comm_get_lpid(MPIR_Comm * comm, int idx, uint64_t * lpid_ptr, bool is_remote)
{
    if (comm->comm_kind == MPIR_COMM_KIND__INTRACOMM || is_remote)
        *lpid_ptr = comm->dev.lpids[idx];
    else
        *lpid_ptr = comm->dev.local_lpids[idx];
    return MPI_SUCCESS;
}

int mm_comm_has_other_jobs(MPIR_Comm * comm)
{
    for (int i = 0; i < comm->local_size; i++)
        if (comm->dev.lpids[i] >= MPIR_Process.size)
            return 1;
    return 0;
}

/* MPI_Comm_split_type. Left to itself, MPICH answers MPI_COMM_TYPE_SHARED with a
 * communicator of the caller alone, as it cannot know who shares memory; the device
 * does (the node map that also picks the shm method), so a shared-memory split groups
 * each node's processes, with MPICH's shmem_topo hints applied by its node-topology
 * helper. Every member first takes part in one split that sets the MPI_UNDEFINED callers
 * aside, so those and the others go through the same collectives. */
static int mm_comm_split_type(MPIR_Comm * comm, int split_type, int key, MPIR_Info * info,
                              MPIR_Comm ** newcomm)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Comm *defined = NULL;

    if (split_type != MPI_COMM_TYPE_SHARED)
        return MPIR_Comm_split_type(comm, split_type, key, info, newcomm);
    mpi_errno = MPIR_Comm_split_impl(comm, 0, key, &defined);
    MPIR_ERR_CHECK(mpi_errno);
    if (mm_comm_has_other_jobs(defined)) {
        /* Node ids of two jobs are not comparable: each process shares memory with
         * itself only, as far as anyone can tell. Every member sees another job here. */
        mpi_errno = MPIR_Comm_split_impl(defined, defined->rank, key, newcomm);
    } else {
        mpi_errno = MPIR_Comm_split_type_node_topo(defined, key, info, newcomm);
    }
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    if (defined)
        MPIR_Comm_free_impl(defined);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

MPIR_Commops mm_comm_ops = {.split_type = mm_comm_split_type };

/* Processes of other jobs have no node id here (-1): MPICH then builds no node-aware
 * hierarchy for communicators that include them, rather than guess who shares a node. */
int MPID_Get_node_id(MPIR_Comm * comm, int rank, int *id_p)
{
    int lpid = comm->dev.lpids[rank];

    *id_p = lpid < MPIR_Process.size ? MPIR_Process.node_map[lpid] : -1;
    return MPI_SUCCESS;
}

int MPID_Create_intercomm_from_lpids(MPIR_Comm * newcomm, int size, const uint64_t lpids[])
{
    int mpi_errno = MPI_SUCCESS;
    int *table = MPL_malloc(size * sizeof(int), MPL_MEM_COMM);

    MPIR_ERR_CHKANDJUMP1(table == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "mm communicator lpid table");
    for (int i = 0; i < size; i++) {
        /* the remote group's lpids came from its leader, in a message */
        if (lpids[i] >= (uint64_t) mm_vc_count()) {
            MPL_free(table);
            MPIR_ERR_SETANDJUMP2(mpi_errno, MPI_ERR_OTHER, "**mm|badgpid", "**mm|badgpid %L %d",
                                 (long long) lpids[i], mm_vc_count());
        }
        table[i] = (int) lpids[i];
    }
    MPL_free(newcomm->dev.lpids);
    newcomm->dev.lpids = table;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
