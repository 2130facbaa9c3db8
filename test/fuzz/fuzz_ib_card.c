/* Fuzz target: the ib method's card parser (methods/ib/ib_card.c). */
#include "fuzz.h"
#include "ib_card.h"

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size)
{
    char *s = malloc(size + 1);
    ib_peer_t peer;

    memcpy(s, data, size);
    s[size] = '\0';     /* cards arrive as C strings (PMI values, parts of descriptions) */
    if (ib_parse_card(s, &peer))
        FUZZ_CHECK(peer.port > 0 && peer.token == strtoull(s, NULL, 16));
    free(s);
    return 0;
}
