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
    *request = NULL;
    return mm_notimpl(__func__);
}

int MPID_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
                    int tag, MPIR_Comm *comm, MPIR_Info *info, MPIR_Request **request)
{
    *request = NULL;
    return mm_notimpl(__func__);
}

int MPID_Pready_range(int partition_low, int partition_high, MPIR_Request *sreq)
{
    return mm_notimpl(__func__);
}

int MPID_Pready_list(int length, const int array_of_partitions[], MPIR_Request *sreq)
{
    return mm_notimpl(__func__);
}

int MPID_Parrived(MPIR_Request *rreq, int partition, int *flag)
{
    return mm_notimpl(__func__);
}
