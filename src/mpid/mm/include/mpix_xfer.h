/*
 * mpix_xfer.h: the mm device's xfer blocks as MPI extensions (installed with MPICH when it
 * is built with --with-device=mm).
 *
 * An xfer block is a set of transfers started together and completed together, as one
 * request. Its ops move streams: bytes [first, last) of a buffer's packed form (count
 * elements of datatype; last == MPIX_XFER_END for the end of the buffer), between this
 * process and one peer, as messages of the block's tag on its communicator. The device
 * cuts each stream into chunks (MPIR_CVAR_MM_XFER_CHUNK bytes; the same value in every
 * process) and pipelines them: a process that passes a stream on (recv_forward, forward,
 * replicate) sends each chunk as soon as it has arrived. The two ends of a stream name
 * ranges of the same length; a block's messages are ordinary messages of (comm, tag), so
 * a program must not receive them with other calls.
 *
 *   MPI_Request x;
 *   MPIX_Xfer_init(comm, tag, &x);
 *   MPIX_Xfer_recv_forward(x, buf, n, MPI_DOUBLE, 0, MPIX_XFER_END, left, right);
 *   MPIX_Xfer_start(x);
 *   MPI_Wait(&x, &status);     (the status count: bytes the block received)
 *
 * Ops (started in the order issued, then moving side by side):
 *   send              send the range to dest
 *   recv              receive the range from src
 *   recv_mop          receive from src and combine into the buffer, buf = in op buf, as
 *                     MPI_Reduce_local (datatype made of one predefined type the op
 *                     is defined on; the range holds whole elements)
 *   recv_forward      receive from src, and pass each chunk on to dest as it arrives
 *   recv_mop_forward  recv_mop, then pass each combined chunk on to dest
 *   forward           pass size bytes from src on to dest without a user buffer
 *   replicate         the stream of the receiving op just before it goes to dest too
 * A block has at most one stream from and one to each peer (a second fails with
 * MPI_ERR_ARG). dest or src may be MPI_PROC_NULL (the op then does nothing to or from it); MPI_ANY_SOURCE
 * is not allowed. A block must be started before it is waited on; once started, no ops may
 * be added.
 */
#ifndef MPIX_XFER_H_INCLUDED
#define MPIX_XFER_H_INCLUDED

#include <mpi.h>

#if defined(__cplusplus)
extern "C" {
#endif

#define MPIX_XFER_END ((MPI_Count) -1)

#ifndef MPICH_API_PUBLIC
#define MPICH_API_PUBLIC
#endif

int MPIX_Xfer_init(MPI_Comm comm, int tag, MPI_Request * block) MPICH_API_PUBLIC;
int MPIX_Xfer_send(MPI_Request block, const void *buf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Count first, MPI_Count last, int dest) MPICH_API_PUBLIC;
int MPIX_Xfer_recv(MPI_Request block, void *buf, MPI_Count count, MPI_Datatype datatype,
                   MPI_Count first, MPI_Count last, int src) MPICH_API_PUBLIC;
int MPIX_Xfer_recv_mop(MPI_Request block, void *buf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Count first, MPI_Count last, MPI_Op op, int src) MPICH_API_PUBLIC;
int MPIX_Xfer_recv_forward(MPI_Request block, void *buf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Count first, MPI_Count last, int src,
                           int dest) MPICH_API_PUBLIC;
int MPIX_Xfer_recv_mop_forward(MPI_Request block, void *buf, MPI_Count count,
                               MPI_Datatype datatype, MPI_Count first, MPI_Count last,
                               MPI_Op op, int src, int dest) MPICH_API_PUBLIC;
int MPIX_Xfer_forward(MPI_Request block, MPI_Count size, int src, int dest) MPICH_API_PUBLIC;
int MPIX_Xfer_replicate(MPI_Request block, int dest) MPICH_API_PUBLIC;
int MPIX_Xfer_start(MPI_Request block) MPICH_API_PUBLIC;

#if defined(__cplusplus)
}
#endif

#endif /* MPIX_XFER_H_INCLUDED */
