/*
 * Parser of the tcp method's business card (tcp_card.h). Pure: test/fuzz builds it alone.
 */
#include "tcp_card.h"
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

int tcp_parse_card(const char *card, tcp_peer_t * peer)
{
    char buf[TCP_CARD_MAX];
    char *save = NULL, *tok, *port, *addrs, *end;
    unsigned long long token;
    long p;

    memset(peer, 0, sizeof(*peer));
    if (card == NULL || strnlen(card, sizeof(buf)) >= sizeof(buf))
        return 0;
    memcpy(buf, card, strlen(card) + 1);
    tok = strtok_r(buf, ":", &save);
    port = strtok_r(NULL, ":", &save);
    addrs = strtok_r(NULL, ":", &save);
    if (!tok || !port || !addrs || strlen(tok) != 16)
        return 0;
    token = strtoull(tok, &end, 16);
    if (*end != '\0')
        return 0;
    p = strtol(port, &end, 10);
    if (*end != '\0' || p <= 0 || p > 65535)
        return 0;
    peer->token = token;
    peer->port = (uint16_t) p;
    for (char *a = strtok_r(addrs, ",", &save); a && peer->naddrs < TCP_MAX_ADDRS;
         a = strtok_r(NULL, ",", &save)) {
        if (inet_pton(AF_INET, a, &peer->addrs[peer->naddrs]) == 1)
            peer->naddrs++;
    }
    return peer->naddrs > 0;
}
