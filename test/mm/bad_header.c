/*
 * bad_header: rank 0 runs with corrupt_send.so preloaded, so the first packet it sends to
 * rank 1 over tcp has version 99. Rank 1, with MPI_ERRORS_RETURN, must get an error from
 * its receive whose class is MPI_ERR_OTHER and whose message names process 0, and must go
 * on to finalize normally. Rank 1 reports; no collective runs, since that pair is broken.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, value = 42, errors = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        MPI_Send(&value, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
    } else if (rank == 1) {
        char msg[MPI_MAX_ERROR_STRING];
        int rc, cls = -1, len = 0;

        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        rc = MPI_Recv(&value, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        msg[0] = '\0';
        if (rc != MPI_SUCCESS) {
            MPI_Error_class(rc, &cls);
            MPI_Error_string(rc, msg, &len);
        }
        printf("receive returned %d (class %d): %s\n", rc, cls, msg);
        if (rc == MPI_SUCCESS) {
            printf("the malformed packet was accepted\n");
            errors++;
        } else {
            if (cls != MPI_ERR_OTHER) {
                printf("error class %d, expected MPI_ERR_OTHER\n", cls);
                errors++;
            }
            if (strstr(msg, "from process 0") == NULL) {
                printf("the message does not name process 0\n");
                errors++;
            }
        }
        printf(errors ? " Found %d errors\n" : " No Errors\n", errors);
    }
    fflush(stdout);
    MPI_Finalize();
    return errors ? 1 : 0;
}
