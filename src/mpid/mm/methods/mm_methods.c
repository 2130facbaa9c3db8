/*
 * The method registry: the one place in the engine that names methods. It brings the
 * methods listed in MPIR_CVAR_MM_METHODS up, binds each VC to the first one that can reach
 * the peer, and polls the active ones.
 */
#include "mpidimpl.h"
#include <poll.h>

/* Every method the device knows by name; NULL where this library was built without it. */
static const struct {
    const char *name;
    const mm_method_t *method;
} method_registry[] = {
    {"self", &mm_self_method},
    {"shm", &mm_shm_method},
    {"ib", NULL},
    {"tcp", &mm_tcp_method},
};

#define MM_METHODS_MAX (sizeof(method_registry) / sizeof(method_registry[0]))

const mm_method_t *mm_methods_active[MM_METHODS_MAX];
int mm_methods_nactive;

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

int mm_methods_init(void)
{
    int mpi_errno = MPI_SUCCESS;
    const char *p = MPIR_CVAR_MM_METHODS;
    char card[MM_METHOD_CARD_MAX], key[64];
    int published = 0;

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
                mm_methods_active[mm_methods_nactive++] = method;
                if (method->caps & MM_METHOD_CAP_CARD) {
                    /* An empty card still goes out: peers then learn we are unreachable
                     * this way instead of waiting for a key that never comes. */
                    card_key(key, sizeof(key), method, MPIR_Process.rank);
                    mpi_errno = MPIR_pmi_kvs_put(key, card[0] ? card : "-");
                    MPIR_ERR_CHECK(mpi_errno);
                    published = 1;
                }
            }
        }
        p += len;
        if (*p == ',')
            p++;
    }
    MPIR_ERR_CHKANDJUMP1(mm_methods_nactive == 0, mpi_errno, MPI_ERR_OTHER,
                         "**mm|no_methods", "**mm|no_methods %s", MPIR_CVAR_MM_METHODS);
    /* Every process runs the same method list, so all of them take this barrier or none. */
    if (published && MPIR_Process.size > 1) {
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
         * published at its init. */
        if (method->caps & MM_METHOD_CAP_CARD) {
            card_key(key, sizeof(key), method, vc->lpid);
            if (MPIR_pmi_kvs_get(vc->lpid, key, card, sizeof(card)) == MPI_SUCCESS &&
                strcmp(card, "-") != 0)
                peer_card = card;
        }
        if (method->can_reach(vc->lpid, peer_card)) {
            vc->method = method;
            vc->eager_limit = method->eager_limit;
            mpi_errno = method->connect(vc, peer_card);
            MPIR_ERR_CHECK(mpi_errno);
            vc->state = MM_VC_STATE_BOUND;
            if (MPIR_CVAR_MM_REPORT_METHODS && !vc->reported) {
                vc->reported = 1;
                printf("mm: rank %d talks to rank %d via %s\n", MPIR_Process.rank, vc->lpid,
                       method->name);
                fflush(stdout);
            }
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

    for (int i = 0; i < mm_methods_nactive; i++) {
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
