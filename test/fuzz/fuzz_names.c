/* Fuzz target: the text decoders of src/mm_wire.c — process descriptions, method card
 * lists, port names — on strings that need not be terminated. Invariants: what a parser
 * returns points inside its input, and a found card is a NUL-terminated copy that fits. */
#include "fuzz.h"
#include "mm_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t * data, size_t size)
{
    char *s = fuzz_copy(data, size);
    uint64_t gpid, secret;
    const char *cards;
    char card[64];
    int tag;

    if (mm_wire_descr_parse(s, size, &gpid, &cards) == MM_WIRE_OK) {
        FUZZ_CHECK(cards == NULL || (cards >= s && cards < s + size && *cards == '/'));
        if (cards) {
            static const char *names[] = { "tcp", "shm", "ib", "self", "" };
            for (int i = 0; i < 5; i++)
                if (mm_wire_cards_find(cards, names[i], card, sizeof(card)) == MM_WIRE_OK)
                    FUZZ_CHECK(strlen(card) > 0 && strlen(card) < sizeof(card));
        }
    }
    if (mm_wire_port_parse(s, size, &tag, &secret, &gpid, &cards) == MM_WIRE_OK) {
        FUZZ_CHECK(tag > 0);
        FUZZ_CHECK(cards == NULL || (cards > s && cards < s + size));
    }
    free(s);
    return 0;
}
