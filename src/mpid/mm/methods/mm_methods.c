/*
 * The method registry: the one place in the engine that names methods. It brings the
 * methods listed in MPIR_CVAR_MM_METHODS up, binds each VC to the first one that can reach
 * the peer, and polls the active ones.
 */
#include "mpidimpl.h"
#include <poll.h>

/* Every method the device knows by name. Each is defined in its own folder, which this
 * build may have left out (its subconfigure.m4 found no library for it): the references
 * are weak, so such a method's address is NULL here, and naming it in MPIR_CVAR_MM_METHODS
 * is harmless (it is skipped). Adding a method: its folder, a line in each list below. */
extern const mm_method_t mm_self_method __attribute__ ((weak));
extern const mm_method_t mm_shm_method __attribute__ ((weak));
extern const mm_method_t mm_ib_method __attribute__ ((weak));
extern const mm_method_t mm_tcp_method __attribute__ ((weak));

static const struct {
    const char *name;
    const mm_method_t *method;
} method_registry[] = {
    {"self", &mm_self_method},
    {"shm", &mm_shm_method},
    {"ib", &mm_ib_method},
    {"tcp", &mm_tcp_method},
};

#define MM_METHODS_MAX (sizeof(method_registry) / sizeof(method_registry[0]))

const mm_method_t *mm_methods_active[MM_METHODS_MAX];
int mm_methods_nactive;
/* VCs bound to each active method, by position. Progress polls a method with bound VCs on
 * every call and one without only every MM_METHODS_IDLE_EVERY-th: nothing of ours waits in
 * it, but a peer may reach us through it first (a tcp connection, a shm peer's first
 * cell), which binds the VC. An idle method's poll was a fifth of an 8-byte ping-pong's
 * wait loop (perf, 2026-12-07: tcp and self polled for a job that only used shm). */
static int method_vcs[MM_METHODS_MAX];
static unsigned progress_calls;
#define MM_METHODS_IDLE_EVERY 64
/* Our own cards, by position in mm_methods_active: describing this process to another job
 * (a port name, an intercommunicator's exchange) should not need the process manager. */
static char my_cards[MM_METHODS_MAX][MM_METHOD_CARD_MAX];

/* PMI key under which process `rank` publishes its card for `method`. */
static void card_key(char *key, size_t len, const mm_method_t * method, int rank)
{
    snprintf(key, len, "mm-%s-%d", method->name, rank);
}

static int method_lookup(const char *name, size_t len, const mm_method_t ** method)
{
    for (size_t i = 0; i < MM_METHODS_MAX; i++) {
        if (strlen(method_registry[i].name) == len &&
            strncmp(method_registry[i].name, name, len) == 0) {
            *method = method_registry[i].method;
            return 1;
        }
    }
    return 0;
}

int mm_methods_cards(int lpid, char *buf, size_t len)
{
    size_t n = 0;

    for (int i = 0; i < mm_methods_nactive; i++) {
        const mm_method_t *method = mm_methods_active[i];
        char card[MM_METHOD_CARD_MAX], key[64];
        int m;

        if (!(method->caps & MM_METHOD_CAP_CARD))
            continue;
        if (lpid == MPIR_Process.rank) {
            MPL_strncpy(card, my_cards[i], sizeof(card));
        } else {
            card_key(key, sizeof(key), method, lpid);
            if (MPIR_pmi_kvs_get(lpid, key, card, sizeof(card)) != MPI_SUCCESS)
                card[0] = '\0';
        }
        if (card[0] == '\0' || strcmp(card, "-") == 0)
            continue;
        m = snprintf(buf + n, len - n, "/%s/%s", method->name, card);
        if (m < 0 || (size_t) m >= len - n)
            return -1;
        n += m;
    }
    if (len > 0)
        buf[n] = '\0';
    return (int) n;
}

int mm_methods_init(void)
{
    int mpi_errno = MPI_SUCCESS;
    const char *p = MPIR_CVAR_MM_METHODS;
    char card[MM_METHOD_CARD_MAX], key[64];

    mm_methods_nactive = 0;
    while (*p) {
        size_t len = strcspn(p, ",");
        const mm_method_t *method = NULL;

        if (len > 0) {
            int known = method_lookup(p, len, &method);
            MPIR_ERR_CHKANDJUMP2(!known, mpi_errno, MPI_ERR_OTHER, "**mm|method_unknown",
                                 "**mm|method_unknown %s %s", p, MPIR_CVAR_MM_METHODS);
            for (int i = 0; method && i < mm_methods_nactive; i++)
                if (mm_methods_active[i] == method)
                    method = NULL;      /* listed twice: the first position counts */
            if (method) {
                card[0] = '\0';
                mpi_errno = method->init(card);
                MPIR_ERR_CHECK(mpi_errno);
                MPL_strncpy(my_cards[mm_methods_nactive], card, MM_METHOD_CARD_MAX);
                mm_methods_active[mm_methods_nactive++] = method;
                /* Only this job's other processes read the card from PMI (another job's
                 * learn it from a port name). A singleton has none, and its PMI, until
                 * something makes it start a process manager, keeps a single key. */
                if ((method->caps & MM_METHOD_CAP_CARD) && MPIR_Process.size > 1) {
                    /* An empty card still goes out: peers then learn we are unreachable
                     * this way instead of waiting for a key that never comes. */
                    card_key(key, sizeof(key), method, MPIR_Process.rank);
                    mpi_errno = MPIR_pmi_kvs_put(key, card[0] ? card : "-");
                    MPIR_ERR_CHECK(mpi_errno);
                }
            }
        }
        p += len;
        if (*p == ',')
            p++;
    }
    MPIR_ERR_CHKANDJUMP1(mm_methods_nactive == 0, mpi_errno, MPI_ERR_OTHER,
                         "**mm|no_methods", "**mm|no_methods %s", MPIR_CVAR_MM_METHODS);
    /* Makes the cards and the job id (mm_vc_init) visible to every process. */
    if (MPIR_Process.size > 1) {
        mpi_errno = MPIR_pmi_barrier();
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_methods_finalize(void)
{
    int mpi_errno = MPI_SUCCESS;

    for (int i = mm_methods_nactive - 1; i >= 0; i--) {
        mpi_errno = mm_methods_active[i]->finalize();
        MPIR_ERR_CHECK(mpi_errno);
    }
    mm_methods_nactive = 0;
    memset(method_vcs, 0, sizeof(method_vcs));

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

const mm_method_t *mm_methods_atomic(void)
{
    for (int i = 0; i < mm_methods_nactive; i++)
        if (mm_methods_active[i]->caps & MM_METHOD_CAP_ATOMIC)
            return mm_methods_active[i];
    return NULL;
}

int mm_methods_bind(mm_vc_t * vc, const mm_method_t * method, const char *card)
{
    int mpi_errno = MPI_SUCCESS;

    MPIR_Assert(vc->state == MM_VC_STATE_UNBOUND);
    for (int i = 0; i < mm_methods_nactive; i++)
        if (mm_methods_active[i] == method)
            method_vcs[i]++;
    vc->method = method;
    vc->eager_limit = method->eager_limit;
    vc->eager_limit_rx = method->eager_limit;
    mpi_errno = method->connect(vc, card);
    MPIR_ERR_CHECK(mpi_errno);
    vc->eager_limit_rx = MPL_MAX(vc->eager_limit_rx, vc->eager_limit);
    vc->state = MM_VC_STATE_BOUND;
    if (MPIR_CVAR_MM_REPORT_METHODS && !vc->reported) {
        vc->reported = 1;
        if (vc->lpid < MPIR_Process.size)
            printf("mm: rank %d talks to rank %d via %s\n", MPIR_Process.rank, vc->lpid,
                   method->name);
        else
            printf("mm: rank %d talks to rank %d of job %08x via %s\n", MPIR_Process.rank,
                   MM_GPID_RANK(vc->gpid), (unsigned) MM_GPID_JOB(vc->gpid), method->name);
        fflush(stdout);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_methods_select(mm_vc_t * vc)
{
    int mpi_errno = MPI_SUCCESS;

    for (int i = 0; i < mm_methods_nactive; i++) {
        const mm_method_t *method = mm_methods_active[i];
        char card[MM_METHOD_CARD_MAX], key[64];
        const char *peer_card = NULL;

        /* self and shm decide from the PMI node map alone; the others read the peer's card,
         * published at its init, or for a process of another job, the one it described
         * itself with. */
        if ((method->caps & MM_METHOD_CAP_CARD) && vc->lpid >= MPIR_Process.size) {
            if (mm_wire_cards_find(vc->cards, method->name, card, sizeof(card)) == MM_WIRE_OK)
                peer_card = card;
        } else if (method->caps & MM_METHOD_CAP_CARD) {
            card_key(key, sizeof(key), method, vc->lpid);
            if (MPIR_pmi_kvs_get(vc->lpid, key, card, sizeof(card)) == MPI_SUCCESS &&
                strcmp(card, "-") != 0)
                peer_card = card;
        }
        if (method->can_reach(vc->lpid, peer_card)) {
            mpi_errno = mm_methods_bind(vc, method, peer_card);
            goto fn_exit;
        }
    }
    MPIR_ERR_SETANDJUMP3(mpi_errno, MPI_ERR_OTHER, "**mm|unreachable",
                         "**mm|unreachable %d %d %s", MPIR_Process.rank, vc->lpid,
                         MPIR_CVAR_MM_METHODS);

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_methods_progress(int *made_progress)
{
    int mpi_errno = MPI_SUCCESS;
    int all = (++progress_calls % MM_METHODS_IDLE_EVERY) == 0;

    for (int i = 0; i < mm_methods_nactive; i++) {
        if (method_vcs[i] == 0 && !all)
            continue;
        mpi_errno = mm_methods_active[i]->progress(made_progress);
        MPIR_ERR_CHECK(mpi_errno);
    }

  fn_exit:
    return mpi_errno;
  fn_fail:
    goto fn_exit;
}

int mm_methods_block(int timeout_ms)
{
    struct pollfd fds[MM_METHODS_MAX];
    int n = 0;

    for (int i = 0; i < mm_methods_nactive; i++) {
        int fd;

        if (mm_methods_active[i]->wait_fd == NULL)
            return 0;
        fd = mm_methods_active[i]->wait_fd();
        if (fd >= 0) {
            fds[n].fd = fd;
            fds[n].events = POLLIN;
            n++;
        }
    }
    if (n == 0)
        return 0;       /* nothing could wake us: keep polling */
    poll(fds, n, timeout_ms);
    return 1;
}
