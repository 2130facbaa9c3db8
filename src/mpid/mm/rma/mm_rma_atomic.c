/*
 * mm device: applying accumulates and compare-and-swap under the window's atomicity rule.
 *
 * MPI makes every accumulate atomic per element with respect to every other accumulate
 * on the same location with the same basic type. Every path that updates a window
 * location through the accumulate family goes through here: the origin's own direct
 * operations (mm_rma_direct.c), the target applying operations that arrived as messages
 * (mm_rma_target.c, shm or tcp alike) and MPI_Rmw/MPI_Rmw2 (mm_rma_rmw.c, whose one-word
 * fast path uses the same reader entry as below).
 *
 * Memory that only its owner process updates (windows of MPI_Win_create and
 * MPI_Win_create_dynamic, and MPI_Win_allocate memory of a process alone on its node):
 * this process applies every operation itself, so one process-local lock (for threads)
 * around each operation is all it takes, and the operation runs as one loop.
 *
 * Memory other processes update directly (mm_win_acc_atomic: the node segment of
 * MPI_Win_allocate or MPI_Win_allocate_shared) follows a reader-writer rule per stripe.
 * The segment is cut into MM_ACC_GRANULE-byte granules; granule g belongs to stripe
 * g % MM_ACC_STRIPES. Each stripe has a word on its own cache line at the start of the
 * segment (mm_acc_stripe_t: a writer lock, a mode, READ or WRITE, that only a holder of
 * the lock changes, and a count of locked readers), and each member m has one cache line
 * of reader counters, one byte per stripe.
 *
 *   readers  an operation on ONE element of 1, 2, 4 or 8 bytes, aligned to its size, of a
 *            predefined non-pair type, with any predefined op but MAXLOC/MINLOC:
 *            fetch_and_op, compare_and_swap, one-element accumulates and get_accumulates,
 *            MPI_Rmw and MPI_Rmw2 of count 1; and an accumulate or get_accumulate of such
 *            elements that all lie in one aligned 8-byte word (8 chars, 2 ints), done as
 *            one compare-and-swap of the word. A reader announces itself in its counter for
 *            the element's stripe, then reads the stripe's mode. In READ mode it updates
 *            the element with one CPU atomic instruction (fetch_add, fetch_and/or/xor,
 *            exchange, or a compare-and-swap loop around MPICH's op function) and
 *            withdraws. In WRITE mode it withdraws at once, takes the stripe's lock, does
 *            the same atomic, and releases; after MPIR_CVAR_MM_RMA_FLIP_READS (512)
 *            such locked readers in a row with no writer between, the last one sets
 *            the mode back to READ.
 *   writers  everything else (whole arrays, derived target types, pair types, long double
 *            and complex, unaligned elements): take the locks of every stripe the
 *            operation touches, in increasing stripe order. Stripes still in READ mode are
 *            switched to WRITE; if there were any, the writer orders that store before
 *            what follows (see below) and waits until every member's counter of those
 *            stripes is zero. Then it applies the operation with a plain loop
 *            (mm_rma_kernels.c: vectorized for the common type and op pairs), and releases.
 *
 * Why it is atomic. Writers exclude each other, and locked readers, by the locks; taking
 * them in increasing order (a reader takes one) means nobody waits in a cycle. Lock-free
 * readers need no exclusion among themselves or from locked readers: each changes one
 * element with one atomic instruction. What remains is a lock-free reader against a
 * writer. While a stripe is in WRITE mode a reader that sees WRITE never touches memory
 * lock-free; the mode only goes back to READ under the lock, so a writer holding the lock
 * sees READ and switches again. The switch is Dekker's handshake: the reader stores its
 * announcement, then loads the mode; the writer stores the mode, then loads the counters.
 * If both orders hold, at least one sees the other: either the reader sees WRITE and
 * withdraws before touching memory, or the writer sees the announcement and waits until
 * the reader's atomic is done (its withdrawal is a release store after the atomic). Each
 * side's store-then-load order is the one a CPU may break (x86 keeps stores in a store
 * buffer past later loads), and there are two ways to keep it:
 *   - symmetric (the fallback): the announcement is a locked fetch_add and the writer
 *     fences after storing the mode: both sequentially consistent.
 *   - asymmetric (acc_asym: every member registered for Linux's membarrier): the reader's
 *     announcement is a plain store, kept before its load only by the compiler; the
 *     writer, after storing the mode, calls membarrier(GLOBAL_EXPEDITED), which returns
 *     after every CPU running a member has executed a full barrier (and a member not
 *     running gets one when it is scheduled). A reader whose load came before that
 *     barrier has its store visible after it, so the writer's loads of the counters see
 *     it; a reader whose load came after it sees WRITE. The cost moves from every reader
 *     (a locked instruction, ~10 ns here) to the writers that switch a stripe (a system
 *     call, 1-5 us), which the hysteresis of MPIR_CVAR_MM_RMA_FLIP_READS keeps rare: a
 *     stripe flips back only after so many locked readers (each ~10 ns dearer than a
 *     lock-free one) that together they cost about what one membarrier does: the
 *     ski-rental bound, never more than about twice the better fixed choice.
 * Threads of one process share its counters, so with MPIR_IS_THREADED the announcement
 * and the withdrawal are locked instructions in both schemes.
 *
 * Windows with device atomics (win->dev.nic: mm_rma_nic.c) take one step out of all of
 * this: an accumulate-family update of aligned 8-byte integers on them is done by the
 * network device, on every path (acc_apply_view, cas_apply and rmw2_apply_view ask
 * mm_rma_nic_elems first), because a device atomic and a CPU atomic racing on one word
 * may lose an update. Everything else on such windows follows the rules above; the two
 * never meet on one word.
 *
 * What it costs. A lock-free reader: a store and a load on lines that stay in this
 * core's cache, and the one CPU atomic, so fetch_and_op and MPI_Rmw run at the speed of
 * the bare instruction. A writer on stripes already in WRITE mode: one exchange per
 * stripe and the loop; a 1 MiB accumulate takes 64 locks and runs at memory speed.
 */

#include "mm_rma.h"
#if defined(__linux__) && defined(__has_include)
#if __has_include(<linux/membarrier.h>)
#include <sys/syscall.h>
#include <linux/membarrier.h>
#ifdef __NR_membarrier
#define MM_HAVE_MEMBARRIER 1    /* MEMBARRIER_CMD_* are enumerators: no #ifdef for them */
#endif
#endif
#endif

/*
=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===

cvars:
    - name        : MPIR_CVAR_MM_RMA_MEMBARRIER
      category    : MM
      type        : boolean
      default     : true
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        If true, and Linux's membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) works for every
        process of a shared window, single-element RMA atomics on that window announce
        themselves with plain stores and bulk accumulates pay a membarrier when they
        first take a stripe from them. If false, the atomics use one more locked
        instruction each and accumulates never call the kernel.

    - name        : MPIR_CVAR_MM_RMA_FLIP_READS
      category    : MM
      type        : int
      default     : 512
      class       : none
      verbosity   : MPI_T_VERBOSITY_USER_BASIC
      scope       : MPI_T_SCOPE_ALL_EQ
      description : >-
        After a bulk accumulate has taken a stripe of a shared window from the
        single-element atomics, the atomics on it take its lock; after this many of them
        in a row with no bulk accumulate between, the stripe goes back to lock-free
        atomics (and the next bulk accumulate pays for taking it again). 0 never gives it
        back; 1 gives it back at once (the tests use it to make the hand-over frequent).

=== END_MPI_T_CVAR_INFO_BLOCK ===
*/

int mm_rma_membarrier_ready(void)
{
    static int state;           /* 0: not asked yet; 1: registered; -1: unavailable */

    if (state == 0) {
        state = -1;
#ifdef MM_HAVE_MEMBARRIER
        if (MPIR_CVAR_MM_RMA_MEMBARRIER) {
            long cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
            if (cmds > 0 && (cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED) &&
                (cmds & MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) &&
                syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0)
                state = 1;
        }
#endif
    }
    return state > 0;
}

/* Every CPU running a registered process executes a full barrier before this returns. */
static void membarrier_all(void)
{
#ifdef MM_HAVE_MEMBARRIER
    /* Registration succeeded, so the command cannot fail; if the kernel says otherwise the
     * rule cannot be kept, and going on could lose updates silently. */
    MPIR_Assertp(syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0) == 0);
#else
    MPIR_Assertp(0);
#endif
}

void mm_rma_acc_slots_init(MPIR_Win * win, void *seg, int nmembers, int me)
{
    win->dev.acc_lock = (volatile int *) seg;
    win->dev.acc_slots = (char *) seg + MM_ACC_LOCKS_BYTES + (size_t) nmembers *
        MM_WIN_LOCK_BYTES;
    win->dev.acc_nslots = nmembers;
    win->dev.acc_myslot = me;
}

static void stripe_lock(volatile int *l)
{
    unsigned spins = 0;

    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(l, __ATOMIC_RELAXED))
            if (++spins % 64 == 0)
                mm_yield_core();
    }
}

static void stripe_unlock(volatile int *l)
{
    __atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

int mm_acc_reader_enter_locked(MPIR_Win * win, int stripe)
{
    mm_acc_stripe_t *st = mm_acc_stripe(win, stripe);

    stripe_lock(&st->lock);
    if (st->mode == MM_ACC_MODE_WRITE && MPIR_CVAR_MM_RMA_FLIP_READS > 0 &&
        ++st->reads >= (unsigned) MPIR_CVAR_MM_RMA_FLIP_READS) {
        /* readers only, for a while: let them go lock-free again */
        st->reads = 0;
        __atomic_store_n(&st->mode, MM_ACC_MODE_READ, __ATOMIC_RELEASE);
    }
    return stripe | MM_ACC_TICKET_LOCKED;
}

void mm_acc_reader_exit_locked(MPIR_Win * win, int stripe)
{
    stripe_unlock(&mm_acc_stripe(win, stripe)->lock);
}

/* The stripes covering niov segments of a window (bit i: stripe i); private memory has
 * the one lock, bit 0. */
static uint64_t acc_stripes(MPIR_Win * win, const struct iovec *iov, MPI_Aint niov)
{
    uintptr_t base = (uintptr_t) win->dev.acc_lock;
    uint64_t mask = 0;

    if (!mm_win_acc_atomic(win))
        return 1;
    for (MPI_Aint i = 0; i < niov && mask != UINT64_MAX; i++) {
        uintptr_t first, last;
        if (iov[i].iov_len == 0)
            continue;
        first = ((uintptr_t) iov[i].iov_base - base) / MM_ACC_GRANULE;
        last = ((uintptr_t) iov[i].iov_base + iov[i].iov_len - 1 - base) / MM_ACC_GRANULE;
        if (last - first + 1 >= MM_ACC_STRIPES)
            return UINT64_MAX;
        for (uintptr_t g = first; g <= last; g++)
            mask |= (uint64_t) 1 << (g % MM_ACC_STRIPES);
    }
    return mask;
}

static void writer_enter(MPIR_Win * win, uint64_t mask)
{
    uint64_t switched = 0;
    unsigned spins = 0;

    for (uint64_t m = mask; m; m &= m - 1)
        stripe_lock(mm_acc_stripe_lock(win, __builtin_ctzll(m)));
    if (!mm_win_acc_atomic(win))
        return;
    win->dev.acc_unfenced = 1;
    for (uint64_t m = mask; m; m &= m - 1) {
        mm_acc_stripe_t *st = mm_acc_stripe(win, __builtin_ctzll(m));
        st->reads = 0;
        if (st->mode == MM_ACC_MODE_READ) {
            __atomic_store_n(&st->mode, MM_ACC_MODE_WRITE, __ATOMIC_RELAXED);
            switched |= m & -m;
        }
    }
    if (switched == 0)
        return;         /* no lock-free reader can be inside these stripes */
    /* Dekker's handshake (the argument above): the mode stores before the counter loads. */
    if (win->dev.acc_asym)
        membarrier_all();
    else
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int r = 0; r < win->dev.acc_nslots; r++) {
        volatile uint8_t *slot = (volatile uint8_t *) win->dev.acc_slots +
            (size_t) r * MM_ACC_SLOT_BYTES;
        for (uint64_t m = switched; m; m &= m - 1)
            while (__atomic_load_n(&slot[__builtin_ctzll(m)], __ATOMIC_SEQ_CST))
                if (++spins % 64 == 0)
                    mm_yield_core();
    }
}

static void writer_exit(MPIR_Win * win, uint64_t mask)
{
    for (uint64_t m = mask; m; m &= m - 1)
        stripe_unlock(mm_acc_stripe_lock(win, __builtin_ctzll(m)));
}

/* Is (basic, op) an accumulate this device applies? Checked where the operation is
 * applied, since a target gets both handles off the wire. */
static int acc_check(MPI_Datatype basic, MPI_Op op)
{
    /* The last pair found good: a loop of accumulates asks about the same pair each time
     * (one word, so a racing thread reads an old pair or the new one, both good). */
    static uint64_t last_good = (uint64_t) (uint32_t) MPI_REPLACE << 32 | (uint32_t) MPI_BYTE;
    uint64_t key = (uint64_t) (uint32_t) op << 32 | (uint32_t) basic;
    const char *why = NULL;
    MPI_Aint size = 0;

    if (key == __atomic_load_n(&last_good, __ATOMIC_RELAXED))
        return MPI_SUCCESS;
    switch (op) {
        case MPI_MAX:
        case MPI_MIN:
        case MPI_SUM:
        case MPI_PROD:
        case MPI_LAND:
        case MPI_BAND:
        case MPI_LOR:
        case MPI_BOR:
        case MPI_LXOR:
        case MPI_BXOR:
        case MPI_MINLOC:
        case MPI_MAXLOC:
        case MPI_REPLACE:
        case MPI_NO_OP:
            break;
        default:
            why = "accumulates take predefined operations only";
    }
    if (why == NULL) {
        if (HANDLE_IS_BUILTIN(basic))
            MPIR_Datatype_get_size_macro(basic, size);
        else if (basic == MPI_FLOAT_INT || basic == MPI_DOUBLE_INT || basic == MPI_LONG_INT ||
                 basic == MPI_SHORT_INT || basic == MPI_2INT || basic == MPI_LONG_DOUBLE_INT)
            size = 1;
        if (size <= 0)
            why = "the element type is not a predefined datatype";
        else if (op != MPI_REPLACE && op != MPI_NO_OP &&
                 (*MPIR_OP_HDL_TO_DTYPE_FN(op)) (basic) != MPI_SUCCESS)
            why = "the operation is not defined on the element type";
    }
    if (why == NULL) {
        __atomic_store_n(&last_good, key, __ATOMIC_RELAXED);
        return MPI_SUCCESS;
    }
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                MPI_ERR_OP, "**mm|rmaaccop", "**mm|rmaaccop %s", why);
}

/* Element size if one element of (basic, op) may be a reader, else 0. */
static size_t reader_size(MPI_Datatype basic, MPI_Op op)
{
    MPI_Aint size;

    if (!HANDLE_IS_BUILTIN(basic) || op == MPI_MAXLOC || op == MPI_MINLOC)
        return 0;
    MPIR_Datatype_get_size_macro(basic, size);
    return (size == 1 || size == 2 || size == 4 || size == 8) ? (size_t) size : 0;
}

/* One element at p: new = op(src, old) with one CPU atomic; the old value to *old if
 * asked. Integers with SUM, BAND, BOR, BXOR, REPLACE are single instructions; other
 * pairs a compare-and-swap loop around MPICH's op function. */
#define MM_ELEM_RMW(T)                                                                   \
    do {                                                                                 \
        T *p_ = (T *) p, cur_, new_, v_ = 0;                                             \
        if (src)                                                                         \
            memcpy(&v_, src, sizeof(T));                                                 \
        if (op == MPI_NO_OP) {                                                           \
            cur_ = __atomic_load_n(p_, __ATOMIC_SEQ_CST);                                \
        } else if (op == MPI_REPLACE) {                                                  \
            cur_ = __atomic_exchange_n(p_, v_, __ATOMIC_SEQ_CST);                        \
        } else if (is_int && op == MPI_SUM) {                                            \
            cur_ = __atomic_fetch_add(p_, v_, __ATOMIC_SEQ_CST);                         \
        } else if (is_int && op == MPI_BAND) {                                           \
            cur_ = __atomic_fetch_and(p_, v_, __ATOMIC_SEQ_CST);                         \
        } else if (is_int && op == MPI_BOR) {                                            \
            cur_ = __atomic_fetch_or(p_, v_, __ATOMIC_SEQ_CST);                          \
        } else if (is_int && op == MPI_BXOR) {                                           \
            cur_ = __atomic_fetch_xor(p_, v_, __ATOMIC_SEQ_CST);                         \
        } else {                                                                         \
            MPIR_op_function *uop_ = MPIR_OP_HDL_TO_FN(op);                              \
            cur_ = __atomic_load_n(p_, __ATOMIC_SEQ_CST);                                \
            do {                                                                         \
                MPI_Aint one_ = 1;                                                       \
                MPI_Datatype t_ = basic;                                                 \
                new_ = cur_;                                                             \
                uop_((void *) src, &new_, &one_, &t_);                                   \
            } while (!__atomic_compare_exchange_n(p_, &cur_, new_, 0, __ATOMIC_SEQ_CST,  \
                                                  __ATOMIC_SEQ_CST));                    \
        }                                                                                \
        if (old)                                                                         \
            memcpy(old, &cur_, sizeof(T));                                               \
    } while (0)

/* A float or double with SUM, PROD, MAX or MIN: the compare-and-swap loop computes the
 * new value itself (the same expressions as MPICH's op functions) instead of calling one. */
#define MM_FLOAT_RMW(F, U)                                                               \
    do {                                                                                 \
        U *p_ = (U *) p, cur_, new_;                                                     \
        F v_, x_;                                                                        \
        memcpy(&v_, src, sizeof(F));                                                     \
        cur_ = __atomic_load_n(p_, __ATOMIC_SEQ_CST);                                    \
        do {                                                                             \
            memcpy(&x_, &cur_, sizeof(F));                                               \
            if (op == MPI_SUM)                                                           \
                x_ = x_ + v_;                                                            \
            else if (op == MPI_PROD)                                                     \
                x_ = x_ * v_;                                                            \
            else if (op == MPI_MAX)                                                      \
                x_ = x_ > v_ ? x_ : v_;                                                  \
            else                                                                         \
                x_ = x_ < v_ ? x_ : v_;                                                  \
            memcpy(&new_, &x_, sizeof(F));                                               \
        } while (!__atomic_compare_exchange_n(p_, &cur_, new_, 0, __ATOMIC_SEQ_CST,      \
                                              __ATOMIC_SEQ_CST));                        \
        if (old)                                                                         \
            memcpy(old, &cur_, sizeof(F));                                               \
    } while (0)

static void elem_rmw(char *p, const char *src, size_t sz, MPI_Datatype basic, MPI_Op op,
                     char *old)
{
    int cls = mm_rma_elem_class(basic);
    int is_int = cls != MM_ELEM_OTHER && cls != MM_ELEM_FLOAT && cls != MM_ELEM_DOUBLE;

    if ((cls == MM_ELEM_DOUBLE || cls == MM_ELEM_FLOAT) && src &&
        (op == MPI_SUM || op == MPI_PROD || op == MPI_MAX || op == MPI_MIN)) {
        if (cls == MM_ELEM_DOUBLE)
            MM_FLOAT_RMW(double, uint64_t);
        else
            MM_FLOAT_RMW(float, uint32_t);
        return;
    }
    switch (sz) {
        case 1:
            MM_ELEM_RMW(uint8_t);
            break;
        case 2:
            MM_ELEM_RMW(uint16_t);
            break;
        case 4:
            MM_ELEM_RMW(uint32_t);
            break;
        case 8:
            MM_ELEM_RMW(uint64_t);
            break;
    }
}

/* Is x a multiple of a? Element sizes are nearly always powers of two: a mask, not a
 * 64-bit division (tens of cycles, a visible part of a small accumulate). */
static inline int multiple_of(uintptr_t x, MPI_Aint a)
{
    return (a & (a - 1)) == 0 ? (x & (uintptr_t) (a - 1)) == 0 : x % (uintptr_t) a == 0;
}

/* Several elements inside one aligned 8-byte word (8 chars, 2 ints, ...): one
 * compare-and-swap loop on the word, the new value computed on a copy by the op's loop.
 * All the elements change at once, so each does atomically; a reader like elem_rmw. */
static void word_rmw(char *p, const char *src, size_t len, MPI_Aint esz, MPI_Datatype basic,
                     MPI_Op op, char *old)
{
    uint64_t *w = (uint64_t *) ((uintptr_t) p & ~(uintptr_t) 7);
    size_t off = (uintptr_t) p & 7;
    int cls = mm_rma_elem_class(basic);
    mm_rma_kernel_fn *kern = NULL;
    uint64_t cur, next, v = 0;

    if (src)
        memcpy(&v, src, len);   /* aligned, for the loops */
    if (cls >= MM_ELEM_SINT8 && cls <= MM_ELEM_UINT64 && src &&
        (op == MPI_SUM || op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)) {
        /* Integers: the word itself as lanes. Operand and mask in place, zero elsewhere;
         * high: each lane's top bit (the same constants in either byte order, since the
         * lanes are aligned to their size within the word). */
        static const uint64_t tops[9] = {[1] = 0x8080808080808080ull,
            [2] = 0x8000800080008000ull,[4] = 0x8000000080000000ull,[8] = 1ull << 63
        };
        uint64_t vw = 0, mask = 0, high;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        mask = (len == 8 ? ~0ull : (1ull << (8 * len)) - 1) << (8 * off);
        vw = v << (8 * off);
#else
        memset((char *) &mask + off, 0xff, len);
        memcpy((char *) &vw + off, &v, len);
#endif
        high = tops[esz] & mask;
        if (op == MPI_BAND)
            cur = __atomic_fetch_and(w, vw | ~mask, __ATOMIC_SEQ_CST);
        else if (op == MPI_BOR)
            cur = __atomic_fetch_or(w, vw, __ATOMIC_SEQ_CST);
        else if (op == MPI_BXOR)
            cur = __atomic_fetch_xor(w, vw, __ATOMIC_SEQ_CST);
        else {
            /* lane-wise add: no carry crosses a lane (zero lanes add nothing) */
            cur = __atomic_load_n(w, __ATOMIC_SEQ_CST);
            do {
                next = ((cur & ~high) + (vw & ~high)) ^ ((cur ^ vw) & high);
            } while (!__atomic_compare_exchange_n(w, &cur, next, 0, __ATOMIC_SEQ_CST,
                                                  __ATOMIC_SEQ_CST));
        }
        if (old)
            memcpy(old, (char *) &cur + off, len);
        return;
    }
    if (op != MPI_NO_OP && op != MPI_REPLACE)
        kern = mm_rma_kernel(basic, op);
    cur = __atomic_load_n(w, __ATOMIC_SEQ_CST);
    for (;;) {
        char *b = (char *) &next;

        next = cur;
        if (op == MPI_NO_OP)
            break;      /* the load was the atomic read */
        if (op == MPI_REPLACE) {
            memcpy(b + off, &v, len);
        } else if (kern) {
            kern(b + off, &v, len);
        } else {
            MPI_Aint n = len / esz;
            MPI_Datatype t = basic;
            (*MPIR_OP_HDL_TO_FN(op)) (&v, b + off, &n, &t);
        }
        if (__atomic_compare_exchange_n(w, &cur, next, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            break;
    }
    if (old)
        memcpy(old, (char *) &cur + off, len);
}

/* The segments of the target buffer, in order, covering at most len bytes. */
static int target_segments(void *addr, MPI_Aint count, MPI_Datatype type, MPI_Aint len,
                           struct iovec **iov_out, MPI_Aint * n_out)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint n, actual_bytes;
    struct iovec *iov;

    mpi_errno = MPIR_Typerep_iov_len(count, type, len, &n);
    MPIR_ERR_CHECK(mpi_errno);
    iov = MPL_malloc(MPL_MAX(n, 1) * sizeof(struct iovec), MPL_MEM_RMA);
    MPIR_ERR_CHKANDJUMP1(iov == NULL, mpi_errno, MPI_ERR_OTHER, "**nomem", "**nomem %s",
                         "accumulate segments");
    mpi_errno = MPIR_Typerep_to_iov(addr, count, type, 0, iov, n, len, n_out, &actual_bytes);
    if (mpi_errno)
        MPL_free(iov);
    MPIR_ERR_CHECK(mpi_errno);
    *iov_out = iov;

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* target_view for a derived type: its segments, and whether all are aligned. */
static int derived_view(void *addr, MPI_Aint count, MPI_Datatype type, MPI_Aint len,
                        size_t esz, struct iovec *one, struct iovec **iov, MPI_Aint * niov,
                        int *aligned)
{
    int mpi_errno = MPI_SUCCESS;
    int contig;

    MPIR_Datatype_is_contig(type, &contig);
    if (len == 0 || contig) {
        MPI_Aint true_lb = 0;
        if (len > 0)
            MPIR_Datatype_get_true_lb(type, &true_lb);
        one->iov_base = (char *) addr + true_lb;
        one->iov_len = len;
    } else {
        mpi_errno = target_segments(addr, count, type, len, iov, niov);
        MPIR_ERR_CHECK(mpi_errno);
    }
    *aligned = 1;
    for (MPI_Aint i = 0; i < *niov && *aligned; i++)
        *aligned = multiple_of((uintptr_t) (*iov)[i].iov_base, esz) &&
            multiple_of((*iov)[i].iov_len, esz);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* The target buffer as segments (*iov, *niov: the single *one for a contiguous type, else
 * an array to free) and whether each is aligned to, and a whole number of, esz-byte
 * elements: what decides between the reader and the writer path, the stripes a writer
 * takes, and whether the loops of mm_rma_kernels.c may run on it. Inline, so that the
 * common case (a predefined type) costs a small accumulate no call and no datatype query. */
static inline int target_view(void *addr, MPI_Aint count, MPI_Datatype type, MPI_Aint len,
                              size_t esz, struct iovec *one, struct iovec **iov,
                              MPI_Aint * niov, int *aligned)
{
    *iov = one;
    *niov = 1;
    if (esz == 0)
        esz = 1;
    if (!HANDLE_IS_BUILTIN(type))
        return derived_view(addr, count, type, len, esz, one, iov, niov, aligned);
    one->iov_base = addr;
    one->iov_len = len;
    *aligned = multiple_of((uintptr_t) addr, esz) && multiple_of(len, esz);
    return MPI_SUCCESS;
}

static int overlaps(const char *a, size_t alen, const char *b, size_t blen)
{
    return a < b + blen && b < a + alen;
}

/* MPICH's op block by block, for a target known only by its blocks (a footprint from the
 * wire): each block is a run of whole elements of basic. An element type with a gap inside
 * (MPI_DOUBLE_INT, say) has blocks of one element each, so its extent never matters here
 * but for types without one. */
static int blocks_op(const struct iovec *iov, MPI_Aint niov, const char *src, MPI_Aint len,
                     MPI_Aint esz, MPI_Datatype basic, MPI_Op op)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint extent;

    MPIR_Datatype_get_extent_macro(basic, extent);
    for (MPI_Aint i = 0; i < niov && len > 0 && mpi_errno == MPI_SUCCESS; i++) {
        MPI_Aint n = (MPI_Aint) MPL_MIN(iov[i].iov_len, (size_t) len) / esz;
        if (extent == esz) {
            mpi_errno = MPIR_Typerep_op((void *) src, n, basic, iov[i].iov_base, n, basic, op,
                                        true, -1);
        } else {
            for (MPI_Aint k = 0; k < n && mpi_errno == MPI_SUCCESS; k++)
                mpi_errno = MPIR_Typerep_op((void *) (src + k * esz), 1, basic,
                                            (char *) iov[i].iov_base + k * esz, 1, basic, op,
                                            true, -1);
        }
        src += n * esz;
        len -= n * esz;
    }
    return mpi_errno;
}

/* The writer's loop: the old contents to old (packed), then dst = op(src, dst), over the
 * segments. The vectorized loop when there is one for (basic, op) and the data allow it,
 * else MPICH's (over the datatype, or block by block when type is MPI_DATATYPE_NULL). */
static int writer_apply(void *addr, MPI_Aint count, MPI_Datatype type, const struct iovec *iov,
                        MPI_Aint niov, int aligned, const char *src, MPI_Aint len,
                        MPI_Aint esz, MPI_Datatype basic, MPI_Op op, char *old)
{
    mm_rma_kernel_fn *kern = NULL;

    if (old) {
        char *o = old;
        for (MPI_Aint i = 0; i < niov; i++) {
            memcpy(o, iov[i].iov_base, iov[i].iov_len);
            o += iov[i].iov_len;
        }
    }
    if (op == MPI_NO_OP || len == 0)
        return MPI_SUCCESS;
    if (aligned && multiple_of((uintptr_t) src, esz))
        kern = mm_rma_kernel(basic, op);
    for (MPI_Aint i = 0; kern && i < niov; i++)
        if (overlaps(iov[i].iov_base, iov[i].iov_len, src, len))
            kern = NULL;
    if (kern == NULL && type == MPI_DATATYPE_NULL)
        return blocks_op(iov, niov, src, len, esz, basic, op);
    if (kern == NULL)
        return MPIR_Typerep_op((void *) src, len / esz, basic, addr, count, type, op, true, -1);
    for (MPI_Aint i = 0; i < niov; i++) {
        kern(iov[i].iov_base, src, iov[i].iov_len);
        src += iov[i].iov_len;
    }
    return MPI_SUCCESS;
}

/* The rule of the file's header, on a target buffer already cut into segments: a reader
 * for one aligned element or word, a writer on the stripes the segments touch otherwise. */
static inline __attribute__((always_inline))
int acc_apply_view(MPIR_Win * win, void *addr, MPI_Aint count, MPI_Datatype type,
                          const struct iovec *iov, MPI_Aint niov, int aligned, const void *src,
                          MPI_Aint nelem, MPI_Aint esz, MPI_Datatype basic, MPI_Op op,
                          void *old)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint len = nelem * esz;
    size_t rsz;

    if (mm_rma_nic_elems(win, iov, niov, basic))
        return mm_rma_nic_acc(win, iov, niov, src, basic, op, old);
    rsz = mm_win_acc_atomic(win) && niov == 1 && aligned && len <= 8 ?
        reader_size(basic, op) : 0;
    if (rsz && nelem == 1) {
        int stripe = mm_acc_reader_enter(win, iov[0].iov_base);
        elem_rmw(iov[0].iov_base, src, rsz, basic, op, old);
        mm_acc_reader_exit(win, stripe);
    } else if (rsz && ((uintptr_t) iov[0].iov_base & 7) + len <= 8) {
        int stripe = mm_acc_reader_enter(win, iov[0].iov_base);
        word_rmw(iov[0].iov_base, src, len, esz, basic, op, old);
        mm_acc_reader_exit(win, stripe);
    } else {
        uint64_t stripes = acc_stripes(win, iov, niov);

        writer_enter(win, stripes);
        mpi_errno = writer_apply(addr, count, type, iov, niov, aligned, src, len, esz, basic,
                                 op, old);
        writer_exit(win, stripes);
    }
    return mpi_errno;
}

int mm_rma_acc_apply(MPIR_Win * win, void *addr, MPI_Aint count, MPI_Datatype type,
                     const void *src, MPI_Aint nelem, MPI_Datatype basic, MPI_Op op, void *old)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint esz;
    struct iovec one, *iov = &one;
    MPI_Aint niov = 1;
    int aligned = 0;

    mpi_errno = acc_check(basic, op);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_Datatype_get_size_macro(basic, esz);
    mpi_errno = target_view(addr, count, type, nelem * esz, (size_t) esz, &one, &iov, &niov,
                            &aligned);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = acc_apply_view(win, addr, count, type, iov, niov, aligned, src, nelem, esz,
                               basic, op, old);

  fn_exit:
    if (iov != &one)
        MPL_free(iov);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

/* Whether every block is aligned to, and a whole number of, esz-byte elements. */
static int blocks_aligned(const struct iovec *iov, MPI_Aint niov, size_t esz)
{
    for (MPI_Aint i = 0; i < niov; i++)
        if (!multiple_of((uintptr_t) iov[i].iov_base, esz) || !multiple_of(iov[i].iov_len, esz))
            return 0;
    return 1;
}

int mm_rma_acc_apply_blocks(MPIR_Win * win, const struct iovec *iov, MPI_Aint niov,
                            const void *src, MPI_Aint nelem, MPI_Datatype basic, MPI_Op op,
                            void *old)
{
    int mpi_errno;
    MPI_Aint esz;

    mpi_errno = acc_check(basic, op);
    if (mpi_errno)
        return mpi_errno;
    MPIR_Datatype_get_size_macro(basic, esz);
    return acc_apply_view(win, NULL, 0, MPI_DATATYPE_NULL, iov, niov,
                          blocks_aligned(iov, niov, (size_t) esz), src, nelem, esz, basic, op,
                          old);
}

int mm_rma_cas_apply(MPIR_Win * win, void *addr, MPI_Datatype type, const void *newval,
                     const void *compare, void *old)
{
    size_t sz = mm_win_acc_atomic(win) ? reader_size(type, MPI_REPLACE) : 0;
    MPI_Aint size;
    struct iovec one;
    uint64_t stripes;

    one.iov_base = addr;
    one.iov_len = 8;
    if (mm_rma_nic_elems(win, &one, 1, type))
        return mm_rma_nic_cas(win, addr, newval, compare, old);

    if (sz && ((uintptr_t) addr & (sz - 1)) == 0) {     /* reader sizes are powers of two */
        int stripe = mm_acc_reader_enter(win, addr);
        switch (sz) {
#define MM_CAS(T)                                                                        \
            {                                                                            \
                T exp_, new_;                                                            \
                memcpy(&exp_, compare, sizeof(T));                                       \
                memcpy(&new_, newval, sizeof(T));                                        \
                __atomic_compare_exchange_n((T *) addr, &exp_, new_, 0, __ATOMIC_SEQ_CST,\
                                            __ATOMIC_SEQ_CST);                           \
                memcpy(old, &exp_, sizeof(T));                                           \
            }
            case 1:
                MM_CAS(uint8_t);
                break;
            case 2:
                MM_CAS(uint16_t);
                break;
            case 4:
                MM_CAS(uint32_t);
                break;
            case 8:
                MM_CAS(uint64_t);
                break;
#undef MM_CAS
        }
        mm_acc_reader_exit(win, stripe);
        return MPI_SUCCESS;
    }
    MPIR_Datatype_get_size_macro(type, size);
    one.iov_base = addr;
    one.iov_len = size;
    stripes = acc_stripes(win, &one, 1);
    writer_enter(win, stripes);
    memcpy(old, addr, size);
    if (MPIR_Compare_equal(compare, addr, type))
        memcpy(addr, newval, size);
    writer_exit(win, stripes);
    return MPI_SUCCESS;
}

/* --- MPI_Rmw2 (mask-swap and the compare-swaps) ---
 *
 * The same rule: on memory other processes may update, one element of 1, 2, 4 or 8 bytes
 * is a reader (a compare-and-swap loop, the new value computed from the loaded one);
 * several elements, or long double, are a writer; memory only its owner updates takes
 * the local lock. Element types: mask-swap takes the integer types (and MPI_BYTE); COMP_SWAP and
 * _NE any integer or floating type (floating compare, so -0.0 == 0.0); _GT/_GE/_LT/_LE
 * integer and floating types, in the type's own order (signed or unsigned). */

enum { RMW2_SINT = 1, RMW2_UINT, RMW2_FLOAT };

static int rmw2_class(MPI_Datatype t)
{
    int c;

    if (t == MPI_LONG_DOUBLE)
        return RMW2_FLOAT;
    if (t == MPI_C_BOOL)
        return 0;
    c = mm_rma_elem_class(t);
    if (c == MM_ELEM_FLOAT || c == MM_ELEM_DOUBLE)
        return RMW2_FLOAT;
    if (c >= MM_ELEM_SINT8 && c <= MM_ELEM_SINT64)
        return RMW2_SINT;
    if (c >= MM_ELEM_UINT8 && c <= MM_ELEM_UINT64)
        return RMW2_UINT;
    return 0;
}

int mm_rma_rmw2_check(int op, MPI_Datatype basic)
{
    int cls = rmw2_class(basic);
    const char *why = NULL;

    if (op < MPI_RMW2_MASK_SWAP || op > MPI_RMW2_COMP_SWAP_NE)
        why = "not an MPI_RMW2_* operation";
    else if (cls == 0)
        why = "MPI_Rmw2 takes integer and floating types only";
    else if (op == MPI_RMW2_MASK_SWAP && cls == RMW2_FLOAT)
        why = "MPI_RMW2_MASK_SWAP takes integer types only";
    if (why == NULL)
        return MPI_SUCCESS;
    return MPIR_Err_create_code(MPI_SUCCESS, MPIR_ERR_RECOVERABLE, __func__, __LINE__,
                                MPI_ERR_OP, "**mm|rmwop", "**mm|rmwop %d %s", op, why);
}

/* Does the compare-swap op replace old (comparand op old)? */
#define MM_RMW2_COND(a_, o_)                                                             \
    (op == MPI_RMW2_COMP_SWAP ? (a_) == (o_) : op == MPI_RMW2_COMP_SWAP_NE ? (a_) != (o_) : \
     op == MPI_RMW2_COMP_SWAP_GT ? (a_) > (o_) : op == MPI_RMW2_COMP_SWAP_GE ? (a_) >= (o_) : \
     op == MPI_RMW2_COMP_SWAP_LT ? (a_) < (o_) : (a_) <= (o_))

#define MM_RMW2_INT(T)                                                                   \
    do {                                                                                 \
        T o_, a_, b_, n_;                                                                \
        memcpy(&o_, old, sizeof(T));                                                     \
        memcpy(&a_, a, sizeof(T));                                                       \
        memcpy(&b_, b, sizeof(T));                                                       \
        if (op == MPI_RMW2_MASK_SWAP)                                                    \
            n_ = (T) ((o_ & ~a_) | (b_ & a_));                                           \
        else                                                                             \
            n_ = MM_RMW2_COND(a_, o_) ? b_ : o_;                                         \
        memcpy(out, &n_, sizeof(T));                                                     \
    } while (0)

#define MM_RMW2_FLOAT(T)                                                                 \
    do {                                                                                 \
        T o_, a_, b_;                                                                    \
        memcpy(&o_, old, sizeof(T));                                                     \
        memcpy(&a_, a, sizeof(T));                                                       \
        memcpy(&b_, b, sizeof(T));                                                       \
        memcpy(out, MM_RMW2_COND(a_, o_) ? (const void *) b : old, sizeof(T));           \
    } while (0)

/* out = the element's new value, given its old value and the two operands. */
static void rmw2_elem(int op, MPI_Datatype basic, const void *old, const void *a,
                      const void *b, void *out)
{
    int cls = rmw2_class(basic);
    MPI_Aint sz;

    MPIR_Datatype_get_size_macro(basic, sz);
    if (cls == RMW2_FLOAT) {
        if (basic == MPI_FLOAT)
            MM_RMW2_FLOAT(float);
        else if (basic == MPI_DOUBLE)
            MM_RMW2_FLOAT(double);
        else
            MM_RMW2_FLOAT(long double);
    } else if (cls == RMW2_SINT) {
        if (sz == 1)
            MM_RMW2_INT(int8_t);
        else if (sz == 2)
            MM_RMW2_INT(int16_t);
        else if (sz == 4)
            MM_RMW2_INT(int32_t);
        else
            MM_RMW2_INT(int64_t);
    } else {
        if (sz == 1)
            MM_RMW2_INT(uint8_t);
        else if (sz == 2)
            MM_RMW2_INT(uint16_t);
        else if (sz == 4)
            MM_RMW2_INT(uint32_t);
        else
            MM_RMW2_INT(uint64_t);
    }
}

#define MM_RMW2_CAS(T)                                                                   \
    do {                                                                                 \
        T cur_ = __atomic_load_n((T *) p, __ATOMIC_SEQ_CST), new_;                       \
        do {                                                                             \
            rmw2_elem(op, basic, &cur_, a, b, &new_);                                    \
            if (new_ == cur_)                                                            \
                break;          /* nothing to write: the load was the atomic read */     \
        } while (!__atomic_compare_exchange_n((T *) p, &cur_, new_, 0, __ATOMIC_SEQ_CST, \
                                              __ATOMIC_SEQ_CST));                        \
        memcpy(o, &cur_, sizeof(T));                                                     \
    } while (0)

typedef struct {
    int op;
    MPI_Datatype basic;
    const void *a, *b;
} rmw2_ctx_t;

static uint64_t rmw2_new(uint64_t cur, const void *c)
{
    const rmw2_ctx_t *x = c;
    uint64_t n;

    rmw2_elem(x->op, x->basic, &cur, x->a, x->b, &n);
    return n;
}

/* MPI_Rmw2 on words the device updates (mm_rma_nic.c): a compare-and-swap loop each. */
static int rmw2_apply_nic(MPIR_Win * win, const struct iovec *iov, MPI_Aint niov,
                          const char *a, const char *b, MPI_Datatype basic, int op, char *o)
{
    int mpi_errno = MPI_SUCCESS;

    for (MPI_Aint i = 0; i < niov && mpi_errno == MPI_SUCCESS; i++)
        for (size_t k = 0; k < iov[i].iov_len && mpi_errno == MPI_SUCCESS;
             k += 8, a += 8, b += 8, o += 8) {
            rmw2_ctx_t c = {.op = op,.basic = basic,.a = a,.b = b };
            uint64_t cur;

            mpi_errno = mm_rma_nic_update(win, (char *) iov[i].iov_base + k, rmw2_new, &c, &cur);
            memcpy(o, &cur, 8);
        }
    return mpi_errno;
}

/* MPI_Rmw2 over a target already cut into segments (whole elements of sz bytes each). */
static int rmw2_apply_view(MPIR_Win * win, const struct iovec *iov, MPI_Aint niov,
                           int aligned, size_t sz, MPI_Aint nelem, const void *operand,
                           const void *operand2, MPI_Datatype basic, int op, void *old)
{
    int stripe = -1;
    uint64_t locked = 0;        /* a writer: the stripes held */
    const char *a = operand, *b = operand2;
    char *o = old;

    if (mm_rma_nic_elems(win, iov, niov, basic))
        return rmw2_apply_nic(win, iov, niov, a, b, basic, op, o);

    if (mm_win_acc_atomic(win) && aligned && nelem == 1 && niov == 1 &&
        reader_size(basic, MPI_REPLACE) != 0) {
        stripe = mm_acc_reader_enter(win, iov[0].iov_base);
    } else {
        locked = acc_stripes(win, iov, niov);
        writer_enter(win, locked);
    }
    for (MPI_Aint i = 0; i < niov; i++) {
        char *p = iov[i].iov_base;
        for (size_t k = 0; k + sz <= iov[i].iov_len; k += sz, p += sz, a += sz, b += sz, o += sz) {
            if (locked) {
                memcpy(o, p, sz);
                rmw2_elem(op, basic, o, a, b, p);
            } else if (sz == 1) {
                MM_RMW2_CAS(uint8_t);
            } else if (sz == 2) {
                MM_RMW2_CAS(uint16_t);
            } else if (sz == 4) {
                MM_RMW2_CAS(uint32_t);
            } else {
                MM_RMW2_CAS(uint64_t);
            }
        }
    }
    if (locked)
        writer_exit(win, locked);
    else
        mm_acc_reader_exit(win, stripe);
    return MPI_SUCCESS;
}

int mm_rma_rmw2_apply(MPIR_Win * win, void *addr, MPI_Aint count, MPI_Datatype type,
                      const void *operand, const void *operand2, MPI_Aint nelem,
                      MPI_Datatype basic, int op, void *old)
{
    int mpi_errno = MPI_SUCCESS;
    MPI_Aint bsz;
    struct iovec one, *iov = &one;
    MPI_Aint niov = 1;
    int aligned;

    mpi_errno = mm_rma_rmw2_check(op, basic);
    MPIR_ERR_CHECK(mpi_errno);
    MPIR_Datatype_get_size_macro(basic, bsz);
    mpi_errno = target_view(addr, count, type, nelem * bsz, (size_t) bsz, &one, &iov, &niov,
                            &aligned);
    MPIR_ERR_CHECK(mpi_errno);
    mpi_errno = rmw2_apply_view(win, iov, niov, aligned, (size_t) bsz, nelem, operand,
                                operand2, basic, op, old);

  fn_exit:
    if (iov != &one)
        MPL_free(iov);
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_rma_rmw2_apply_blocks(MPIR_Win * win, const struct iovec *iov, MPI_Aint niov,
                             const void *operand, const void *operand2, MPI_Aint nelem,
                             MPI_Datatype basic, int op, void *old)
{
    int mpi_errno;
    MPI_Aint bsz;

    mpi_errno = mm_rma_rmw2_check(op, basic);
    if (mpi_errno)
        return mpi_errno;
    MPIR_Datatype_get_size_macro(basic, bsz);
    return rmw2_apply_view(win, iov, niov, blocks_aligned(iov, niov, (size_t) bsz),
                           (size_t) bsz, nelem, operand, operand2, basic, op, old);
}
