/*
 * mm device: RMA communication calls (put, get, the accumulates, and their request versions).
 *
 * A stub until the one-sided communication step: no window can exist yet (mm_win.c), so these
 * are unreachable through the MPI interface; they fail with **notimpl all the same.
 */

#include "mpidimpl.h"

int MPID_Put(const void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
             MPI_Datatype target_datatype, MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Get(void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
             MPI_Datatype target_datatype, MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Accumulate(const void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Get_accumulate(const void *origin_addr, MPI_Aint origin_count,
                        MPI_Datatype origin_datatype, void *result_addr, MPI_Aint result_count,
                        MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                        MPI_Aint target_count, MPI_Datatype target_datatype, MPI_Op op,
                        MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                          MPIR_Win *win)
{
    return mm_notimpl(__func__);
}

int MPID_Rput(const void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
              MPI_Datatype target_datatype, MPIR_Win *win, MPIR_Request **request)
{
    *request = NULL;
    return mm_notimpl(__func__);
}

int MPID_Rget(void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
              MPI_Datatype target_datatype, MPIR_Win *win, MPIR_Request **request)
{
    *request = NULL;
    return mm_notimpl(__func__);
}

int MPID_Raccumulate(const void *origin_addr, MPI_Aint origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Aint target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPIR_Win *win, MPIR_Request **request)
{
    *request = NULL;
    return mm_notimpl(__func__);
}

int MPID_Rget_accumulate(const void *origin_addr, MPI_Aint origin_count,
                         MPI_Datatype origin_datatype, void *result_addr, MPI_Aint result_count,
                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Aint target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPIR_Win *win, MPIR_Request **request)
{
    *request = NULL;
    return mm_notimpl(__func__);
}
