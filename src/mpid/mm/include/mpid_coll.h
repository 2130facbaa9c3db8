/*
 * mm device: collective entry points.
 *
 * MPIR calls MPID_<Coll> (blocking; all but the neighborhood ones carry the errflag in which
 * the algorithm accumulates errors of its point-to-point steps), MPID_I<coll> (nonblocking)
 * and MPID_<Coll>_init (persistent) when MPIR_CVAR_DEVICE_COLLECTIVES hands a collective to
 * the device, which is the default ("percoll" with every per-collective CVAR true). mm's own
 * algorithms live in coll/: on one node, MPI_Bcast from MPIR_CVAR_MM_BCAST_SHM_MIN bytes and
 * MPI_Allreduce from MPIR_CVAR_MM_REDUCE_SHM_MIN through the communicator's node segment
 * (coll/mm_coll.h); across nodes MPI_Bcast, and MPI_Ibcast everywhere, from
 * MPIR_CVAR_MM_BCAST_PIPELINE_MIN as an xfer pipeline, and MPI_Allreduce from
 * MPIR_CVAR_MM_ALLREDUCE_GET_MIN by single-copy reads; on one node also MPI_Reduce and
 * MPI_Reduce_scatter(_block) (MPIR_CVAR_MM_REDUCE_SHM_MIN) and MPI_Allgather (MPIR_CVAR_MM_ALLGATHER_SHM_MIN) through
 * the node segment, and MPI_Barrier (MPIR_CVAR_MM_BARRIER_SHM). Every other collective
 * here runs
 * MPIR's algorithm selection
 * (MPIR_<Coll>_impl), whose point-to-point steps come back to mm as MPID_Send_coll,
 * MPID_Isend_coll, MPID_Irecv and friends. MPIR creates a persistent collective as a request of
 * kind MPIR_REQUEST_KIND__PREQUEST_COLL; that kind is all MPID_Startall needs to recognise it
 * and hand it to MPIR_Persist_coll_start, so the wrappers add no device state.
 *
 * Included from mpidpost.h, once every MPIR type and MPIR_*_impl prototype is known.
 */

#ifndef MPID_COLL_H_INCLUDED
#define MPID_COLL_H_INCLUDED

/* Blocking collectives */

/* coll/mm_barrier.c: on one node through the node segment, else through MPIR */
int mm_coll_barrier(MPIR_Comm * comm, MPIR_Errflag_t * errflag);

MPL_STATIC_INLINE_PREFIX int MPID_Barrier(MPIR_Comm *comm_ptr, MPIR_Errflag_t *errflag)
{
    return mm_coll_barrier(comm_ptr, errflag);
}

/* coll/mm_allreduce.c: large allreduces by single-copy reads, the rest through MPIR */
int mm_coll_allreduce(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype datatype,
                      MPI_Op op, MPIR_Comm * comm, MPIR_Errflag_t * errflag);
/* coll/mm_bcast.c: large broadcasts as an xfer pipeline, the rest through MPIR */
int mm_coll_bcast(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                  MPIR_Comm *comm_ptr, MPIR_Errflag_t *errflag);
int mm_coll_ibcast(void *buffer, MPI_Aint count, MPI_Datatype datatype, int root,
                   MPIR_Comm *comm_ptr, MPIR_Request **request_ptr);

MPL_STATIC_INLINE_PREFIX int MPID_Bcast(void *buffer, MPI_Aint count, MPI_Datatype datatype,
                                        int root, MPIR_Comm *comm_ptr, MPIR_Errflag_t *errflag)
{
    return mm_coll_bcast(buffer, count, datatype, root, comm_ptr, errflag);
}

MPL_STATIC_INLINE_PREFIX int MPID_Gather(const void *sendbuf, MPI_Aint sendcount,
                                         MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                                         MPI_Datatype recvtype, int root, MPIR_Comm *comm_ptr,
                                         MPIR_Errflag_t *errflag)
{
    return MPIR_Gather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                            comm_ptr, errflag);
}

MPL_STATIC_INLINE_PREFIX int MPID_Gatherv(const void *sendbuf, MPI_Aint sendcount,
                                          MPI_Datatype sendtype, void *recvbuf,
                                          const MPI_Aint recvcounts[], const MPI_Aint displs[],
                                          MPI_Datatype recvtype, int root, MPIR_Comm *comm_ptr,
                                          MPIR_Errflag_t *errflag)
{
    return MPIR_Gatherv_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                             root, comm_ptr, errflag);
}

MPL_STATIC_INLINE_PREFIX int MPID_Scatter(const void *sendbuf, MPI_Aint sendcount,
                                          MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                                          MPI_Datatype recvtype, int root, MPIR_Comm *comm_ptr,
                                          MPIR_Errflag_t *errflag)
{
    return MPIR_Scatter_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                             comm_ptr, errflag);
}

MPL_STATIC_INLINE_PREFIX int MPID_Scatterv(const void *sendbuf, const MPI_Aint sendcounts[],
                                           const MPI_Aint displs[], MPI_Datatype sendtype,
                                           void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                                           int root, MPIR_Comm *comm_ptr, MPIR_Errflag_t *errflag)
{
    return MPIR_Scatterv_impl(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                              root, comm_ptr, errflag);
}

/* coll/mm_allgather.c: on one node through the node segment, else through MPIR */
int mm_coll_allgather(const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype,
                      void *recvbuf, MPI_Aint recvcount, MPI_Datatype recvtype,
                      MPIR_Comm * comm, MPIR_Errflag_t * errflag);

MPL_STATIC_INLINE_PREFIX int MPID_Allgather(const void *sendbuf, MPI_Aint sendcount,
                                            MPI_Datatype sendtype, void *recvbuf,
                                            MPI_Aint recvcount, MPI_Datatype recvtype,
                                            MPIR_Comm *comm_ptr, MPIR_Errflag_t *errflag)
{
    return mm_coll_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                             comm_ptr, errflag);
}

MPL_STATIC_INLINE_PREFIX int MPID_Allgatherv(const void *sendbuf, MPI_Aint sendcount,
                                             MPI_Datatype sendtype, void *recvbuf,
                                             const MPI_Aint recvcounts[], const MPI_Aint displs[],
                                             MPI_Datatype recvtype, MPIR_Comm *comm_ptr,
                                             MPIR_Errflag_t *errflag)
{
    return MPIR_Allgatherv_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                                comm_ptr, errflag);
}

MPL_STATIC_INLINE_PREFIX int MPID_Alltoall(const void *sendbuf, MPI_Aint sendcount,
                                           MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                                           MPI_Datatype recvtype, MPIR_Comm *comm_ptr,
                                           MPIR_Errflag_t *errflag)
{
    return MPIR_Alltoall_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm_ptr,
                              errflag);
}

MPL_STATIC_INLINE_PREFIX int MPID_Alltoallv(const void *sendbuf, const MPI_Aint sendcounts[],
                                            const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                            void *recvbuf, const MPI_Aint recvcounts[],
                                            const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                            MPIR_Comm *comm_ptr, MPIR_Errflag_t *errflag)
{
    return MPIR_Alltoallv_impl(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                               recvtype, comm_ptr, errflag);
}

MPL_STATIC_INLINE_PREFIX int MPID_Alltoallw(const void *sendbuf, const MPI_Aint sendcounts[],
                                            const MPI_Aint sdispls[],
                                            const MPI_Datatype sendtypes[], void *recvbuf,
                                            const MPI_Aint recvcounts[], const MPI_Aint rdispls[],
                                            const MPI_Datatype recvtypes[], MPIR_Comm *comm_ptr,
                                            MPIR_Errflag_t *errflag)
{
    return MPIR_Alltoallw_impl(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                               rdispls, recvtypes, comm_ptr, errflag);
}

/* coll/mm_allreduce.c: on one node through the node segment, else through MPIR */
int mm_coll_reduce(const void *sendbuf, void *recvbuf, MPI_Aint count, MPI_Datatype datatype,
                   MPI_Op op, int root, MPIR_Comm * comm, MPIR_Errflag_t * errflag);

MPL_STATIC_INLINE_PREFIX int MPID_Reduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                         MPI_Datatype datatype, MPI_Op op, int root,
                                         MPIR_Comm *comm_ptr, MPIR_Errflag_t *errflag)
{
    return mm_coll_reduce(sendbuf, recvbuf, count, datatype, op, root, comm_ptr, errflag);
}

MPL_STATIC_INLINE_PREFIX int MPID_Allreduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                            MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm_ptr,
                                            MPIR_Errflag_t *errflag)
{
    return mm_coll_allreduce(sendbuf, recvbuf, count, datatype, op, comm_ptr, errflag);
}

/* coll/mm_allreduce.c: on one node through the node segment, else through MPIR */
int mm_coll_reduce_scatter(const void *sendbuf, void *recvbuf, const MPI_Aint recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm,
                           MPIR_Errflag_t * errflag);
int mm_coll_reduce_scatter_block(const void *sendbuf, void *recvbuf, MPI_Aint recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPIR_Comm * comm,
                                 MPIR_Errflag_t * errflag);

MPL_STATIC_INLINE_PREFIX int MPID_Reduce_scatter(const void *sendbuf, void *recvbuf,
                                                 const MPI_Aint recvcounts[], MPI_Datatype datatype,
                                                 MPI_Op op, MPIR_Comm *comm_ptr,
                                                 MPIR_Errflag_t *errflag)
{
    return mm_coll_reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm_ptr,
                                  errflag);
}

MPL_STATIC_INLINE_PREFIX int MPID_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                                       MPI_Aint recvcount, MPI_Datatype datatype,
                                                       MPI_Op op, MPIR_Comm *comm_ptr,
                                                       MPIR_Errflag_t *errflag)
{
    return mm_coll_reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm_ptr,
                                        errflag);
}

MPL_STATIC_INLINE_PREFIX int MPID_Scan(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                       MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm_ptr,
                                       MPIR_Errflag_t *errflag)
{
    return MPIR_Scan_impl(sendbuf, recvbuf, count, datatype, op, comm_ptr, errflag);
}

MPL_STATIC_INLINE_PREFIX int MPID_Exscan(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                         MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm_ptr,
                                         MPIR_Errflag_t *errflag)
{
    return MPIR_Exscan_impl(sendbuf, recvbuf, count, datatype, op, comm_ptr, errflag);
}

/* Blocking neighborhood collectives */

MPL_STATIC_INLINE_PREFIX int MPID_Neighbor_allgather(const void *sendbuf, MPI_Aint sendcount,
                                                     MPI_Datatype sendtype, void *recvbuf,
                                                     MPI_Aint recvcount, MPI_Datatype recvtype,
                                                     MPIR_Comm *comm_ptr)
{
    return MPIR_Neighbor_allgather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                        comm_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Neighbor_allgatherv(const void *sendbuf, MPI_Aint sendcount,
                                                      MPI_Datatype sendtype, void *recvbuf,
                                                      const MPI_Aint recvcounts[],
                                                      const MPI_Aint displs[],
                                                      MPI_Datatype recvtype, MPIR_Comm *comm_ptr)
{
    return MPIR_Neighbor_allgatherv_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                         recvtype, comm_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Neighbor_alltoall(const void *sendbuf, MPI_Aint sendcount,
                                                    MPI_Datatype sendtype, void *recvbuf,
                                                    MPI_Aint recvcount, MPI_Datatype recvtype,
                                                    MPIR_Comm *comm_ptr)
{
    return MPIR_Neighbor_alltoall_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                       comm_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Neighbor_alltoallv(
    const void *sendbuf, const MPI_Aint sendcounts[], const MPI_Aint sdispls[],
    MPI_Datatype sendtype, void *recvbuf, const MPI_Aint recvcounts[], const MPI_Aint rdispls[],
    MPI_Datatype recvtype, MPIR_Comm *comm_ptr)
{
    return MPIR_Neighbor_alltoallv_impl(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                        rdispls, recvtype, comm_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Neighbor_alltoallw(
    const void *sendbuf, const MPI_Aint sendcounts[], const MPI_Aint sdispls[],
    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Aint recvcounts[],
    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPIR_Comm *comm_ptr)
{
    return MPIR_Neighbor_alltoallw_impl(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                        recvcounts, rdispls, recvtypes, comm_ptr);
}

/* Nonblocking collectives */

MPL_STATIC_INLINE_PREFIX int MPID_Ibarrier(MPIR_Comm *comm_ptr, MPIR_Request **request_ptr)
{
    return MPIR_Ibarrier_impl(comm_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Ibcast(void *buffer, MPI_Aint count, MPI_Datatype datatype,
                                         int root, MPIR_Comm *comm_ptr, MPIR_Request **request_ptr)
{
    return mm_coll_ibcast(buffer, count, datatype, root, comm_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Igather(const void *sendbuf, MPI_Aint sendcount,
                                          MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                                          MPI_Datatype recvtype, int root, MPIR_Comm *comm_ptr,
                                          MPIR_Request **request_ptr)
{
    return MPIR_Igather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                             comm_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Igatherv(const void *sendbuf, MPI_Aint sendcount,
                                           MPI_Datatype sendtype, void *recvbuf,
                                           const MPI_Aint recvcounts[], const MPI_Aint displs[],
                                           MPI_Datatype recvtype, int root, MPIR_Comm *comm_ptr,
                                           MPIR_Request **request_ptr)
{
    return MPIR_Igatherv_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                              root, comm_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Iscatter(const void *sendbuf, MPI_Aint sendcount,
                                           MPI_Datatype sendtype, void *recvbuf, MPI_Aint recvcount,
                                           MPI_Datatype recvtype, int root, MPIR_Comm *comm_ptr,
                                           MPIR_Request **request_ptr)
{
    return MPIR_Iscatter_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                              comm_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Iscatterv(const void *sendbuf, const MPI_Aint sendcounts[],
                                            const MPI_Aint displs[], MPI_Datatype sendtype,
                                            void *recvbuf, MPI_Aint recvcount,
                                            MPI_Datatype recvtype, int root, MPIR_Comm *comm_ptr,
                                            MPIR_Request **request_ptr)
{
    return MPIR_Iscatterv_impl(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                               root, comm_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Iallgather(const void *sendbuf, MPI_Aint sendcount,
                                             MPI_Datatype sendtype, void *recvbuf,
                                             MPI_Aint recvcount, MPI_Datatype recvtype,
                                             MPIR_Comm *comm_ptr, MPIR_Request **request_ptr)
{
    return MPIR_Iallgather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                comm_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Iallgatherv(const void *sendbuf, MPI_Aint sendcount,
                                              MPI_Datatype sendtype, void *recvbuf,
                                              const MPI_Aint recvcounts[], const MPI_Aint displs[],
                                              MPI_Datatype recvtype, MPIR_Comm *comm_ptr,
                                              MPIR_Request **request_ptr)
{
    return MPIR_Iallgatherv_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                 recvtype, comm_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Ialltoall(const void *sendbuf, MPI_Aint sendcount,
                                            MPI_Datatype sendtype, void *recvbuf,
                                            MPI_Aint recvcount, MPI_Datatype recvtype,
                                            MPIR_Comm *comm_ptr, MPIR_Request **request_ptr)
{
    return MPIR_Ialltoall_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm_ptr,
                               request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Ialltoallv(const void *sendbuf, const MPI_Aint sendcounts[],
                                             const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                             void *recvbuf, const MPI_Aint recvcounts[],
                                             const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                             MPIR_Comm *comm_ptr, MPIR_Request **request_ptr)
{
    return MPIR_Ialltoallv_impl(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                rdispls, recvtype, comm_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Ialltoallw(const void *sendbuf, const MPI_Aint sendcounts[],
                                             const MPI_Aint sdispls[],
                                             const MPI_Datatype sendtypes[], void *recvbuf,
                                             const MPI_Aint recvcounts[], const MPI_Aint rdispls[],
                                             const MPI_Datatype recvtypes[], MPIR_Comm *comm_ptr,
                                             MPIR_Request **request_ptr)
{
    return MPIR_Ialltoallw_impl(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                rdispls, recvtypes, comm_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Ireduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                          MPI_Datatype datatype, MPI_Op op, int root,
                                          MPIR_Comm *comm_ptr, MPIR_Request **request_ptr)
{
    return MPIR_Ireduce_impl(sendbuf, recvbuf, count, datatype, op, root, comm_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Iallreduce(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                             MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm_ptr,
                                             MPIR_Request **request_ptr)
{
    return MPIR_Iallreduce_impl(sendbuf, recvbuf, count, datatype, op, comm_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Ireduce_scatter(const void *sendbuf, void *recvbuf,
                                                  const MPI_Aint recvcounts[],
                                                  MPI_Datatype datatype, MPI_Op op,
                                                  MPIR_Comm *comm_ptr, MPIR_Request **request_ptr)
{
    return MPIR_Ireduce_scatter_impl(sendbuf, recvbuf, recvcounts, datatype, op, comm_ptr,
                                     request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Ireduce_scatter_block(const void *sendbuf, void *recvbuf,
                                                        MPI_Aint recvcount, MPI_Datatype datatype,
                                                        MPI_Op op, MPIR_Comm *comm_ptr,
                                                        MPIR_Request **request_ptr)
{
    return MPIR_Ireduce_scatter_block_impl(sendbuf, recvbuf, recvcount, datatype, op, comm_ptr,
                                           request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Iscan(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                        MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm_ptr,
                                        MPIR_Request **request_ptr)
{
    return MPIR_Iscan_impl(sendbuf, recvbuf, count, datatype, op, comm_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Iexscan(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                          MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm_ptr,
                                          MPIR_Request **request_ptr)
{
    return MPIR_Iexscan_impl(sendbuf, recvbuf, count, datatype, op, comm_ptr, request_ptr);
}

/* Nonblocking neighborhood collectives */

MPL_STATIC_INLINE_PREFIX int MPID_Ineighbor_allgather(const void *sendbuf, MPI_Aint sendcount,
                                                      MPI_Datatype sendtype, void *recvbuf,
                                                      MPI_Aint recvcount, MPI_Datatype recvtype,
                                                      MPIR_Comm *comm_ptr,
                                                      MPIR_Request **request_ptr)
{
    return MPIR_Ineighbor_allgather_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                         comm_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Ineighbor_allgatherv(const void *sendbuf, MPI_Aint sendcount,
                                                       MPI_Datatype sendtype, void *recvbuf,
                                                       const MPI_Aint recvcounts[],
                                                       const MPI_Aint displs[],
                                                       MPI_Datatype recvtype, MPIR_Comm *comm_ptr,
                                                       MPIR_Request **request_ptr)
{
    return MPIR_Ineighbor_allgatherv_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                          recvtype, comm_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Ineighbor_alltoall(const void *sendbuf, MPI_Aint sendcount,
                                                     MPI_Datatype sendtype, void *recvbuf,
                                                     MPI_Aint recvcount, MPI_Datatype recvtype,
                                                     MPIR_Comm *comm_ptr,
                                                     MPIR_Request **request_ptr)
{
    return MPIR_Ineighbor_alltoall_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                        comm_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Ineighbor_alltoallv(
    const void *sendbuf, const MPI_Aint sendcounts[], const MPI_Aint sdispls[],
    MPI_Datatype sendtype, void *recvbuf, const MPI_Aint recvcounts[], const MPI_Aint rdispls[],
    MPI_Datatype recvtype, MPIR_Comm *comm_ptr, MPIR_Request **request_ptr)
{
    return MPIR_Ineighbor_alltoallv_impl(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                         recvcounts, rdispls, recvtype, comm_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Ineighbor_alltoallw(
    const void *sendbuf, const MPI_Aint sendcounts[], const MPI_Aint sdispls[],
    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Aint recvcounts[],
    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPIR_Comm *comm_ptr,
    MPIR_Request **request_ptr)
{
    return MPIR_Ineighbor_alltoallw_impl(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                         recvcounts, rdispls, recvtypes, comm_ptr, request_ptr);
}

/* Persistent collectives */

MPL_STATIC_INLINE_PREFIX int MPID_Barrier_init(MPIR_Comm *comm_ptr, MPIR_Info *info_ptr,
                                               MPIR_Request **request_ptr)
{
    return MPIR_Barrier_init_impl(comm_ptr, info_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Bcast_init(void *buffer, MPI_Aint count, MPI_Datatype datatype,
                                             int root, MPIR_Comm *comm_ptr, MPIR_Info *info_ptr,
                                             MPIR_Request **request_ptr)
{
    return MPIR_Bcast_init_impl(buffer, count, datatype, root, comm_ptr, info_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Gather_init(const void *sendbuf, MPI_Aint sendcount,
                                              MPI_Datatype sendtype, void *recvbuf,
                                              MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                                              MPIR_Comm *comm_ptr, MPIR_Info *info_ptr,
                                              MPIR_Request **request_ptr)
{
    return MPIR_Gather_init_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                 comm_ptr, info_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Gatherv_init(const void *sendbuf, MPI_Aint sendcount,
                                               MPI_Datatype sendtype, void *recvbuf,
                                               const MPI_Aint recvcounts[], const MPI_Aint displs[],
                                               MPI_Datatype recvtype, int root, MPIR_Comm *comm_ptr,
                                               MPIR_Info *info_ptr, MPIR_Request **request_ptr)
{
    return MPIR_Gatherv_init_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                  recvtype, root, comm_ptr, info_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Scatter_init(const void *sendbuf, MPI_Aint sendcount,
                                               MPI_Datatype sendtype, void *recvbuf,
                                               MPI_Aint recvcount, MPI_Datatype recvtype, int root,
                                               MPIR_Comm *comm_ptr, MPIR_Info *info_ptr,
                                               MPIR_Request **request_ptr)
{
    return MPIR_Scatter_init_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                                  comm_ptr, info_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Scatterv_init(const void *sendbuf, const MPI_Aint sendcounts[],
                                                const MPI_Aint displs[], MPI_Datatype sendtype,
                                                void *recvbuf, MPI_Aint recvcount,
                                                MPI_Datatype recvtype, int root,
                                                MPIR_Comm *comm_ptr, MPIR_Info *info_ptr,
                                                MPIR_Request **request_ptr)
{
    return MPIR_Scatterv_init_impl(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                   recvtype, root, comm_ptr, info_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Allgather_init(const void *sendbuf, MPI_Aint sendcount,
                                                 MPI_Datatype sendtype, void *recvbuf,
                                                 MPI_Aint recvcount, MPI_Datatype recvtype,
                                                 MPIR_Comm *comm_ptr, MPIR_Info *info_ptr,
                                                 MPIR_Request **request_ptr)
{
    return MPIR_Allgather_init_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                    comm_ptr, info_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Allgatherv_init(const void *sendbuf, MPI_Aint sendcount,
                                                  MPI_Datatype sendtype, void *recvbuf,
                                                  const MPI_Aint recvcounts[],
                                                  const MPI_Aint displs[], MPI_Datatype recvtype,
                                                  MPIR_Comm *comm_ptr, MPIR_Info *info_ptr,
                                                  MPIR_Request **request_ptr)
{
    return MPIR_Allgatherv_init_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                     recvtype, comm_ptr, info_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Alltoall_init(const void *sendbuf, MPI_Aint sendcount,
                                                MPI_Datatype sendtype, void *recvbuf,
                                                MPI_Aint recvcount, MPI_Datatype recvtype,
                                                MPIR_Comm *comm_ptr, MPIR_Info *info_ptr,
                                                MPIR_Request **request_ptr)
{
    return MPIR_Alltoall_init_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                   comm_ptr, info_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Alltoallv_init(const void *sendbuf, const MPI_Aint sendcounts[],
                                                 const MPI_Aint sdispls[], MPI_Datatype sendtype,
                                                 void *recvbuf, const MPI_Aint recvcounts[],
                                                 const MPI_Aint rdispls[], MPI_Datatype recvtype,
                                                 MPIR_Comm *comm_ptr, MPIR_Info *info_ptr,
                                                 MPIR_Request **request_ptr)
{
    return MPIR_Alltoallv_init_impl(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                    rdispls, recvtype, comm_ptr, info_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Alltoallw_init(
    const void *sendbuf, const MPI_Aint sendcounts[], const MPI_Aint sdispls[],
    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Aint recvcounts[],
    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPIR_Comm *comm_ptr,
    MPIR_Info *info_ptr, MPIR_Request **request_ptr)
{
    return MPIR_Alltoallw_init_impl(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                    rdispls, recvtypes, comm_ptr, info_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Reduce_init(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                              MPI_Datatype datatype, MPI_Op op, int root,
                                              MPIR_Comm *comm_ptr, MPIR_Info *info_ptr,
                                              MPIR_Request **request_ptr)
{
    return MPIR_Reduce_init_impl(sendbuf, recvbuf, count, datatype, op, root, comm_ptr, info_ptr,
                                 request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Allreduce_init(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                                 MPI_Datatype datatype, MPI_Op op,
                                                 MPIR_Comm *comm_ptr, MPIR_Info *info_ptr,
                                                 MPIR_Request **request_ptr)
{
    return MPIR_Allreduce_init_impl(sendbuf, recvbuf, count, datatype, op, comm_ptr, info_ptr,
                                    request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Reduce_scatter_init(const void *sendbuf, void *recvbuf,
                                                      const MPI_Aint recvcounts[],
                                                      MPI_Datatype datatype, MPI_Op op,
                                                      MPIR_Comm *comm_ptr, MPIR_Info *info_ptr,
                                                      MPIR_Request **request_ptr)
{
    return MPIR_Reduce_scatter_init_impl(sendbuf, recvbuf, recvcounts, datatype, op, comm_ptr,
                                         info_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Reduce_scatter_block_init(
    const void *sendbuf, void *recvbuf, MPI_Aint recvcount, MPI_Datatype datatype, MPI_Op op,
    MPIR_Comm *comm_ptr, MPIR_Info *info_ptr, MPIR_Request **request_ptr)
{
    return MPIR_Reduce_scatter_block_init_impl(sendbuf, recvbuf, recvcount, datatype, op, comm_ptr,
                                               info_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Scan_init(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                            MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm_ptr,
                                            MPIR_Info *info_ptr, MPIR_Request **request_ptr)
{
    return MPIR_Scan_init_impl(sendbuf, recvbuf, count, datatype, op, comm_ptr, info_ptr,
                               request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Exscan_init(const void *sendbuf, void *recvbuf, MPI_Aint count,
                                              MPI_Datatype datatype, MPI_Op op, MPIR_Comm *comm_ptr,
                                              MPIR_Info *info_ptr, MPIR_Request **request_ptr)
{
    return MPIR_Exscan_init_impl(sendbuf, recvbuf, count, datatype, op, comm_ptr, info_ptr,
                                 request_ptr);
}

/* Persistent neighborhood collectives */

MPL_STATIC_INLINE_PREFIX int MPID_Neighbor_allgather_init(const void *sendbuf, MPI_Aint sendcount,
                                                          MPI_Datatype sendtype, void *recvbuf,
                                                          MPI_Aint recvcount, MPI_Datatype recvtype,
                                                          MPIR_Comm *comm_ptr, MPIR_Info *info_ptr,
                                                          MPIR_Request **request_ptr)
{
    return MPIR_Neighbor_allgather_init_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                             recvtype, comm_ptr, info_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Neighbor_allgatherv_init(
    const void *sendbuf, MPI_Aint sendcount, MPI_Datatype sendtype, void *recvbuf,
    const MPI_Aint recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
    MPIR_Comm *comm_ptr, MPIR_Info *info_ptr, MPIR_Request **request_ptr)
{
    return MPIR_Neighbor_allgatherv_init_impl(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                              displs, recvtype, comm_ptr, info_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Neighbor_alltoall_init(const void *sendbuf, MPI_Aint sendcount,
                                                         MPI_Datatype sendtype, void *recvbuf,
                                                         MPI_Aint recvcount, MPI_Datatype recvtype,
                                                         MPIR_Comm *comm_ptr, MPIR_Info *info_ptr,
                                                         MPIR_Request **request_ptr)
{
    return MPIR_Neighbor_alltoall_init_impl(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                            recvtype, comm_ptr, info_ptr, request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Neighbor_alltoallv_init(
    const void *sendbuf, const MPI_Aint sendcounts[], const MPI_Aint sdispls[],
    MPI_Datatype sendtype, void *recvbuf, const MPI_Aint recvcounts[], const MPI_Aint rdispls[],
    MPI_Datatype recvtype, MPIR_Comm *comm_ptr, MPIR_Info *info_ptr, MPIR_Request **request_ptr)
{
    return MPIR_Neighbor_alltoallv_init_impl(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                             recvcounts, rdispls, recvtype, comm_ptr, info_ptr,
                                             request_ptr);
}

MPL_STATIC_INLINE_PREFIX int MPID_Neighbor_alltoallw_init(
    const void *sendbuf, const MPI_Aint sendcounts[], const MPI_Aint sdispls[],
    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Aint recvcounts[],
    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPIR_Comm *comm_ptr,
    MPIR_Info *info_ptr, MPIR_Request **request_ptr)
{
    return MPIR_Neighbor_alltoallw_init_impl(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                             recvcounts, rdispls, recvtypes, comm_ptr, info_ptr,
                                             request_ptr);
}

#endif /* MPID_COLL_H_INCLUDED */
