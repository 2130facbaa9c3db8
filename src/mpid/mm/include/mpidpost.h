/*
 * mpidpost.h — device inlines that need MPIR's full types: the parts of the ADI that the
 * mm device takes unchanged from MPICH's generic code (wait/test loops, async progress
 * thread, collectives) and the two request/comm predicates mpir_request.h requires inline.
 */
#ifndef MPIDPOST_H_INCLUDED
#define MPIDPOST_H_INCLUDED

/* Every peer stays reachable by ANY_SOURCE receives: the device detects no failures. */
MPL_STATIC_INLINE_PREFIX int MPID_Comm_AS_enabled(MPIR_Comm * comm_ptr)
{
    return 1;
}

MPL_STATIC_INLINE_PREFIX int MPID_Request_is_anysource(MPIR_Request * req)
{
    return req->kind == MPIR_REQUEST_KIND__RECV && req->dev.match_rank == MPI_ANY_SOURCE;
}

/* Persistent and partitioned requests own no device resources beyond their fields. */
#define MPID_Prequest_free_hook(req_) do { (void) (req_); } while (0)
#define MPID_Part_request_free_hook(req_) do { (void) (req_); } while (0)

MPL_STATIC_INLINE_PREFIX int MPID_Init_async_thread(void)
{
    return MPIR_Init_async_thread();
}

MPL_STATIC_INLINE_PREFIX int MPID_Finalize_async_thread(void)
{
    return MPIR_Finalize_async_thread();
}

/* Wait and test: MPIR's loops over MPID_Progress_* are all the device needs. */
MPL_STATIC_INLINE_PREFIX int MPID_Wait(MPIR_Request * req, MPI_Status * status)
{
    /* MPI_Recv's wait, after a blocking receive has waited in the device (MPID_Recv). */
    if (MPIR_Request_is_complete(req))
        return MPI_SUCCESS;
    return MPIR_Wait_impl(req, status);
}

MPL_STATIC_INLINE_PREFIX int MPID_Waitall(int count, MPIR_Request * reqs[],
                                          MPI_Status statuses[], int request_properties)
{
    return MPIR_Waitall_impl(count, reqs, statuses, request_properties);
}

MPL_STATIC_INLINE_PREFIX int MPID_Waitany(int count, MPIR_Request * reqs[], int *indx,
                                          MPI_Status * status)
{
    return MPIR_Waitany_impl(count, reqs, indx, status);
}

MPL_STATIC_INLINE_PREFIX int MPID_Waitsome(int incount, MPIR_Request * reqs[], int *outcount,
                                           int indices[], MPI_Status statuses[])
{
    return MPIR_Waitsome_impl(incount, reqs, outcount, indices, statuses);
}

MPL_STATIC_INLINE_PREFIX int MPID_Test(MPIR_Request * req, int *flag, MPI_Status * status)
{
    return MPIR_Test_impl(req, flag, status);
}

MPL_STATIC_INLINE_PREFIX int MPID_Testall(int count, MPIR_Request * reqs[], int *flag,
                                          MPI_Status statuses[], int requests_property)
{
    return MPIR_Testall_impl(count, reqs, flag, statuses, requests_property);
}

MPL_STATIC_INLINE_PREFIX int MPID_Testany(int count, MPIR_Request * reqs[], int *indx,
                                          int *flag, MPI_Status * status)
{
    return MPIR_Testany_impl(count, reqs, indx, flag, status);
}

MPL_STATIC_INLINE_PREFIX int MPID_Testsome(int incount, MPIR_Request * reqs[], int *outcount,
                                           int indices[], MPI_Status statuses[])
{
    return MPIR_Testsome_impl(incount, reqs, outcount, indices, statuses);
}

#include "mpid_coll.h"

#endif /* MPIDPOST_H_INCLUDED */
