/*
 * xfer blocks: how every pt2pt operation is built.
 *
 *   xfer_init(...)            a block: one request that will complete when all its ops do
 *   xfer_send_op / recv_op    what the block does
 *   xfer_start(req)           turn the ops into CARs and post them
 *
 * MPID_Isend is xfer_init + xfer_send_op + xfer_start, MPID_Irecv the same with recv_op.
 * A block carries one op today; the design note's multi-op blocks (forward, replicate,
 * recv_mop for pipelined collectives) extend this interface and return **notimpl until
 * they exist.
 */
#ifndef MM_XFER_H_INCLUDED
#define MM_XFER_H_INCLUDED

/* xfer_send_op flags */
#define XFER_SEND_SYNC 0x1      /* synchronous mode: complete once the receiver matched */

int xfer_init(int tag, MPIR_Comm * comm, int context_offset, MPIR_Request_kind_t kind,
              MPIR_Request ** req_out);
int xfer_send_op(MPIR_Request * req, const void *buf, MPI_Aint count, MPI_Datatype datatype,
                 int dest, unsigned flags);
int xfer_recv_op(MPIR_Request * req, void *buf, MPI_Aint count, MPI_Datatype datatype,
                 int src);
int xfer_start(MPIR_Request * req);

#endif /* MM_XFER_H_INCLUDED */
