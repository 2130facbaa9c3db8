/*
 * mm device: dynamic processes (ports, accept/connect, disconnect, spawn) and the universe
 * size.
 *
 * Ports, accept/connect, disconnect and spawn are stubs until the dynamic processes step and
 * fail with **notimpl; configure sets MPID_NO_SPAWN=yes meanwhile, which leaves MPICH's spawn
 * tests out of the test suite. The universe size is real: it only asks the process manager.
 */

#include "mpidimpl.h"

int MPID_Open_port(MPIR_Info *info, char *port_name)
{
    return mm_notimpl(__func__);
}

int MPID_Close_port(const char *port_name)
{
    return mm_notimpl(__func__);
}

int MPID_Comm_accept(const char *port_name, MPIR_Info *info, int root, MPIR_Comm *comm,
                     MPIR_Comm **newcomm)
{
    *newcomm = NULL;
    return mm_notimpl(__func__);
}

int MPID_Comm_connect(const char *port_name, MPIR_Info *info, int root, MPIR_Comm *comm,
                      MPIR_Comm **newcomm)
{
    *newcomm = NULL;
    return mm_notimpl(__func__);
}

int MPID_Comm_disconnect(MPIR_Comm *comm)
{
    return mm_notimpl(__func__);
}

int MPID_Comm_spawn_multiple(int count, char *commands[], char **argvs[], const int maxprocs[],
                             MPIR_Info *infos[], int root, MPIR_Comm *comm, MPIR_Comm **intercomm,
                             int errcodes[])
{
    *intercomm = NULL;
    return mm_notimpl(__func__);
}

/* MPIR asks for the MPI_UNIVERSE_SIZE attribute and caches the answer, where -1
 * (MPIR_UNIVERSE_SIZE_NOT_SET) means "not asked yet". A process manager without a universe
 * size reports a negative number (hydra sends -1 unless mpiexec -usize is given); store that
 * as MPIR_UNIVERSE_SIZE_NOT_AVAILABLE so the attribute is absent and PMI is asked only once. */
int MPID_Get_universe_size(int *universe_size)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FUNC_ENTER;

    mpi_errno = MPIR_pmi_get_universe_size(universe_size);
    MPIR_ERR_CHECK(mpi_errno);
    if (*universe_size < 0) {
        *universe_size = MPIR_UNIVERSE_SIZE_NOT_AVAILABLE;
    }

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
