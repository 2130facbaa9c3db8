/*
 * mm device: partitioned communication (MPI_Psend_init, MPI_Precv_init, MPI_Pready*,
 * MPI_Parrived).
 *
 * A stub until the partitioned communication step: the inits fail with **notimpl, so no
 * partitioned request exists and MPID_Startall never sees one; the rest fail the same way.
 */

#include "mpidimpl.h"

int MPID_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPIR_Comm *comm, MPIR_Info *info, MPIR_Request **request)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FUNC_ENTER;

    *request = NULL;

    MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**notimpl", "**notimpl %s", __func__);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
                    int tag, MPIR_Comm *comm, MPIR_Info *info, MPIR_Request **request)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FUNC_ENTER;

    *request = NULL;

    MPIR_ERR_SETANDJUMP1(mpi_errno, MPI_ERR_OTHER, "**notimpl", "**notimpl %s", __func__);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Pready_range(int partition_low, int partition_high, MPIR_Request *sreq)
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

int MPID_Pready_list(int length, const int array_of_partitions[], MPIR_Request *sreq)
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

int MPID_Parrived(MPIR_Request *rreq, int partition, int *flag)
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
