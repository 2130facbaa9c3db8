/*
 * coll/: single-copy reads for the device's collectives (mm_coll.h). A collective that
 * moves its data by reads registers its buffers with the methods (mem_register), swaps the
 * rendezvous data with small messages, and reads what it needs with these; the methods do
 * the copy (process_vm_readv on shm, an RDMA read on ib).
 */
#include "mpidimpl.h"
#include "mm_coll.h"

static int read_done(mm_car_t * car)
{
    mm_coll_read_t *rd = (mm_coll_read_t *) ((char *) car - offsetof(mm_coll_read_t, car));

    (*rd->pending)--;
    return MPI_SUCCESS;
}

int mm_coll_read_start(mm_coll_read_t * rd, mm_vc_t * vc, int *pending, const void *rndv,
                       size_t rndv_len, void *dst, size_t len, int *refused)
{
    int mpi_errno;

    *refused = 0;
    memset(&rd->car, 0, sizeof(rd->car));
    rd->pending = pending;
    rd->car.kind = MM_CAR_DATA;
    rd->car.dir = MM_CAR_READ;
    rd->car.vc = vc;
    rd->car.done = read_done;
    mm_buf_init_contig(&rd->car.buf, dst, len);
    (*pending)++;
    mpi_errno = vc->method->get(&rd->car, rndv, rndv_len, refused);
    if (mpi_errno || *refused)
        (*pending)--;
    return mpi_errno;
}

int mm_coll_read_wait(int *pending)
{
    int mpi_errno = MPI_SUCCESS;
    MPID_Progress_state state;

    if (*pending == 0)
        return MPI_SUCCESS;
    MPID_Progress_start(&state);
    while (*pending > 0 && mpi_errno == MPI_SUCCESS)
        mpi_errno = MPID_Progress_wait(&state);
    MPID_Progress_end(&state);
    return mpi_errno;
}

int mm_coll_one_node(MPIR_Comm * comm)
{
    int node = -1;

    for (int i = 0; i < comm->local_size; i++) {
        int lpid = comm->dev.lpids[i];

        if (lpid >= MPIR_Process.size)
            return 0;
        if (i == 0)
            node = MPIR_Process.node_map[lpid];
        else if (MPIR_Process.node_map[lpid] != node)
            return 0;
    }
    return 1;
}
