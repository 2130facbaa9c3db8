/*
 * Parser of the ib method's business card (ib_card.h). Pure: test/fuzz builds it alone.
 */
#include "ib_card.h"
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

int ib_parse_card(const char *card, ib_peer_t * peer)
{
    char addr[16];
    unsigned long long token;
    unsigned port;
    int end = -1;

    memset(peer, 0, sizeof(*peer));
    if (card == NULL || strnlen(card, IB_CARD_MAX) >= IB_CARD_MAX)
        return 0;
    /* exactly 16 hex digits, a decimal port, a dotted quad, and nothing after it */
    if (strspn(card, "0123456789abcdef") != 16 || card[16] != ':')
        return 0;
    if (sscanf(card, "%16llx:%5u:%15[0-9.]%n", &token, &port, addr, &end) != 3 ||
        end < 0 || card[end] != '\0')
        return 0;
    if (port == 0 || port > 65535 || inet_pton(AF_INET, addr, &peer->addr) != 1)
        return 0;
    peer->token = token;
    peer->port = (uint16_t) port;
    return 1;
}
