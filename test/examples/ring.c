/*
 * ring: pass a token around all processes for LAPS laps. Rank 0 starts with
 * 0; every rank adds 1 each time the token passes through it, so after LAPS
 * laps over N processes the token is LAPS * N. Rank 0 prints the result and
 * the program exits 1 if it is wrong.
 */
#include <mpi.h>
#include <stdio.h>

#define LAPS 3
#define TAG 7

int main(int argc, char **argv)
{
    int rank, size, next, prev, lap, token = 0, ok = 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    next = (rank + 1) % size;
    prev = (rank + size - 1) % size;

    for (lap = 0; lap < LAPS; lap++) {
        if (rank == 0) {
            /* nonblocking send so that a ring of one process does not depend on buffering */
            MPI_Request req;
            int out = token + 1;
            MPI_Isend(&out, 1, MPI_INT, next, TAG, MPI_COMM_WORLD, &req);
            MPI_Recv(&token, 1, MPI_INT, prev, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&token, 1, MPI_INT, prev, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token++;
            MPI_Send(&token, 1, MPI_INT, next, TAG, MPI_COMM_WORLD);
        }
    }

    if (rank == 0) {
        printf("ring: token made %d laps over %d processes, final value %d\n", LAPS, size, token);
        if (token != LAPS * size) {
            printf("ring: wrong final value, expected %d\n", LAPS * size);
            ok = 0;
        }
        fflush(stdout);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return ok ? 0 : 1;
}
