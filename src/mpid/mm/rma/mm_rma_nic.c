/*
 * mm device: windows whose 8-byte integer words are updated by a method's device (RDMA
 * atomics), so that MPI_Rmw, the accumulates and compare-and-swap on them complete at a
 * target whose CPU is busy elsewhere, or asleep.
 *
 * THE RULE. A device's atomics are atomic only with respect to each other (mm_method.h,
 * DEVICE ATOMICS): a CPU fetch_add and an HCA fetch-and-add racing on one word may lose an
 * update. So a window decides once, at creation and in every member alike, who updates
 * its words:
 *   - device (win->dev.nic set): every accumulate-family update of an aligned 8-byte
 *     integer element is done by the device, on every path: an origin's MPI_Rmw on a
 *     peer reached through the method goes to the peer's memory straight from here; every
 *     other path (the target applying operations that arrived as packets, an origin's own
 *     memory or a node-mate's mapped memory, the one-word fast path of MPI_Rmw) applies
 *     it through the device's loopback (mm_rma_atomic.c calls mm_rma_nic_elems first).
 *     Each member registers the memory it may touch for that: the node segment of an
 *     MPI_Win_allocate window it maps (its own part and its node-mates'), else its own.
 *   - CPU (nic NULL): everything as the header of mm_rma_atomic.c says.
 * Other element types and unaligned words never meet a device atomic, so they stay with
 * the CPU rule in both kinds of window: the two never touch the same word. MPI makes an
 * accumulate atomic only with respect to accumulates of the same basic type on the same
 * location, so nothing else needs to agree.
 *
 * WHAT NEEDS NO TARGET CPU. An origin's atomic on a word of a target it reaches through
 * the method (remote_word: not itself, not mapped) is one device atomic from here and
 * completes while the target computes or sleeps; so does one on a node-mate's mapped
 * MPI_Win_allocate memory (the origin's own loopback). The connections are opened at
 * window creation (preconnect), since accepting one takes the target's CPU. A node-mate
 * of an MPI_Win_create window has no connection to the target over the method (shm
 * carries the pair) and no mapping of its memory: its operations arrive as packets and
 * wait for the target's progress, as on any other window.
 *
 * WHICH WINDOWS. Device when MPIR_CVAR_MM_NIC_ATOMICS is on, the window is made by
 * MPI_Win_create or MPI_Win_allocate (dynamic windows attach memory later, shared ones
 * are all CPU-mapped anyway), some member pair talks over a method with device atomics
 * (MM_METHOD_CAP_ATOMIC) and that method lacks MM_METHOD_CAP_ATOMIC_CPU, and every member
 * could register its memory. The price: a bulk accumulate of 8-byte integers on such a
 * window is one device atomic per element (MPI_Win_create with the info key
 * mm_nic_atomics=false, or the CVAR, keeps a window on the CPU rule).
 */

#include "mm_rma.h"

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_MM_NIC_ATOMICS
      category    : MM
      type        : boolean
      default     : true
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        If true, a window (MPI_Win_create or MPI_Win_allocate) whose members talk over a
        method with network atomics (ib) has every atomic update of its aligned 8-byte
        integers done by the network device, so MPI_Rmw, MPI_Fetch_and_op and the
        accumulates on them need no CPU at the target; bulk accumulates of 8-byte integers
        on such windows then cost one device atomic per element. The window info key
        mm_nic_atomics (true/false) decides per window.

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

typedef struct mm_nic_peer {
    uint64_t base;              /* the member's window memory, in its own address space */
    uint64_t size;
    uint32_t disp_unit;
    uint32_t keylen;
    char key[MM_WIN_KEY_MAX];
} mm_nic_peer_t;

struct mm_win_nic {
    const mm_method_t *method;
    void *mem;                  /* our registration */
    char *lo, *hi;              /* what it covers, in our address space */
    mm_nic_peer_t *peers;       /* by window rank */
};

/* Open every connection over m between members now, while all of them are in the window's
 * creation. A method's connection is made lazily, and accepting one takes the target's CPU
 * (its progress engine answers the request): without this, an origin's first atomic to a
 * target it never talked to would wait for the target to enter MPI, which is what these
 * windows promise not to do. An empty message each way per pair: when a member has
 * received one from each peer, the connection exists on both ends (the kernel completes
 * the handshake), and what remains (the established event) its own progress handles. The
 * price is a connection per pair of members that talk over m, made at window creation. The
 * tag is in the communicator's collective context, where nothing else is in flight while
 * the members create a window; each pair exchanges one message, matched by source. */
static int preconnect(MPIR_Comm * comm, const mm_method_t * m)
{
    int mpi_errno = MPI_SUCCESS, n = 0;
    MPIR_Errflag_t errflag = MPIR_ERR_NONE;
    MPIR_Request **reqs = MPL_malloc(sizeof(*reqs) * 2 * (size_t) comm->local_size,
                                     MPL_MEM_RMA);

    MPIR_ERR_CHKANDJUMP1(reqs == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "window connections");
    for (int r = 0; r < comm->local_size; r++) {
        mm_vc_t *vc;

        if (r == comm->rank)
            continue;
        mpi_errno = mm_vc_get(mm_comm_lpid(comm, r), &vc);
        MPIR_ERR_CHECK(mpi_errno);
        if (vc->method != m)
            continue;
        mpi_errno = MPIC_Irecv(NULL, 0, MPI_BYTE, r, MPIR_BARRIER_TAG, comm, &reqs[n]);
        MPIR_ERR_CHECK(mpi_errno);
        n++;
        mpi_errno = MPIC_Isend(NULL, 0, MPI_BYTE, r, MPIR_BARRIER_TAG, comm, &reqs[n],
                               &errflag);
        MPIR_ERR_CHECK(mpi_errno);
        n++;
    }
    mpi_errno = MPIC_Waitall(n, reqs, MPI_STATUSES_IGNORE, &errflag);
    MPIR_ERR_CHECK(mpi_errno);

  fn_exit:
    /* MPIC_Waitall releases the requests it completes */
    MPL_free(reqs);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_rma_nic_setup(MPIR_Win * win, int wanted)
{
    int mpi_errno = MPI_SUCCESS;
    MPIR_Errflag_t errflag = MPIR_ERR_NONE;
    MPIR_Comm *comm = win->comm_ptr;
    const mm_method_t *m = mm_methods_atomic();
    mm_win_nic_t *nic = NULL;
    mm_nic_peer_t me;
    int flags[2];               /* {this member can, no pair of this member uses m} */
    size_t keylen = 0;

    memset(&me, 0, sizeof(me));
    flags[0] = wanted && m != NULL && !(m->caps & MM_METHOD_CAP_ATOMIC_CPU) &&
        (win->create_flavor == MPI_WIN_FLAVOR_CREATE ||
         win->create_flavor == MPI_WIN_FLAVOR_ALLOCATE);
    flags[1] = 1;
    for (int r = 0; flags[0] && r < comm->local_size; r++) {
        mm_vc_t *vc;

        if (r == comm->rank)
            continue;
        mpi_errno = mm_vc_get(mm_comm_lpid(comm, r), &vc);
        MPIR_ERR_CHECK(mpi_errno);
        if (vc->method == m)
            flags[1] = 0;
    }
    if (flags[0]) {
        nic = MPL_calloc(1, sizeof(*nic), MPL_MEM_RMA);
        if (nic) {
            nic->method = m;
            nic->lo = win->dev.shm_seg ? win->dev.shm_seg : win->base;
            nic->hi = nic->lo + (win->dev.shm_seg ? win->dev.shm_len : (size_t) win->size);
            mpi_errno = m->win_register(nic->lo, nic->hi - nic->lo, &nic->mem, me.key,
                                        &keylen);
            MPIR_ERR_CHECK(mpi_errno);
        }
        flags[0] = nic && nic->mem;
    }
    mpi_errno = MPIR_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_LAND, comm, &errflag);
    MPIR_ERR_CHECK(mpi_errno);
    if (!flags[0] || flags[1])
        goto fn_fail;   /* not every member can, or nobody talks over m: the CPU rule */

    nic->peers = MPL_calloc(comm->local_size, sizeof(mm_nic_peer_t), MPL_MEM_RMA);
    flags[0] = nic->peers != NULL;
    mpi_errno = MPIR_Allreduce(MPI_IN_PLACE, flags, 1, MPI_INT, MPI_LAND, comm, &errflag);
    MPIR_ERR_CHECK(mpi_errno);
    if (!flags[0])
        goto fn_fail;
    me.base = (uintptr_t) win->base;
    me.size = (uint64_t) win->size;
    me.disp_unit = (uint32_t) win->disp_unit;
    me.keylen = (uint32_t) keylen;
    mpi_errno = MPIR_Allgather(&me, sizeof(me), MPI_BYTE, nic->peers, sizeof(me), MPI_BYTE,
                               comm, &errflag);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = preconnect(comm, nic->method);
    MPIR_ERR_CHECK(mpi_errno);
    win->dev.nic = nic;
    nic = NULL;

  fn_exit:
    return mpi_errno;
  fn_fail:
    if (nic) {
        if (nic->mem)
            nic->method->win_deregister(nic->mem);
        MPL_free(nic->peers);
        MPL_free(nic);
    }
    goto fn_exit;
}

void mm_rma_nic_free(MPIR_Win * win)
{
    mm_win_nic_t *nic = win->dev.nic;

    if (nic == NULL)
        return;
    nic->method->win_deregister(nic->mem);
    MPL_free(nic->peers);
    MPL_free(nic);
    win->dev.nic = NULL;
}

static int is_word_type(MPI_Datatype basic)
{
    int c = mm_rma_elem_class(basic);

    return c == MM_ELEM_SINT64 || c == MM_ELEM_UINT64;
}

int mm_rma_nic_elems(MPIR_Win * win, const struct iovec *iov, MPI_Aint niov,
                     MPI_Datatype basic)
{
    mm_win_nic_t *nic = win->dev.nic;

    if (nic == NULL || !is_word_type(basic))
        return 0;
    for (MPI_Aint i = 0; i < niov; i++) {
        const char *p = iov[i].iov_base;
        if (((uintptr_t) p & 7) || (iov[i].iov_len & 7) || p < nic->lo ||
            iov[i].iov_len > (size_t) (nic->hi - p))
            return 0;
    }
    return 1;
}

/* One device atomic on a word of memory we registered (our own, or a node-mate's that we
 * map). */
static int local_atomic(mm_win_nic_t * nic, int op, void *addr, uint64_t operand,
                        uint64_t compare, uint64_t * old)
{
    return nic->method->atomic(NULL, op, (uintptr_t) addr, NULL, 0, nic->mem, operand, compare,
                               old, NULL);
}

/* The word an update works on: memory we registered (vc NULL: addr is ours), or the
 * target's, reached through vc (addr is the target's address). */
typedef struct {
    MPIR_Win *win;
    mm_vc_t *vc;
    int target;
    uint64_t addr;
} nic_word_t;

static int word_update(const nic_word_t * w, mm_rma_nic_fn fn, const void *ctx,
                       uint64_t * old);

int mm_rma_nic_update(MPIR_Win * win, void *addr, mm_rma_nic_fn fn, const void *ctx,
                      uint64_t * old)
{
    nic_word_t w = { win, NULL, 0, (uintptr_t) addr };

    return word_update(&w, fn, ctx, old);
}

typedef struct {
    MPI_Op op;
    MPI_Datatype basic;
    uint64_t v;
} acc_ctx_t;

static uint64_t acc_new(uint64_t cur, const void *c)
{
    const acc_ctx_t *a = c;
    uint64_t v = a->v, x = cur;
    MPI_Aint one = 1;
    MPI_Datatype t = a->basic;

    if (a->op == MPI_REPLACE)
        return v;
    (*MPIR_OP_HDL_TO_FN(a->op)) (&v, &x, &one, &t);
    return x;
}

int mm_rma_nic_acc(MPIR_Win * win, const struct iovec *iov, MPI_Aint niov, const void *src,
                   MPI_Datatype basic, MPI_Op op, void *old)
{
    int mpi_errno = MPI_SUCCESS;
    const char *s = src;
    char *o = old;

    for (MPI_Aint i = 0; i < niov && mpi_errno == MPI_SUCCESS; i++) {
        for (size_t k = 0; k < iov[i].iov_len && mpi_errno == MPI_SUCCESS; k += 8) {
            char *p = (char *) iov[i].iov_base + k;
            acc_ctx_t c = {.op = op,.basic = basic,.v = 0 };
            uint64_t cur;

            if (s) {
                memcpy(&c.v, s, 8);
                s += 8;
            }
            if (op == MPI_SUM || op == MPI_NO_OP)
                mpi_errno = local_atomic(win->dev.nic, MM_ATOMIC_FADD, p,
                                         op == MPI_SUM ? c.v : 0, 0, &cur);
            else
                mpi_errno = mm_rma_nic_update(win, p, acc_new, &c, &cur);
            if (o) {
                memcpy(o, &cur, 8);
                o += 8;
            }
        }
    }
    return mpi_errno;
}

int mm_rma_nic_cas(MPIR_Win * win, void *addr, const void *newval, const void *compare,
                   void *old)
{
    uint64_t n, c, cur;
    int mpi_errno;

    memcpy(&n, newval, 8);
    memcpy(&c, compare, 8);
    mpi_errno = local_atomic(win->dev.nic, MM_ATOMIC_CSWAP, addr, n, c, &cur);
    memcpy(old, &cur, 8);
    return mpi_errno;
}

/* Completion of a remote device atomic this process waits for. */
static int remote_done(mm_car_t * car)
{
    car->flags = 1;
    return MPI_SUCCESS;
}

/* The address (in target's space) of the word byte_off bytes past displacement disp of
 * target's memory, if the target is reached through the device's method and the word is
 * aligned and inside its memory; else 0 (the caller takes another path: the general one
 * reports range errors, and an unaligned word is the CPU's in every member). */
static uint64_t remote_range(MPIR_Win * win, int target, MPI_Aint disp, uint64_t byte_off,
                             uint64_t len, mm_vc_t ** vc)
{
    mm_win_nic_t *nic = win->dev.nic;
    const mm_nic_peer_t *p;
    uint64_t off;

    if (nic == NULL || target == win->comm_ptr->rank || mm_rma_is_direct(win, target) ||
        mm_rma_vc(win, target, vc) != MPI_SUCCESS || (*vc)->method != nic->method)
        return 0;
    p = &nic->peers[target];
    if (disp < 0 || __builtin_mul_overflow((uint64_t) disp, (uint64_t) p->disp_unit, &off) ||
        __builtin_add_overflow(off, byte_off, &off) || off > p->size || p->size - off < len ||
        p->base + off == 0)
        return 0;
    return p->base + off;
}

static uint64_t remote_word(MPIR_Win * win, int target, MPI_Aint disp, uint64_t byte_off,
                            mm_vc_t ** vc)
{
    uint64_t addr = remote_range(win, target, disp, byte_off, 8, vc);

    return (addr & 7) ? 0 : addr;
}

/* One device atomic on the target's word at raddr, waiting for its answer. */
static int remote_atomic(MPIR_Win * win, mm_vc_t * vc, int target, uint64_t raddr, int op,
                         uint64_t operand, uint64_t compare, uint64_t * old)
{
    mm_win_nic_t *nic = win->dev.nic;
    const mm_nic_peer_t *p = &nic->peers[target];
    mm_car_t car;
    int mpi_errno;

    memset(&car, 0, sizeof(car));
    car.vc = vc;
    car.done = remote_done;
    mpi_errno = nic->method->atomic(vc, op, raddr, p->key, p->keylen, NULL, operand, compare,
                                    old, &car);
    while (mpi_errno == MPI_SUCCESS && car.flags == 0)
        mpi_errno = MPID_Progress_test(NULL);
    return mpi_errno;
}

static int word_atomic(const nic_word_t * w, int op, uint64_t operand, uint64_t compare,
                       uint64_t * old)
{
    if (w->vc == NULL)
        return local_atomic(w->win->dev.nic, op, (void *) (uintptr_t) w->addr, operand,
                            compare, old);
    return remote_atomic(w->win, w->vc, w->target, w->addr, op, operand, compare, old);
}

/* Replace the word by fn(its value, ctx): a read (a fetch-and-add of 0), then compare-
 * and-swaps until one lands. The device's atomics are the only ones on the word, so the
 * loop is atomic with every other update of it. */
static int word_update(const nic_word_t * w, mm_rma_nic_fn fn, const void *ctx,
                       uint64_t * old)
{
    uint64_t cur, want, seen;
    int mpi_errno = word_atomic(w, MM_ATOMIC_FADD, 0, 0, &cur);

    while (mpi_errno == MPI_SUCCESS) {
        want = fn(cur, ctx);
        if (want == cur)
            break;      /* nothing to write: the read was the atomic */
        mpi_errno = word_atomic(w, MM_ATOMIC_CSWAP, want, cur, &seen);
        if (mpi_errno || seen == cur)
            break;
        cur = seen;
    }
    *old = cur;
    return mpi_errno;
}

/* Replace the target's word by fn(its value, ctx), remotely. */
static int remote_update(MPIR_Win * win, mm_vc_t * vc, int target, uint64_t raddr,
                         mm_rma_nic_fn fn, const void *ctx, uint64_t * old)
{
    nic_word_t w = { win, vc, target, raddr };

    return word_update(&w, fn, ctx, old);
}

int mm_rma_nic_remote(MPIR_Win * win, int target, MPI_Aint disp, int op, uint64_t operand,
                      uint64_t compare, uint64_t * old, int *done)
{
    mm_vc_t *vc;
    uint64_t raddr = remote_word(win, target, disp, 0, &vc);

    *done = raddr != 0;
    return raddr ? remote_atomic(win, vc, target, raddr, op, operand, compare, old) :
        MPI_SUCCESS;
}

int mm_rma_nic_remote_update(MPIR_Win * win, int target, MPI_Aint disp, mm_rma_nic_fn fn,
                             const void *ctx, uint64_t * old, int *done)
{
    mm_vc_t *vc;
    uint64_t raddr = remote_word(win, target, disp, 0, &vc);

    *done = raddr != 0;
    return raddr ? remote_update(win, vc, target, raddr, fn, ctx, old) : MPI_SUCCESS;
}

/* Largest accumulate, in elements, done element by element from the origin. */
#define MM_NIC_ISSUE_MAX 8

int mm_rma_nic_issue(MPIR_Win * win, const mm_rma_args_t * a, MPI_Datatype basic, int *done)
{
    int mpi_errno = MPI_SUCCESS;
    const char *src = a->origin, *cmp = a->compare;
    char *res = a->result;
    mm_vc_t *vc;
    int with_data = a->op == MM_RMA_CAS || (a->acc_op != MPI_NO_OP && a->op == MM_RMA_ACC) ||
        (a->op == MM_RMA_GET_ACC && a->acc_op != MPI_NO_OP);

    *done = 0;
    if (win->dev.nic == NULL || !is_word_type(basic) || a->ttype != basic ||
        (a->op != MM_RMA_ACC && a->op != MM_RMA_GET_ACC && a->op != MM_RMA_CAS) ||
        a->tcount < 1 || a->tcount > (a->op == MM_RMA_CAS ? 1 : MM_NIC_ISSUE_MAX) ||
        (with_data && (a->otype != basic || a->ocount != a->tcount)) ||
        (a->op != MM_RMA_ACC && (a->rtype != basic || a->rcount < a->tcount)) ||
        remote_word(win, a->target, a->tdisp, 8 * (a->tcount - 1), &vc) == 0)
        return MPI_SUCCESS;
    /* Accumulates from one origin to one target are applied in order: what went before
     * as packets must be applied before these overtake it. */
    if (win->dev.peers[a->target].pending > 0 && win->dev.info_acc_ordering) {
        mpi_errno = mm_rma_flush_wait(win, a->target);
        if (mpi_errno)
            return mpi_errno;
    }
    for (MPI_Aint i = 0; i < a->tcount && mpi_errno == MPI_SUCCESS; i++) {
        uint64_t raddr = remote_word(win, a->target, a->tdisp, 8 * i, &vc), v = 0, c, old;

        if (with_data)
            memcpy(&v, src + 8 * i, 8);
        if (a->op == MM_RMA_CAS) {
            memcpy(&c, cmp, 8);
            mpi_errno = remote_atomic(win, vc, a->target, raddr, MM_ATOMIC_CSWAP, v, c, &old);
        } else if (a->acc_op == MPI_SUM || a->acc_op == MPI_NO_OP) {
            mpi_errno = remote_atomic(win, vc, a->target, raddr, MM_ATOMIC_FADD, v, 0, &old);
        } else {
            acc_ctx_t ctx = {.op = a->acc_op,.basic = basic,.v = v };
            mpi_errno = remote_update(win, vc, a->target, raddr, acc_new, &ctx, &old);
        }
        if (a->op != MM_RMA_ACC)
            memcpy(res + 8 * i, &old, 8);
    }
    *done = 1;
    return mpi_errno;
}

/* A put or get as one RDMA transfer. Completion is the one rule of RMA (mm_rma_ops.c): the
 * operation counts as pending at its target until the device reports it done, which for
 * a write on a reliable connection means the target's memory holds the data; flush,
 * unlock, complete and fence wait for that as for an answer. The transfer needs no
 * ordering with the operations that went as packets: MPI orders only accumulates, and
 * puts and gets never take the accumulate paths. */
typedef struct nic_rdma {
    mm_car_t car;               /* first: the completion queue hands this back */
    MPIR_Win *win;
    int target;
    MPIR_Request *req;
} nic_rdma_t;

static int rdma_done(mm_car_t * car)
{
    nic_rdma_t *op = (nic_rdma_t *) car;
    int mpi_errno = mm_rma_op_finish(op->win, op->target, op->req, 0);

    MPL_free(op);
    return mpi_errno;
}

int mm_rma_nic_putget(MPIR_Win * win, const mm_rma_args_t * a, MPIR_Request ** ureq,
                      int *done)
{
    int mpi_errno = MPI_SUCCESS, ocontig = 0, tcontig = 0, refused = 0;
    mm_win_nic_t *nic = win->dev.nic;
    MPI_Aint osize, tsize, olb, tlb;
    /* the origin's side: what a put sends, or where a get's data goes */
    int put = a->op == MM_RMA_PUT;
    MPI_Datatype otype = put ? a->otype : a->rtype;
    MPI_Aint ocount = put ? a->ocount : a->rcount;
    char *local = put ? (char *) a->origin : (char *) a->result;
    uint64_t raddr;
    nic_rdma_t *op;
    mm_vc_t *vc;

    *done = 0;
    if (nic == NULL || nic->method->rdma == NULL || otype == MPI_DATATYPE_NULL)
        return MPI_SUCCESS;
    MPIR_Datatype_is_contig(otype, &ocontig);
    MPIR_Datatype_is_contig(a->ttype, &tcontig);
    if (!ocontig || !tcontig)
        return MPI_SUCCESS;
    MPIR_Datatype_get_size_macro(otype, osize);
    MPIR_Datatype_get_size_macro(a->ttype, tsize);
    osize *= ocount;
    tsize *= a->tcount;
    MPIR_Datatype_get_true_lb(otype, &olb);
    MPIR_Datatype_get_true_lb(a->ttype, &tlb);
    /* sizes that differ are the packets' to report (truncation), a negative lb theirs too */
    if (osize != tsize || osize <= 0 || tlb < 0)
        return MPI_SUCCESS;
    raddr = remote_range(win, a->target, a->tdisp, (uint64_t) tlb, (uint64_t) tsize, &vc);
    if (raddr == 0)
        return MPI_SUCCESS;

    op = MPL_calloc(1, sizeof(*op), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(op == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "RMA operation");
    op->win = win;
    op->target = a->target;
    op->car.vc = vc;
    op->car.done = rdma_done;
    mpi_errno = nic->method->rdma(vc, put, local + olb,
                                  (size_t) tsize, raddr, nic->peers[a->target].key,
                                  nic->peers[a->target].keylen, &op->car, &refused);
    if (mpi_errno || refused) {
        MPL_free(op);
        goto fn_exit;
    }
    /* the transfer completes from progress only: the request and counts are in time */
    win->dev.peers[a->target].pending++;
    win->dev.pending++;
    if (ureq) {
        MPIR_Request *req = mm_request_create(MPIR_REQUEST_KIND__RMA, win->comm_ptr);

        MPIR_ERR_CHKANDJUMP1(req == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                             "RMA request");
        mm_request_cc_add(req, 1);
        op->req = req;
        *ureq = req;
    }
    *done = 1;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}
