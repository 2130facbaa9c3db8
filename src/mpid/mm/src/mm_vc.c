/*
 * The VC table: one virtual connection per peer process, bound to a method on first use.
 */
#include "mpidimpl.h"

mm_vc_t *mm_vc_table;
int mm_vc_table_size;

int mm_vc_init(void)
{
    int mpi_errno = MPI_SUCCESS;

    mm_vc_table_size = MPIR_Process.size;
    mm_vc_table = MPL_calloc(mm_vc_table_size, sizeof(mm_vc_t), MPL_MEM_ADDRESS);
    MPIR_ERR_CHKANDJUMP1(mm_vc_table == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem",
                         "**nomem %s", "mm VC table");
    for (int i = 0; i < mm_vc_table_size; i++) {
        mm_vc_t *vc = &mm_vc_table[i];
        vc->lpid = i;
        vc->state = MM_VC_STATE_UNBOUND;
        vc->rhead.kind = MM_CAR_HEAD;
        vc->rhead.dir = MM_CAR_READ;
        vc->rhead.vc = vc;
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_vc_get(int lpid, mm_vc_t ** vc_out)
{
    int mpi_errno = MPI_SUCCESS;
    mm_vc_t *vc;

    MPIR_Assert(lpid >= 0 && lpid < mm_vc_table_size);
    vc = &mm_vc_table[lpid];
    if (unlikely(vc->state == MM_VC_STATE_UNBOUND)) {
        mpi_errno = mm_methods_select(vc);
        MPIR_ERR_CHECK(mpi_errno);
    }
    *vc_out = vc;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Close every bound VC: each method finishes the writes still queued on it. The table
 * stays, because methods still deliver what peers send until they close too. */
int mm_vc_close_all(void)
{
    int mpi_errno = MPI_SUCCESS;

    for (int i = 0; i < mm_vc_table_size; i++) {
        mm_vc_t *vc = &mm_vc_table[i];
        if (vc->state == MM_VC_STATE_BOUND) {
            mpi_errno = vc->method->close(vc);
            MPIR_ERR_CHECK(mpi_errno);
            vc->state = MM_VC_STATE_CLOSED;
        }
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Release the table once every method is down. */
int mm_vc_finalize(void)
{
    MPL_free(mm_vc_table);
    mm_vc_table = NULL;
    mm_vc_table_size = 0;
    return MPI_SUCCESS;
}
