/*
 * Bringing the engine up and down (mm_engine_init / mm_engine_finalize, which MPID_Init
 * and MPID_Finalize in mm_device.c call), the device's CVARs, and MPID_Abort.
 */
#include "mpidimpl.h"
#include <unistd.h>

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

categories:
    - name        : MM
      description : cvars that control the mm (multi-method) device

cvars:
    - name        : MPIR_CVAR_MM_METHODS
      category    : MM
      type        : string
      default     : "self,shm,ib,tcp"
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        Comma-separated methods in the order the mm device tries them for each peer; a
        peer is bound to the first method that can reach it. Known methods: self, shm,
        ib, tcp. Methods this library was built without are skipped.

    - name        : MPIR_CVAR_MM_REPORT_METHODS
      category    : MM
      type        : boolean
      default     : false
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        If true, each process prints one line per peer it talks to, naming the method
        that carries the messages ("mm: rank 0 talks to rank 1 via shm").

    - name        : MPIR_CVAR_MM_SPIN_COUNT
      category    : MM
      type        : int
      default     : -1
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_LOCAL
      description : >-
        Idle polls of the progress engine a blocking wait makes before it starts yielding
        the core (or sleeping, where every method can wake it). -1 chooses: 200 when this
        node runs no more processes of the job than this process may use cores, 10 when it
        is oversubscribed, 1 beyond two processes per core, since spinning there only
        delays the peer we wait for.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

int mm_engine_init(int requested, int *provided)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FUNC_ENTER;

    mpi_errno = MPIR_pmi_init();
    MPIR_ERR_CHECK(mpi_errno);
    /* MPI_APPNUM: which command of an MPMD launch or MPI_Comm_spawn_multiple this is. */
    MPIR_Process.attrs.appnum = MPIR_Process.appnum;

    /* All engine state sits under MPICH's GLOBAL critical section, so every level works. */
    *provided = MPL_MIN(requested, MPICH_THREAD_LEVEL);

    MPIR_Comm_fns = &mm_comm_ops;
    mm_progress_init();
    mpi_errno = mm_reqid_init();
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = mm_vc_init();
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = mm_methods_init();
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = mm_vc_init_names();
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_engine_finalize(void)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_FUNC_ENTER;

    /* Every VC finishes its pending writes, then nobody tears down shared state (shm
     * segment, sockets) until every process has stopped sending. */
    mpi_errno = mm_vc_close_all();
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = MPIR_pmi_barrier();
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = mm_methods_finalize();
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = mm_vc_finalize();
    MPIR_ERR_CHECK(mpi_errno);
    mm_reqid_finalize();
    MPIR_pmi_finalize();

  fn_exit:
    MPIR_FUNC_EXIT;
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int MPID_Abort(MPIR_Comm * comm, int mpi_errno, int exit_code, const char *error_msg)
{
    char msg[MPI_MAX_ERROR_STRING];

    if (error_msg == NULL) {
        if (mpi_errno != MPI_SUCCESS)
            MPIR_Err_get_string(mpi_errno, msg, sizeof(msg), NULL);
        else
            snprintf(msg, sizeof(msg), "aborted by the application (exit code %d)", exit_code);
        error_msg = msg;
    }
    /* Hydra passes neither the message nor a usable exit code on from a PMI-1 abort, so
     * the reason is printed here or nowhere. */
    fflush(stdout);
    fprintf(stderr, "Abort(%d) on rank %d: %s\n", exit_code, MPIR_Process.rank, error_msg);
    fflush(stderr);
    /* The process manager forwards our stderr from a pipe, and on a PMI abort it kills
     * the job; a proxy that gets the abort before it has read the pipe drops the message
     * (seen: two processes aborting together, no line from either, about 1 run in 8).
     * A tenth of a second for the line to be read costs nothing next to an abort. */
    usleep(100000);
    /* The process manager kills the whole job, whatever comm was: MPI allows that. */
    MPIR_pmi_abort(exit_code, error_msg);
    /* PMI abort does not return; if the process manager is gone, still stop. */
    exit(exit_code);
    return MPI_ERR_INTERN;
}
