/*
 * spin_ring: pass messages around a ring until killed. peer_death.sh starts it, kills one
 * rank with SIGKILL, and checks that the job ends (non-zero) instead of hanging. Each rank
 * writes its pid to DIR/pid.RANK (DIR = argv[1]) once the ring is running.
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, token = 0;
    char path[4096];
    FILE *f;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (long i = 0;; i++) {
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        char big[100000];
        MPI_Sendrecv(&token, 1, MPI_INT, next, 0, &token, 1, MPI_INT, prev, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv_replace(big, sizeof(big), MPI_CHAR, next, 1, prev, 1, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
        if (i == 100) {
            snprintf(path, sizeof(path), "%s/pid.%d", argv[1], rank);
            f = fopen(path, "w");
            fprintf(f, "%d\n", (int) getpid());
            fclose(f);
        }
    }
    MPI_Finalize();     /* not reached */
    return 0;
}
