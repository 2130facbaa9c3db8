/*
 * mm device: RMA windows (creation, attach/detach, free, shared query, info).
 *
 * A stub until the one-sided communication step implements windows: every entry point fails
 * with **notimpl, so no MPIR_Win is ever created. Until then configure sets MPID_NO_RMA=yes,
 * which leaves MPICH's rma tests out of the test suite.
 */

#include "mpidimpl.h"

int MPID_Win_create(void *base, MPI_Aint size, int disp_unit, MPIR_Info *info, MPIR_Comm *comm,
                    MPIR_Win **win)
{
    *win = NULL;
    return mm_notimpl(__func__);
}

int MPID_Win_allocate(MPI_Aint size, int disp_unit, MPIR_Info *info, MPIR_Comm *comm, void *baseptr,
                      MPIR_Win **win)
{
    *win = NULL;
    return mm_notimpl(__func__);
}

int MPID_Win_allocate_shared(MPI_Aint size, int disp_unit, MPIR_Info *info, MPIR_Comm *comm,
                             void *baseptr, MPIR_Win **win)
{
    *win = NULL;
    return mm_notimpl(__func__);
}

int MPID_Win_create_dynamic(MPIR_Info *info, MPIR_Comm *comm, MPIR_Win **win)
{
    *win = NULL;
    return mm_notimpl(__func__);
}

int MPID_Win_attach(MPIR_Win *win, void *base, MPI_Aint size)
{
    return mm_notimpl(__func__);
}

int MPID_Win_detach(MPIR_Win *win, const void *base)
{
    return mm_notimpl(__func__);
}

int MPID_Win_free(MPIR_Win **win)
{
    return mm_notimpl(__func__);
}

int MPID_Win_shared_query(MPIR_Win *win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    return mm_notimpl(__func__);
}

int MPID_Win_get_info(MPIR_Win *win, MPIR_Info **info_used)
{
    *info_used = NULL;
    return mm_notimpl(__func__);
}

int MPID_Win_set_info(MPIR_Win *win, MPIR_Info *info)
{
    return mm_notimpl(__func__);
}
