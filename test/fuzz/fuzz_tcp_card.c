/* Fuzz target: the tcp method's card parser (methods/tcp/tcp_card.c). */
#include "fuzz.h"
#include "tcp_card.h"

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size)
{
    char *s = malloc(size + 1);
    tcp_peer_t peer;

    memcpy(s, data, size);
    s[size] = '\0';     /* cards arrive as C strings (PMI values, parts of descriptions) */
    if (tcp_parse_card(s, &peer)) {
        FUZZ_CHECK(peer.naddrs > 0 && peer.naddrs <= TCP_MAX_ADDRS);
        FUZZ_CHECK(peer.port > 0);
    }
    free(s);
    return 0;
}
