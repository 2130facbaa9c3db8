/*
 * spin_ring: keep the job busy until one rank dies. peer_death.sh starts it and either kills
 * rank 1 with SIGKILL or lets rank 1 leave by itself (_exit(0), no MPI_Finalize), then checks
 * that the job ends, with an error, instead of hanging.
 *
 *   spin_ring DIR [ring|rma|coll] [exit]
 *
 * ring: messages around a ring (an eager token and a 100 KB rendezvous message);
 * rma:  passive-target epochs, each rank locking its right neighbour, putting and
 *       accumulating, unlocking — so a rank that dies holds or awaits a lock;
 * coll: 64 KiB allreduces and a barrier.
 * Each rank writes its pid to DIR/pid.RANK once the loop runs. With "exit", rank 1 calls
 * _exit(0) once the script has created DIR/go, in the middle of an epoch (rma: between lock
 * and unlock) or between two collectives: to mpiexec, a process that ended "normally".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>

#define BIG 100000

/* A survivor that gets an error says so and leaves with status 3: peer_death.sh looks for
 * this line to tell "the peers got an error" from "mpiexec killed them". */
#define TRY(call) do { int err_ = (call); if (err_ != MPI_SUCCESS) fail(rank, #call, err_); } while (0)

static void fail(int rank, const char *call, int err)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    MPI_Error_string(err, msg, &len);
    printf("spin_ring rank %d: error in %s: %s\n", rank, call, msg);
    fflush(stdout);
    _exit(3);
}
#define COLL_N (64 * 1024 / sizeof(double))

/* Whether peer_death.sh has seen every pid file and created DIR/go: rank 1 leaves only
 * then, so the script always sees a running job first and times the end from the moment
 * it allowed the exit. */
static int go_given(const char *dir)
{
    char path[4096];

    snprintf(path, sizeof(path), "%s/go", dir);
    return access(path, F_OK) == 0;
}

static void write_pid(const char *dir, int rank)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/pid.%d", dir, rank);
    f = fopen(path, "w");
    fprintf(f, "%d\n", (int) getpid());
    fclose(f);
}

int main(int argc, char **argv)
{
    int rank, size, token = 0, leave;
    const char *mode = argc > 2 ? argv[2] : "ring";
    static char big[BIG];
    static double in[COLL_N], out[COLL_N];
    long *base = NULL;
    MPI_Win win = MPI_WIN_NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (getenv("SPIN_IGNORE_USR1"))
        signal(SIGUSR1, SIG_IGN);
    leave = argc > 3 && strcmp(argv[3], "exit") == 0 && rank == 1;
    if (strcmp(mode, "rma") == 0) {
        TRY(MPI_Win_allocate(1024 * sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                             &base, &win));
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    }
    for (long i = 0;; i++) {
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;

        if (strcmp(mode, "rma") == 0) {
            long one = 1, v[64] = { 0 };

            TRY(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, 0, win));
            TRY(MPI_Put(v, 64, MPI_LONG, next, 64, 64, MPI_LONG, win));
            TRY(MPI_Accumulate(&one, 1, MPI_LONG, next, 0, 1, MPI_LONG, MPI_SUM, win));
            if (leave && i > 100 && go_given(argv[1]))
                _exit(0);       /* holding the lock on rank 2 */
            TRY(MPI_Win_unlock(next, win));
        } else if (strcmp(mode, "coll") == 0) {
            TRY(MPI_Allreduce(in, out, COLL_N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
            if (leave && i > 100 && go_given(argv[1]))
                _exit(0);
            TRY(MPI_Barrier(MPI_COMM_WORLD));
        } else {
            TRY(MPI_Sendrecv(&token, 1, MPI_INT, next, 0, &token, 1, MPI_INT, prev, 0,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            if (leave && i > 100 && go_given(argv[1]))
                _exit(0);
            TRY(MPI_Sendrecv_replace(big, sizeof(big), MPI_CHAR, next, 1, prev, 1,
                                     MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        if (i == 100)
            write_pid(argv[1], rank);
    }
    MPI_Finalize();     /* not reached */
    return 0;
}
