/*
 * Small ADI services: processor name, address arithmetic, memory for MPI_Alloc_mem, and
 * the datatype/op hooks (the engine keeps no per-type or per-op state).
 */
#include "mpidimpl.h"
#include <sys/random.h>
#include <time.h>

/* 64 random bits that tell processes apart (tcp's token, the job id of a gpid). */
uint64_t mm_random64(void)
{
    uint64_t r = 0;

    if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r)) {
        /* No entropy yet (early boot): pid and clock still tell processes apart. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        r = ((uint64_t) getpid() << 32) ^ (uint64_t) ts.tv_nsec ^ (uint64_t) ts.tv_sec;
    }
    return r;
}

int MPID_Get_processor_name(char *name, int namelen, int *resultlen)
{
    int mpi_errno = MPI_SUCCESS;

    MPIR_ERR_CHKANDJUMP(gethostname(name, namelen) != 0, mpi_errno, MPI_ERR_OTHER,
                        "**procnamefailed");
    name[namelen - 1] = '\0';
    *resultlen = (int) strlen(name);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

MPI_Aint MPID_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint) ((char *) base + disp);
}

MPI_Aint MPID_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint) ((char *) addr1 - (char *) addr2);
}

void *MPID_Alloc_mem(MPI_Aint size, MPIR_Info * info)
{
    return MPL_malloc(size, MPL_MEM_USER);
}

int MPID_Free_mem(void *ptr)
{
    MPL_free(ptr);
    return MPI_SUCCESS;
}

int MPID_Type_commit_hook(MPIR_Datatype * type)
{
    return MPI_SUCCESS;
}

int MPID_Type_free_hook(MPIR_Datatype * type)
{
    return MPI_SUCCESS;
}

int MPID_Op_commit_hook(MPIR_Op * op)
{
    return MPI_SUCCESS;
}

int MPID_Op_free_hook(MPIR_Op * op)
{
    return MPI_SUCCESS;
}
