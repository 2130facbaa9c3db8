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
    int mpi_errno = MPI_SUCCESS;
    MPIR_FUNC_ENTER;

    *win = NULL;

    MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**notimpl", "**notimpl %s", __func__);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_allocate(MPI_Aint size, int disp_unit, MPIR_Info *info, MPIR_Comm *comm, void *baseptr,
                      MPIR_Win **win)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FUNC_ENTER;

    *win = NULL;

    MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**notimpl", "**notimpl %s", __func__);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_allocate_shared(MPI_Aint size, int disp_unit, MPIR_Info *info, MPIR_Comm *comm,
                             void *baseptr, MPIR_Win **win)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FUNC_ENTER;

    *win = NULL;

    MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**notimpl", "**notimpl %s", __func__);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_create_dynamic(MPIR_Info *info, MPIR_Comm *comm, MPIR_Win **win)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FUNC_ENTER;

    *win = NULL;

    MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**notimpl", "**notimpl %s", __func__);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_attach(MPIR_Win *win, void *base, MPI_Aint size)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FUNC_ENTER;

    MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**notimpl", "**notimpl %s", __func__);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_detach(MPIR_Win *win, const void *base)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FUNC_ENTER;

    MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**notimpl", "**notimpl %s", __func__);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_free(MPIR_Win **win)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FUNC_ENTER;

    MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**notimpl", "**notimpl %s", __func__);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_shared_query(MPIR_Win *win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FUNC_ENTER;

    MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**notimpl", "**notimpl %s", __func__);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_get_info(MPIR_Win *win, MPIR_Info **info_used)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FUNC_ENTER;

    *info_used = NULL;

    MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**notimpl", "**notimpl %s", __func__);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Win_set_info(MPIR_Win *win, MPIR_Info *info)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FUNC_ENTER;

    MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**notimpl", "**notimpl %s", __func__);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
