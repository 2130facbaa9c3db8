/*
 * xfer blocks: how every transfer is built (the design note's xfer API).
 *
 *   xfer_init(tag, comm, ...)   a block: one request that completes when all its ops have
 *   xfer_*_op(req, ...)         what the block does, in priority order
 *   xfer_start(req)             turn the ops into CARs and post them
 *
 * Two kinds of block:
 *  - a message (kind MPIR_REQUEST_KIND__SEND or __RECV): one send or recv op of a whole
 *    buffer. MPID_Isend is xfer_init + xfer_send_op + xfer_start, MPID_Irecv the same with
 *    recv_op; the request is the message's own (src/mm_msg.c).
 *  - a graph (kind MPIR_REQUEST_KIND__COLL): any number of ops on byte ranges, chunked and
 *    pipelined (src/mm_xfer_graph.c). Its ops move streams: the bytes [first, last) of a
 *    buffer's packed form, between this process and one peer, as messages of the block's
 *    tag on its communicator (context offset as given), MM_XFER_CHUNK bytes each (the last
 *    shorter). A stream's sender and receiver name ranges of the same length; the chunking
 *    depends on the length alone, so a forwarding process passes chunks on as they come.
 *
 * The ops of a graph (buf, count, datatype: a buffer; first, last: bytes of its packed
 * form, last == XFER_END for its end):
 *   send            send [first, last) to dest
 *   recv            receive [first, last) from src
 *   recv_mop        receive from src and combine into the buffer: buf = in op buf,
 *                   element by element (an MPI_Op, as MPI_Reduce_local)
 *   recv_forward    receive from src into the buffer and pass each chunk on to dest as it
 *                   arrives
 *   recv_mop_forward  recv_mop, then pass each combined chunk on to dest
 *   forward         pass size bytes from src on to dest, holding only chunks in flight
 *   replicate       the stream of the receive op before it goes to dest too (one
 *                   incoming stream to several destinations)
 * A block has at most one stream per direction and peer (an op that would add a second
 * fails with MPI_ERR_ARG): chunks of a forwarded stream leave in order as they arrive,
 * and two streams to one peer would interleave in an order the peer cannot know.
 * Priority: ops are started in the order issued (an earlier op's chunks are posted
 * first), then move side by side. The receives of an op are posted at start (a few at a
 * time where they need staging memory), and a forwarded chunk goes on as soon as it and
 * the chunks before it are in, so no op waits for another's completion and blocks that
 * forward to each other in a cycle cannot deadlock.
 */
#ifndef MM_XFER_H_INCLUDED
#define MM_XFER_H_INCLUDED

/* xfer_send_op flags */
#define XFER_SEND_SYNC 0x1      /* synchronous mode: complete once the receiver matched */

/* last == XFER_END: to the end of the buffer */
#define XFER_END ((MPI_Aint) -1)

int xfer_init(int tag, MPIR_Comm * comm, int context_offset, MPIR_Request_kind_t kind,
              MPIR_Request ** req_out);
int xfer_send_op(MPIR_Request * req, const void *buf, MPI_Aint count, MPI_Datatype datatype,
                 MPI_Aint first, MPI_Aint last, int dest, unsigned flags);
int xfer_recv_op(MPIR_Request * req, void *buf, MPI_Aint count, MPI_Datatype datatype,
                 MPI_Aint first, MPI_Aint last, int src);
int xfer_recv_mop_op(MPIR_Request * req, void *buf, MPI_Aint count, MPI_Datatype datatype,
                     MPI_Aint first, MPI_Aint last, MPI_Op op, int src);
int xfer_recv_forward_op(MPIR_Request * req, void *buf, MPI_Aint count,
                         MPI_Datatype datatype, MPI_Aint first, MPI_Aint last, int src,
                         int dest);
int xfer_recv_mop_forward_op(MPIR_Request * req, void *buf, MPI_Aint count,
                             MPI_Datatype datatype, MPI_Aint first, MPI_Aint last, MPI_Op op,
                             int src, int dest);
int xfer_forward_op(MPIR_Request * req, MPI_Aint size, int src, int dest);
int xfer_replicate_op(MPIR_Request * req, int dest);
int xfer_start(MPIR_Request * req);

/* --- message blocks (mm_msg.c): what the xfer calls above do for a block of kind SEND or
 * RECV, and what a graph block sends each chunk as --- */
int mm_msg_init(int tag, MPIR_Comm * comm, int context_offset, MPIR_Request_kind_t kind,
                MPIR_Request ** req_out);
int mm_msg_send(MPIR_Request * req, const void *buf, MPI_Aint count, MPI_Datatype datatype,
                int dest, unsigned flags);
void mm_msg_recv(MPIR_Request * req, void *buf, MPI_Aint count, MPI_Datatype datatype,
                 int src);
int mm_msg_start(MPIR_Request * req);

/* --- graphs (mm_xfer_graph.c); the xfer_*_op calls above route a graph's ops here --- */
typedef enum {
    XFER_OP_SEND,
    XFER_OP_RECV,
    XFER_OP_RECV_MOP,
    XFER_OP_RECV_FORWARD,
    XFER_OP_RECV_MOP_FORWARD,
    XFER_OP_FORWARD
} xfer_op_kind_t;

typedef struct xfer_op_args {
    xfer_op_kind_t kind;
    void *buf;                  /* NULL for forward */
    MPI_Aint count;
    MPI_Datatype datatype;
    MPI_Aint first, last;       /* forward: 0, size */
    MPI_Op op;                  /* the mop ops */
    int src;                    /* receiving ops */
    int dest;                   /* send, the forwarding ops */
} xfer_op_args_t;

/* The chunk every stream is cut into: a multiple of every predefined type's size (480
 * divides by 1, 2, 4, 6, 8, 12, 16, 20, 24, 32, 40, 48), so a chunk of a reduction never
 * splits an element. A graph's chunk is MPIR_CVAR_MM_XFER_CHUNK (or what
 * mm_xfer_graph_set_chunk says), rounded down to a multiple of it. */
#define MM_XFER_CHUNK_UNIT 480

int mm_xfer_graph_init(MPIR_Request * req, int tag, int context_offset);
/* The chunk size of req's streams, instead of MPIR_CVAR_MM_XFER_CHUNK: before any op is
 * added, and the same at both ends of every stream (rounded down like the CVAR). The
 * device's own pipelines choose it from what the links are. */
void mm_xfer_graph_set_chunk(MPIR_Request * req, MPI_Aint bytes);
int mm_xfer_graph_add(MPIR_Request * req, const xfer_op_args_t * a);
int mm_xfer_graph_replicate(MPIR_Request * req, int dest);
int mm_xfer_graph_start(MPIR_Request * req);
/* Is req a graph that has not started yet (ops may still be added)? */
int mm_xfer_graph_open(MPIR_Request * req);

#endif /* MM_XFER_H_INCLUDED */
