/*
 * CARs: communication agent requests, the unit of work the engine hands to a method.
 *
 * A message is a chain of CARs on one VC: a HEAD CAR (the envelope, an mm_pkt_t) followed,
 * when the message has payload, by one DATA CAR (the bytes). Each CAR is either a WRITE
 * (bytes leave this process) or a READ (bytes arrive). The owning request counts its
 * outstanding CARs in its completion counter; a method reports a finished CAR with
 * mm_cq_complete() and never looks at the request itself.
 *
 * Methods only ever see a DATA CAR's buffer as an iovec cursor (mm_buf_t): the engine has
 * already turned contiguous user buffers, packed staging buffers and (later) datatype iovecs
 * into that one shape, so no method handles another's buffer kinds.
 */
#ifndef MM_CAR_H_INCLUDED
#define MM_CAR_H_INCLUDED

#include <stddef.h>
#include <sys/uio.h>
#include "mm_pkt.h"

struct MPIR_Request;
struct mm_vc;

#define MM_BUF_INLINE_IOV 2

/* An iovec cursor: where the next byte goes to (READ) or comes from (WRITE). */
typedef struct mm_buf {
    struct iovec *iov;          /* points at inline_iov unless the engine built a longer list */
    int iov_count;
    int iov_idx;                /* current entry */
    size_t iov_off;             /* bytes of iov[iov_idx] already done */
    size_t len;                 /* total bytes described */
    size_t done;                /* bytes moved so far */
    /* The method's registration of these bytes (mm_method.h, mem_register), while a peer
     * may read them with get(); NULL otherwise. */
    void *mem;
    struct iovec inline_iov[MM_BUF_INLINE_IOV];
} mm_buf_t;

typedef enum mm_car_kind {
    MM_CAR_HEAD,
    MM_CAR_DATA
} mm_car_kind_t;

typedef enum mm_car_dir {
    MM_CAR_WRITE,
    MM_CAR_READ
} mm_car_dir_t;

/* CAR flags */
#define MM_CAR_FLAG_FREE 0x1    /* allocated by mm_car_alloc: free it once complete */

struct mm_car;
/* What finishes a CAR whose completion is not the plain rule (count one unit of its
 * request): a subsystem above the engine sets it (rma/ for its packets' CARs), and so do
 * the engine's steps that continue a protocol (the rendezvous data of an RTS, a payload
 * read with get); the completion queue calls it instead of its own rules (mm_cq.c). */
typedef int (*mm_car_done_fn) (struct mm_car * car);

/* The fields a request's embedded CARs must start out with (zero) come first, so that
 * resetting them at request creation writes one or two cache lines per CAR (48 bytes,
 * wherever they fall), not three. */
typedef struct mm_car {
    unsigned flags;
    struct MPIR_Request *req;   /* owner whose completion counter this CAR holds; may be NULL */
    struct mm_vc *vc;
    struct mm_car *next;        /* next CAR of the same message (HEAD -> DATA) */
    struct mm_car *qnext;       /* link in a method's queue */
    mm_car_done_fn done;        /* see mm_car_done_fn; else NULL */
    mm_car_kind_t kind;
    mm_car_dir_t dir;
    mm_pkt_t pkt;               /* HEAD CARs: the envelope */
    mm_buf_t buf;               /* DATA CARs: the bytes */
} mm_car_t;

static inline void mm_buf_init_contig(mm_buf_t * b, void *ptr, size_t len)
{
    b->iov = b->inline_iov;
    b->inline_iov[0].iov_base = ptr;
    b->inline_iov[0].iov_len = len;
    b->iov_count = 1;
    b->iov_idx = 0;
    b->iov_off = 0;
    b->len = len;
    b->done = 0;
    b->mem = NULL;
}

static inline size_t mm_buf_remaining(const mm_buf_t * b)
{
    return b->len - b->done;
}

/* Copy up to len bytes between the cursor and a flat region, advancing the cursor.
 * to_buf != 0 moves src -> cursor (READ side); otherwise cursor -> dst (WRITE side). */
size_t mm_buf_copy(mm_buf_t * b, void *flat, size_t len, int to_buf);
/* Move up to len bytes from cursor src to cursor dst; returns the bytes moved. */
size_t mm_buf_transfer(mm_buf_t * dst, mm_buf_t * src, size_t len);

mm_car_t *mm_car_alloc(void);
void mm_car_free(mm_car_t * car);

#endif /* MM_CAR_H_INCLUDED */
